#!/usr/bin/env node
// Serves a folder of skills with the official TypeScript SDK v2 Skills
// extension (SEP-2640, @modelcontextprotocol/server/ext/skills) over Streamable
// HTTP on loopback. Test fixture for the Go client; not production code.
//
// Usage:
//   node skills-server.mjs SKILLS_ROOT PORT [PAGE_SIZE] [--prefix=a/b]
//                          [--ttl-ms=N] [--cache-scope=public|private]
//                          [--legacy=stateless|reject]
//
//   SKILLS_ROOT  folder of skill folders, each holding a SKILL.md
//   PORT         TCP port on 127.0.0.1; 0 picks a free one
//   PAGE_SIZE    entries per skills/list (and resources/directory/read) page;
//                default 100 (the SDK default)
//   --prefix     organisational prefix: skill://<prefix>/<skill>/...
//   --ttl-ms, --cache-scope
//                cache hint sent as ttlMs/cacheScope on 2026-07-28 results
//                (SDK default 0/private). Never sent on 2025-era results.
//   --legacy     how 2025-era (initialize-handshake) traffic is served:
//                stateless (default) or reject (2026-07-28 only)
//
// When ready, prints exactly one line to stdout:
//   LISTENING http://127.0.0.1:PORT/mcp
// and serves until killed (SIGINT/SIGTERM close it cleanly). SDK warnings go
// to stderr.

import { resolve } from 'node:path';
import { serve } from '@hono/node-server';
import {
    McpServer,
    createMcpHandler,
    hostHeaderValidationResponse,
    localhostAllowedHostnames,
} from '@modelcontextprotocol/server';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';

function usage(message) {
    process.stderr.write(`skills-server: ${message}\n` +
        'usage: node skills-server.mjs SKILLS_ROOT PORT [PAGE_SIZE] [--prefix=P] [--ttl-ms=N] [--cache-scope=public|private] [--legacy=stateless|reject]\n');
    process.exit(2);
}

const positional = [];
const flags = {};
for (const arg of process.argv.slice(2)) {
    const m = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (m) flags[m[1]] = m[2];
    else if (arg.startsWith('--')) usage(`unknown flag ${arg}`);
    else positional.push(arg);
}
if (positional.length < 2 || positional.length > 3) usage('need SKILLS_ROOT and PORT');
const root = resolve(positional[0]);
const port = Number(positional[1]);
if (!Number.isInteger(port) || port < 0 || port > 65535) usage(`bad PORT ${positional[1]}`);
let pageSize;
if (positional[2] !== undefined) {
    pageSize = positional[2] === 'Infinity' ? Number.POSITIVE_INFINITY : Number(positional[2]);
    if (pageSize !== Number.POSITIVE_INFINITY && !(Number.isSafeInteger(pageSize) && pageSize > 0)) {
        usage(`bad PAGE_SIZE ${positional[2]}`);
    }
}
let cacheHint;
if (flags['ttl-ms'] !== undefined || flags['cache-scope'] !== undefined) {
    cacheHint = {
        ttlMs: Number(flags['ttl-ms'] ?? 0),
        cacheScope: flags['cache-scope'] ?? 'private',
    };
}
const legacy = flags.legacy ?? 'stateless';
if (legacy !== 'stateless' && legacy !== 'reject') usage(`bad --legacy ${legacy}`);

// One catalog, loaded once; attached to every per-request McpServer.
const catalog = await loadSkills(root, {
    ...(pageSize === undefined ? {} : { pageSize }),
    ...(flags.prefix === undefined ? {} : { prefix: flags.prefix }),
    ...(cacheHint === undefined ? {} : { cacheHint }),
});

// createMcpHandler calls the factory once per HTTP request (both eras), so
// each request gets a fresh McpServer with the catalog attached.
const handler = createMcpHandler(
    () => {
        const mcp = new McpServer({ name: 'interop-skills-server', version: '0.0.0' });
        catalog.attach(mcp);
        return mcp;
    },
    { legacy },
);

const httpServer = serve(
    {
        hostname: '127.0.0.1',
        port,
        fetch: async (request) => {
            const url = new URL(request.url);
            if (url.pathname !== '/mcp') return new Response('not found\n', { status: 404 });
            const rejected = hostHeaderValidationResponse(request, localhostAllowedHostnames());
            return rejected ?? handler.fetch(request);
        },
    },
    (info) => {
        process.stdout.write(`LISTENING http://127.0.0.1:${info.port}/mcp\n`);
    },
);

let closing = false;
function shutdown() {
    if (closing) return;
    closing = true;
    handler.close().finally(() => {
        httpServer.close(() => process.exit(0));
        httpServer.closeAllConnections?.();
    });
    setTimeout(() => process.exit(0), 2000).unref();
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
