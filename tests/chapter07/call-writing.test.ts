import { describe, expect, test } from 'vitest';
import type { AgentEvent } from 'kit/agent-events';
import { assistantText } from 'kit/messages';
import type { Provider } from 'kit/provider';
import type { StreamEvent } from 'kit/stream-events';
import { hangs } from '../helpers/wait.js';
import { agentWith, ask, collect, describeEvent } from './fixtures.js';

/** A turn that calls echo twice, written as the stream events a provider sends, the two calls' pieces interleaved. */
const twoCallsStream: StreamEvent[] = [
  { type: 'text_delta', index: 0, text: 'Echoing.' },
  { type: 'tool_call_start', index: 1, id: 'c1', name: 'echo' },
  { type: 'tool_call_delta', index: 1, argumentsDelta: '{"te' },
  { type: 'tool_call_start', index: 2, id: 'c2', name: 'echo' },
  { type: 'tool_call_delta', index: 2, argumentsDelta: '{"text":"b"}' },
  { type: 'tool_call_delta', index: 1, argumentsDelta: '' },
  { type: 'tool_call_delta', index: 1, argumentsDelta: 'xt":"a"}' },
  { type: 'tool_call_end', index: 1 },
  { type: 'tool_call_end', index: 2 },
  { type: 'finish', stopReason: 'tool_use' },
];

const writing = (events: readonly AgentEvent[]) =>
  events.filter((e) => e.type === 'tool_call_start' || e.type === 'tool_call_delta');

describe('Agent.streamTurn (src/agent.ts): tool calls as the model writes them', () => {
  test("a call's start and the pieces of its arguments reach the consumer in stream order, before the call is requested", async () => {
    const { agent } = agentWith([twoCallsStream, assistantText('Both echoed.')]);
    const events = await collect(agent.run(ask('echo a and b')));
    expect(
      events.map(describeEvent).slice(0, 9),
      "Agent.streamTurn: yield what streamedTurnEvents() makes of each stream event (a call's start and each non-empty argument piece), as it arrives; tool_call_requested comes once the turn is whole (guided step 2)",
    ).toEqual([
      'turn_start 1',
      'text 1 "Echoing."',
      'writing 1 echo#c1',
      'piece 1 c1 "{\\"te"',
      'writing 1 echo#c2',
      'piece 1 c2 "{\\"text\\":\\"b\\"}"',
      'piece 1 c1 "xt\\":\\"a\\"}"',
      'requested 1 echo#c1 {"text":"a"}',
      'requested 1 echo#c2 {"text":"b"}',
    ]);
  });

  test('each piece carries the id of its own call, and the pieces of a call join to the arguments it is run with', async () => {
    const { agent } = agentWith([twoCallsStream, assistantText('Both echoed.')]);
    const events = await collect(agent.run(ask('echo a and b')));
    const pieces = (id: string) =>
      writing(events).flatMap((e) => (e.type === 'tool_call_delta' && e.callId === id ? [e.argumentsDelta] : []));
    expect(
      [pieces('c1').join(''), pieces('c2').join('')],
      "Agent.streamTurn: one streamedTurnEvents() for the whole turn, made before the loop: it learns each call's id from its start; a new one per event knows no id, and the pieces are lost (guided step 2)",
    ).toEqual(['{"text":"a"}', '{"text":"b"}']);
    expect(
      writing(events).every((e) => e.turn === 1),
      'every writing event carries the turn',
    ).toBe(true);
  });

  test('a piece is passed on while the model is still writing, not once the turn is done', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: Provider = {
      name: 'slow',
      complete: () => Promise.reject(new Error('use stream()')),
      async *stream() {
        yield { type: 'tool_call_start', index: 0, id: 'c1', name: 'echo' };
        yield { type: 'tool_call_delta', index: 0, argumentsDelta: '{"text":' };
        await gate; // the model goes on writing only once the consumer has seen the piece
        yield { type: 'tool_call_delta', index: 0, argumentsDelta: '"x"}' };
        yield { type: 'tool_call_end', index: 0 };
        yield { type: 'finish', stopReason: 'tool_use' };
      },
    };
    const { agent } = agentWith(slow, { maxTurns: 1 });
    const seen: string[] = [];
    const run = (async () => {
      for await (const event of agent.run(ask('echo x'))) {
        seen.push(describeEvent(event));
        if (event.type === 'tool_call_delta') release();
      }
    })();
    const stuck = await hangs(run);
    release();
    expect(
      stuck,
      'Agent.streamTurn: yield each piece as it arrives; a loop that holds the events until the stream ends never shows the first piece of a call still being written (guided step 2)',
    ).toBe(false);
    expect(seen.slice(1, 4), 'the start, then the pieces in order').toEqual([
      'writing 1 echo#c1',
      'piece 1 c1 "{\\"text\\":"',
      'piece 1 c1 "\\"x\\"}"',
    ]);
  });
});
