import { describe, expect, test } from 'vitest';
import { accumulate, StreamCutError, turnToEvents, TurnBuilder } from 'kit/accumulate';
import type { AssistantMessage } from 'kit/messages';
import type { StreamEvent } from 'kit/stream-events';
import { rejection } from '../helpers/assert.js';

const finish = (stopReason: AssistantMessage['stopReason'] = 'end_turn', usage?: AssistantMessage['usage']): StreamEvent => ({
  type: 'finish',
  stopReason,
  ...(usage ? { usage } : {}),
});
const start = (index: number, id: string, name: string): StreamEvent => ({ type: 'tool_call_start', index, id, name });
const args = (index: number, argumentsDelta: string): StreamEvent => ({ type: 'tool_call_delta', index, argumentsDelta });
const end = (index: number): StreamEvent => ({ type: 'tool_call_end', index });
const text = (index: number, value: string): StreamEvent => ({ type: 'text_delta', index, text: value });

/** Builds a turn from events with a TurnBuilder, one add() per event. */
function build(events: StreamEvent[]): AssistantMessage {
  const builder = new TurnBuilder();
  for (const event of events) builder.add(event);
  return builder.build();
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
    expect(turn, 'one text block holding every delta in order; stopReason and usage come from the finish event').toEqual({
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
    expect(turn.content, 'content is ordered by each event\'s index, not by arrival; the signature stays on its thinking block').toEqual([
      { type: 'thinking', thinking: 'The user wants a file.', signature: 'sig-abc' },
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call', id: 'toolu_1', name: 'read', arguments: { path: 'a.txt' } },
    ]);
    expect(turn).not.toHaveProperty('usage');
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
    expect(turn.content, 'each argument piece belongs to the call its index names, not to the call started last').toEqual([
      { type: 'tool_call', id: 'call_a', name: 'read', arguments: { path: 'a.ts' } },
      { type: 'tool_call', id: 'call_b', name: 'grep', arguments: { pattern: 'TODO' } },
    ]);
  });

  test('parses arguments cut anywhere: inside an escape, a number or a two-unit character', () => {
    const json = '{"city":"Z\\u00fcrich","n":-12.5e3,"face":"😀","list":[true,null]}';
    const expected = JSON.parse(json);
    for (let cut = 1; cut < json.length; cut++) {
      expect(argumentsFrom([json.slice(0, cut), json.slice(cut)]), `arguments cut at character ${cut}: concatenate every piece, parse only at tool_call_end`).toEqual(expected);
    }
    expect(argumentsFrom([...json]), 'arguments sent one character at a time').toEqual(expected);
    expect(argumentsFrom(json.split('')), 'arguments sent one UTF-16 code unit at a time (the emoji split in halves)').toEqual(expected);
  });

  test('a tool call without argument deltas gets {} (Anthropic sends none for a tool with no input)', () => {
    expect(argumentsFrom([]), 'no JSON at all means empty arguments, not undefined or a parse error').toEqual({});
  });

  test('keeps arguments that are not valid JSON as the raw string, so the tool check can tell the model', () => {
    expect(argumentsFrom(['{"path": "a.txt"', ', oops}']), 'invalid JSON must not throw; the raw text is kept').toBe('{"path": "a.txt", oops}');
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
    expect(error, 'build() without a finish event must throw StreamCutError, not return a turn with a guessed stop reason').toBeInstanceOf(StreamCutError);
    expect((error as Error).message).toMatch(/finish/);
  });

  test('a tool call that never ended is a StreamCutError naming the call', () => {
    const events = [start(0, 'call_half', 'write'), args(0, '{"path":"a.txt","content":"hal'), finish('tool_use')];
    expect(() => build(events), 'a call whose tool_call_end never came has half its arguments: it must not run').toThrow(StreamCutError);
    expect(() => build(events)).toThrow(/call_half/);
  });

  test('refuses argument pieces for a call that was never started', () => {
    const builder = new TurnBuilder();
    expect(() => builder.add(args(3, '{}')), 'a tool_call_delta with no tool_call_start for its index is a provider bug: throw').toThrow(/3/);
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
    expect(events.filter((e) => e.type === 'finish'), 'exactly one finish event').toHaveLength(1);
    expect(events.filter((e) => e.type === 'text_delta').length, 'the text arrives in several pieces').toBeGreaterThan(1);
    expect(events.filter((e) => e.type === 'tool_call_delta' && e.index === 2).length, 'the arguments arrive in several pieces').toBeGreaterThan(1);
    expect(
      events.filter((e) => e.type === 'tool_call_start').map((e) => ('index' in e ? e.index : -1)),
      'a block\'s index is its position in turn.content',
    ).toEqual([2, 3]);
  });

  test('accumulating the events of a turn gives back the same turn', async () => {
    expect(await accumulate(turnToEvents(turn)), 'turnToEvents then accumulate must be a round trip').toEqual(turn);
    const plain: AssistantMessage = { role: 'assistant', content: [{ type: 'text', text: '' }], stopReason: 'end_turn' };
    expect(await accumulate(turnToEvents(plain)), 'an empty text block survives the round trip').toEqual(plain);
  });

  test('accumulate passes on an error thrown in the middle of the stream', async () => {
    async function* cut(): AsyncIterable<StreamEvent> {
      yield text(0, 'Half a sen');
      throw new Error('socket hang up');
    }
    const error = await rejection(accumulate(cut()), 'a stream that throws must reject accumulate');
    expect((error as Error).message, 'the stream\'s own error comes out unchanged').toBe('socket hang up');
  });
});
