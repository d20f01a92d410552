/**
 * A server reached over streamable HTTP: the SDK's own server transport on a node:http server on 127.0.0.1, one
 * stateless server per request (as the SDK's examples do), so nothing leaves this machine.
 */
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseMcpConfig } from 'kit/mcp/config';
import { McpServers } from 'kit/mcp/servers';
import { callTurn, resultOf, runAgent, toolInfo } from './fixtures.js';

const seen: IncomingHttpHeaders[] = [];
let http: HttpServer;
let url = '';
beforeAll(async () => {
  http = createServer(async (req, res) => {
    seen.push(req.headers);
    const server = new Server({ name: 'web', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [toolInfo('whoami', [], { annotations: { readOnlyHint: true } })] }));
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: `you are ${req.headers.authorization ?? 'nobody'}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(() => {
  http.closeAllConnections();
  http.close();
});

describe('a server over streamable HTTP (src/mcp/client.ts: McpConnection.connect)', () => {
  test('the .mcp.json headers go with every request, and the tools work like a stdio server\'s', async () => {
    const servers = parseMcpConfig({ mcpServers: { web: { type: 'http', url, headers: { Authorization: 'Bearer ${WEB_TOKEN}' } } } }, { WEB_TOKEN: 't0ken' });
    const hub = await McpServers.start(servers, { startupTimeoutMs: 3000 });
    try {
      expect(hub.failures, 'McpConnection.connect: the HTTP server starts like any other').toEqual([]);
      const tools = await hub.tools();
      expect(tools.map((t) => [t.name, t.readOnly]), 'mcpTool: the same names and hints over HTTP').toEqual([['mcp__web__whoami', true]]);
      const { history } = await runAgent(tools, [callTurn(['c1', 'mcp__web__whoami', {}])]);
      expect(resultOf(history, 'c1').content, 'the header reached the server with the call').toBe('you are Bearer t0ken');
      expect(seen.length, 'initialize, initialized, tools/list and tools/call were posted').toBeGreaterThanOrEqual(3);
      expect(seen.every((h) => h.authorization === 'Bearer t0ken'), 'every request carries the configured header').toBe(true);
    } finally {
      await hub.close();
    }
  });
});
