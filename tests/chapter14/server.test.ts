import * as acp from '@agentclientprotocol/sdk';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { assistantText, assistantToolCalls, toolResult, userMessage, type Message } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { rejection, settles } from '../helpers/assert.js';
import { historyRuleBreaks } from '../helpers/matchers.js';
import { shape } from '../helpers/transcript.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief, editor, holding, testFactory, until, waitTool } from './fixtures.js';
import { within } from '../helpers/wait.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const e of open.splice(0)) e.close();
});
/** An editor connected to a server on `factory`, closed after the test. */
function connect(
  factory: ReturnType<typeof testFactory>,
  options: Parameters<typeof editor>[1] = {},
  server: Partial<Parameters<typeof editor>[0]> = {},
) {
  const e = editor({ openSession: factory.openSession, ...server }, options);
  open.push(e);
  return e;
}
const readRound = (id = 'c1', file = 'a.txt') => [
  assistantToolCalls([{ id, name: 'read', arguments: { path: file } }], 'Reading.'),
  assistantText('Done.', { inputTokens: 100, outputTokens: 20 }),
];
const historyOk = (messages: readonly Message[], where: string) =>
  expect(
    historyRuleBreaks(messages),
    `${where}: the history must stay valid (every call answered right after its turn)`,
  ).toEqual([]);
const errorOf = async (promise: Promise<unknown>, message: string) =>
  (await rejection(promise, message)) as { code?: number; message?: string };

describe('AcpServer.initialize (src/acp/server.ts)', () => {
  test('answers with the protocol version, who the agent is, what it can do, and no auth', async () => {
    const e = connect(testFactory());
    const init = await e.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true } },
    });
    expect(init.protocolVersion, 'AcpServer.initialize: PROTOCOL_VERSION (guided step 2)').toBe(acp.PROTOCOL_VERSION);
    expect(
      init.agentInfo,
      'AcpServer.initialize: agentInfo with the default name and version (guided step 2)',
    ).toMatchObject({
      name: 'coding-agent',
      version: '1.0.0',
    });
    expect(init.authMethods, 'AcpServer.initialize: no auth methods (guided step 2)').toEqual([]);
    expect(
      init.agentCapabilities,
      'AcpServer.initialize: loadSession, prompts with embedded context but no audio (and no images: options.imageInput is not set), MCP over http, resume (guided step 2)',
    ).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { resume: {} },
    });
    expect(
      e.server.clientCapabilities,
      "AcpServer.initialize: the client's capabilities are kept (guided step 1)",
    ).toMatchObject({ fs: { readTextFile: true } });
  });

  test('a server that cannot load sessions says so, and refuses session/load', async () => {
    const e = connect(testFactory(), {}, { loadSession: false, name: 'mine', version: '2.0.0' });
    const init = await e.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    expect(init.agentCapabilities?.loadSession, 'AcpServer.initialize: options.loadSession false (guided step 2)').toBe(
      false,
    );
    expect(
      init.agentCapabilities?.sessionCapabilities?.resume ?? undefined,
      'AcpServer.initialize: no resume either (guided step 2)',
    ).toBeUndefined();
    expect(init.agentInfo, 'AcpServer.initialize: name and version from the options (guided step 2)').toMatchObject({
      name: 'mine',
      version: '2.0.0',
    });
    const error = await errorOf(
      e.agent.request(acp.methods.agent.session.load, { sessionId: 's9', cwd: '/tmp', mcpServers: [] }),
      'AcpServer.loadSession: loading is off, so session/load must fail (guided step 1)',
    );
    expect(error.code, 'AcpServer.loadSession: method not found (-32601) (guided step 1)').toBe(-32601);
  });
});

