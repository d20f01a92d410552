import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, test } from 'vitest';
import { assistantText, assistantToolCalls, toolResult, userMessage, type Message } from 'kit/messages';
import type { MockProvider } from 'kit/mock-provider';
import { rejection } from '../helpers/assert.js';
import { shape } from '../helpers/transcript.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { editor, testFactory } from './fixtures.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const e of open.splice(0)) e.close();
});
/** An editor connected to a server on `factory` (server options beside it), closed after the test. */
function connect(
  factory: ReturnType<typeof testFactory>,
  server: Partial<Parameters<typeof editor>[0]> = {},
  options: Parameters<typeof editor>[1] = {},
) {
  const e = editor({ openSession: factory.openSession, ...server }, options);
  open.push(e);
  return e;
}
const errorOf = async (promise: Promise<unknown>, message: string) =>
  (await rejection(promise, message)) as { code?: number; message?: string; data?: unknown };

const savedHistory: Message[] = [
  userMessage('read a.txt'),
  assistantToolCalls([{ id: 'r1', name: 'read', arguments: { path: 'a.txt' } }], 'Looking.'),
  toolResult({ id: 'r1', name: 'read' }, '     1\told text'),
  assistantText('It says old text.'),
];
type Forked = { sessionId: string; modes?: acp.SessionModeState | null; configOptions?: unknown };
const fork = (e: ReturnType<typeof connect>, params: Record<string, unknown>) =>
  e.agent.request<Forked>('session/fork', { mcpServers: [], ...params });

