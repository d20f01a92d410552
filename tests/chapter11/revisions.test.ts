/**
 * Chapter 11: the protocol's two eras (src/mcp/client.ts: McpConnection.connect and callTool; src/mcp/elicitation.ts).
 * The client agrees on the newest revision both sides speak: 2026-07-28 through `server/discover` when the server
 * answers it, else `initialize` with 2025-11-25 or older. On 2026-07-28 a server cannot send the client a request, so
 * a question comes back as the call's `input_required` result; the SDK hands it to the same elicitation handler and
 * calls again with the answer. The servers are built on the v2 server package in this process (revisionServer in
 * fixtures.ts), so each test sees exactly what the client sent.
 */
import { afterAll, describe, expect, test } from 'vitest';
import type { AgentEvent } from 'kit/agent-events';
import { Agent } from 'kit/agent';
import { McpConnection, MAX_INPUT_ROUNDS } from 'kit/mcp/client';
import { McpServers } from 'kit/mcp/servers';
import { assistantText, type Message } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import type { AskPermission, PermissionRequest } from 'kit/permissions/gate';
import { ToolSet } from 'kit/tool';
import { callTurn, resultOf, revisionServer, runAgent, within } from './fixtures.js';

const opened: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  // A stub not written yet throws here too: the tests have already failed with its TODO.
  for (const item of opened.splice(0)) await item.close().catch(() => {});
});

async function connected(server: ReturnType<typeof revisionServer>): Promise<McpConnection> {
  const connection = new McpConnection('box', server.factory);
  opened.push(connection);
  await within(connection.connect(), 'McpConnection.connect: a start must settle');
  return connection;
}

async function hubFor(
  server: ReturnType<typeof revisionServer>,
  ask?: AskPermission,
  message = 'the server must start',
): Promise<McpServers> {
  const hub = await McpServers.start({ box: server.factory }, ask ? { ask } : {});
  opened.push(hub);
  if (hub.failures.length > 0)
    throw new Error(`${message}: ${hub.failures.map((failure) => failure.error).join('; ')}`);
  return hub;
}

/** An ask that records each question and answers with `answer`. */
function recordingAsk(answer: Awaited<ReturnType<AskPermission>>) {
  const asked: PermissionRequest[] = [];
  const ask: AskPermission = async (request) => {
    asked.push(request);
    return answer;
  };
  return { ask, asked };
}

describe('McpConnection.connect: the newest revision both sides speak (src/mcp/client.ts)', () => {
  test('a server that speaks 2026-07-28 and 2025: the connection settles on 2026-07-28, without initialize', async () => {
    const server = revisionServer('both');
    const connection = await connected(server);
    expect(
      connection.protocolVersion,
      "McpConnection.connect: offer PROTOCOL_VERSIONS with versionNegotiation { mode: 'auto' }, so a server that speaks 2026-07-28 is spoken to in it (guided step 2)",
    ).toBe('2026-07-28');
    expect(
      server.state.seen[0],
      'McpConnection.connect: the start asks server/discover first; 2026-07-28 has no handshake (guided step 2)',
    ).toBe('server/discover');
    expect(
      server.state.seen.filter((method) => method.startsWith('initialize')),
      'McpConnection.connect: a server that answered server/discover gets no initialize (guided step 2)',
    ).toEqual([]);
    const result = await connection.callTool('echo', { message: 'hi' });
    expect(result.content, 'McpConnection.callTool: the call works on the new revision').toEqual([
      { type: 'text', text: 'echo: hi' },
    ]);
    expect(
      server.state.calls.map((call) => call.modern),
      'each request of 2026-07-28 carries its own envelope (the revision has no session)',
    ).toEqual([true]);
  });

  test('a server that speaks only 2026-07-28 (it refuses initialize) is reached', async () => {
    const server = revisionServer('2026-07-28');
    const hub = await hubFor(
      server,
      undefined,
      "McpConnection.connect: a client that offers only the 2025 revisions cannot start this server: offer PROTOCOL_VERSIONS with versionNegotiation { mode: 'auto' } (guided step 2)",
    );
    expect(hub.connections[0]?.protocolVersion, 'McpConnection.connect: the revision both speak (guided step 2)').toBe(
      '2026-07-28',
    );
  });

  test('a 2025-11-25 server built on the v2 server package: server/discover is unknown there, so the client falls back to initialize', async () => {
    const server = revisionServer('2025-11-25');
    const hub = await hubFor(
      server,
      undefined,
      "McpConnection.connect: a server that does not know server/discover must still start: keep the 2025 revisions in the list and use mode 'auto', not a pin (guided step 2)",
    );
    expect(
      server.state.seen.slice(0, 2),
      'McpConnection.connect: server/discover first, then initialize offering 2025-11-25 (guided step 2)',
    ).toEqual(['server/discover', 'initialize 2025-11-25']);
    const connection = hub.connections[0]!;
    expect(connection.protocolVersion, 'McpConnection.connect: the fallback agrees on 2025-11-25 (guided step 2)').toBe(
      '2025-11-25',
    );
    expect((await connection.callTool('echo', { message: 'old' })).content).toEqual([
      { type: 'text', text: 'echo: old' },
    ]);
    expect(
      server.state.calls.map((call) => call.modern),
      'a 2025 call has no per-request envelope',
    ).toEqual([false]);
  });
});