describe('AcpServer.newSession (src/acp/server.ts)', () => {
  test('opens a session with a new id and its modes; the factory gets the folder, the servers and the system prompt', async () => {
    const factory = testFactory();
    const e = connect(factory);
    const { root } = tempWorkspace();
    const session = await e.open(root, {
      mcpServers: [{ name: 'tools', command: 'node', args: ['x.js'], env: [] }],
      _meta: { systemPrompt: { append: 'Use tabs.' } },
    });
    expect(session.sessionId, 'AcpServer.newSession: the id from options.newId (guided step 3)').toBe('s1');
    expect(session.modes?.currentModeId, "AcpServer.newSession: the gate's mode (guided step 5)").toBe('default');
    expect(
      session.modes?.availableModes.map((m) => m.id),
      'AcpServer.newSession: the four modes (guided step 5)',
    ).toEqual(['default', 'acceptEdits', 'plan', 'bypassPermissions']);
    expect(factory.setups, 'AcpServer.newSession: the factory is called once (guided step 4)').toHaveLength(1);
    expect(
      factory.setups[0],
      'AcpServer.newSession: setupFor(id, params, client, false) (guided step 3)',
    ).toMatchObject({
      sessionId: 's1',
      resume: false,
      cwd: root,
      mcpServers: { tools: { type: 'stdio', command: 'node' } },
      systemPrompt: { append: 'Use tabs.' },
    });
    const second = await e.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    expect(second.sessionId, 'AcpServer.newSession: every session a new id (guided step 3)').toBe('s2');
  });

  test('a relative folder, a bad server or a bad _meta is refused, and no session is made', async () => {
    const factory = testFactory();
    const e = connect(factory);
    const { root } = tempWorkspace();
    await e.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    const relative = await errorOf(
      e.agent.request(acp.methods.agent.session.new, { cwd: 'project', mcpServers: [] }),
      'AcpServer.newSession: a relative cwd must be refused (guided step 1)',
    );
    expect(relative, 'AcpServer.newSession: invalid params, naming the folder (guided step 1)').toMatchObject({
      code: -32602,
      message: expect.stringContaining('project'),
    });
    await errorOf(
      e.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [], _meta: { systemPrompt: 7 } }),
      'AcpServer.newSession: a bad _meta.systemPrompt must be refused (guided step 3)',
    );
    expect(factory.setups, 'AcpServer.newSession: nothing is built for a refused session').toHaveLength(0);
    expect(e.server.sessions.size, 'AcpServer.newSession: nothing is kept for a refused session').toBe(0);
  });
});

