import { describe, expect, test } from 'vitest';
import { accumulate, StreamCutError, turnToEvents, TurnBuilder } from 'kit/accumulate';
import type { AssistantMessage } from 'kit/messages';
import type { StreamEvent } from 'kit/stream-events';
import { rejection } from '../helpers/assert.js';

const finish = (
  stopReason: AssistantMessage['stopReason'] = 'end_turn',
  usage?: AssistantMessage['usage'],
): StreamEvent => ({
  type: 'finish',
  stopReason,
  ...(usage ? { usage } : {}),
});
const start = (index: number, id: string, name: string): StreamEvent => ({ type: 'tool_call_start', index, id, name });
const args = (index: number, argumentsDelta: string): StreamEvent => ({
  type: 'tool_call_delta',
  index,
  argumentsDelta,
});
const end = (index: number): StreamEvent => ({ type: 'tool_call_end', index });
const text = (index: number, value: string): StreamEvent => ({ type: 'text_delta', index, text: value });

/** Builds a turn from events with a TurnBuilder, one add() per event. */
function build(events: StreamEvent[]): AssistantMessage {
  const builder = new TurnBuilder();
  for (const event of events) builder.add(event);
  return builder.build();
}

/** The turn built from `events`; fails with `message` and what was thrown when build() (or add) throws. */
function builtOrFail(events: StreamEvent[], message: string): AssistantMessage {
  try {
    return build(events);
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return expect.fail(
      `${message}; it threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    );
  }
}

/**
 * What `builder.add(event)` threw, after `setup` went in without a problem. Fails with `message` when add accepted
 * the event, or threw something that is not an Error naming the event's index (unless `namesIndex` is false); a
 * TypeError from reading a missing draft names no index.
 */
function refusal(setup: StreamEvent[], event: StreamEvent, message: string, namesIndex = true): Error {
  const builder = new TurnBuilder();
  for (const earlier of setup) builder.add(earlier);
  let thrown: unknown;
  try {
    builder.add(event);
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    thrown = error;
  }
  if (thrown === undefined) expect.fail(`${message}: add(${JSON.stringify(event)}) returned instead of throwing`);
  expect(thrown, `${message}: throw an Error, not ${String(thrown)}`).toBeInstanceOf(Error);
  const index = 'index' in event ? event.index : undefined;
  if (namesIndex && index !== undefined) {
    expect(
      (thrown as Error).message,
      `${message}: the message names the index (${index}); it was "${(thrown as Error).message}"`,
    ).toMatch(new RegExp(`\\b${index}\\b`));
  }
  return thrown as Error;
}

/** The arguments of the one tool call whose JSON arrives in these pieces. */
const argumentsFrom = (pieces: string[]) => {
  const turn = build([start(0, 'c1', 'probe'), ...pieces.map((piece) => args(0, piece)), end(0), finish('tool_use')]);
  return (turn.content[0] as { arguments: unknown }).arguments;
};

describe('TurnBuilder (src/accumulate.ts)', () => {
  test('joins text deltas into one text block, with stop reason and usage from finish', () => {
    const usage = { inputTokens: 12, outputTokens: 7, cacheReadTokens: 3 };
    const turn = build([text(0, 'Hel'), text(0, 'lo, '), text(0, 'world'), finish('max_tokens', usage)]);
    expect(
      turn,
      'one text block holding every delta in order; stopReason and usage come from the finish event',
    ).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello, world' }],
      stopReason: 'max_tokens',
      usage,
    });
  });

  test('puts blocks in index order, thinking kept with its signature', () => {
    const turn = build([
      { type: 'thinking_delta', index: 0, thinking: 'The user wants ' },
      { type: 'thinking_delta', index: 0, thinking: 'a file.' },
      start(2, 'toolu_1', 'read'),
      text(1, 'Let me look.'),
      args(2, '{"path":"a.txt"}'),
      { type: 'thinking_signature', index: 0, signature: 'sig-abc' },
      end(2),
      finish('tool_use'),
    ]);
    expect(
      turn.content,
      "content is ordered by each event's index, not by arrival; the signature stays on its thinking block",
    ).toEqual([
      { type: 'thinking', thinking: 'The user wants a file.', signature: 'sig-abc' },
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call', id: 'toolu_1', name: 'read', arguments: { path: 'a.txt' } },
    ]);
    expect(turn, 'build: no usage in the finish, no usage key in the turn (guided step 4)').not.toHaveProperty('usage');
  });

  test('keeps interleaved tool calls apart by index', () => {
    const turn = build([
      start(0, 'call_a', 'read'),
      start(1, 'call_b', 'grep'),
      args(0, '{"pa'),
      args(1, '{"pattern":'),
      args(0, 'th":"a.ts"'),
      args(1, '"TODO"}'),
      args(0, '}'),
      end(0),
      end(1),
      finish('tool_use'),
    ]);
    expect(
      turn.content,
      'each argument piece belongs to the call its index names, not to the call started last',
    ).toEqual([
      { type: 'tool_call', id: 'call_a', name: 'read', arguments: { path: 'a.ts' } },
      { type: 'tool_call', id: 'call_b', name: 'grep', arguments: { pattern: 'TODO' } },
    ]);
  });

  test('parses arguments cut anywhere: inside an escape, a number or a two-unit character', () => {
    const json = '{"city":"Z\\u00fcrich","n":-12.5e3,"face":"😀","list":[true,null]}';
    const expected = JSON.parse(json);
    for (let cut = 1; cut < json.length; cut++) {
      expect(
        argumentsFrom([json.slice(0, cut), json.slice(cut)]),
        `arguments cut at character ${cut}: concatenate every piece, parse only at tool_call_end`,
      ).toEqual(expected);
    }
    expect(argumentsFrom([...json]), 'arguments sent one character at a time').toEqual(expected);
    expect(
      argumentsFrom(json.split('')),
      'arguments sent one UTF-16 code unit at a time (the emoji split in halves)',
    ).toEqual(expected);
  });

  test('a tool call without argument deltas gets {} (Anthropic sends none for a tool with no input)', () => {
    expect(argumentsFrom([]), 'no JSON at all means empty arguments, not undefined or a parse error').toEqual({});
  });

  test('keeps arguments that are not valid JSON as the raw string, so the tool check can tell the model', () => {
    expect(argumentsFrom(['{"path": "a.txt"', ', oops}']), 'invalid JSON must not throw; the raw text is kept').toBe(
      '{"path": "a.txt", oops}',
    );
  });

  test('a JSON string, often holding more JSON, stays the text the model wrote', () => {
    expect(
      argumentsFrom(['"{\\"pa', 'th\\":1}"']),
      'parseArguments keeps a JSON string as its text, so it goes back to the model unchanged (guided step 5)',
    ).toBe('"{\\"path\\":1}"');
  });

  test("a call cut by the token limit: with finish 'max_tokens' the turn is built, the call kept as written", () => {
    const turn = builtOrFail(
      [
        text(0, 'Writing.'),
        start(1, 'call_cut', 'write'),
        args(1, '{"path":"a.txt","content":"hal'),
        finish('max_tokens'),
      ],
      "build: a finish of 'max_tokens' means the turn is whole; a call that never ended is kept, not a StreamCutError (guided step 2)",
    );
    expect(
      turn,
      "build: a call that never ended in a 'max_tokens' turn is kept with the text that arrived; the turn says max_tokens (guided step 2)",
    ).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Writing.' },
        { type: 'tool_call', id: 'call_cut', name: 'write', arguments: '{"path":"a.txt","content":"hal' },
      ],
      stopReason: 'max_tokens',
    });
    const none = builtOrFail(
      [start(0, 'call_empty', 'glob'), finish('max_tokens')],
      "build: a 'max_tokens' turn keeps a call that got no JSON at all (guided step 2)",
    );
    expect(
      none.content,
      "build: no argument text arrived before the cut: parseArguments('') is {} (guided step 2)",
    ).toEqual([{ type: 'tool_call', id: 'call_empty', name: 'glob', arguments: {} }]);
  });

  test('a stream that ends without finish is a StreamCutError', () => {
    const builder = new TurnBuilder();
    builder.add(text(0, 'I was about to say'));
    let error: unknown;
    try {
      builder.build();
    } catch (e) {
      error = e;
    }
    expect(
      error,
      'build() without a finish event must throw StreamCutError, not return a turn with a guessed stop reason',
    ).toBeInstanceOf(StreamCutError);
    expect(
      (error as Error).message,
      'build: the StreamCutError says the finish event is missing (guided step 1)',
    ).toMatch(/finish/);
  });

  test('a tool call that never ended is a StreamCutError naming the call', () => {
    const events = [start(0, 'call_half', 'write'), args(0, '{"path":"a.txt","content":"hal'), finish('tool_use')];
    expect(
      () => build(events),
      'a call whose tool_call_end never came has half its arguments: it must not run',
    ).toThrow(StreamCutError);
    expect(() => build(events)).toThrow(/call_half/);
  });

  test('refuses an end for a call that was never started, or that already ended', () => {
    refusal([], end(7), 'a tool_call_end with no tool_call_start for its index is a provider bug');
    refusal(
      [start(7, 'c7', 'read'), args(7, '{}'), end(7)],
      end(7),
      'a second tool_call_end for the same call is a provider bug',
    );
    refusal([start(7, 'c7', 'read'), end(7)], args(7, '{}'), 'argument pieces after the call ended are a provider bug');
  });

  test('refuses an event that does not fit the kind of block at its index, and says what is there', () => {
    const onText = refusal(
      [text(5, 'Hello')],
      { type: 'thinking_delta', index: 5, thinking: 'hmm' },
      'thinking for an index that holds text',
    );
    expect(onText.message, 'the message says which kind of block the index already holds (a text block)').toMatch(
      /text/,
    );
    refusal([start(5, 'c5', 'read')], text(5, 'Hello'), 'text for an index that holds a tool call');
    refusal([text(5, 'Hello')], start(5, 'c5', 'read'), 'a tool_call_start for an index that already holds a block');
    const argsOnText = refusal([text(5, 'Hello')], end(5), 'a tool_call_end for an index that holds text');
    expect(argsOnText.message, 'the message says which kind of block the index already holds (a text block)').toMatch(
      /text/,
    );
  });

  test('refuses a second tool_call_start for an index that already holds a call, ended or not', () => {
    refusal(
      [start(4, 'c4', 'read'), args(4, '{"path":')],
      start(4, 'c9', 'write'),
      'TurnBuilder.add: a tool_call_start for an index that already holds a tool call would replace that call (its id and its JSON so far) (guided step 7)',
    );
    refusal(
      [start(4, 'c4', 'read'), args(4, '{}'), end(4)],
      start(4, 'c9', 'write'),
      'TurnBuilder.add: a tool_call_start for an index whose call already ended is a provider bug too (guided step 7)',
    );
  });

  test('refuses any event after finish: the turn is already complete', () => {
    const error = refusal(
      [text(0, 'Done.'), finish()],
      text(0, ' And more.'),
      'an event after the finish event is a provider bug',
      false,
    );
    expect(error.message, 'the message says the event came after the finish event').toMatch(/finish/);
  });

  test("a cut stream's StreamCutError says how many events arrived", () => {
    const builder = new TurnBuilder();
    builder.add(text(0, 'Three '));
    builder.add(text(0, 'pieces '));
    builder.add(text(0, 'then nothing'));
    let error: unknown;
    try {
      builder.build();
    } catch (e) {
      error = e;
    }
    expect(error, 'build() without a finish event throws StreamCutError').toBeInstanceOf(StreamCutError);
    expect((error as Error).message, 'the message counts the events that arrived before the cut (3)').toMatch(
      /(^|[^-\d])3\b/,
    );
  });

  test('a signature that arrives in several pieces is joined, like the text', () => {
    const turn = build([
      { type: 'thinking_delta', index: 0, thinking: 'Signed.' },
      { type: 'thinking_signature', index: 0, signature: 'c2ln' },
      { type: 'thinking_signature', index: 0, signature: 'bmF0dXJl' },
      finish(),
    ]);
    expect(
      turn.content[0],
      'TurnBuilder.add: append each thinking_signature piece to the signature (a provider may send it in pieces); the provider refuses a cut signature (guided step 2)',
    ).toEqual({
      type: 'thinking',
      thinking: 'Signed.',
      signature: 'c2lnbmF0dXJl',
    });
  });

  test('a thinking block without a signature gets no signature field at all', () => {
    const turn = build([{ type: 'thinking_delta', index: 0, thinking: 'Unsigned.' }, finish()]);
    expect(
      turn.content[0],
      'add `signature` only when a thinking_signature arrived; an undefined field is not the same turn',
    ).toStrictEqual({
      type: 'thinking',
      thinking: 'Unsigned.',
    });
  });

  test('refuses argument pieces for a call that was never started', () => {
    const builder = new TurnBuilder();
    expect(
      () => builder.add(args(3, '{}')),
      'a tool_call_delta with no tool_call_start for its index is a provider bug: throw',
    ).toThrow(/3/);
  });
});

describe('accumulate and turnToEvents (src/accumulate.ts)', () => {
  const turn: AssistantMessage = {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Two files to check first.', signature: 'c2lnbmF0dXJl' },
      { type: 'text', text: 'I will read both files, then compare them.' },
      { type: 'tool_call', id: 'toolu_01', name: 'read', arguments: { path: 'src/Zürich notes.md', limit: 20 } },
      { type: 'tool_call', id: 'toolu_02', name: 'glob', arguments: {} },
    ],
    stopReason: 'tool_use',
    usage: { inputTokens: 100, outputTokens: 42 },
  };

  test('turnToEvents streams each block by its position and ends with one finish', () => {
    const events = turnToEvents(turn);
    expect(events.at(-1), 'the last event is the finish, with stop reason and usage').toEqual({
      type: 'finish',
      stopReason: 'tool_use',
      usage: { inputTokens: 100, outputTokens: 42 },
    });
    expect(
      events.filter((e) => e.type === 'finish'),
      'exactly one finish event',
    ).toHaveLength(1);
    expect(events.filter((e) => e.type === 'text_delta').length, 'the text arrives in several pieces').toBeGreaterThan(
      1,
    );
    expect(
      events.filter((e) => e.type === 'tool_call_delta' && e.index === 2).length,
      'the arguments arrive in several pieces',
    ).toBeGreaterThan(1);
    expect(
      events.filter((e) => e.type === 'tool_call_start').map((e) => ('index' in e ? e.index : -1)),
      "a block's index is its position in turn.content",
    ).toEqual([2, 3]);
  });

  test('turnToEvents: exactly these events, in this order, for thinking without a signature, text and a call', () => {
    const small: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Plan it.' },
        { type: 'text', text: 'Hi there' },
        { type: 'tool_call', id: 't1', name: 'glob', arguments: { pattern: '*.ts' } },
      ],
      stopReason: 'tool_use',
    };
    expect(
      turnToEvents(small),
      'word pieces for thinking and text, no thinking_signature without a signature, 5-unit JSON pieces, one finish without usage',
    ).toEqual([
      { type: 'thinking_delta', index: 0, thinking: 'Plan ' },
      { type: 'thinking_delta', index: 0, thinking: 'it.' },
      { type: 'text_delta', index: 1, text: 'Hi ' },
      { type: 'text_delta', index: 1, text: 'there' },
      { type: 'tool_call_start', index: 2, id: 't1', name: 'glob' },
      { type: 'tool_call_delta', index: 2, argumentsDelta: '{"pat' },
      { type: 'tool_call_delta', index: 2, argumentsDelta: 'tern"' },
      { type: 'tool_call_delta', index: 2, argumentsDelta: ':"*.t' },
      { type: 'tool_call_delta', index: 2, argumentsDelta: 's"}' },
      { type: 'tool_call_end', index: 2 },
      { type: 'finish', stopReason: 'tool_use' },
    ]);
  });

  test('turnToEvents sends string arguments as they are: they are already the text the model wrote', async () => {
    const turn: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'tool_call', id: 'c1', name: 'read', arguments: '"{\\"path\\":\\"a.ts\\"}"' },
        { type: 'tool_call', id: 'c2', name: 'read', arguments: '{"path": oops' },
      ],
      stopReason: 'tool_use',
    };
    const events = turnToEvents(turn);
    const sent = (index: number) =>
      events
        .flatMap((event) => (event.type === 'tool_call_delta' && event.index === index ? [event.argumentsDelta] : []))
        .join('');
    expect(sent(0), 'a string is not stringified again (that would add a layer of quotes) (guided step 4)').toBe(
      '"{\\"path\\":\\"a.ts\\"}"',
    );
    expect(sent(1), 'text that is not JSON goes out exactly as it is (guided step 4)').toBe('{"path": oops');
    expect(await accumulate(events), 'and accumulating the events gives back the same turn').toEqual(turn);
  });

  test('accumulating the events of a turn gives back the same turn', async () => {
    expect(await accumulate(turnToEvents(turn)), 'turnToEvents then accumulate must be a round trip').toEqual(turn);
    const plain: AssistantMessage = {
      role: 'assistant',
      content: [{ type: 'text', text: '' }],
      stopReason: 'end_turn',
    };
    expect(await accumulate(turnToEvents(plain)), 'an empty text block survives the round trip').toEqual(plain);
  });

  test('accumulate passes on an error thrown in the middle of the stream', async () => {
    async function* cut(): AsyncIterable<StreamEvent> {
      yield text(0, 'Half a sen');
      throw new Error('socket hang up');
    }
    const error = await rejection(accumulate(cut()), 'a stream that throws must reject accumulate');
    expect((error as Error).message, "the stream's own error comes out unchanged").toBe('socket hang up');
  });
});
