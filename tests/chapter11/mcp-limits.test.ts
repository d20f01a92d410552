/**
 * Chapter 11: a server is trusted only as far as the person says (src/mcp/client.ts listTools, src/mcp/servers.ts
 * toolsOf, src/mcp/adapter.ts mcpTool). Its tools/list may never end, its input schemas may be huge, and its
 * readOnlyHint is only a claim.
 */
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, test } from 'vitest';
import { MAX_TOOL_PAGES } from 'kit/mcp/client';
import { McpServers, MAX_SCHEMA_CHARS } from 'kit/mcp/servers';
import { createPermissionGate } from 'kit/permissions/gate';
import { ToolSet } from 'kit/tool';
import { fakeServer, toolInfo } from './fixtures.js';

const started: McpServers[] = [];
afterAll(async () => {
  for (const hub of started.splice(0)) await hub.close();
});

/** McpServers.start, throwing the first start failure (a stub's TODO among them) as it is. */
async function start(...args: Parameters<typeof McpServers.start>): Promise<McpServers> {
  const hub = await McpServers.start(...args);
  started.push(hub);
  if (hub.failures.length > 0) throw new Error(hub.failures.map((failure) => failure.error).join('\n'));
  return hub;
}

/** A server whose tools/list always has a next page (up to `pages`, so a client that never stops still ends here). */
function endlessPages(pages: number) {
  let asked = 0;
  const factory = () => {
    const [client, side] = InMemoryTransport.createLinkedPair();
    const server = new Server({ name: 'endless', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => {
      asked++;
      return { tools: [toolInfo(`tool${asked}`)], ...(asked < pages ? { nextCursor: `page${asked}` } : {}) };
    });
    void server.connect(side);
    return client;
  };
  return { factory, asked: () => asked };
}

describe('MCP servers are bounded (src/mcp/client.ts, src/mcp/servers.ts)', () => {
  test('a tools/list that keeps paginating is stopped after MAX_TOOL_PAGES pages, with a message that says so', async () => {
    const endless = endlessPages(MAX_TOOL_PAGES * 20);
    const hub = await start({ endless: endless.factory });
    const tools = await hub.tools();
    expect(endless.asked(), 'listTools stops asking after MAX_TOOL_PAGES pages').toBeLessThanOrEqual(
      MAX_TOOL_PAGES + 1,
    );
    expect(tools, 'a server whose listing was stopped offers no tools').toEqual([]);
    expect(hub.failures.map((f) => f.error).join('\n'), 'the failure says the listing was stopped, and why').toMatch(
      /more than \d+ pages/,
    );
  });

  test('a tool with a huge input schema is left out, and named', async () => {
    const huge = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 5000 }, (_, i) => [`field${i}`, { type: 'string', description: 'x'.repeat(20) }]),
      ),
    };
    expect(JSON.stringify(huge).length).toBeGreaterThan(MAX_SCHEMA_CHARS);
    const docs = fakeServer([
      { info: toolInfo('small', ['path']) },
      { info: { ...toolInfo('huge'), inputSchema: huge as never } },
    ]);
    const hub = await start({ docs: docs.factory });
    const tools = await hub.tools();
    expect(
      tools.map((t) => t.name),
      'mcpTool: the small tool is offered, the huge one is not',
    ).toEqual(['mcp__docs__small']);
    expect(hub.failures.map((f) => f.error).join('\n'), 'the huge tool is named, with its size').toMatch(
      /"huge" left out: its input schema is \d+ characters/,
    );
  });

  test('readOnlyHint lets no call run unasked: in default mode it is asked about, in plan mode refused', async () => {
    const claims = fakeServer([{ info: toolInfo('writes_anyway', [], { annotations: { readOnlyHint: true } }) }]);
    const hub = await start({ mine: claims.factory });
    const tools = new ToolSet(await hub.tools());
    expect(
      [...tools].map((t) => [t.name, t.readOnly]),
      'mcpTool: a tool is not read-only because its server says readOnlyHint: true (a claim, wherever the server was configured) (guided step 3)',
    ).toEqual([['mcp__mine__writes_anyway', false]]);
    const call = { type: 'tool_call' as const, id: 'c1', name: 'mcp__mine__writes_anyway', arguments: {} };
    const asked: string[] = [];
    const ctx = { signal: new AbortController().signal, turn: 1, history: [], emit: () => {}, tools };
    const decisions = [];
    for (const mode of ['default', 'plan'] as const) {
      const gate = createPermissionGate({
        workspace: { root: process.cwd(), home: process.cwd() },
        mode,
        ask: async (request) => {
          asked.push(`${mode}: ${request.call.name}`);
          return 'reject_once';
        },
      });
      decisions.push([mode, (await gate.beforeToolCall(call, ctx)).type]);
    }
    expect(
      { decisions, asked },
      "mcpTool: the gate reads Tool.readOnly, so a server's claim must not make it true: asked in default mode, refused in plan mode (guided step 3)",
    ).toEqual({
      decisions: [
        ['default', 'block'],
        ['plan', 'block'],
      ],
      asked: ['default: mcp__mine__writes_anyway'],
    });
  });
});
