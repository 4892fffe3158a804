#!/usr/bin/env node
// Reference client for the SEP-2640 client scenarios of
// @modelcontextprotocol/conformance, built on the official TypeScript SDK v2
// SkillsClient. It shows what a passing client does; the Go client's
// conformance command should behave the same way.
//
// The harness runs: <command> <serverUrl>  (URL appended as the LAST argument)
// with MCP_CONFORMANCE_SCENARIO set to the scenario name.
//
//   sep-2640-client-no-prefetch: connect, skills/list, read nothing, exit 0.
//   sep-2640-client-verify-*:    connect, skills/list, load the first skill
//       (resources/read SKILL.md + verify size, digest, frontmatter). If it
//       verifies, read its other files; if not, read nothing more, exit 1.
//
// INTEROP_UNSAFE=1 skips verification (reads every listed file without
// checking), to show what a failing run looks like.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient, SkillVerificationError } from '@modelcontextprotocol/client/ext/skills';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const unsafe = process.env.INTEROP_UNSAFE === '1';
const log = (...a) => process.stderr.write(`[conformance-client] ${a.join(' ')}\n`);

const client = new Client(
    { name: 'interop-conformance-client', version: '0.0.0' },
    { versionNegotiation: { mode: 'auto' } },
);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const skills = new SkillsClient(client);
log(`scenario=${scenario} url=${url} skills.supported=${skills.supported}`);

const { skills: entries } = await skills.list();
log(`listed ${entries.length} skill(s): ${entries.map((s) => s.uri).join(', ')}`);

let exitCode = 0;
if (scenario === 'sep-2640-client-no-prefetch') {
    // Listing only: nothing is loaded, so nothing is read.
} else if (entries.length > 0) {
    const skill = entries[0];
    const others = skill.resources === 'dynamic' ? [] : skill.resources.filter((r) => r.uri !== skill.uri);
    if (unsafe) {
        for (const r of [{ uri: skill.uri }, ...others]) await client.readResource({ uri: r.uri });
        log('UNSAFE: read every file without verification');
    } else {
        try {
            const manifest = await skills.read(skill);
            log(`loaded ${skill.uri} (${manifest.bytes.length} bytes, verified)`);
            for (const r of others) {
                const f = await skills.read(skill, r.uri);
                log(`read ${f.uri} (${f.bytes.length} bytes, verified)`);
            }
        } catch (error) {
            if (!(error instanceof SkillVerificationError)) throw error;
            log(`REFUSED ${error.uri}: ${error.reason}: ${error.message}`);
            exitCode = 1;
        }
    }
}
await client.close();
process.exit(exitCode);
