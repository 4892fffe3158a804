#!/usr/bin/env node
// Reads one whole skill from an MCP server over Streamable HTTP with the official
// TypeScript SDK v2's SkillsClient (@modelcontextprotocol/client/ext/skills): lists
// the skills (every page), then reads every file the skill's entry lists with
// SkillsClient.read, which checks each file against the entry (listed, size, SHA-256
// digest, and the SKILL.md frontmatter) before returning it. The side-by-side
// harness in compare/ runs it as a fresh process against the same servers as the
// Go client (docs/comparison.md, "MCP skill reads").
//
// Usage: node read-skill.mjs URL NAME [IN_FLIGHT [PROTOCOL]]
//
//   URL        the server's Streamable HTTP endpoint
//   NAME       the skill to read (its frontmatter name)
//   IN_FLIGHT  reads in flight at once; default 1 (one after the other, as a
//              loop over SkillsClient.read does)
//   PROTOCOL   2026-07-28 (pinned, through server/discover), 2025-11-25 (the
//              legacy initialize handshake, the SDK's default) or auto; default
//              2026-07-28
//
// Prints one JSON line on stdout: {"protocol", "files", "bytes", "requests"}
// (requests: HTTP requests sent, counted by the transport's fetch). Any failure,
// a file that does not verify included, exits 1 with the reason on stderr.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';

const [url, name, inFlightArg = '1', protocol = '2026-07-28'] = process.argv.slice(2);
const inFlight = Number(inFlightArg);
if (!url || !name || !(Number.isSafeInteger(inFlight) && inFlight > 0)) {
    process.stderr.write('usage: node read-skill.mjs URL NAME [IN_FLIGHT [PROTOCOL]]\n');
    process.exit(2);
}
const mode = protocol === 'auto' ? 'auto' : protocol === '2025-11-25' ? 'legacy' : { pin: protocol };

let requests = 0;
const counting = (input, init) => {
    requests++;
    return fetch(input, init);
};

const client = new Client({ name: 'interop-read-skill', version: '0.0.0' }, { versionNegotiation: { mode } });
try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: counting }));
    const skills = new SkillsClient(client);
    const { skills: entries } = await skills.list();
    const entry = entries.find((e) => e.frontmatter?.name === name);
    if (entry === undefined) throw new Error(`no skill named ${name}`);
    if (!Array.isArray(entry.resources)) throw new Error(`skill ${name} lists no files`);
    const uris = entry.resources.map((r) => r.uri);
    let files = 0;
    let bytes = 0;
    let next = 0;
    const worker = async () => {
        while (next < uris.length) {
            const file = await skills.read(entry, uris[next++]);
            if (!file.verified) throw new Error(`${file.uri} was not verified`);
            files++;
            bytes += file.bytes.byteLength;
        }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, uris.length) }, worker));
    process.stdout.write(`${JSON.stringify({ protocol: client.getNegotiatedProtocolVersion(), files, bytes, requests })}\n`);
} catch (error) {
    process.stderr.write(`read-skill: ${error?.stack ?? error}\n`);
    process.exitCode = 1;
} finally {
    await client.close();
}
