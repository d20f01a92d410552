/**
 * A server reached over streamable HTTP, on a node:http server on 127.0.0.1 so nothing leaves this machine: once on
 * the v1 SDK's server transport (one stateless server per request, as its examples do), once on the v2 server
 * package's web-standard handler (createMcpHandler, whose default serves a 2025-era client statelessly).
 */
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { parseMcpConfig } from 'kit/mcp/config';
import { McpServers } from 'kit/mcp/servers';
import { REAL_SERVER_MS } from '../helpers/limits.js';
import { callTurn, resultOf, runAgent, toolInfo } from './fixtures.js';

const seen: IncomingHttpHeaders[] = [];
let http: HttpServer;
let url = '';
beforeAll(async () => {
  http = createServer(async (req, res) => {
    seen.push(req.headers);
    const server = new Server({ name: 'web', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [toolInfo('whoami', [], { annotations: { readOnlyHint: true } })],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({
      content: [{ type: 'text', text: `you are ${req.headers.authorization ?? 'nobody'}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

// The v2 server: every request handed to createMcpHandler as a web Request, its Response written back.
const seenV2: Array<string | undefined> = [];
let httpV2: HttpServer;
let urlV2 = '';
beforeAll(async () => {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'web-v2', version: '2.4.0' }, { capabilities: { tools: {} } });
    server.registerTool(
      'shout',
      {
        description: 'Upper-cases its text',
        inputSchema: z.object({ text: z.string() }),
        annotations: { readOnlyHint: true },
      },
      async ({ text }) => ({
        content: [{ type: 'text', text: text.toUpperCase() }],
      }),
    );
    return server;
  });
  httpV2 = createServer(async (req, res) => {
    seenV2.push(req.headers['x-team']?.toString());
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const request = new Request(`${urlV2}`, {
      method: req.method,
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  });
  await new Promise<void>((resolve) => httpV2.listen(0, '127.0.0.1', resolve));
  urlV2 = `http://127.0.0.1:${(httpV2.address() as AddressInfo).port}/mcp`;
});

afterAll(() => {
  for (const server of [http, httpV2]) {
    server.closeAllConnections();
    server.close();
  }
});

describe('a server over streamable HTTP (src/mcp/client.ts: McpConnection.connect)', () => {
  test("the .mcp.json headers go with every request, and the tools work like a stdio server's", async () => {
    const servers = parseMcpConfig(
      { mcpServers: { web: { type: 'http', url, headers: { Authorization: 'Bearer ${WEB_TOKEN}' } } } },
      { WEB_TOKEN: 't0ken' },
    );
    const hub = await McpServers.start(servers, { startupTimeoutMs: REAL_SERVER_MS });
    try {
      expect(hub.failures, 'McpConnection.connect: the HTTP server starts like any other').toEqual([]);
      const tools = await hub.tools();
      expect(
        tools.map((t) => [t.name, t.readOnly]),
        'mcpTool: the same names over HTTP, and its readOnlyHint is only a claim (not read-only)',
      ).toEqual([['mcp__web__whoami', false]]);
      const { history } = await runAgent(tools, [callTurn(['c1', 'mcp__web__whoami', {}])]);
      expect(resultOf(history, 'c1').content, 'the header reached the server with the call').toBe(
        'you are Bearer t0ken',
      );
      expect(seen.length, 'initialize, initialized, tools/list and tools/call were posted').toBeGreaterThanOrEqual(3);
      expect(
        seen.every((h) => h.authorization === 'Bearer t0ken'),
        'every request carries the configured header',
      ).toBe(true);
    } finally {
      await hub.close();
    }
  });
});

describe('a v2 server over streamable HTTP (src/mcp/client.ts: McpConnection.connect)', () => {
  test("the v2 server package's HTTP handler: the tools work, and the headers go with every request", async () => {
    const servers = parseMcpConfig(
      { mcpServers: { web2: { type: 'http', url: urlV2, headers: { 'X-Team': 'kit' } } } },
      {},
    );
    const hub = await McpServers.start(servers, { startupTimeoutMs: REAL_SERVER_MS });
    try {
      expect(hub.failures, 'McpConnection.connect: a v2 HTTP server starts like any other').toEqual([]);
      const tools = await hub.tools();
      expect(
        tools.map((t) => [t.name, t.readOnly]),
        'mcpTool: names from a v2 server, and its readOnlyHint is only a claim (not read-only)',
      ).toEqual([['mcp__web2__shout', false]]);
      const { history } = await runAgent(tools, [callTurn(['c1', 'mcp__web2__shout', { text: 'hello' }])]);
      expect(resultOf(history, 'c1').content).toBe('HELLO');
      expect(seenV2.length, 'initialize, initialized, tools/list and tools/call were posted').toBeGreaterThanOrEqual(3);
      expect(
        seenV2.every((team) => team === 'kit'),
        'every request carries the configured header',
      ).toBe(true);
    } finally {
      await hub.close();
    }
  });
});
