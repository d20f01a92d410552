/**
 * The learner's client against a real MCP server nobody on the team wrote: @modelcontextprotocol/server-everything,
 * started once for the file over stdio with `node <its bin script> stdio`.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/client';
import type { AgentEvent } from 'kit/agent-events';
import { Agent } from 'kit/agent';
import { assistantText, type Message } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import type { StdioServerConfig } from 'kit/mcp/config';
import { ToolSet } from 'kit/tool';
import { alive, callTurn, gone, resultOf, runAgent, sharedServers } from './fixtures.js';

const require = createRequire(import.meta.url);
const bin = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const config: StdioServerConfig = { type: 'stdio', command: process.execPath, args: [bin, 'stdio'], env: {} };

// Started once, on first use, for every test of the file. A failure (a stub not written yet) fails each test that
// needs the server, with the same error.
const everything = sharedServers({ everything: config });

describe('server-everything over stdio (src/mcp/client.ts, src/mcp/adapter.ts)', () => {
  test('its tools are listed with namespaced names and the schema it gave, none read-only whatever it claims', async () => {
    const { tools } = await everything();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()], 'mcpTool: mcp__everything__<tool> for each of its tools (guided step 1)').toEqual(
      expect.arrayContaining([
        'mcp__everything__echo',
        'mcp__everything__get-sum',
        'mcp__everything__toggle-simulated-logging',
      ]),
    );
    expect(
      byName.get('mcp__everything__echo')!.readOnly,
      'mcpTool: echo says readOnlyHint: true, a claim: it is still not read-only (guided step 3)',
    ).toBe(false);
    expect(
      byName.get('mcp__everything__toggle-simulated-logging')!.readOnly,
      'mcpTool: readOnlyHint: false (guided step 3)',
    ).toBe(false);
    const echo = new ToolSet([byName.get('mcp__everything__echo')!]).definitions()[0]!;
    expect(echo.inputSchema, "mcpTool: the server's schema, as it is (guided step 2)").toMatchObject({
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' } },
    });
  });

  test('the agent calls echo and get-sum and reads their answers', async () => {
    const { tools } = await everything();
    const { history, done } = await runAgent(tools, [
      callTurn(
        ['c1', 'mcp__everything__echo', { message: 'hi there' }],
        ['c2', 'mcp__everything__get-sum', { a: 2, b: 3 }],
      ),
    ]);
    expect(
      resultOf(history, 'c1'),
      'McpConnection.callTool and toolResultText: echo answers "Echo: <message>"',
    ).toMatchObject({ content: 'Echo: hi there', isError: false });
    expect(resultOf(history, 'c2').content, 'get-sum').toBe('The sum of 2 and 3 is 5.');
    expect(done.reason).toBe('end_turn');
    expect(history).toBeValidHistory('after calls to server-everything');
  });

  test('an image result is described, not pasted; bad arguments are refused by the kit before the server sees them', async () => {
    const { tools } = await everything();
    const { history } = await runAgent(tools, [
      callTurn(['c1', 'mcp__everything__get-tiny-image', {}], ['c2', 'mcp__everything__get-sum', { a: 'two', b: 3 }]),
    ]);
    expect(
      resultOf(history, 'c1').content,
      'toolResultText: the image is described by type and size (guided step 1)',
    ).toMatch(/^Here's the image you requested:\n\[image: image\/png, [\d.]+ (bytes|kB)\]/);
    expect(resultOf(history, 'c1').content.length, 'toolResultText: no base64 for the model').toBeLessThan(300);
    expect(resultOf(history, 'c2'), 'jsonSchemaInput: a string for a number is an error result').toMatchObject({
      isError: true,
    });
    expect(
      resultOf(history, 'c2').content,
      'jsonSchemaInput: the kit\'s check answered (the server\'s own would say "MCP error -32602")',
    ).not.toMatch(/-32602/);
    expect(resultOf(history, 'c2').content, 'jsonSchemaInput: the field is named').toMatch(/\ba\b/);
    expect(history).toBeValidHistory('after an image and refused arguments');
  });

  test('a v1-SDK server: the same revision is agreed; its question that needs typed answers is declined; its progress arrives before the result', async () => {
    const { hub, tools } = await everything();
    expect(
      hub.connections[0]!.sdkClient!.getNegotiatedProtocolVersion(),
      "McpConnection.connect: a v1 server does not know server/discover, so the start falls back to initialize and agrees on the latest 2025 revision (keep the 2025 revisions in PROTOCOL_VERSIONS, mode 'auto', guided step 2)",
    ).toBe(LATEST_PROTOCOL_VERSION);
    const agent = new Agent({
      provider: new MockProvider([
        callTurn(
          ['c1', 'mcp__everything__trigger-elicitation-request', {}],
          ['c2', 'mcp__everything__trigger-long-running-operation', { duration: 0.4, steps: 2 }],
        ),
        assistantText('done'),
      ]),
      tools: new ToolSet(tools),
      cwd: process.cwd(),
    });
    const history: Message[] = [{ role: 'user', content: 'go' }];
    const events: AgentEvent[] = [];
    for await (const event of agent.run(history)) events.push(event);
    expect(
      resultOf(history, 'c1').content,
      'answerElicitation: its form needs a typed name: declined (and nobody to ask here anyway) (guided step 1)',
    ).toMatch(/declined/);
    const c2 = events.flatMap((e) =>
      (e.type === 'tool_progress' || e.type === 'tool_result') && e.callId === 'c2' ? [e] : [],
    );
    expect(
      c2[0],
      'mcpTool: its first progress notification, as a tool_progress event before the result (guided step 4)',
    ).toMatchObject({ type: 'tool_progress', progress: 1, total: 2 });
    expect(c2.at(-1)?.type, 'the result comes last').toBe('tool_result');
    expect(resultOf(history, 'c2').content).toMatch(/^Long running operation completed/);
    expect(history).toBeValidHistory('after a declined question and a long call');
  });

  test('killed mid-session: the next call starts it again and works; a second kill leaves it stopped', async () => {
    const { hub, tools } = await everything();
    const connection = hub.connections[0]!;
    const firstPid = connection.pid!;
    expect(firstPid, 'a stdio server has a process id').toBeGreaterThan(0);
    process.kill(firstPid, 'SIGKILL');
    expect(await gone(firstPid), 'the test killed the server').toBe(true);
    const again = await runAgent(tools, [callTurn(['c1', 'mcp__everything__echo', { message: 'back?' }])]);
    expect(
      resultOf(again.history, 'c1'),
      'McpConnection.callTool: the server was restarted and answered (guided step 2)',
    ).toMatchObject({ content: 'Echo: back?', isError: false });
    const secondPid = connection.pid!;
    expect(secondPid, 'a new process').not.toBe(firstPid);
    process.kill(secondPid, 'SIGKILL');
    expect(await gone(secondPid)).toBe(true);
    const dead = await runAgent(tools, [callTurn(['c2', 'mcp__everything__echo', { message: 'still there?' }])]);
    expect(
      resultOf(dead.history, 'c2'),
      'McpConnection.callTool: restarted once already, so an error result (guided step 2)',
    ).toMatchObject({ isError: true });
    expect(
      resultOf(dead.history, 'c2').content,
      'McpConnection.callTool: it says the server stopped (guided step 2)',
    ).toMatch(/MCP server "everything" has stopped/);
    expect(connection.pid === undefined || !alive(connection.pid), 'no new process was started').toBe(true);
    expect(dead.history).toBeValidHistory('after the server was killed twice');
  });
});
