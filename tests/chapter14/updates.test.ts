import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { historyUpdates, stopReasonOf, UNFINISHED_CALL, UpdateTranslator } from 'kit/acp/updates';
import type { AgentEvent, DoneEvent } from 'kit/agent-events';
import { assistantText, assistantToolCalls, toolResult, userMessage, type Message } from 'kit/messages';
import { rejection } from '../helpers/assert.js';

const cwd = path.resolve('/work/project');
const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const translator = (extra: Partial<ConstructorParameters<typeof UpdateTranslator>[0]> = {}) =>
  new UpdateTranslator({ cwd, contextWindow: 200_000, ...extra });
const requested = (callId: string, name: string, args: unknown): AgentEvent => ({
  type: 'tool_call_requested',
  turn: 1,
  callId,
  name,
  arguments: args,
});
const result = (callId: string, name: string, content: string, isError = false): AgentEvent => ({
  type: 'tool_result',
  turn: 1,
  callId,
  name,
  content,
  isError,
});
const start = (callId: string, name: string): AgentEvent => ({ type: 'tool_call_start', turn: 1, callId, name });
const delta = (callId: string, argumentsDelta: string): AgentEvent => ({
  type: 'tool_call_delta',
  turn: 1,
  callId,
  argumentsDelta,
});
const line = (u: { sessionUpdate: string }) =>
  `${u.sessionUpdate} ${'toolCallId' in u ? String(u.toolCallId) : ''} ${'status' in u ? String(u.status) : ''}`.trim();
const done = (reason: DoneEvent['reason'], message?: string): DoneEvent => ({
  type: 'done',
  reason,
  turns: 1,
  text: '',
  usage: { inputTokens: 0, outputTokens: 0 },
  ...(message ? { message } : {}),
});

