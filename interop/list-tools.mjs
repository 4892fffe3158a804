#!/usr/bin/env node
// Lists the tools of an MCP server over Streamable HTTP with the official TypeScript
// SDK v2 client (@modelcontextprotocol/client), following cursors, and prints their
// names as one JSON array on stdout.
//
// With TOOL (and ARGS, a JSON object, default {}), it then calls that tool: the SDK
// compiles the tool's output schema (Ajv, by its $schema dialect) and validates the
// structuredContent against it, so a schema it cannot compile, a result that does not
// match, or an error result exits 1 with the reason on stderr.
//
// Usage: node list-tools.mjs URL [TOOL [ARGS]]

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, tool, args = '{}'] = process.argv.slice(2);
if (!url) {
    process.stderr.write('usage: node list-tools.mjs URL [TOOL [ARGS]]\n');
    process.exit(2);
}

const client = new Client({ name: 'interop-list-tools', version: '0.0.0' });
try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const names = [];
    let cursor;
    do {
        const page = await client.listTools(cursor ? { cursor } : {});
        for (const t of page.tools) {
            if (t.inputSchema?.type !== 'object') {
                throw new Error(`tool ${t.name}: input schema is not an object schema`);
            }
            names.push(t.name);
        }
        cursor = page.nextCursor;
    } while (cursor);
    process.stdout.write(`${JSON.stringify(names)}\n`);
    if (tool) {
        const result = await client.callTool({ name: tool, arguments: JSON.parse(args) });
        if (result.isError) {
            throw new Error(`tool ${tool} returned an error: ${JSON.stringify(result.content)}`);
        }
        if (result.structuredContent === undefined) {
            throw new Error(`tool ${tool} returned no structuredContent`);
        }
    }
} catch (error) {
    process.stderr.write(`list-tools: ${error?.stack ?? error}\n`);
    process.exitCode = 1;
} finally {
    await client.close();
}
