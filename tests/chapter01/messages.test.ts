import { describe, expect, test } from 'vitest';
import {
  assistantText,
  assistantToolCalls,
  historyProblems,
  textOf,
  toolCallsOf,
  toolResult,
  userMessage,
  type AssistantMessage,
  type Message,
} from 'kit/messages';

const mixed: AssistantMessage = {
  role: 'assistant',
  stopReason: 'tool_use',
  content: [
    { type: 'thinking', thinking: 'I should look first.' },
    { type: 'text', text: 'Let me ' },
    { type: 'tool_call', id: 'call_a', name: 'read', arguments: { path: 'a.txt' } },
    { type: 'text', text: 'check.' },
    { type: 'tool_call', id: 'call_b', name: 'glob', arguments: { pattern: '*.ts' } },
  ],
};

describe('textOf (src/messages.ts)', () => {
  test('joins the text blocks in order with no separator', () => {
    expect(textOf(mixed), 'textOf should concatenate every text block, in order, with nothing between them').toBe(
      'Let me check.',
    );
  });

  test('leaves out thinking and tool calls', () => {
    const turn: AssistantMessage = {
      role: 'assistant',
      stopReason: 'end_turn',
      content: [
        { type: 'thinking', thinking: 'secret plan' },
        { type: 'text', text: 'Done.' },
      ],
    };
    expect(textOf(turn), 'thinking is not part of the answer text').toBe('Done.');
  });

  test('is the empty string for a turn with only tool calls', () => {
    expect(
      textOf(assistantToolCalls([{ id: 'c1', name: 'read', arguments: {} }])),
      'no text blocks: the empty string (guided step 3)',
    ).toBe('');
  });
});

describe('toolCallsOf (src/messages.ts)', () => {
  test('returns the tool calls in the order the model wrote them, unchanged', () => {
    expect(
      toolCallsOf(mixed),
      'only the tool_call blocks (no text, no thinking), in their original order, unchanged',
    ).toEqual([
      { type: 'tool_call', id: 'call_a', name: 'read', arguments: { path: 'a.txt' } },
      { type: 'tool_call', id: 'call_b', name: 'glob', arguments: { pattern: '*.ts' } },
    ]);
  });

  test('is empty for a turn that only talks', () => {
    expect(toolCallsOf(assistantText('hello')), 'a turn with no tool calls gives an empty array').toEqual([]);
  });

  test('returns a new array, not the message content itself', () => {
    const turn = assistantToolCalls([{ id: 'c1', name: 'read', arguments: {} }]);
    const calls = toolCallsOf(turn);
    calls.pop();
    expect(turn.content, 'changing the returned array must not change the message').toHaveLength(1);
  });
});

