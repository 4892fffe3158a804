#!/usr/bin/env node
// Probes a skills server (e.g. skills-server.mjs) with the official TypeScript
// SDK v2 client and prints every HTTP exchange (request body, response status,
// response body) so the wire format can be read off.
//
// Usage: node probe.mjs URL [legacy|modern]
//   legacy (default): 2025-11-25 `initialize` handshake
//   modern:           2026-07-28 `server/discover` + per-request _meta envelope
//
// Steps: connect; skills/list (all pages); skills/get (known and unknown);
// resources/read of SKILL.md, of references/RULES.md and of an unknown file;
// resources/directory/read of the skill root and of references/ when declared.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';

const [url, era = 'legacy'] = process.argv.slice(2);
if (!url || !['legacy', 'modern'].includes(era)) {
    process.stderr.write('usage: node probe.mjs URL [legacy|modern]\n');
    process.exit(2);
}

function show(label, value) {
    process.stdout.write(`${label} ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
}

// Log every exchange on the wire.
const loggingFetch = async (input, init) => {
    const method = init?.method ?? 'GET';
    const headers = new Headers(init?.headers);
    const pv = headers.get('mcp-protocol-version');
    show('>>>', `${method}${pv ? ` [MCP-Protocol-Version: ${pv}]` : ''} ${typeof init?.body === 'string' ? init.body : ''}`);
    const response = await fetch(input, init);
    const body = await response.clone().text();
    const oneLine = body.replace(/\r?\n/g, '\\n');
    show('<<<', `${response.status} ${response.headers.get('content-type') ?? ''} ${oneLine}`);
    return response;
};

const client = new Client(
    { name: 'interop-probe', version: '0.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
);
const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: loggingFetch });

async function step(name, fn) {
    show('\n###', name);
    try {
        const result = await fn();
        show('RESULT', result);
        return result;
    } catch (error) {
        show('ERROR', { name: error?.name, code: error?.code, message: error?.message, data: error?.data });
        return undefined;
    }
}

await step('connect', async () => {
    await client.connect(transport);
    return { serverCapabilities: client.getServerCapabilities(), serverVersion: client.getServerVersion() };
});

const skills = new SkillsClient(client);
show('SUPPORTED', { supported: skills.supported, directoryRead: skills.directoryRead });

const listing = await step('skills/list (all pages)', () => skills.list());

const first = listing?.skills?.find((s) => s.frontmatter.name === 'invoice-check') ?? listing?.skills?.[0];
if (first) {
    await step(`skills/get ${first.uri}`, () => skills.get(first.uri));
    const root = first.uri.slice(0, -'/SKILL.md'.length);
    await step('skills/get unknown', () => skills.get(`${root}-nope/SKILL.md`));
    await step('resources/read SKILL.md (verified by SkillsClient)', () => skills.read(first).then(
        (f) => ({ ...f, bytes: `<${f.bytes.length} bytes>` })));
    if (first.resources !== 'dynamic' && first.resources.length > 1) {
        await step('resources/read references/RULES.md (verified)', () => skills.read(first, 'references/RULES.md').then(
            (f) => ({ ...f, bytes: `<${f.bytes.length} bytes>` })));
    }
    await step('resources/read raw SKILL.md', () => client.readResource({ uri: first.uri }));
    await step('resources/read unknown file', () => client.readResource({ uri: `${root}/references/NOPE.md` }));
    await step('resources/read unknown skill', () => client.readResource({ uri: `${root}-nope/SKILL.md` }));
    await step('resources/read of a directory', () => client.readResource({ uri: `${root}/references` }));
    if (skills.directoryRead) {
        await step(`resources/directory/read ${root}`, () => skills.readDirectory(root));
        await step(`resources/directory/read ${root}/references`, () => skills.readDirectory(`${root}/references`));
        await step('resources/directory/read of a file', () => skills.readDirectory(first.uri));
    }
    await step('resources/list', () => client.listResources());
    await step('resources/templates/list', () => client.listResourceTemplates());
}

await client.close();