describe('UpdateTranslator.updates (src/acp/updates.ts)', () => {
  test('text and thinking become message and thought chunks; events an editor does not show become nothing', () => {
    const t = translator();
    expect(
      t.updates({ type: 'text_delta', turn: 1, text: 'Hello' }),
      'UpdateTranslator.updates: text_delta → agent_message_chunk (guided step 1)',
    ).toEqual([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } }]);
    expect(
      t.updates({ type: 'thinking_delta', turn: 1, thinking: 'Hmm' }),
      'UpdateTranslator.updates: thinking_delta → agent_thought_chunk (guided step 1)',
    ).toEqual([{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Hmm' } }]);
    for (const event of [
      { type: 'turn_start', turn: 1 },
      { type: 'plan_proposed', turn: 1, callId: 'c', plan: 'p' },
    ] as AgentEvent[]) {
      expect(t.updates(event), `UpdateTranslator.updates: ${event.type} → no update (guided step 7)`).toEqual([]);
    }
  });

  test('a requested call becomes a pending tool_call card with its id, title, kind, locations and raw input', () => {
    const updates = translator().updates(requested('call_7', 'read', { path: 'src/app.ts', offset: 10 }));
    expect(updates, 'UpdateTranslator.updates: one tool_call, everything the card needs (guided step 2)').toEqual([
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'call_7',
        title: 'Read src/app.ts',
        kind: 'read',
        status: 'pending',
        locations: [{ path: path.join(cwd, 'src/app.ts'), line: 10 }],
        rawInput: { path: 'src/app.ts', offset: 10 },
        content: [],
      },
    ]);
  });

  test('a call gets its card while the model writes it, and the whole call fills that card in rather than adding a second', () => {
    const t = translator();
    const early = t.updates(start('a1', 'read'));
    expect(
      early,
      'UpdateTranslator.updates: tool_call_start → one pending tool_call named after the tool, no arguments or content yet (guided step 2)',
    ).toEqual([
      { sessionUpdate: 'tool_call', toolCallId: 'a1', title: 'read', kind: 'read', status: 'pending', content: [] },
    ]);
    expect(
      t.updates(delta('a1', '{"path":')),
      'UpdateTranslator.updates: a piece of the arguments is not shown (it is not JSON yet) (guided step 2)',
    ).toEqual([]);
    const seen = [
      ...t.updates(start('b2', 'bash')),
      ...t.updates(requested('a1', 'read', { path: 'a.txt' })),
      ...t.updates(requested('b2', 'bash', { command: 'ls' })),
      ...t.updates(requested('c3', 'read', { path: 'c.txt' })),
      ...t.updates(result('a1', 'read', '1\thello')),
      ...t.updates(done('end_turn')),
    ];
    expect(
      seen.map(line),
      'UpdateTranslator.updates: each card shown early is filled in by a tool_call_update of its own id; a call with no early card still gets a tool_call; nothing is closed as unfinished (guided steps 2 and 8)',
    ).toEqual([
      'tool_call b2 pending',
      'tool_call_update a1 pending',
      'tool_call_update b2 pending',
      'tool_call c3 pending',
      'tool_call_update a1 completed',
      'session_info_update',
    ]);
    expect(
      seen[1],
      'UpdateTranslator.updates: the whole call brings the title, kind, locations and raw input the early card lacked (guided step 2)',
    ).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'a1',
      title: 'Read a.txt',
      kind: 'read',
      status: 'pending',
      locations: [{ path: path.join(cwd, 'a.txt') }],
      rawInput: { path: 'a.txt' },
      content: [],
    });
  });

  test('a card begun but never whole is closed as failed when the run ends, before the session info; a call with no id gets no early card', () => {
    const t = translator();
    expect(
      t.updates(start('', 'read')),
      'UpdateTranslator.updates: a call with no id yet gets no early card (guided step 2)',
    ).toEqual([]);
    t.updates(start('x1', 'edit'));
    t.updates(start('y2', 'bash'));
    t.updates(delta('x1', '{"path":"a'));
    const end = t.updates(done('cancelled', 'stopped'));
    expect(
      end.map(line),
      'UpdateTranslator.updates: every card begun and never whole is closed as failed, then the session info comes last (guided step 8)',
    ).toEqual(['tool_call_update x1 failed', 'tool_call_update y2 failed', 'session_info_update']);
    expect(
      end[0],
      'UpdateTranslator.updates: the closed card says why (UNFINISHED_CALL) (guided step 8)',
    ).toMatchObject({
      content: [{ type: 'content', content: { type: 'text', text: UNFINISHED_CALL } }],
    });
    expect(
      t.updates(done('end_turn')).map(line),
      'UpdateTranslator.updates: a card is closed once; the next run end closes nothing (guided step 8)',
    ).toEqual(['session_info_update']);
  });

  test("a sub-agent's early cards carry its prefix, and its own end closes only its own unfinished cards", () => {
    const t = translator();
    const inner = (event: AgentEvent): AgentEvent => ({ type: 'subagent', turn: 1, callId: 'task1', event });
    const seen = [
      ...t.updates(start('p1', 'read')),
      ...t.updates(inner(start('c1', 'grep'))),
      ...t.updates(inner(start('c2', 'read'))),
      ...t.updates(inner(requested('c2', 'read', { path: 'b' }))),
      ...t.updates(inner(done('error', 'boom'))),
    ];
    expect(
      seen.map(line),
      "UpdateTranslator.updates: ids '<task call>/<child call>'; the sub-agent's end closes its unfinished card and nothing of the parent's (and sends no session info of its own) (guided steps 2 and 8)",
    ).toEqual([
      'tool_call p1 pending',
      'tool_call task1/c1 pending',
      'tool_call task1/c2 pending',
      'tool_call_update task1/c2 pending',
      'tool_call_update task1/c1 failed',
    ]);
    expect(
      t.updates(requested('p1', 'read', { path: 'a' })).map(line),
      "UpdateTranslator.updates: the parent's early card is still open, so its whole call fills it in (guided step 8)",
    ).toEqual(['tool_call_update p1 pending']);
  });

  test('each update carries the id of its own call, through allowed, blocked and finished, for two calls at once', () => {
    const t = translator();
    const seen = [
      ...t.updates(requested('a1', 'read', { path: 'a.txt' })),
      ...t.updates(requested('b2', 'bash', { command: 'ls' })),
      ...t.updates({ type: 'tool_call_decided', turn: 1, callId: 'a1', name: 'read', decision: { type: 'allow' } }),
      ...t.updates({
        type: 'tool_call_decided',
        turn: 1,
        callId: 'b2',
        name: 'bash',
        decision: { type: 'block', message: 'no' },
      }),
      ...t.updates(result('b2', 'bash', 'Permission denied', true)),
      ...t.updates(result('a1', 'read', '1\thello')),
    ];
    expect(
      seen.map((u) => `${u.sessionUpdate} ${'toolCallId' in u ? u.toolCallId : '?'} ${'status' in u ? u.status : ''}`),
      'UpdateTranslator.updates: pending, in_progress when allowed, nothing when blocked, then failed / completed, each with its own call id (guided steps 2-4)',
    ).toEqual([
      'tool_call a1 pending',
      'tool_call b2 pending',
      'tool_call_update a1 in_progress',
      'tool_call_update b2 failed',
      'tool_call_update a1 completed',
    ]);
    expect(
      seen[2],
      'UpdateTranslator.updates: allow → exactly { tool_call_update, id, in_progress } (guided step 3)',
    ).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'a1',
      status: 'in_progress',
    });
    expect(seen.at(-1), 'UpdateTranslator.updates: the result text as content (guided step 4)').toMatchObject({
      content: [{ type: 'content', content: { type: 'text', text: '1\thello' } }],
    });
    expect(seen.at(-2), 'UpdateTranslator.updates: a failed call shows its error text (guided step 4)').toMatchObject({
      content: [{ type: 'content', content: { type: 'text', text: 'Permission denied' } }],
    });
  });

  test('an edit shows its diff when requested and keeps it when it succeeds; a write shows the new content', () => {
    const t = translator();
    const args = { path: 'src/a.ts', old_string: 'let x = 1;', new_string: 'const x = 1;' };
    const diff = { type: 'diff', path: path.join(cwd, 'src/a.ts'), oldText: 'let x = 1;', newText: 'const x = 1;' };
    expect(
      t.updates(requested('e1', 'edit', args))[0],
      'UpdateTranslator.updates: content [diff] for an edit (guided step 2)',
    ).toMatchObject({ kind: 'edit', title: 'Edit src/a.ts', content: [diff] });
    expect(
      t.updates(result('e1', 'edit', 'Edited src/a.ts: replaced 1 occurrence'))[0],
      'UpdateTranslator.updates: the diff first, then the result text (guided step 4)',
    ).toMatchObject({
      status: 'completed',
      content: [diff, { type: 'content', content: { type: 'text', text: 'Edited src/a.ts: replaced 1 occurrence' } }],
    });
    t.updates(requested('e2', 'edit', args));
    expect(
      t.updates(result('e2', 'edit', 'old_string was not found', true))[0],
      'UpdateTranslator.updates: a failed edit shows no diff, only why (guided step 4)',
    ).toMatchObject({ status: 'failed', content: [{ type: 'content' }] });
    expect(
      (t.updates(result('e2', 'edit', 'x', true))[0] as { content: unknown[] }).content,
      'a failed edit: exactly one content item',
    ).toHaveLength(1);
    expect(
      t.updates(requested('w1', 'write', { path: 'n.md', content: '# Notes\n' }))[0],
      'UpdateTranslator.updates: a write → diff with no old text (guided step 2)',
    ).toMatchObject({ content: [{ type: 'diff', path: path.join(cwd, 'n.md'), oldText: null, newText: '# Notes\n' }] });
  });

  test('arguments changed by a hook are what the card shows from then on', () => {
    const t = translator();
    t.updates(requested('c1', 'edit', { path: 'a.ts', old_string: 'a', new_string: 'b' }));
    const changed = { path: 'b.ts', old_string: 'a', new_string: 'c' };
    const [update] = t.updates({
      type: 'tool_call_decided',
      turn: 1,
      callId: 'c1',
      name: 'edit',
      decision: { type: 'change', arguments: changed },
    });
    expect(
      update,
      'UpdateTranslator.updates: change → in_progress with the new title, locations, rawInput and diff (guided step 3)',
    ).toMatchObject({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: 'in_progress',
      title: 'Edit b.ts',
      locations: [{ path: path.join(cwd, 'b.ts') }],
      rawInput: changed,
      content: [{ type: 'diff', path: path.join(cwd, 'b.ts'), newText: 'c' }],
    });
    expect(
      t.updates(result('c1', 'edit', 'Edited b.ts'))[0],
      'UpdateTranslator.updates: remember the new arguments; the finished card keeps the diff of the call that ran (guided step 3)',
    ).toMatchObject({
      content: [{ type: 'diff', path: path.join(cwd, 'b.ts'), newText: 'c' }, { type: 'content' }],
    });
  });

  test('the task list becomes a plan, and a mode switch a current_mode_update', () => {
    const t = translator();
    const todos = [
      { content: 'Read the code', status: 'completed' as const, priority: 'high' as const },
      { content: 'Fix the bug', status: 'in_progress' as const },
    ];
    expect(
      t.updates({ type: 'todo_list', turn: 1, callId: 't1', todos }),
      'UpdateTranslator.updates: todo_list → plan; priority medium when the item has none (guided step 5)',
    ).toEqual([
      {
        sessionUpdate: 'plan',
        entries: [
          { content: 'Read the code', status: 'completed', priority: 'high' },
          { content: 'Fix the bug', status: 'in_progress', priority: 'medium' },
        ],
      },
    ]);
    expect(
      t.updates({ type: 'mode_changed', turn: 1, mode: 'acceptEdits', previous: 'plan' }),
      'UpdateTranslator.updates: mode_changed → current_mode_update (guided step 5)',
    ).toEqual([{ sessionUpdate: 'current_mode_update', currentModeId: 'acceptEdits' }]);
  });

  test("usage: this turn's context against the window, and the session's cost so far when the price is known", () => {
    const t = translator({ price, usage: { inputTokens: 1_000_000, outputTokens: 0 } });
    const first = t.updates({
      type: 'usage',
      turn: 1,
      usage: { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 5000, cacheWriteTokens: 100 },
    });
    expect(
      first,
      'UpdateTranslator.updates: used = input + cache read + cache write + output of this turn (guided step 6)',
    ).toMatchObject([{ sessionUpdate: 'usage_update', used: 6300, size: 200_000 }]);
    const cost1 = 3 + (1000 * 3 + 200 * 15 + 5000 * 0.3 + 100 * 3.75) / 1e6;
    expect(
      (first[0] as { cost?: { amount: number; currency: string } }).cost,
      'UpdateTranslator.updates: the cost of everything the session used, the usage it started with included, in USD (guided step 6)',
    ).toEqual({ amount: expect.closeTo(cost1, 9), currency: 'USD' });
    const second = t.updates({ type: 'usage', turn: 2, usage: { inputTokens: 2000, outputTokens: 0 } });
    expect(
      second[0],
      'UpdateTranslator.updates: used is this turn only; the cost keeps adding up (guided step 6)',
    ).toMatchObject({ used: 2000, cost: { amount: expect.closeTo(cost1 + 0.006, 9) } });
    expect(
      translator().updates({ type: 'usage', turn: 1, usage: { inputTokens: 5, outputTokens: 5 } })[0],
      'UpdateTranslator.updates: no price → no cost field (unknown is not 0) (guided step 6)',
    ).not.toHaveProperty('cost');
    const nested = translator({ price });
    expect(
      nested.updates({
        type: 'subagent',
        turn: 1,
        callId: 't1',
        event: { type: 'usage', turn: 1, usage: { inputTokens: 1_000_000, outputTokens: 0 } },
      }),
      "UpdateTranslator.updates: a sub-agent's usage sends nothing (guided step 6)",
    ).toEqual([]);
    expect(
      nested.updates({ type: 'usage', turn: 1, usage: { inputTokens: 1000, outputTokens: 0 } })[0],
      "UpdateTranslator.updates: and is not added to the session's usage (the task call's own usage event counts it) (guided step 6)",
    ).toMatchObject({ cost: { amount: expect.closeTo(0.003, 9) } });
  });

  test("a sub-agent's calls appear under ids prefixed with the task call's id; its text and usage do not", () => {
    const t = translator();
    const inner = (event: AgentEvent): AgentEvent => ({ type: 'subagent', turn: 1, callId: 'task1', event });
    const updates = [
      ...t.updates(inner({ type: 'text_delta', turn: 1, text: 'child talk' })),
      ...t.updates(inner({ type: 'usage', turn: 1, usage: { inputTokens: 5, outputTokens: 5 } })),
      ...t.updates(inner({ type: 'thinking_delta', turn: 1, thinking: 'child thought' })),
      ...t.updates(
        inner({ type: 'todo_list', turn: 1, callId: 'td', todos: [{ content: 'child task', status: 'pending' }] }),
      ),
      ...t.updates(inner({ type: 'mode_changed', turn: 1, mode: 'default', previous: 'plan' })),
      ...t.updates(inner(requested('c1', 'grep', { pattern: 'x' }))),
      ...t.updates(
        inner({ type: 'tool_call_decided', turn: 1, callId: 'c1', name: 'grep', decision: { type: 'allow' } }),
      ),
      ...t.updates({
        type: 'subagent',
        turn: 1,
        callId: 'task1',
        event: { type: 'subagent', turn: 1, callId: 'task2', event: requested('c1', 'read', { path: 'a' }) },
      }),
      ...t.updates(inner(result('c1', 'grep', 'found'))),
    ];
    expect(
      updates.map((u) => `${u.sessionUpdate} ${'toolCallId' in u ? u.toolCallId : ''}`),
      'UpdateTranslator.updates: only tool updates, ids "<task call>/<child call>", a grandchild\'s "task1/task2/c1" (guided step 7)',
    ).toEqual([
      'tool_call task1/c1',
      'tool_call_update task1/c1',
      'tool_call task1/task2/c1',
      'tool_call_update task1/c1',
    ]);
    expect(updates[0], 'the child call keeps its title and kind').toMatchObject({
      title: 'Search for `x`',
      kind: 'search',
    });
  });
});

