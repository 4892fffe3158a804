#!/usr/bin/env node
// Drives an MCP server started over stdio (such as `wellknown serve`) with the official
// TypeScript SDK v2 client (@modelcontextprotocol/client), declaring the elicitation
// capability: it lists the tools, then calls TOOL with ARGS (a JSON object), answering
// every elicitation request with ANSWER:
//
//   accept   accept, with every boolean field of the requested form set to true
//   decline  decline
//   cancel   dismiss the question
//   none     declare no elicitation capability at all
//
// ERA is "legacy" (protocol 2025-era, the SDK's default: the server sends
// elicitation/create during the call) or "auto" (negotiates 2026-07-28 when the server
// offers it: the question comes back as an input request of the tool result, and the
// SDK calls again with the answer).
//
// It prints one JSON object on stdout: {protocol (the negotiated version), tools: [{name, annotations}], elicitations:
// [{message, requestedSchema}], result: {isError, text}}. The SDK validates the
// requested schema and the answer; any failure exits 1 with the reason on stderr.
//
// Usage: node elicit-client.mjs ANSWER ERA TOOL ARGS -- COMMAND [COMMAND_ARGS...]

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const argv = process.argv.slice(2);
const sep = argv.indexOf('--');
if (sep !== 4 || argv.length < 6) {
    process.stderr.write('usage: node elicit-client.mjs accept|decline|cancel|none legacy|auto TOOL ARGS -- COMMAND [ARGS...]\n');
    process.exit(2);
}
const [answer, era, tool, args] = argv;
const [command, ...commandArgs] = argv.slice(sep + 1);

const elicitations = [];
const client = new Client(
    { name: 'interop-elicit-client', version: '0.0.0' },
    {
        capabilities: answer === 'none' ? {} : { elicitation: {} },
        versionNegotiation: { mode: era },
    },
);
if (answer !== 'none') {
    client.setRequestHandler('elicitation/create', async (request) => {
        const { message, requestedSchema } = request.params;
        elicitations.push({ message, requestedSchema });
        if (answer !== 'accept') {
            return { action: answer };
        }
        const content = {};
        for (const [key, prop] of Object.entries(requestedSchema?.properties ?? {})) {
            if (prop.type === 'boolean') {
                content[key] = true;
            }
        }
        return { action: 'accept', content };
    });
}

try {
    await client.connect(new StdioClientTransport({ command, args: commandArgs, env: process.env, stderr: 'inherit' }));
    const tools = [];
    let cursor;
    do {
        const page = await client.listTools(cursor ? { cursor } : {});
        for (const t of page.tools) {
            tools.push({ name: t.name, annotations: t.annotations ?? null });
        }
        cursor = page.nextCursor;
    } while (cursor);
    const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
    const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');
    process.stdout.write(`${JSON.stringify({ protocol: client.getNegotiatedProtocolVersion(), tools, elicitations, result: { isError: result.isError === true, text } })}\n`);
} catch (error) {
    process.stderr.write(`elicit-client: ${error?.stack ?? error}\n`);
    process.exitCode = 1;
} finally {
    await client.close();
}
