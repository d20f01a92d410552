/**
 * The learner's client against a server built on the v2 server package (@modelcontextprotocol/server 2.4.0), run as
 * a real child process over stdio (v2-server.mjs), started once for the file, twice: as the SDK serves it (2026-07-28
 * and the 2025 revisions) and with --legacy (2025-11-25 alone). The newest revision both speak, a question asked
 * mid-call on each, and progress while a call runs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InMemoryTransport, LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, test } from 'vitest';
import type { AgentEvent } from 'kit/agent-events';
import { Agent } from 'kit/agent';
import { McpServers } from 'kit/mcp/servers';
import { assistantText, type Message } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import type { AskPermission, PermissionRequest } from 'kit/permissions/gate';
import { ToolSet } from 'kit/tool';
import { REAL_SERVER_MS } from '../helpers/limits.js';
import { callTurn, resultOf, runAgent, sharedServers, v2ServerConfig, within } from './fixtures.js';

/** What the person answers: each test sets it; the questions are recorded. */
let answer: Awaited<ReturnType<AskPermission>> = undefined;
const questions: PermissionRequest[] = [];
const ask: AskPermission = async (request) => {
  questions.push(request);
  return answer;
};

const v2 = sharedServers({ v2: v2ServerConfig(), old: v2ServerConfig({ legacy: true }) }, { ask });