describe('a question inside a 2026-07-28 result reaches the person (McpConnection.connect guided step 3, answerElicitation)', () => {
  test('a yes: the person is asked on the call, the answer goes back in the retried call, and its result is the tool result', async () => {
    const server = revisionServer('2026-07-28');
    const { ask, asked } = recordingAsk('allow_once');
    const hub = await hubFor(server, ask);
    const { history } = await within(
      runAgent(await hub.tools(), [callTurn(['c1', 'mcp__box__deploy', { env: 'prod' }])]),
      'McpConnection.connect: register the elicitation/create handler; the SDK answers an input_required result through it (guided step 3)',
    );
    expect(
      asked.map((request) => [request.call.id, request.call.name]),
      'McpConnection.connect guided step 3: the question inside the result reaches ask, on call c1',
    ).toEqual([['c1', 'mcp__box__deploy']]);
    expect(asked[0]!.call.arguments, "the person sees the server's question and what a yes sends").toMatchObject({
      question: 'Really deploy to prod?',
      yes_sends: { confirm: true },
    });
    const deploys = server.state.calls.filter((call) => call.name === 'deploy');
    expect(
      deploys.map((call) => call.inputResponses),
      "answerElicitation: the first call asked; the retried call brings the person's answer back (guided step 3)",
    ).toEqual([undefined, { confirm: { action: 'accept', content: { confirm: true } } }]);
    expect(resultOf(history, 'c1').content, "the retried call's result is the tool's result").toBe(
      'deploy: accept {"confirm":true}',
    );
    expect(history).toBeValidHistory('after a call that asked for input');
  });

  test('a no, or no answer at all, goes back as a decline; nothing is sent for the person', async () => {
    for (const answer of ['reject_once', 'reject_always', undefined] as const) {
      const server = revisionServer('2026-07-28');
      const { ask, asked } = recordingAsk(answer);
      const hub = await hubFor(server, ask);
      const { history } = await runAgent(await hub.tools(), [callTurn(['c1', 'mcp__box__deploy', { env: 'prod' }])]);
      expect(asked, 'answerElicitation: the person was asked (guided step 2)').toHaveLength(1);
      expect(
        server.state.calls.at(-1)?.inputResponses,
        `answerElicitation: ${String(answer)} goes back as { action: 'decline' }, never an accept (guided step 3)`,
      ).toEqual({ confirm: { action: 'decline' } });
      expect(resultOf(history, 'c1').content).toBe('deploy: decline null');
    }
  });

  test('with nobody to ask, and for a form that needs a typed name, the answer is a decline without asking', async () => {
    const nobody = revisionServer('2026-07-28');
    const alone = await hubFor(nobody);
    const first = await runAgent(await alone.tools(), [callTurn(['c1', 'mcp__box__deploy', { env: 'prod' }])]);
    expect(resultOf(first.history, 'c1').content, 'answerElicitation: no ask means decline (guided step 1)').toBe(
      'deploy: decline null',
    );
    const server = revisionServer('2026-07-28');
    const { ask, asked } = recordingAsk('allow_once');
    const hub = await hubFor(server, ask);
    const { history } = await runAgent(await hub.tools(), [callTurn(['c2', 'mcp__box__ask_name', {}])]);
    expect(asked, 'answerElicitation: nobody is asked for a typed name (guided step 1)').toEqual([]);
    expect(
      server.state.calls.at(-1)?.inputResponses,
      'answerElicitation: a form a yes cannot fill goes back declined (guided step 1)',
    ).toEqual({ name: { action: 'decline' } });
    expect(resultOf(history, 'c2').content).toBe('name: decline null');
  });

  test('stopping the run while the person is asked: the question is withdrawn, the call is not retried, the run ends cancelled', async () => {
    const server = revisionServer('2026-07-28');
    const controller = new AbortController();
    let askSignal: AbortSignal | undefined;
    const ask: AskPermission = (_request, abort) => {
      askSignal = abort;
      controller.abort(new Error('Ctrl-C'));
      return new Promise((_resolve, reject) => {
        if (abort.aborted) reject(abort.reason);
        abort.addEventListener('abort', () => reject(abort.reason));
      });
    };
    const hub = await hubFor(server, ask);
    const agent = new Agent({
      provider: new MockProvider([callTurn(['c1', 'mcp__box__deploy', { env: 'prod' }]), assistantText('done')]),
      tools: new ToolSet(await hub.tools()),
      cwd: process.cwd(),
    });
    const history: Message[] = [{ role: 'user', content: 'go' }];
    const events: AgentEvent[] = [];
    await within(
      (async () => {
        for await (const event of agent.run(history, { signal: controller.signal })) events.push(event);
      })(),
      "McpConnection.connect: ask with questionScope's signal, so stopping the run withdraws the question (guided step 3)",
    );
    expect(
      askSignal?.aborted,
      "McpConnection.connect: the ask's signal aborts with the run (questionScope, guided step 3)",
    ).toBe(true);
    expect(
      server.state.calls.filter((call) => call.name === 'deploy'),
      'answerElicitation: a withdrawn question is never answered for the person: no retried call reaches the server (guided step 4)',
    ).toHaveLength(1);
    expect(events.at(-1), 'the run ends cancelled').toMatchObject({ type: 'done', reason: 'cancelled' });
    expect(history).toBeValidHistory('after a run stopped while a 2026-07-28 server asked');
  });

  test('a server that asks again after every answer is stopped after MAX_INPUT_ROUNDS, with an error the model reads', async () => {
    const server = revisionServer('2026-07-28');
    const { ask, asked } = recordingAsk('allow_once');
    const hub = await hubFor(server, ask);
    const { history } = await within(
      runAgent(await hub.tools(), [callTurn(['c1', 'mcp__box__nag', {}])]),
      'a server that never stops asking must not hang the call',
    );
    const result = resultOf(history, 'c1');
    expect(result.isError, 'a call that never stops asking fails').toBe(true);
    expect(
      result.content,
      `McpConnection.callTool: SdkErrorCode.InputRequiredRoundsExceeded is \`MCP server "<name>" still asked for input after ${MAX_INPUT_ROUNDS} answers to <tool>: stopped there\` (guided step 5)`,
    ).toContain(`MCP server "box" still asked for input after ${MAX_INPUT_ROUNDS} answers to nag: stopped there`);
    expect(asked, 'each round asked the person once').toHaveLength(MAX_INPUT_ROUNDS);
  });
});
