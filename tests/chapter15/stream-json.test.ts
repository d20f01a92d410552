import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  assistantLine,
  resultLine,
  StreamJsonWriter,
  userLine,
  type StreamJsonOptions,
} from 'kit/capstone/stream-json';
import { Agent } from 'kit/agent';
import {
  assistantText,
  assistantToolCalls,
  toolResult,
  userMessage,
  type AssistantMessage,
  type Message,
} from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { defineTool, ToolSet } from 'kit/tool';
import { collect, CWD, ev, standInTools } from './render-fixtures.js';

const options = (more: Partial<StreamJsonOptions> = {}): StreamJsonOptions => ({
  sessionId: 'sess-1',
  cwd: CWD,
  model: 'claude-sonnet-4-5',
  tools: ['read', 'edit', 'write', 'bash'],
  permissionMode: 'default',
  clock: ticking(1000, 250),
  newId: counter('uuid'),
  ...more,
});

/** Ids `<prefix>-1`, `<prefix>-2`, ... */
function counter(prefix: string) {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** A clock that starts at `start` and moves `step` ms each time it is read. */
function ticking(start: number, step: number) {
  let now = start - step;
  return () => (now += step);
}

/** Every line the writer wrote, parsed; fails when a line is not one JSON object. */
function parse(text: string): Array<Record<string, any>> {
  expect(text === '' || text.endsWith('\n'), 'StreamJsonWriter.write: every line ends with "\\n" (guided step 1)').toBe(
    true,
  );
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const value = JSON.parse(line);
      expect(
        typeof value === 'object' && value !== null && !Array.isArray(value),
        `StreamJsonWriter.write: one JSON object per line (guided step 1), got ${line}`,
      ).toBe(true);
      return value;
    });
}

const kind = (line: Record<string, any>) =>
  line.type === 'system' || line.type === 'result' ? `${line.type}/${line.subtype}` : line.type;

/** Runs `agent` on `history`, handing every event to a writer; returns the parsed lines and the events. */
async function streamRun(
  agent: Agent,
  history: Message[],
  more: Partial<StreamJsonOptions> = {},
  signal?: AbortSignal,
) {
  const writer = new StreamJsonWriter(history, options(more));
  const events = await collect(agent.run(history, { signal }));
  const text = events.map((event) => writer.write(event)).join('');
  return { lines: parse(text), events, text };
}

describe('assistantLine (src/capstone/stream-json.ts)', () => {
  test("every block in the Messages API's shape, in order, with the stop reason and the usage", () => {
    const turn: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Look first.', signature: 'sig' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_call', id: 'toolu_1', name: 'read', arguments: { path: 'a.ts' } },
      ],
      stopReason: 'tool_use',
      usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 100 },
    };
    expect(assistantLine(turn, 'sess-1'), 'assistantLine guided steps 1-3').toEqual({
      type: 'assistant',
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Look first.', signature: 'sig' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.ts' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 12, output_tokens: 3, cache_read_input_tokens: 100 },
      },
      parent_tool_use_id: null,
      session_id: 'sess-1',
    });
    const unsigned = assistantLine(
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'Hmm.' }], stopReason: 'end_turn' },
      's',
    );
    expect(
      Object.keys(unsigned.message.content[0]!),
      'assistantLine: no signature field for a thought without one (guided step 1)',
    ).toEqual(['type', 'thinking']);
    const bare = assistantLine(assistantText('Hi.'), 'sess-2');
    expect(Object.keys(bare.message), 'assistantLine: no usage field for a turn without usage (guided step 2)').toEqual(
      ['role', 'content', 'stop_reason'],
    );
    expect(bare.message, 'assistantLine: the text turn (guided step 2)').toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hi.' }],
      stop_reason: 'end_turn',
    });
    expect(bare.session_id, 'assistantLine guided step 3').toBe('sess-2');
  });
});

describe('userLine (src/capstone/stream-json.ts)', () => {
  test('results become tool_result blocks, each with the id of the call it answers; text stays text', () => {
    const results = [toolResult({ id: 'b', name: 'bash' }, 'exit 1', true), toolResult({ id: 'a', name: 'read' }, 'A')];
    expect(
      userLine(results, 'sess-1'),
      'userLine: in the order given, paired by toolCallId (guided steps 2-3)',
    ).toEqual({
      type: 'user',
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'b', content: 'exit 1', is_error: true },
          { type: 'tool_result', tool_use_id: 'a', content: 'A', is_error: false },
        ],
      },
      parent_tool_use_id: null,
      session_id: 'sess-1',
    });
    expect(userLine('go on', 'sess-1').message, 'userLine: a text as it is (guided step 1)').toEqual({
      role: 'user',
      content: 'go on',
    });
  });
});