describe('a server on the v2 server package, over stdio (src/mcp/client.ts, src/mcp/adapter.ts, src/mcp/elicitation.ts)', () => {
  test("the start settles on 2026-07-28, the newest revision both speak; its tools work like any server's", async () => {
    const { hub, tools } = await v2();
    const client = hub.connections.find((connection) => connection.name === 'v2')!.sdkClient!;
    expect(
      client.getNegotiatedProtocolVersion(),
      "McpConnection.connect: offer PROTOCOL_VERSIONS with versionNegotiation { mode: 'auto' }: this server answers server/discover with 2026-07-28 (guided step 2)",
    ).toBe('2026-07-28');
    expect(client.getProtocolEra(), 'the stateless era: no initialize, no session').toBe('modern');
    expect(client.getServerVersion()?.name).toBe('kit-v2-fixture');
    const echo = tools.find((t) => t.name === 'mcp__v2__echo');
    expect(echo?.readOnly, 'mcpTool: its readOnlyHint is only a claim: the tool is not read-only (guided step 3)').toBe(
      false,
    );
    expect(
      new ToolSet([echo!]).definitions()[0]!.inputSchema,
      'mcpTool: the schema without $schema (guided step 2)',
    ).toEqual({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
    const { history } = await runAgent(tools, [
      callTurn(['c1', 'mcp__v2__echo', { message: 'hello' }], ['c2', 'mcp__v2__echo', { message: 3 }]),
    ]);
    expect(resultOf(history, 'c1'), 'McpConnection.callTool and toolResultText').toMatchObject({
      content: 'v2 echo: hello',
      isError: false,
    });
    expect(
      resultOf(history, 'c2').content,
      'jsonSchemaInput: the kit refuses a number for a string before the server sees it',
    ).not.toMatch(/Input validation error/);
    expect(resultOf(history, 'c2').isError).toBe(true);
  });

  test('the server asks "Really deploy?": the person sees it on the call, and a yes reaches the server', async () => {
    const { tools } = await v2();
    questions.length = 0;
    answer = 'allow_once';
    const { history } = await within(
      runAgent(tools, [callTurn(['c1', 'mcp__v2__confirm', { action: 'deploy' }])]),
      'McpConnection.connect: answer elicitation/create (guided step 3)',
    );
    expect(
      resultOf(history, 'c1').content,
      'answerElicitation: a yes accepts with what the question showed, and it goes back in the retried call (guided step 3)',
    ).toBe('deploy: accept {"confirm":true} (asked in the result)');
    expect(
      questions.map((q) => [q.call.id, q.call.name]),
      'the question is about call c1',
    ).toEqual([['c1', 'mcp__v2__confirm']]);
    expect(questions[0]!.call.arguments, "the person sees the server's question and what a yes sends").toMatchObject({
      question: 'Really deploy?',
      yes_sends: { confirm: true },
    });
  });

  test('a no, and no answer at all, decline; a question that needs a typed name is declined without asking', async () => {
    const { tools } = await v2();
    questions.length = 0;
    answer = 'reject_once';
    const no = await runAgent(tools, [callTurn(['c1', 'mcp__v2__confirm', { action: 'drop the table' }])]);
    expect(resultOf(no.history, 'c1').content, 'answerElicitation: a no declines (guided step 3)').toBe(
      'drop the table: decline null (asked in the result)',
    );
    answer = undefined;
    const nobody = await runAgent(tools, [callTurn(['c2', 'mcp__v2__confirm', { action: 'push' }])]);
    expect(resultOf(nobody.history, 'c2').content, 'answerElicitation: nobody answered: decline (guided step 3)').toBe(
      'push: decline null (asked in the result)',
    );
    answer = 'allow_once';
    const typed = await runAgent(tools, [callTurn(['c3', 'mcp__v2__ask_name', {}])]);
    expect(
      resultOf(typed.history, 'c3').content,
      'answerElicitation: a yes cannot fill a name: decline (guided step 1)',
    ).toBe('name: decline null (asked in the result)');
    expect(
      questions.map((q) => q.call.id),
      'answerElicitation: nobody is asked for the name (guided step 1)',
    ).toEqual(['c1', 'c2']);
  });

  test('the same server with --legacy speaks only 2025-11-25: the client falls back over stdio, and the question comes as a request', async () => {
    const { hub, tools } = await v2();
    expect(
      hub.connections.find((connection) => connection.name === 'old')?.protocolVersion,
      "McpConnection.connect: server/discover is unknown to a 2025 server: keep the 2025 revisions in PROTOCOL_VERSIONS and use mode 'auto', so the start falls back to initialize (guided step 2)",
    ).toBe('2025-11-25');
    questions.length = 0;
    answer = 'allow_once';
    const { history } = await within(
      runAgent(tools, [callTurn(['c1', 'mcp__old__confirm', { action: 'tag' }])]),
      'McpConnection.connect: answer elicitation/create (guided step 3)',
    );
    expect(
      resultOf(history, 'c1').content,
      'McpConnection.connect: on 2025-11-25 the same handler answers the elicitation/create request (guided step 3)',
    ).toBe('tag: accept {"confirm":true} (asked by request)');
    expect(questions.map((q) => [q.call.id, q.call.name])).toEqual([['c1', 'mcp__old__confirm']]);
  });

  test("progress reaches the run's consumers while the call runs, before its result", async () => {
    const { tools } = await v2();
    const flag = path.join(mkdtempSync(path.join(tmpdir(), 'kit-mcp-progress-')), 'go');
    const agent = new Agent({
      provider: new MockProvider([callTurn(['c1', 'mcp__v2__wait_for_file', { path: flag }]), assistantText('done')]),
      tools: new ToolSet(tools),
      cwd: process.cwd(),
    });
    const history: Message[] = [{ role: 'user', content: 'go' }];
    const events: AgentEvent[] = [];
    const run = (async () => {
      for await (const event of agent.run(history)) {
        events.push(event);
        if (event.type === 'tool_progress') writeFileSync(flag, ''); // the server finishes only once progress was seen
      }
    })();
    await within(
      run,
      'mcpTool guided step 4 and McpConnection.callTool guided step 4: progress must reach ctx.emit while the call runs (the server waits for the test to see it)',
    );
    const order = events.flatMap((e) => (e.type === 'tool_progress' || e.type === 'tool_result' ? [e.type] : []));
    expect(order[0], 'the first progress event comes before the result').toBe('tool_progress');
    expect(order.at(-1)).toBe('tool_result');
    expect(
      events.find((e) => e.type === 'tool_progress'),
      "progressEvent of the server's first notification",
    ).toEqual({ type: 'tool_progress', turn: 1, callId: 'c1', progress: 1, total: 2, message: 'waiting for the file' });
    expect(resultOf(history, 'c1').content).toBe(`found ${flag}`);
  });
});

/**
 * A server that answers initialize with `version` and nothing else of note: an old (or a made-up) revision. Its one
 * tool, hello, answers with `callResult` (by default a text naming the revision).
 */
function serverSpeaking(
  version: string,
  callResult: unknown = { content: [{ type: 'text', text: `hello from ${version}` }] },
) {
  const seen: string[] = [];
  const factory = () => {
    const [client, side] = InMemoryTransport.createLinkedPair();
    side.onmessage = (message: JSONRPCMessage) => {
      if (!('method' in message)) return;
      seen.push(
        message.method === 'initialize'
          ? `initialize ${String((message.params as { protocolVersion?: string }).protocolVersion)}`
          : message.method,
      );
      if (!('id' in message)) return;
      const result =
        message.method === 'initialize'
          ? { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'old', version: '0.1.0' } }
          : message.method === 'tools/list'
            ? { tools: [{ name: 'hello', inputSchema: { type: 'object' } }] }
            : callResult;
      void side.send({ jsonrpc: '2.0', id: message.id, result } as JSONRPCMessage);
    };
    void side.start();
    return client;
  };
  return { factory, seen };
}

describe('version negotiation with an older server (src/mcp/client.ts: McpConnection.connect guided step 5)', () => {
  test('the client offers the latest revision; a server that answers with 2024-11-05 is spoken to in that one', async () => {
    const old = serverSpeaking('2024-11-05');
    const hub = await McpServers.start({ old: old.factory });
    try {
      expect(hub.failures, 'an older revision the SDK supports is not a failure').toEqual([]);
      expect(
        old.seen.slice(0, 2),
        "McpConnection.connect: server/discover first; its answer is not a discover result, so initialize offers the SDK's latest 2025 revision (guided step 2)",
      ).toEqual(['server/discover', `initialize ${LATEST_PROTOCOL_VERSION}`]);
      expect(hub.connections[0]!.sdkClient!.getNegotiatedProtocolVersion()).toBe('2024-11-05');
      const { history } = await runAgent(await hub.tools(), [callTurn(['c1', 'mcp__old__hello', {}])]);
      expect(resultOf(history, 'c1').content).toBe('hello from 2024-11-05');
    } finally {
      await hub.close();
    }
  });

  test("an answer that is not a tool result is the server's error, not a timeout", async () => {
    const odd = serverSpeaking('2025-06-18', { content: 'not a list of blocks' });
    const hub = await McpServers.start({ odd: odd.factory }, { callTimeoutMs: REAL_SERVER_MS });
    try {
      const { history } = await runAgent(await hub.tools(), [callTurn(['c1', 'mcp__odd__hello', {}])]);
      const result = resultOf(history, 'c1');
      expect(
        result.isError,
        'McpConnection.callTool: the SDK refused the answer, so the call failed (guided step 5)',
      ).toBe(true);
      expect(
        result.content,
        'McpConnection.callTool: only an SdkError whose code is RequestTimeout is "did not answer"; this one is `MCP server "<name>": <text>` (guided step 5)',
      ).toMatch(/MCP server "odd": /);
      expect(
        result.content,
        'McpConnection.callTool: the server answered at once; a refused answer is not a timeout (guided step 5)',
      ).not.toMatch(/did not answer/);
    } finally {
      await hub.close();
    }
  });

  test('a server that answers with a revision the client does not know fails to start, with a message', async () => {
    const odd = serverSpeaking('1999-01-01');
    const hub = await McpServers.start({ odd: odd.factory }, { startupTimeoutMs: REAL_SERVER_MS });
    try {
      expect(
        hub.connections,
        'McpConnection.connect: the handshake failed, so the server did not start (guided step 5)',
      ).toEqual([]);
      expect(
        hub.failures.map((f) => f.error).join('\n'),
        "McpConnection.connect: `did not start:` and the SDK's reason (guided step 5)",
      ).toMatch(/^MCP server "odd" did not start: .*1999-01-01/);
    } finally {
      await hub.close();
    }
  });
});
