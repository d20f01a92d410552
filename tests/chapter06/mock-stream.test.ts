import { describe, expect, test } from 'vitest';
import { accumulate } from 'kit/accumulate';
import { assistantText, assistantToolCalls, userMessage, type Message } from 'kit/messages';
import { MockProvider, ScriptExhaustedError } from 'kit/mock-provider';
import type { ModelRequest } from 'kit/provider';
import type { StreamEvent } from 'kit/stream-events';
import { rejection } from '../helpers/assert.js';

const readDef = { name: 'read', description: 'Read a file', inputSchema: { type: 'object', properties: {} } };
const ask = (messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages,
  tools: [readDef],
  ...extra,
});

/** Every event of a stream, or the events before it threw and what it threw. */
async function collect(stream: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; error?: unknown }> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

describe('MockProvider.stream (src/mock-provider.ts)', () => {
  test('streams the scripted turns in order, each rebuilding to the same turn', async () => {
    const call = assistantToolCalls(
      [{ id: 'c1', name: 'read', arguments: { path: 'notes/long file name.md' } }],
      'Reading it now.',
    );
    const provider = new MockProvider([call, assistantText('The file says hello to everyone.')]);
    const first = await collect(provider.stream(ask([userMessage('hi')])));
    expect(first.error, 'a scripted turn streams without an error').toBeUndefined();
    expect(
      first.events.filter((e) => e.type === 'text_delta').length,
      'the text is split into several deltas',
    ).toBeGreaterThan(1);
    expect(
      first.events.filter((e) => e.type === 'tool_call_delta').length,
      'the arguments are split into pieces',
    ).toBeGreaterThan(1);
    expect(await accumulate(first.events), 'the events of turn 1 rebuild the scripted turn 1').toEqual(call);
    expect(
      await accumulate(provider.stream(ask([userMessage('hi')]))),
      'then the events of turn 2 rebuild turn 2',
    ).toEqual(assistantText('The file says hello to everyone.'));
  });

  test('records each request like complete(): a copy, without the signal, even when nobody reads the stream', async () => {
    const provider = new MockProvider([assistantText('one'), assistantText('two')]);
    const history: Message[] = [userMessage('first')];
    await collect(provider.stream(ask(history, { system: 'be brief', signal: new AbortController().signal })));
    history.push(userMessage('changed later'));
    expect(provider.requests, 'one recorded request per stream').toHaveLength(1);
    expect(provider.requests[0], 'a deep copy of what was sent, without the signal').toEqual({
      system: 'be brief',
      messages: [userMessage('first')],
      tools: [readDef],
    });
    await collect(provider.stream(ask([userMessage('second')])));
    expect(provider.remaining, 'each stream uses up one step of the script').toBe(0);
  });

  test('replays a step written as events exactly, and throws an Error placed in it (a cut stream)', async () => {
    const events: StreamEvent[] = [
      { type: 'text_delta', index: 0, text: 'Half' },
      { type: 'tool_call_start', index: 1, id: 'c9', name: 'read' },
      { type: 'tool_call_delta', index: 1, argumentsDelta: '{"pa' },
    ];
    const provider = new MockProvider([
      [{ type: 'finish', stopReason: 'end_turn' }],
      [...events, new Error('connection reset')],
    ]);
    const error = await rejection(
      provider.complete(ask([userMessage('go')])),
      'complete() on a step written as events must fail loudly',
    );
    expect((error as Error).message, 'complete() says the step is for stream()').toMatch(/stream/);
    const result = await collect(provider.stream(ask([userMessage('go')])));
    expect(result.events, 'the scripted events come out as they are, in order').toEqual(events);
    expect((result.error as Error)?.message, 'then the scripted Error is thrown').toBe('connection reset');
  });

  test('a used-up script or a scripted Error fails the stream, and the request is still recorded', async () => {
    const provider = new MockProvider([new Error('overloaded')]);
    const failed = await collect(provider.stream(ask([userMessage('one')])));
    expect((failed.error as Error)?.message, 'an Error step is thrown by stream() too').toBe('overloaded');
    const exhausted = await collect(provider.stream(ask([userMessage('two')])));
    expect(exhausted.error, 'past the end of the script: ScriptExhaustedError').toBeInstanceOf(ScriptExhaustedError);
    expect(provider.requests, 'both requests were recorded').toHaveLength(2);
  });

  test('a used-up script says how many turns it had and which turn was asked for', async () => {
    const provider = new MockProvider([assistantText('only one')]);
    await collect(provider.stream(ask([userMessage('one')])));
    const { error } = await collect(provider.stream(ask([userMessage('two')])));
    expect(error, 'past the end of the script: ScriptExhaustedError').toBeInstanceOf(ScriptExhaustedError);
    const message = String((error as Error).message);
    expect(message, 'the message says how many turns the script had (1 turn), as complete() does').toMatch(
      /\b1 turn\b(?![(s])/,
    );
    const two = new MockProvider([assistantText('one'), assistantText('two')]);
    await collect(two.stream(ask([userMessage('1')])));
    await collect(two.stream(ask([userMessage('2')])));
    const longer = String((await collect(two.stream(ask([userMessage('3')])))).error);
    expect(longer, 'a script of two turns says "2 turns", as complete() does').toMatch(/\b2 turns\b/);
    expect(
      message,
      'the message says which turn was asked for, counting from 1 ("turn 2"), as complete() does',
    ).toMatch(/turn 2\b/);
  });

  test('a signal aborted before the call throws its reason at once: nothing recorded, no step used', async () => {
    const provider = new MockProvider([assistantText('kept for later')]);
    const controller = new AbortController();
    const reason = new Error('aborted before the call');
    controller.abort(reason);
    const result = await collect(provider.stream(ask([userMessage('go')], { signal: controller.signal })));
    expect(result.error, 'an already aborted signal: throw signal.reason before anything else').toBe(reason);
    expect(result.events, 'no event from an aborted stream').toEqual([]);
    expect(
      provider.requests,
      'check the signal first, as complete() does: an aborted call is not recorded',
    ).toHaveLength(0);
    expect(provider.remaining, 'and it does not use up a step of the script').toBe(1);
  });

  test("stops with the signal's reason once it is aborted", async () => {
    const provider = new MockProvider([assistantText('a long answer that takes many words to stream to the end')]);
    const controller = new AbortController();
    const reason = new Error('stopped by the user');
    const seen: StreamEvent[] = [];
    const error = await rejection(
      (async () => {
        for await (const event of provider.stream(ask([userMessage('go')], { signal: controller.signal }))) {
          seen.push(event);
          if (seen.length === 2) controller.abort(reason);
        }
      })(),
      'an aborted stream must throw, not run to its end',
    );
    expect(error, 'the stream throws signal.reason').toBe(reason);
    expect(seen, 'no event after the abort').toHaveLength(2);
  });

  test('yields copies: changing an event it gave does not change the script', async () => {
    const scripted: StreamEvent[] = [
      { type: 'text_delta', index: 0, text: 'as written' },
      { type: 'finish', stopReason: 'end_turn' },
    ];
    const provider = new MockProvider([scripted]);
    const { events } = await collect(provider.stream(ask([userMessage('go')])));
    expect(events, 'the scripted events come out in order').toEqual(scripted);
    (events[0] as { text: string }).text = 'changed by the agent';
    expect(
      scripted[0],
      'yield a structuredClone of each event, not the scripted object itself (guided step 3)',
    ).toEqual({
      type: 'text_delta',
      index: 0,
      text: 'as written',
    });
  });

  test('a signal aborted between two events stops the stream before the next one (checked before every event)', async () => {
    const provider = new MockProvider([assistantText('one two three four five six')]);
    const controller = new AbortController();
    const reason = new Error('stop');
    const seen: StreamEvent[] = [];
    const stream = provider.stream(ask([userMessage('go')], { signal: controller.signal }))[Symbol.asyncIterator]();
    seen.push((await stream.next()).value as StreamEvent);
    seen.push((await stream.next()).value as StreamEvent);
    controller.abort(reason);
    const error = await rejection(
      stream.next(),
      'the signal is checked before each event, not only at the start (guided step 4)',
    );
    expect(error, 'the stream throws signal.reason').toBe(reason);
  });
});