describe('stopReasonOf (src/acp/updates.ts)', () => {
  const answered: Message[] = [userMessage('hi'), assistantText('hello')];
  test('each way a run ends maps to its stop reason', () => {
    expect(stopReasonOf(done('end_turn'), answered), 'stopReasonOf guided step 2').toBe('end_turn');
    expect(
      stopReasonOf(done('cancelled', 'cancelled by the client'), answered),
      'stopReasonOf: a cancelled run answers cancelled, whatever the history ends with (guided step 1)',
    ).toBe('cancelled');
    expect(
      stopReasonOf(done('turn_limit'), answered),
      'stopReasonOf: turn_limit → max_turn_requests (guided step 1)',
    ).toBe('max_turn_requests');
  });

  test('an answer cut at max_tokens, or a refusal, says so', () => {
    const cut: Message[] = [
      userMessage('hi'),
      assistantText('Hello.'),
      userMessage('a story'),
      { role: 'assistant', content: [{ type: 'text', text: 'Once upon' }], stopReason: 'max_tokens' },
    ];
    const refused: Message[] = [userMessage('hi'), { role: 'assistant', content: [], stopReason: 'refusal' }];
    expect(
      stopReasonOf(done('end_turn'), cut),
      'stopReasonOf: the last turn stopped for max_tokens (guided step 2)',
    ).toBe('max_tokens');
    expect(
      stopReasonOf(done('end_turn'), refused),
      'stopReasonOf: the last turn stopped for refusal (guided step 2)',
    ).toBe('refusal');
    expect(stopReasonOf(done('cancelled'), cut), 'stopReasonOf: cancelled comes first (guided step 1)').toBe(
      'cancelled',
    );
    const stopped: Message[] = [
      userMessage('hi'),
      { role: 'assistant', content: [{ type: 'text', text: 'x' }], stopReason: 'stop_sequence' },
    ];
    expect(
      stopReasonOf(done('end_turn'), stopped),
      'stopReasonOf: any other stop reason of the last turn (stop_sequence) is end_turn (guided step 2)',
    ).toBe('end_turn');
    expect(
      stopReasonOf(done('end_turn'), [userMessage('hi')]),
      'stopReasonOf: a history that ends with a user message → end_turn (guided step 2)',
    ).toBe('end_turn');
    expect(
      stopReasonOf(done('end_turn'), []),
      'stopReasonOf: an empty history → end_turn (never throw) (guided step 2)',
    ).toBe('end_turn');
  });

  test('a failed run is a JSON-RPC error with the reason, not a stop reason', async () => {
    const error = await rejection(
      Promise.resolve().then(() => stopReasonOf(done('error', 'the API answered 500'), answered)),
      'stopReasonOf: an error run must throw (guided step 3)',
    );
    expect(error, 'stopReasonOf: a RequestError (internal error, code -32603) (guided step 3)').toMatchObject({
      code: -32603,
    });
    expect((error as Error).message, 'stopReasonOf: the message says why the run failed (guided step 3)').toContain(
      'the API answered 500',
    );
    const paused = await rejection(
      Promise.resolve().then(() => stopReasonOf(done('paused_for_client_tool'), answered)),
      'stopReasonOf: a paused run must throw (guided step 3)',
    );
    expect((paused as Error).message, 'stopReasonOf: no message → the reason (guided step 3)').toContain(
      'paused_for_client_tool',
    );
  });
});