describe('AcpServer.prompt (src/acp/server.ts)', () => {
  test('a tool round streams to the editor as this exact sequence, and the prompt answers end_turn', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'hello\n' });
    const factory = testFactory({ script: readRound() });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    const response = await e.prompt(sessionId, 'what is in a.txt?');
    expect(response.stopReason, 'AcpServer.prompt guided step 7').toBe('end_turn');
    expect(
      brief(e.of(sessionId)),
      'AcpServer.prompt: every event, translated, in the order the run yields them (guided step 5)',
    ).toEqual([
      'agent_message "Reading."',
      'tool_call c1 read pending',
      'tool_call_update c1 pending',
      'tool_call_update c1 in_progress',
      'tool_call_update c1 completed',
      'agent_message "Done."',
      'usage 120/200000',
      'session_info_update',
    ]);
    expect(
      e.of(sessionId)[1],
      'UpdateTranslator.updates: the card shown while the model writes the call has its name, no arguments yet (guided step 2)',
    ).toMatchObject({ title: 'read', content: [] });
    expect(
      e.of(sessionId)[1],
      'UpdateTranslator.updates: no rawInput before the arguments are whole (guided step 2)',
    ).not.toHaveProperty('rawInput');
    expect(
      e.of(sessionId)[2],
      'UpdateTranslator.updates: the whole call fills in the card shown early (guided step 2)',
    ).toMatchObject({ rawInput: { path: 'a.txt' }, locations: [{ path: expect.stringContaining('a.txt') }] });
    expect(e.of(sessionId)[4], 'the completed card holds the file as read returned it').toMatchObject({
      content: [{ type: 'content', content: { type: 'text', text: '     1\thello' } }],
    });
    const provider = factory.providers[0] as MockProvider;
    expect(
      shape(provider.requests[1]!.messages as Message[]),
      'AcpServer.prompt: the prompt is the user message, and the session keeps the whole round (guided step 3)',
    ).toEqual(['user', 'assistant text + call read#c1', 'tool read#c1']);
    expect(
      provider.requests[0]!.messages[0],
      'AcpServer.prompt: the text of the prompt, as promptText makes it (guided step 2)',
    ).toEqual(userMessage('what is in a.txt?'));
  });

  test("the prompt's blocks become the message; a second prompt continues the same history", async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({ script: [assistantText('one'), assistantText('two')] });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    await e.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: 'text', text: 'see' },
        { type: 'resource_link', name: 'a.ts', uri: 'file:///w/a.ts' },
      ],
    });
    await e.prompt(sessionId, 'and again');
    const provider = factory.providers[0] as MockProvider;
    expect(provider.requests[0]!.messages, 'AcpServer.prompt: promptText of the blocks (guided step 2)').toEqual([
      userMessage('see\n\n[@a.ts](file:///w/a.ts)'),
    ]);
    expect(
      shape(provider.requests[1]!.messages as Message[]),
      "AcpServer.prompt: the session's history grows across prompts (guided step 3)",
    ).toEqual(['user', 'assistant text', 'user']);
  });

  test('a bad prompt and an unknown session are JSON-RPC errors that leave the session as it was', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({ script: [assistantText('fine')] });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    const unknown = await errorOf(
      e.prompt('no-such-session', 'hi'),
      'AcpServer.prompt: an unknown session id must be an error (guided step 1)',
    );
    expect(unknown, 'AcpServer.prompt: resource not found (-32002), naming the session (guided step 1)').toMatchObject({
      code: -32002,
    });
    expect(JSON.stringify(unknown), 'the error names the session id').toContain('no-such-session');
    const image = await errorOf(
      e.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: 'text', text: 'see' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
      }),
      'AcpServer.prompt: an image to a model that reads none must be refused (guided step 2)',
    );
    expect(image.code, 'AcpServer.prompt: promptImages refuses it (invalid params) (guided step 2)').toBe(-32602);
    expect(
      e.server.sessions.get(sessionId)?.handle.history,
      'AcpServer.prompt: a refused prompt adds nothing to the history (guided step 2)',
    ).toEqual([]);
    expect(
      (await e.prompt(sessionId, 'hi')).stopReason,
      'AcpServer.prompt: the session still works (guided step 6)',
    ).toBe('end_turn');
  });

  test('a second prompt while one runs is refused; the first one is not disturbed', async () => {
    const { root } = tempWorkspace();
    const mock = new MockProvider([assistantText('after')]);
    const factory = testFactory({ provider: () => holding(mock, 1) });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    const first = e.prompt(sessionId, 'slow one');
    await until(() => e.of(sessionId).length > 0, 'the first prompt should send its first chunk');
    const second = await errorOf(
      e.prompt(sessionId, 'impatient'),
      'AcpServer.prompt: a prompt while one runs must be refused (guided step 1)',
    );
    expect(second.code, 'AcpServer.prompt: invalid request (-32600) (guided step 1)').toBe(-32600);
    expect(second.message, 'AcpServer.prompt: the message says a prompt is already running (guided step 1)').toMatch(
      /already running/,
    );
    await e.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect(
      (await first).stopReason,
      'stopReasonOf: the first prompt ends as cancelled, not broken by the second (guided step 1)',
    ).toBe('cancelled');
    const history = e.server.sessions.get(sessionId)!.handle.history;
    expect(
      history.filter((m) => m.role === 'user'),
      'AcpServer.prompt: the refused prompt never reached the history (guided step 1)',
    ).toHaveLength(1);
    expect(
      (await e.prompt(sessionId, 'now')).stopReason,
      'AcpServer.prompt: after the run ends, a new prompt may start (guided step 6)',
    ).toBe('end_turn');
  });

  test('a failed run is a JSON-RPC error with its reason; the session goes on', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({ script: [new Error('the API answered 529 overloaded'), assistantText('back')] });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    const error = await errorOf(
      e.prompt(sessionId, 'hi'),
      'AcpServer.prompt: a run that ends with error must fail the prompt (guided step 7)',
    );
    expect(error.message, 'stopReasonOf: the reason reaches the editor (guided step 3)').toContain('529 overloaded');
    historyOk(e.server.sessions.get(sessionId)!.handle.history, 'after a failed run');
    expect(
      (await e.prompt(sessionId, 'again')).stopReason,
      'AcpServer.prompt: the next prompt works (guided step 6)',
    ).toBe('end_turn');
  });

  test('nothing but the protocol reaches stdout while a prompt runs (an editor reads stdout as JSON-RPC)', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'x\n' });
    const e = connect(testFactory({ script: readRound() }));
    const { sessionId } = await e.open(root);
    const written: string[] = [];
    const spies = [
      vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => (written.push(String(chunk)), true)),
      ...(['log', 'info', 'debug'] as const).map((name) =>
        vi.spyOn(console, name).mockImplementation((...args: unknown[]) => void written.push(args.join(' '))),
      ),
    ];
    try {
      await e.prompt(sessionId, 'read a.txt');
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(
      written,
      'AcpServer.prompt: no console.log / stdout writes in the server (log to stderr: console.error)',
    ).toEqual([]);
  });
});