describe('AcpServer.forkSession (src/acp/server.ts)', () => {
  test('a fork is a new session with the saved history, under its own id; the source stays saved and closed', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({
      script: [assistantText('In the fork.')],
      saved: new Map([['old-1', savedHistory]]),
    });
    const e = connect(factory);
    const init = await e.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    expect(
      (init.agentCapabilities?.sessionCapabilities as { fork?: unknown } | undefined)?.fork,
      'AcpServer.initialize: session/fork is offered when sessions can be loaded (sessionCapabilities(), given)',
    ).toEqual({});
    const forked = await fork(e, { sessionId: 'old-1', cwd: root }).catch((error: Error) =>
      expect.fail(
        `AcpServer.forkSession: forking a saved session must work: the factory is given forkedFrom, the source's id (guided step 3); it failed: ${error.message}`,
      ),
    );
    expect(forked.sessionId, "AcpServer.forkSession: the fork gets a new id, not the source's (guided step 2)").toBe(
      's1',
    );
    expect(
      factory.setups[0],
      'AcpServer.forkSession: the factory is given the new id, resume, and forkedFrom the source (guided step 3)',
    ).toMatchObject({ sessionId: 's1', resume: true, forkedFrom: 'old-1', cwd: root });
    expect(forked.modes?.currentModeId, 'AcpServer.forkSession: the answer has the modes (guided step 4)').toBe(
      'default',
    );
    expect(forked.configOptions, 'AcpServer.forkSession: and the config options (guided step 4)').toBeDefined();
    expect(
      e.of('s1'),
      'AcpServer.forkSession: the history is not sent again (the client has it from the session it forked)',
    ).toEqual([]);
    expect(
      [...e.server.sessions.keys()],
      'AcpServer.forkSession: the fork is kept under its new id, and the source is not opened (guided step 4)',
    ).toEqual(['s1']);
    await e.prompt('s1', 'and now?');
    expect(
      shape((factory.providers[0] as MockProvider).requests[0]!.messages as Message[]),
      'AcpServer.forkSession: a prompt in the fork continues the copied history (guided step 4)',
    ).toEqual(['user', 'assistant text + call read#r1', 'tool read#r1', 'assistant text', 'user']);
    const second = await fork(e, { sessionId: 'old-1', cwd: root });
    expect(second.sessionId, 'AcpServer.forkSession: every fork gets its own new id (guided step 2)').toBe('s2');
    expect([...e.server.sessions.keys()], 'AcpServer.forkSession: both forks are kept (guided step 4)').toEqual([
      's1',
      's2',
    ]);
  });

  test('a source that cannot be forked is -32002 naming it; a relative folder is invalid params; nothing is kept', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({ saved: new Map([['old-2', savedHistory]]) });
    const e = connect(factory);
    await e.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    const missing = await errorOf(
      fork(e, { sessionId: 'gone', cwd: root }),
      'AcpServer.forkSession: a source the factory cannot open must be an error (guided step 3)',
    );
    expect(missing.code, 'AcpServer.forkSession: -32002 (guided step 3)').toBe(-32002);
    expect(
      missing.message,
      'AcpServer.forkSession: the message names the source and says it could not be forked (guided step 3)',
    ).toMatch(/session gone could not be forked/);
    expect(missing.message, "AcpServer.forkSession: the factory's reason is in the message (guided step 3)").toContain(
      'no saved session',
    );
    expect(missing.data, "AcpServer.forkSession: data { sessionId: the source's id } (guided step 3)").toEqual({
      sessionId: 'gone',
    });
    const relative = await errorOf(
      fork(e, { sessionId: 'old-2', cwd: 'here' }),
      'AcpServer.forkSession: a relative cwd must be refused (guided step 1)',
    );
    expect(relative, 'AcpServer.forkSession: invalid params naming the folder (guided step 1)').toMatchObject({
      code: -32602,
      message: expect.stringContaining('here'),
    });
    expect(factory.setups.length, 'AcpServer.forkSession: a relative cwd reaches no factory (guided step 1)').toBe(1);
    expect(e.server.sessions.size, 'AcpServer.forkSession: no session is kept after a refusal (guided step 3)').toBe(0);
    const malformed = await errorOf(
      fork(e, { sessionId: 7, cwd: root }),
      'session/fork with a session id that is no string must be refused (parseForkParams, given)',
    );
    expect(malformed.code, 'session/fork: malformed params are invalid params (parseForkParams, given)').toBe(-32602);
  });

  test('a server that cannot load sessions offers no fork and refuses it', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({ saved: new Map([['old-3', savedHistory]]) });
    const e = connect(factory, { loadSession: false });
    const init = await e.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    expect(
      (init.agentCapabilities?.sessionCapabilities as { fork?: unknown } | undefined)?.fork,
      'AcpServer.initialize: no fork without loading (sessionCapabilities(), given)',
    ).toBeUndefined();
    const error = await errorOf(
      fork(e, { sessionId: 'old-3', cwd: root }),
      'AcpServer.forkSession: loading is off, so session/fork must fail (guided step 1)',
    );
    expect(error.code, 'AcpServer.forkSession: method not found (-32601) (guided step 1)').toBe(-32601);
    expect(error.message, 'AcpServer.forkSession: the refusal names session/fork (guided step 1)').toContain(
      'session/fork',
    );
    expect(factory.setups, 'AcpServer.forkSession: nothing reaches the factory (guided step 1)').toEqual([]);
  });

  test("the client's MCP servers reach the factory (none when it sends none), and the fork's plan questions are its own", async () => {
    const { root } = tempWorkspace();
    const script = [
      assistantToolCalls([{ id: 'p9', name: 'exit_plan_mode', arguments: { plan: 'the plan' } }]),
      assistantText('ok'),
    ];
    const factory = testFactory({ saved: new Map([['old-5', savedHistory]]), script, mode: 'plan' });
    const e = connect(factory, {}, { permission: 'default' });
    await e.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    const servers = [{ name: 'files', command: 'files-server', args: ['--root', root], env: [] }];
    await fork(e, { sessionId: 'old-5', cwd: root, mcpServers: servers });
    expect(
      Object.keys(factory.setups[0]!.mcpServers),
      "AcpServer.forkSession: the client's MCP servers go to the factory, through setupFor (guided step 3)",
    ).toEqual(['files']);
    const bare = await e.agent.request<Forked>('session/fork', { sessionId: 'old-5', cwd: root });
    expect(
      factory.setups[1]!.mcpServers,
      'AcpServer.forkSession: no mcpServers in the request is no servers (params.mcpServers ?? []) (guided step 3)',
    ).toEqual({});
    await e.prompt(bare.sessionId, 'plan');
    expect(
      e.questions.map((q) => q.toolCall.toolCallId),
      "AcpServer.forkSession: kept as newSession keeps it (planCalls starts empty), so the first plan question is about the fork's own call (guided step 4)",
    ).toEqual(['p9']);
  });
});