describe('resultLine (src/capstone/stream-json.ts)', () => {
  test('the subtype says how the run ended; every subtype but success is an error with its reason', () => {
    const info = { sessionId: 'sess-1', durationMs: 1234.4 };
    const ok = resultLine(
      ev.done('end_turn', { inputTokens: 10, outputTokens: 2 }, { text: 'All done.', turns: 3 }),
      info,
    );
    expect(ok, 'resultLine: success, the answer, the turns, the duration rounded (guided steps 1-2)').toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'All done.',
      num_turns: 3,
      duration_ms: 1234,
      session_id: 'sess-1',
    });
    expect(ok.errors, 'resultLine: a success has no errors (guided step 5)').toBeUndefined();
    expect(
      resultLine(ev.done('turn_limit', undefined, { message: 'after 5 model calls' }), info),
      'resultLine: the turn limit is error_max_turns (guided step 1)',
    ).toMatchObject({
      subtype: 'error_max_turns',
      is_error: true,
      errors: ['after 5 model calls'],
    });
    for (const reason of ['cancelled', 'error', 'paused_for_client_tool'] as const) {
      expect(
        resultLine(ev.done(reason), info),
        `resultLine: ${reason} is error_during_execution (guided step 1)`,
      ).toMatchObject({ subtype: 'error_during_execution', is_error: true, errors: [reason] });
    }
  });

  test('the cost is a number at a known price and null, never 0, for a model without one', () => {
    const done = ev.done('end_turn', { inputTokens: 1200, outputTokens: 300 });
    const priced = resultLine(done, { sessionId: 's', durationMs: 1, model: 'claude-sonnet-4-5' });
    expect(priced.total_cost_usd, "resultLine: costOf at the model's price (guided step 4)").toBeCloseTo(0.0081, 10);
    expect(priced.usage, "resultLine: usage in the API's names (guided step 3)").toEqual({
      input_tokens: 1200,
      output_tokens: 300,
    });
    expect(
      resultLine(done, { sessionId: 's', durationMs: 1, model: 'offline' }).total_cost_usd,
      'resultLine: an unknown model costs null (guided step 4)',
    ).toBeNull();
    expect(
      resultLine(done, { sessionId: 's', durationMs: 1 }).total_cost_usd,
      'resultLine: no model, null (guided step 4)',
    ).toBeNull();
    const more = resultLine(done, {
      sessionId: 's',
      durationMs: 1,
      usage: { inputTokens: 1500, outputTokens: 400, cacheWriteTokens: 10 },
    });
    expect(more.usage, 'resultLine: the usage the caller added up wins over done.usage (guided step 3)').toEqual({
      input_tokens: 1500,
      output_tokens: 400,
      cache_creation_input_tokens: 10,
    });
  });
});