describe('AcpServer.prompt: the request itself (src/acp/server.ts)', () => {
  test('a client that withdraws its prompt request ($/cancel_request) cancels the run', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({ provider: () => holding(new MockProvider([assistantText('later')]), 1) });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    const withdraw = new AbortController();
    const running = e.agent.request(
      acp.methods.agent.session.prompt,
      { sessionId, prompt: [{ type: 'text', text: 'go' }] },
      { cancellationSignal: withdraw.signal },
    );
    await until(() => e.of(sessionId).length > 0, 'the prompt should start streaming');
    withdraw.abort();
    const outcome = await running.then(
      (r) => r.stopReason,
      (error: { code?: number }) => `error ${error.code}`,
    );
    expect(
      outcome,
      "AcpServer.prompt: the request's signal aborts the run (it answers cancelled, or the SDK reports the request cancelled) (guided step 3)",
    ).toMatch(/^(cancelled|error -32800)$/);
    historyOk(e.server.sessions.get(sessionId)!.handle.history, 'after a withdrawn prompt');
    expect(
      e.server.sessions.get(sessionId)!.running,
      'AcpServer.prompt: nothing is left running (guided step 6)',
    ).toBeUndefined();
    expect(
      (await e.prompt(sessionId, 'again')).stopReason,
      'AcpServer.prompt: the session takes the next prompt (guided step 6)',
    ).toBe('end_turn');
  });

  test('a run that never says done is a broken loop: an internal error, and the session is free again', async () => {
    const { root } = tempWorkspace();
    const e = connect({
      openSession: async () => ({
        history: [],
        modes: { mode: 'default', setMode() {} },
        async *run() {},
        async close() {},
      }),
    } as never);
    const { sessionId } = await e.open(root);
    const error = await errorOf(
      e.prompt(sessionId, 'hi'),
      'AcpServer.prompt: no done event must fail the prompt (guided step 7)',
    );
    expect(error, 'AcpServer.prompt: internal error (-32603) saying so (guided step 7)').toMatchObject({
      code: -32603,
      message: expect.stringMatching(/done/),
    });
    expect(
      e.server.sessions.get(sessionId)!.running,
      'AcpServer.prompt: not left running (guided step 6)',
    ).toBeUndefined();
  });
});

describe('AcpServer.prompt with a client that cannot be reached (src/acp/server.ts)', () => {
  test('when sending an update fails, the run is cancelled and nothing more is sent', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({
      script: [assistantToolCalls([{ id: 'w1', name: 'wait', arguments: {} }], 'Waiting.'), assistantText('never')],
      tools: [waitTool()],
    });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    let sent = 0;
    // The first update (the text) gets through; the second (the call's card) fails: the client went away.
    const gone = {
      request: e.agent.request.bind(e.agent),
      notify: async () => {
        if (++sent >= 2) throw new Error('the client went away');
      },
    } as never;
    // The tool waits until it is cancelled: a run that a failed notify does not stop never ends.
    const response = await within(
      e.server.prompt({ sessionId, prompt: [{ type: 'text', text: 'go' }] }, gone, new AbortController().signal),
      'AcpServer.prompt: the run stops at once when a notify fails, not after the tool (guided step 5)',
    );
    expect(
      response.stopReason,
      'AcpServer.prompt: a failed notify aborts the run (it ends cancelled) (guided step 5)',
    ).toBe('cancelled');
    expect(
      sent,
      "AcpServer.prompt: after the first failed notify, nothing more is sent (not even the cancelled call's card) (guided step 5)",
    ).toBe(2);
    historyOk(e.server.sessions.get(sessionId)!.handle.history, 'after the client went away');
  });
});

describe('AcpServer.cancel (src/acp/server.ts)', () => {
  test('cancel while the model streams: the prompt answers cancelled, the history is valid, the next prompt works', async () => {
    const { root } = tempWorkspace();
    const mock = new MockProvider([assistantText('recovered')]);
    const factory = testFactory({ provider: () => holding(mock, 1) });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    const running = e.prompt(sessionId, 'think hard');
    await until(
      () => brief(e.of(sessionId)).includes('agent_message "Let me think"'),
      'the streamed text should reach the editor while the model is still streaming',
    );
    await e.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect(
      (await settles(running, 'AcpServer.cancel: a cancelled prompt answers, it does not fail')).stopReason,
      'stopReasonOf: a cancelled prompt answers cancelled (guided step 1)',
    ).toBe('cancelled');
    historyOk(e.server.sessions.get(sessionId)!.handle.history, 'after a cancel mid-stream');
    expect(
      (await e.prompt(sessionId, 'again')).stopReason,
      'AcpServer.prompt: the session is usable after a cancel (guided step 6)',
    ).toBe('end_turn');
    const errors: string[] = [];
    const spy = vi
      .spyOn(process.stderr, 'write')
      .mockImplementation((chunk: unknown) => (errors.push(String(chunk)), true));
    try {
      await e.agent.notify(acp.methods.agent.session.cancel, { sessionId: 'nobody' });
      await e.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      spy.mockRestore();
    }
    expect(
      errors.join(''),
      'AcpServer.cancel: no session, or nothing running: do nothing (no error either) (guided step 2)',
    ).toBe('');
    expect(
      (await e.agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] })).sessionId,
      'AcpServer.cancel: a cancel with nothing running (or no session) is ignored, the connection fine (guided step 2)',
    ).toBe('s2');
  });

  test('cancel while a tool runs: the tool is stopped, its card fails, its call gets a result', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({
      script: [assistantToolCalls([{ id: 'w1', name: 'wait', arguments: {} }]), assistantText('ok')],
      tools: [waitTool()],
    });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    const running = e.prompt(sessionId, 'wait for it');
    await until(() => brief(e.of(sessionId)).includes('tool_call_update w1 in_progress'), 'the wait tool should start');
    await e.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    // The tool waits until it is cancelled: only a cancel that stops it ends the prompt.
    expect(
      (await within(running, 'AcpServer.cancel: abort the run, which stops the tool (guided step 1)')).stopReason,
      'stopReasonOf: a prompt cancelled mid-tool answers cancelled (guided step 1)',
    ).toBe('cancelled');
    const cards = e.of(sessionId).filter((update) => update.sessionUpdate === 'tool_call_update');
    expect(brief(cards).at(-1), "the tool's card ends failed").toBe('tool_call_update w1 failed');
    expect(
      JSON.stringify(cards.at(-1)),
      'AcpServer.cancel: abort with an Error saying the client cancelled it (the card shows why) (guided step 1)',
    ).toMatch(/cancel/i);
    historyOk(e.server.sessions.get(sessionId)!.handle.history, 'after a cancel mid-tool');
  });
});