describe('historyUpdates (src/acp/updates.ts)', () => {
  test('a saved conversation replays in order, each call finished with its own result', () => {
    const history: Message[] = [
      userMessage('fix it'),
      {
        role: 'assistant',
        stopReason: 'tool_use',
        content: [
          { type: 'thinking', thinking: '' },
          { type: 'thinking', thinking: 'look first' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'r1', name: 'read', arguments: { path: 'a.ts' } },
          { type: 'tool_call', id: 'b1', name: 'bash', arguments: { command: 'false' } },
        ],
      },
      toolResult({ id: 'b1', name: 'bash' }, 'exit code 1', true),
      toolResult({ id: 'r1', name: 'read' }, '1\tconst a = 1;'),
      assistantText('Done.'),
      userMessage('thanks'),
      assistantText(''),
    ];
    const updates = historyUpdates(history, cwd);
    expect(
      updates.map((u) => `${u.sessionUpdate}${'toolCallId' in u ? ` ${u.toolCallId} ${u.status}` : ''}`),
      "historyUpdates: user, thought, message, each call once (in the turn's order, with its own result), message, user; empty text skipped (guided step 2)",
    ).toEqual([
      'user_message_chunk',
      'agent_thought_chunk',
      'agent_message_chunk',
      'tool_call r1 completed',
      'tool_call b1 failed',
      'agent_message_chunk',
      'user_message_chunk',
    ]);
    expect(
      updates[3],
      'historyUpdates: a finished call has its title, kind, location and result (guided step 2)',
    ).toMatchObject({
      title: 'Read a.ts',
      kind: 'read',
      locations: [{ path: path.join(cwd, 'a.ts') }],
      rawInput: { path: 'a.ts' },
      content: [{ type: 'content', content: { type: 'text', text: '1\tconst a = 1;' } }],
    });
    expect(updates[4], "historyUpdates: b1 gets b1's result, found by its id (guided step 1)").toMatchObject({
      content: [{ type: 'content', content: { type: 'text', text: 'exit code 1' } }],
    });
    expect(updates[0], 'historyUpdates: the user text (guided step 2)').toEqual({
      sessionUpdate: 'user_message_chunk',
      content: { type: 'text', text: 'fix it' },
    });
    expect(updates[1], 'historyUpdates: the thinking (empty thinking skipped) (guided step 2)').toEqual({
      sessionUpdate: 'agent_thought_chunk',
      content: { type: 'text', text: 'look first' },
    });
    expect(updates[2], 'historyUpdates: the text (guided step 2)').toEqual({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'Reading.' },
    });
  });

  test('a replayed edit that worked shows its diff, as it did live', () => {
    const edit = { id: 'e1', name: 'edit', arguments: { path: 'a.ts', old_string: 'let', new_string: 'const' } };
    const history: Message[] = [
      userMessage('fix'),
      assistantToolCalls([edit]),
      toolResult(edit, 'Edited a.ts: replaced 1 occurrence'),
    ];
    expect(
      historyUpdates(history, cwd).at(-1),
      'historyUpdates: the diff, then the result text (guided step 2)',
    ).toMatchObject({
      status: 'completed',
      content: [{ type: 'diff', path: path.join(cwd, 'a.ts'), oldText: 'let', newText: 'const' }, { type: 'content' }],
    });
    const failed: Message[] = [
      userMessage('fix'),
      assistantToolCalls([edit]),
      toolResult(edit, 'old_string was not found', true),
    ];
    expect(
      (historyUpdates(failed, cwd).at(-1) as { content: unknown[] }).content,
      'historyUpdates: a failed edit shows only why (guided step 2)',
    ).toHaveLength(1);
  });

  test("a message's pictures replay after its text, in order, as image chunks", () => {
    const png = { type: 'image' as const, mimeType: 'image/png', data: 'iVBORw0KGgo=' };
    const jpeg = { type: 'image' as const, mimeType: 'image/jpeg', data: '/9j/4AAQSkZJRg==' };
    const updates = historyUpdates([userMessage('which one?', [png, jpeg]), assistantText('The first.')], cwd);
    expect(
      updates,
      'historyUpdates: the user text, then one user_message_chunk per image, then the answer (guided step 2)',
    ).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'which one?' } },
      { sessionUpdate: 'user_message_chunk', content: { type: 'image', mimeType: 'image/png', data: png.data } },
      { sessionUpdate: 'user_message_chunk', content: { type: 'image', mimeType: 'image/jpeg', data: jpeg.data } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'The first.' } },
    ]);
  });

  test('a call the history left without a result is shown pending', () => {
    const updates = historyUpdates(
      [userMessage('go'), assistantToolCalls([{ id: 'x1', name: 'bash', arguments: { command: 'sleep 9' } }])],
      cwd,
    );
    expect(updates.at(-1), 'historyUpdates: no result → status pending, no content (guided step 2)').toMatchObject({
      sessionUpdate: 'tool_call',
      toolCallId: 'x1',
      status: 'pending',
      content: [],
    });
  });
});