describe('StreamJsonWriter.write (src/capstone/stream-json.ts)', () => {
  test('a real run: init first, every message the run added, one user line per turn, the result last', async () => {
    const provider = new MockProvider([
      {
        ...assistantToolCalls(
          [
            { id: 'c1', name: 'read', arguments: { path: 'a.ts' } },
            { id: 'c2', name: 'bash', arguments: { command: 'nmp test' } },
          ],
          'Looking.',
        ),
        usage: { inputTokens: 1000, outputTokens: 100 },
      },
      assistantText('Done.', { inputTokens: 200, outputTokens: 20 }),
    ]);
    const history: Message[] = [userMessage('check it')];
    const { lines } = await streamRun(new Agent({ provider, tools: new ToolSet(standInTools(2)), cwd: CWD }), history);
    expect(
      lines.map(kind),
      'StreamJsonWriter.write: init, the turn, its results in one user line, the answer, the result (guided steps 4, 6 and 7)',
    ).toEqual(['system/init', 'assistant', 'user', 'assistant', 'result/success']);
    expect(lines[0], 'StreamJsonWriter.write: the init line (guided step 4)').toEqual({
      type: 'system',
      subtype: 'init',
      session_id: 'sess-1',
      cwd: CWD,
      model: 'claude-sonnet-4-5',
      tools: ['read', 'edit', 'write', 'bash'],
      mcp_servers: [],
      permissionMode: 'default',
      slash_commands: [],
      claude_code_version: 'unknown',
      uuid: 'uuid-1',
    });
    const calls = lines[1]!.message.content.filter((block: { type: string }) => block.type === 'tool_use');
    const results = lines[2]!.message.content;
    expect(
      results.map((block: { tool_use_id: string }) => block.tool_use_id),
      'StreamJsonWriter.write: each result names the id of its call (guided step 6)',
    ).toEqual(calls.map((call: { id: string }) => call.id));
    expect(
      results.map((block: { is_error: boolean }) => block.is_error),
      'StreamJsonWriter.write: the failing bash call is an error result (guided step 6)',
    ).toEqual([false, true]);
    expect(lines[3]!.message.content, 'StreamJsonWriter.write: the answer, the last turn (guided step 6)').toEqual([
      { type: 'text', text: 'Done.' },
    ]);
    expect(
      lines[4],
      'StreamJsonWriter.write: the result, with the usage events added up and priced, and the time since the writer was made (guided step 7)',
    ).toMatchObject({
      result: 'Done.',
      num_turns: 2,
      duration_ms: 250,
      usage: { input_tokens: 1200, output_tokens: 120 },
      total_cost_usd: expect.closeTo(0.0054, 10),
    });
    expect(
      lines.every((line) => line.session_id === 'sess-1'),
      'StreamJsonWriter.write: every line carries the session id (guided steps 4-7)',
    ).toBe(true);
    expect(
      JSON.stringify(lines),
      'StreamJsonWriter.write: the prompt already in the history is not echoed (guided step 6)',
    ).not.toContain('check it');
  });

  test('the results of a turn wait until they are all in the history, then go out as one user line', () => {
    const history: Message[] = [userMessage('go')];
    const writer = new StreamJsonWriter(history, options());
    const turn = assistantToolCalls([
      { id: 'a', name: 'read', arguments: { path: 'a.ts' } },
      { id: 'b', name: 'read', arguments: { path: 'b.ts' } },
    ]);
    history.push(turn);
    expect(
      parse(writer.write(ev.requested('a', 'read', {}))).map(kind),
      'StreamJsonWriter.write: init, then the turn (guided steps 4 and 6)',
    ).toEqual(['system/init', 'assistant']);
    history.push(toolResult({ id: 'a', name: 'read' }, 'A'));
    expect(
      writer.write(ev.result('a', 'read', 'A')),
      'StreamJsonWriter.write: one result of two is not a whole turn yet: nothing (guided step 6)',
    ).toBe('');
    history.push(toolResult({ id: 'b', name: 'read' }, 'B'));
    const lines = parse(writer.write(ev.result('b', 'read', 'B')));
    expect(lines.map(kind), 'StreamJsonWriter.write: both results, one user line (guided step 6)').toEqual(['user']);
    expect(
      lines[0]!.message.content.map((block: { tool_use_id: string }) => block.tool_use_id),
      'StreamJsonWriter.write: the two results in one line (guided step 6)',
    ).toEqual(['a', 'b']);
    expect(writer.write(ev.turn(2)), 'StreamJsonWriter.write: nothing is written twice (guided step 6)').toBe('');
    history.push(
      assistantToolCalls([
        { id: 'c', name: 'ask_user', arguments: {} },
        { id: 'd', name: 'read', arguments: { path: 'd.ts' } },
      ]),
    );
    history.push(toolResult({ id: 'd', name: 'read' }, 'D'));
    const paused = parse(writer.write(ev.done('paused_for_client_tool', undefined, { turns: 2 })));
    expect(
      paused.map(kind),
      'StreamJsonWriter.write: at done, a turn whose results are not all there is written as it is (guided step 7)',
    ).toEqual(['assistant', 'user', 'result/error_during_execution']);
    expect(
      paused[1]!.message.content.map((block: { tool_use_id: string }) => block.tool_use_id),
      'StreamJsonWriter.write: the one result there is (guided step 7)',
    ).toEqual(['d']);
  });

  test('results are paired with their calls by id, whatever order the history holds them in', () => {
    const history: Message[] = [userMessage('go')];
    const writer = new StreamJsonWriter(history, options());
    history.push(
      assistantToolCalls([
        { id: 'first', name: 'read', arguments: { path: 'a.ts' } },
        { id: 'second', name: 'bash', arguments: { command: 'ls' } },
      ]),
      toolResult({ id: 'second', name: 'bash' }, 'from the second call', true),
      toolResult({ id: 'first', name: 'read' }, 'from the first call'),
      assistantText('ok'),
    );
    const lines = parse(writer.write(ev.done('end_turn', undefined, { text: 'ok', turns: 2 })));
    const user = lines.find((line) => line.type === 'user')!;
    expect(
      user.message.content,
      "StreamJsonWriter.write: tool_use_id is each result's own toolCallId, never the id of the call at the same position (guided step 6)",
    ).toEqual([
      { type: 'tool_result', tool_use_id: 'second', content: 'from the second call', is_error: true },
      { type: 'tool_result', tool_use_id: 'first', content: 'from the first call', is_error: false },
    ]);
    expect(
      lines.map(kind),
      'StreamJsonWriter.write: at done, everything left, then the result (guided step 7)',
    ).toEqual(['system/init', 'assistant', 'user', 'assistant', 'result/success']);
  });

  test('the turn limit ends with error_max_turns, and a cancelled run with error_during_execution', async () => {
    const looping = new MockProvider([assistantToolCalls([{ id: 'c1', name: 'read', arguments: { path: 'a.ts' } }])]);
    const limited = await streamRun(
      new Agent({ provider: looping, tools: new ToolSet(standInTools()), cwd: CWD, maxTurns: 1 }),
      [userMessage('go')],
    );
    expect(limited.lines.at(-1), 'resultLine: the turn limit is error_max_turns (guided step 1)').toMatchObject({
      type: 'result',
      subtype: 'error_max_turns',
      is_error: true,
      num_turns: 1,
    });
    expect(
      limited.lines.map(kind),
      'StreamJsonWriter.write: the turn, its results, then the result (guided step 7)',
    ).toEqual(['system/init', 'assistant', 'user', 'result/error_max_turns']);

    const controller = new AbortController();
    const stopper = defineTool({
      name: 'stopper',
      description: 'stops the run',
      input: z.object({}),
      execute: async () => (controller.abort(new Error('stopped with Ctrl-C')), 'stopping'),
    });
    const history: Message[] = [userMessage('go')];
    const provider = new MockProvider([
      assistantToolCalls([
        { id: 's1', name: 'stopper', arguments: {} },
        { id: 'r1', name: 'read', arguments: { path: 'a.ts' } },
      ]),
    ]);
    const cancelled = await streamRun(
      new Agent({ provider, tools: new ToolSet([stopper, ...standInTools()]), cwd: CWD }),
      history,
      {},
      controller.signal,
    );
    expect(cancelled.lines.at(-1), 'resultLine: a cancel is error_during_execution (guided step 1)').toMatchObject({
      subtype: 'error_during_execution',
      is_error: true,
      errors: ['stopped with Ctrl-C'],
    });
    expect(
      cancelled.lines.map(kind),
      'StreamJsonWriter.write: at done, the results the run closed its calls with, then the result (guided step 7)',
    ).toEqual(['system/init', 'assistant', 'user', 'result/error_during_execution']);
    expect(
      cancelled.lines[2]!.message.content.map((block: { tool_use_id: string }) => block.tool_use_id),
      'StreamJsonWriter.write: every call has its result, the one the run closed too (guided step 7)',
    ).toEqual(['s1', 'r1']);
  });

  test('--output-format json: the result line alone, at the end', async () => {
    const provider = new MockProvider([
      assistantToolCalls([{ id: 'c1', name: 'read', arguments: { path: 'a.ts' } }]),
      assistantText('Done.'),
    ]);
    const { lines, text } = await streamRun(
      new Agent({ provider, tools: new ToolSet(standInTools()), cwd: CWD }),
      [userMessage('go')],
      { format: 'json', model: 'offline' },
    );
    expect(lines.map(kind), 'StreamJsonWriter.write: json prints only the result (guided step 3)').toEqual([
      'result/success',
    ]);
    expect(text.split('\n').length, 'StreamJsonWriter.write: one line (guided step 3)').toBe(2);
    expect(lines[0], "resultLine: an offline model's cost is null, in json too (guided step 4)").toMatchObject({
      result: 'Done.',
      total_cost_usd: null,
    });
  });

  test('a compaction writes a boundary line, and the messages after it are written once', () => {
    const history: Message[] = [userMessage('one'), assistantText('a'), userMessage('two'), assistantText('b')];
    const writer = new StreamJsonWriter(history, options());
    expect(
      parse(writer.write(ev.turn(1))).map(kind),
      "StreamJsonWriter.write: init alone, the history so far is not this run's (guided step 4)",
    ).toEqual(['system/init']);
    history.splice(0, 4, userMessage('Summary of the conversation so far'));
    const lines = parse(
      writer.write({
        type: 'compaction',
        turn: 1,
        from: 0,
        count: 4,
        summary: 'Summary of the conversation so far',
        tokensBefore: 90000,
        tokensAfter: 500,
        manual: false,
      }),
    );
    expect(lines, 'StreamJsonWriter.write: the boundary, and no message written again (guided step 5)').toEqual([
      {
        type: 'system',
        subtype: 'compact_boundary',
        session_id: 'sess-1',
        compact_metadata: { trigger: 'auto', pre_tokens: 90000 },
      },
    ]);
    history.push(assistantText('c'));
    const after = parse(writer.write(ev.done('end_turn', undefined, { text: 'c' })));
    expect(
      after.map(kind),
      'StreamJsonWriter.write: this.next moved back with the history (4 messages became 1), so the new turn is written (guided step 5)',
    ).toEqual(['assistant', 'result/success']);
    expect(after[0]!.message.content, 'StreamJsonWriter.write: the message after the summary (guided step 5)').toEqual([
      { type: 'text', text: 'c' },
    ]);
    const manual = new StreamJsonWriter([userMessage('Summary: x')], options({ from: 0 }));
    expect(
      parse(
        manual.write({
          type: 'compaction',
          turn: 0,
          from: 0,
          count: 1,
          summary: 'Summary: x',
          tokensBefore: 10,
          tokensAfter: 1,
          manual: true,
        }),
      ),
      'StreamJsonWriter.write: a manual compaction; with from: 0 the first message is written too, a user message as a user line (guided steps 5-6)',
    ).toEqual([
      {
        type: 'system',
        subtype: 'init',
        session_id: 'sess-1',
        cwd: CWD,
        model: 'claude-sonnet-4-5',
        tools: ['read', 'edit', 'write', 'bash'],
        mcp_servers: [],
        permissionMode: 'default',
        slash_commands: [],
        claude_code_version: 'unknown',
        uuid: 'uuid-1',
      },
      {
        type: 'system',
        subtype: 'compact_boundary',
        session_id: 'sess-1',
        compact_metadata: { trigger: 'manual', pre_tokens: 10 },
      },
      {
        type: 'user',
        message: { role: 'user', content: 'Summary: x' },
        parent_tool_use_id: null,
        session_id: 'sess-1',
      },
    ]);
  });

  test('a compaction of messages not written yet leaves this.next where it is', () => {
    const history: Message[] = [userMessage('Summary of one, a and two'), assistantText('b')];
    const writer = new StreamJsonWriter(history, options({ from: 0 }));
    const lines = parse(
      writer.write({
        type: 'compaction',
        turn: 0,
        from: 0,
        count: 3,
        summary: 'Summary of one, a and two',
        tokensBefore: 900,
        tokensAfter: 100,
        manual: false,
      }),
    );
    expect(
      lines.map(kind),
      'StreamJsonWriter.write: the 3 messages replaced were never written (from + count > this.next), so this.next stays at 0 and the summary and the turn after it are written (guided step 5)',
    ).toEqual(['system/init', 'system/compact_boundary', 'user', 'assistant']);
    expect(lines[2]!.message.content, 'StreamJsonWriter.write: the summary, written once (guided step 5)').toBe(
      'Summary of one, a and two',
    );
  });

  test('the result counts the usage events, not done.usage', () => {
    const writer = new StreamJsonWriter([userMessage('go')], options());
    const text = [
      ev.turn(1),
      ev.usage(1000, 100),
      ev.usage(500, 50),
      ev.done('end_turn', { inputTokens: 1000, outputTokens: 100 }, { text: 'ok' }),
    ]
      .map((event) => writer.write(event))
      .join('');
    expect(
      parse(text).at(-1),
      "StreamJsonWriter.write: every usage event added up (a sub-agent's spending is in them, not in done.usage) (guided step 2)",
    ).toMatchObject({
      type: 'result',
      usage: { input_tokens: 1500, output_tokens: 150 },
    });
    const json = new StreamJsonWriter([userMessage('go')], options({ format: 'json' }));
    const only = [ev.usage(7, 3), ev.done('end_turn', { inputTokens: 1, outputTokens: 1 })]
      .map((event) => json.write(event))
      .join('');
    expect(
      parse(only)[0],
      'StreamJsonWriter.write: json format adds up the usage events too (guided steps 2-3)',
    ).toMatchObject({
      type: 'result',
      usage: { input_tokens: 7, output_tokens: 3 },
    });
  });
});