describe('permissions through the editor (AcpServer with askThroughClient)', () => {
  const bashRound = (command: string, id = 'b1') => [
    assistantToolCalls([{ id, name: 'bash', arguments: { command } }]),
    assistantText('ok'),
  ];

  test('a command is asked about with the call; allow once runs it, reject once does not', async () => {
    for (const [answer, runs] of [
      ['allow_once', true],
      ['reject_once', false],
    ] as const) {
      const { root } = tempWorkspace();
      const e = connect(testFactory({ script: bashRound('touch made.txt') }), { permission: answer });
      const { sessionId } = await e.open(root);
      await e.prompt(sessionId, 'make a file');
      expect(e.questions, `askThroughClient: one question for the bash call (${answer})`).toHaveLength(1);
      expect(e.questions[0], 'askThroughClient: the question carries the call (guided step 1)').toMatchObject({
        sessionId,
        toolCall: { toolCallId: 'b1', kind: 'execute', title: 'Run `touch made.txt`' },
      });
      expect(
        existsSync(path.join(root, 'made.txt')),
        `askThroughClient: ${answer} → the command ${runs ? 'runs' : 'must not run'} (guided step 3)`,
      ).toBe(runs);
      expect(
        brief(e.of(sessionId))
          .filter((line) => line.includes(' b1 '))
          .at(-1),
        `the card ends ${runs ? 'completed' : 'failed'}`,
      ).toBe(`tool_call_update b1 ${runs ? 'completed' : 'failed'}`);
    }
  });

  test('"always allow" is remembered for the session; a cancelled question is a rejection', async () => {
    const { root } = tempWorkspace();
    const script = [...bashRound('touch one.txt', 'b1').slice(0, 1), ...bashRound('touch one.txt', 'b2')];
    const e = connect(testFactory({ script }), { permission: 'allow_always' });
    const { sessionId } = await e.open(root);
    await e.prompt(sessionId, 'twice');
    expect(
      e.questions.map((q) => q.toolCall.toolCallId),
      'askThroughClient: allow_always → the gate adds a rule, so the second call is not asked about (guided step 3)',
    ).toEqual(['b1']);
    const cancelled = connect(testFactory({ script: bashRound('touch no.txt') }), { permission: 'cancelled' });
    const other = await cancelled.open(root);
    await cancelled.prompt(other.sessionId, 'go');
    expect(
      existsSync(path.join(root, 'no.txt')),
      'askThroughClient: a cancelled question must not run the command (guided step 3)',
    ).toBe(false);
  });

  test('a plan approved in the editor switches the mode, and the editor hears of it', async () => {
    const { root } = tempWorkspace();
    const script = [
      assistantToolCalls([
        { id: 'r0', name: 'read', arguments: { path: 'a.txt' } },
        { id: 'p1', name: 'exit_plan_mode', arguments: { plan: '1. Edit a.ts' } },
      ]),
      assistantText('Starting.'),
    ];
    const e = connect(testFactory({ script, mode: 'plan' }), { permission: 'acceptEdits' });
    const { sessionId, modes } = await e.open(root);
    expect(modes?.currentModeId, 'the session starts in plan mode').toBe('plan');
    await e.prompt(sessionId, 'plan it');
    expect(
      e.questions[0]?.toolCall,
      'AcpServer.prompt: the plan question is about the exit_plan_mode call (its id from the events) (guided step 5)',
    ).toMatchObject({ toolCallId: 'p1' });
    expect(
      e.questions[0]?.options.map((o) => o.optionId),
      'the three plan options',
    ).toEqual(['acceptEdits', 'default', 'plan']);
    expect(
      brief(e.of(sessionId)),
      'UpdateTranslator.updates: mode_changed → current_mode_update, sent to the editor (guided step 5)',
    ).toContain('mode acceptEdits');
    expect(e.server.sessions.get(sessionId)!.handle.modes.mode, 'the session is now in acceptEdits').toBe(
      'acceptEdits',
    );
  });

  test('a plan kept in planning, then a second plan: each question is about its own exit_plan_mode call', async () => {
    const { root } = tempWorkspace();
    const script = [
      assistantToolCalls([{ id: 'p1', name: 'exit_plan_mode', arguments: { plan: '1. Read a.ts' } }]),
      assistantToolCalls([{ id: 'p2', name: 'exit_plan_mode', arguments: { plan: '1. Read a.ts\n2. Edit it' } }]),
      assistantText('Starting.'),
    ];
    const answers = ['plan', 'acceptEdits'];
    const e = connect(testFactory({ script, mode: 'plan' }), {
      permission: async () => ({ outcome: { outcome: 'selected', optionId: answers.shift() ?? 'plan' } }),
    });
    const { sessionId } = await e.open(root);
    await e.prompt(sessionId, 'plan it');
    expect(
      e.questions.map((q) => q.toolCall.toolCallId),
      'AcpServer.prompt: push the callId of each tool_call_requested for exit_plan_mode, once (not of its early tool_call_start too), so the second question is about the second call (guided step 5)',
    ).toEqual(['p1', 'p2']);
    expect(e.server.sessions.get(sessionId)!.handle.modes.mode, 'the second plan was approved').toBe('acceptEdits');
  });
});