describe('historyProblems (src/messages.ts)', () => {
  const call1 = { id: 'call_1', name: 'read' };
  const call2 = { id: 'call_2', name: 'read' };
  const valid: Message[] = [
    userMessage('read both files'),
    assistantToolCalls([
      { ...call1, arguments: { path: 'a' } },
      { ...call2, arguments: { path: 'b' } },
    ]),
    toolResult(call2, 'B'),
    toolResult(call1, 'A'),
    assistantText('A and B'),
    userMessage('thanks'),
  ];

  test('finds nothing wrong in a valid history (results may come in any order)', () => {
    expect(
      historyProblems(valid),
      'a valid history has no problems (check an id is reused before adding it to the ids seen)',
    ).toEqual([]);
  });

  test('finds nothing wrong in an empty history', () => {
    expect(
      historyProblems([]),
      'an empty history has no problems (guided step 1 applies only when it is not empty)',
    ).toEqual([]);
  });

  test('reports a history that does not start with a user message', () => {
    const problems = historyProblems([assistantText('hi'), userMessage('hello')]);
    expect(problems, `one problem, about message 0; got ${JSON.stringify(problems)}`).toHaveLength(1);
    expect(problems[0], 'the sentence names message 0 (guided step 1)').toMatch(/message 0/);
  });

  test('reports a tool call that never got a result, naming its id', () => {
    const problems = historyProblems([userMessage('go'), assistantToolCalls([{ ...call1, arguments: {} }])]);
    expect(
      problems,
      `one problem for the call still pending at the end (guided step 6); got ${JSON.stringify(problems)}`,
    ).toHaveLength(1);
    expect(problems[0], 'the sentence names the id').toContain('call_1');
  });

  test('reports a result whose id matches no open call, naming the id and the index', () => {
    const problems = historyProblems([
      userMessage('go'),
      assistantToolCalls([{ ...call1, arguments: {} }]),
      toolResult(call1, 'ok'),
      toolResult({ id: 'call_9', name: 'read' }, 'stray'),
    ]);
    expect(problems, `one problem, the stray result (guided step 4); got ${JSON.stringify(problems)}`).toHaveLength(1);
    expect(problems[0], 'the sentence names the id').toContain('call_9');
    expect(problems[0], 'the sentence names the index of the result').toContain('message 3');
  });

  test('reports a result that arrives after the next user message', () => {
    const problems = historyProblems([
      userMessage('go'),
      assistantToolCalls([{ ...call1, arguments: {} }]),
      userMessage('hurry up'),
      toolResult(call1, 'late'),
    ]);
    expect(
      problems.length,
      `a user message ends the wait for results: expected two problems (call_1 unanswered, then a stray result) (guided step 5), got ${JSON.stringify(problems)}`,
    ).toBe(2);
    expect(
      problems[0],
      'the first problem: call_1 has no result before the user message at index 2 (name the id and the index)',
    ).toMatch(/call_1[^]*message 2|message 2[^]*call_1/);
    expect(problems[1], 'the second problem: the result at index 3 answers no open call').toMatch(
      /call_1[^]*message 3|message 3[^]*call_1/,
    );
  });

  test('reports a result for a call of an earlier assistant turn', () => {
    const problems = historyProblems([
      userMessage('go'),
      assistantToolCalls([{ ...call1, arguments: {} }]),
      assistantText('never mind'),
      toolResult(call1, 'too late'),
    ]);
    expect(
      problems.length,
      `an assistant turn first reports the calls still pending (call_1), then the late result answers no open call: two problems (guided step 3); got ${JSON.stringify(problems)}`,
    ).toBe(2);
  });

  test('reports a tool call id used twice', () => {
    const problems = historyProblems([
      userMessage('go'),
      assistantToolCalls([{ ...call1, arguments: {} }]),
      toolResult(call1, 'one'),
      assistantToolCalls([{ ...call1, arguments: {} }]),
      toolResult(call1, 'two'),
    ]);
    expect(
      problems,
      `one problem, the reused id, even though the two calls are in different turns (guided step 3); got ${JSON.stringify(problems)}`,
    ).toHaveLength(1);
    expect(problems[0], 'the sentence names the id').toMatch(/call_1/);
  });

  test('reports an id used by two calls of the same turn, even when one result answers it', () => {
    const problems = historyProblems([
      userMessage('go'),
      assistantToolCalls([
        { ...call1, arguments: { path: 'a' } },
        { ...call1, arguments: { path: 'b' } },
      ]),
      toolResult(call1, 'one'),
    ]);
    expect(
      problems.some((p) => /call_1/.test(p) && /message 1\b/.test(p)),
      `historyProblems: check each call of a turn against the ids seen so far, including the calls before it in the same turn (message 1 uses call_1 twice) (guided step 3); got ${JSON.stringify(problems)}`,
    ).toBe(true);
  });

  test('treats ids that are names of Object.prototype ("constructor", "toString", "__proto__") as ordinary ids', () => {
    const names = ['constructor', 'toString', '__proto__'];
    const valid: Message[] = [
      userMessage('go'),
      assistantToolCalls(names.map((id) => ({ id, name: 'read', arguments: {} }))),
      ...names.map((id) => toolResult({ id, name: 'read' }, 'ok')),
      assistantText('done'),
    ];
    const ok = historyProblems(valid);
    expect(
      ok,
      `historyProblems: keep the ids in a Set (a plain object already "has" constructor and toString); a valid history got ${JSON.stringify(ok)} (guided step 2)`,
    ).toEqual([]);
    const stray = historyProblems([
      userMessage('go'),
      assistantText('hi'),
      toolResult({ id: 'hasOwnProperty', name: 'read' }, 'stray'),
    ]);
    expect(
      stray,
      `historyProblems: a result for "hasOwnProperty" answers no open call (keep the pending ids in a Set, not an object) (guided step 2); got ${JSON.stringify(stray)}`,
    ).toHaveLength(1);
  });

  test('does not change the history it checks', () => {
    const copy = structuredClone(valid);
    historyProblems(valid);
    expect(valid, 'historyProblems only reads the history').toEqual(copy);
  });
});