describe('AcpServer.setMode (src/acp/session-selectors.ts)', () => {
  test("switches the session's permission mode; the next command runs without a question", async () => {
    const { root } = tempWorkspace();
    const e = connect(
      testFactory({
        script: [
          assistantToolCalls([{ id: 'b1', name: 'bash', arguments: { command: 'touch yes.txt' } }]),
          assistantText('ok'),
        ],
      }),
      { permission: 'reject_once' },
    );
    const { sessionId } = await e.open(root);
    await e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'bypassPermissions' });
    expect(
      e.server.sessions.get(sessionId)!.handle.modes.mode,
      'AcpServer.setMode: handle.modes.setMode (guided step 4)',
    ).toBe('bypassPermissions');
    await e.prompt(sessionId, 'go');
    expect(e.questions, 'AcpServer.setMode: in bypassPermissions nothing is asked (guided step 4)').toEqual([]);
    expect(existsSync(path.join(root, 'yes.txt')), 'AcpServer.setMode: the command ran').toBe(true);
    expect(
      brief(e.of(sessionId)).filter((line) => line.startsWith('mode')),
      'AcpServer.setMode: the client asked for it, so no current_mode_update (guided step 4)',
    ).toEqual([]);
  });

  test('an unknown mode or session is refused, and the mode stays', async () => {
    const { root } = tempWorkspace();
    const e = connect(testFactory());
    const { sessionId } = await e.open(root);
    const bad = await errorOf(
      e.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'yolo' }),
      'AcpServer.setMode: an unknown mode must be refused (guided step 2)',
    );
    expect(bad, 'AcpServer.setMode: invalid params naming the mode (guided step 2)').toMatchObject({
      code: -32602,
      message: expect.stringContaining('yolo'),
    });
    expect(bad.message, 'AcpServer.setMode: and the modes there are (guided step 2)').toContain(
      'default, acceptEdits, plan, bypassPermissions',
    );
    expect(
      e.server.sessions.get(sessionId)!.handle.modes.mode,
      'AcpServer.setMode: the mode is unchanged (guided step 2)',
    ).toBe('default');
    const unknown = await errorOf(
      e.agent.request(acp.methods.agent.session.setMode, { sessionId: 'zz', modeId: 'plan' }),
      'AcpServer.setMode: an unknown session must be refused (guided step 1)',
    );
    expect(unknown.code, 'AcpServer.setMode: -32002 (guided step 1)').toBe(-32002);
  });
});

describe('_meta.systemPrompt (AcpServer.newSession)', () => {
  test('a string replaces the system prompt and { append } adds to it, in what the model is sent', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({ script: [assistantText('a')] });
    const e = connect(factory);
    const replaced = await e.open(root, { _meta: { systemPrompt: 'Only haiku.' } });
    await e.prompt(replaced.sessionId, 'hi');
    const appended = await e.agent.request(acp.methods.agent.session.new, {
      cwd: root,
      mcpServers: [],
      _meta: { systemPrompt: { append: 'Use tabs.' } },
    });
    await e.prompt(appended.sessionId, 'hi');
    expect((factory.providers[0] as MockProvider).requests[0]!.system, 'systemPromptFromMeta: a string replaces').toBe(
      'Only haiku.',
    );
    expect(
      (factory.providers[1] as MockProvider).requests[0]!.system,
      'systemPromptFromMeta: { append } adds after the base prompt',
    ).toBe('You are a test agent.\n\nUse tabs.');
  });
});

describe('AcpServer.loadSession (src/acp/server.ts)', () => {
  const savedHistory: Message[] = [
    userMessage('read a.txt'),
    assistantToolCalls([{ id: 'r1', name: 'read', arguments: { path: 'a.txt' } }], 'Looking.'),
    toolResult({ id: 'r1', name: 'read' }, '     1\told text'),
    assistantText('It says old text.'),
  ];

  test('load replays the saved conversation before answering, then the session goes on from it', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({ script: [assistantText('Still here.')], saved: new Map([['old-1', savedHistory]]) });
    const e = connect(factory);
    await e.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    const response = await e.agent.request(acp.methods.agent.session.load, {
      sessionId: 'old-1',
      cwd: root,
      mcpServers: [],
    });
    expect(response.modes?.currentModeId, 'AcpServer.loadSession: the modes (guided step 5)').toBe('default');
    expect(
      factory.setups[0],
      'AcpServer.loadSession: the factory is asked to resume that id (guided step 3)',
    ).toMatchObject({
      sessionId: 'old-1',
      resume: true,
      cwd: root,
    });
    expect(
      brief(e.of('old-1')),
      'AcpServer.loadSession: the history as updates, in order, all sent before the answer (guided step 4)',
    ).toEqual([
      'user_message "read a.txt"',
      'agent_message "Looking."',
      'tool_call r1 read completed',
      'agent_message "It says old text."',
    ]);
    await e.prompt('old-1', 'and now?');
    const provider = factory.providers[0] as MockProvider;
    expect(
      shape(provider.requests[0]!.messages as Message[]),
      'AcpServer.loadSession: the prompt continues the loaded history (guided step 5)',
    ).toEqual(['user', 'assistant text + call read#r1', 'tool read#r1', 'assistant text', 'user']);
  });

  test('resume opens the saved session without replaying it; an unknown id is an error that names it', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({ saved: new Map([['old-2', savedHistory]]) });
    const e = connect(factory);
    await e.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    await e.agent.request(acp.methods.agent.session.resume, { sessionId: 'old-2', cwd: root });
    expect(e.of('old-2'), 'AcpServer.loadSession: resume (replay false) sends no updates (guided step 4)').toEqual([]);
    expect(e.server.sessions.has('old-2'), 'AcpServer.loadSession: the resumed session is kept (guided step 5)').toBe(
      true,
    );
    const missing = await errorOf(
      e.agent.request(acp.methods.agent.session.load, { sessionId: 'gone', cwd: root, mcpServers: [] }),
      'AcpServer.loadSession: an id the factory cannot load must be an error (guided step 3)',
    );
    expect(missing, 'AcpServer.loadSession: -32002 with the id and why (guided step 3)').toMatchObject({
      code: -32002,
      message: expect.stringContaining('gone'),
    });
    expect(missing.message, "AcpServer.loadSession: the factory's reason is in the message (guided step 3)").toContain(
      'no saved session',
    );
    expect((missing as { data?: unknown }).data, 'AcpServer.loadSession: data { sessionId } (guided step 3)').toEqual({
      sessionId: 'gone',
    });
    const relative = await errorOf(
      e.agent.request(acp.methods.agent.session.load, { sessionId: 'old-2', cwd: 'here', mcpServers: [] }),
      'AcpServer.loadSession: a relative cwd must be refused (guided step 1)',
    );
    expect(relative, 'AcpServer.loadSession: invalid params naming the folder (guided step 1)').toMatchObject({
      code: -32602,
      message: expect.stringContaining('here'),
    });
  });

  test('loading a session that is open on this connection closes the open one first, its run cancelled', async () => {
    const { root } = tempWorkspace();
    const saved = new Map([['old-3', savedHistory]]);
    const factory = testFactory({ saved, provider: () => holding(new MockProvider([]), 1) });
    const e = connect(factory);
    await e.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    await e.agent.request(acp.methods.agent.session.load, { sessionId: 'old-3', cwd: root, mcpServers: [] });
    const running = e.prompt('old-3', 'long job');
    await until(() => brief(e.of('old-3')).includes('agent_message "Let me think"'), 'the prompt should start');
    await e.agent.request(acp.methods.agent.session.resume, { sessionId: 'old-3', cwd: root });
    expect(
      (await running).stopReason,
      "AcpServer.loadSession: the open session's running prompt is cancelled (guided step 2)",
    ).toBe('cancelled');
    expect(
      factory.closed.map((c) => c.id),
      'AcpServer.loadSession: and the open session closed (saved) before it is opened again (guided step 2)',
    ).toEqual(['old-3']);
    expect(
      factory.setups.filter((s) => s.sessionId === 'old-3'),
      'AcpServer.loadSession: then opened again (guided step 3)',
    ).toHaveLength(2);
  });

  test("a loaded session's first plan question is about its own exit_plan_mode call", async () => {
    const { root } = tempWorkspace();
    const script = [
      assistantToolCalls([{ id: 'p7', name: 'exit_plan_mode', arguments: { plan: 'the plan' } }]),
      assistantText('ok'),
    ];
    const e = connect(testFactory({ saved: new Map([['old-4', savedHistory]]), script, mode: 'plan' }), {
      permission: 'default',
    });
    await e.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
    await e.agent.request(acp.methods.agent.session.load, { sessionId: 'old-4', cwd: root, mcpServers: [] });
    await e.prompt('old-4', 'plan');
    expect(
      e.questions.map((q) => q.toolCall.toolCallId),
      'AcpServer.loadSession: kept as newSession keeps it (planCalls starts empty) (guided step 5)',
    ).toEqual(['p7']);
  });
});

describe("the client's files (AcpServer.newSession with clientReadTool / clientWriteTool)", () => {
  test('when the editor offers its files, read sees its unsaved buffer and write goes to it, not to disk', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'on disk\n' });
    const files = new Map([[path.join(root, 'a.txt'), 'unsaved buffer']]);
    const script = [
      assistantToolCalls([
        { id: 'r1', name: 'read', arguments: { path: 'a.txt' } },
        { id: 'w1', name: 'write', arguments: { path: 'b.txt', content: 'new\n' } },
      ]),
      assistantText('done'),
    ];
    const factory = testFactory({ script, mode: 'acceptEdits' });
    const e = connect(factory, { files });
    const { sessionId } = await e.open(root);
    await e.prompt(sessionId, 'go');
    expect(
      e.fileRequests,
      'the read and the write went through the client (fs/read_text_file, fs/write_text_file)',
    ).toEqual([`read ${path.join(root, 'a.txt')} line 1 limit 2001`, `write ${path.join(root, 'b.txt')}`]);
    const results = (factory.providers[0] as MockProvider).requests[1]!.messages.filter((m) => m.role === 'tool');
    expect(results[0], "the model read the editor's buffer").toMatchObject({
      content: '     1\tunsaved buffer',
      isError: false,
    });
    expect(files.get(path.join(root, 'b.txt')), 'the editor got the write').toBe('new\n');
    expect(existsSync(path.join(root, 'b.txt')), 'the disk did not: the editor saves it').toBe(false);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'the disk file is untouched').toBe('on disk\n');
  });

  test('without the capability the tools work on disk, and the client is never asked', async () => {
    const { root } = tempWorkspace({ 'a.txt': 'on disk\n' });
    const factory = testFactory({
      script: [assistantToolCalls([{ id: 'r1', name: 'read', arguments: { path: 'a.txt' } }]), assistantText('done')],
    });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    await e.prompt(sessionId, 'go');
    expect(factory.setups[0]!.tools, 'setupFor: no fs capability → no client tools').toEqual([]);
    expect(e.fileRequests, 'no file requests').toEqual([]);
  });
});

describe('a client that goes away (createAcpAgent)', () => {
  test('disconnecting mid-prompt cancels the run and closes the session with a valid history', async () => {
    const { root } = tempWorkspace();
    const factory = testFactory({ provider: () => holding(new MockProvider([]), 1) });
    const e = connect(factory);
    const { sessionId } = await e.open(root);
    void e.prompt(sessionId, 'long job').catch(() => {});
    await until(() => e.of(sessionId).length > 0, 'the prompt should start streaming');
    e.close();
    await until(() => factory.closed.length > 0, 'the session should be closed (saved) when the client goes away');
    expect(factory.closed[0]!.id, 'the session that was open').toBe(sessionId);
    expect(
      shape(factory.closed[0]!.history),
      'AcpServer.prompt: the run ended (cancelled), its prompt kept (guided step 5)',
    ).toEqual(['user']);
    historyOk(factory.closed[0]!.history, 'after a disconnect');
  });
});
