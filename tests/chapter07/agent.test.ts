import { describe, expect, test } from 'vitest';
import { TurnLimitError } from 'kit/simple-agent';
import { drain, finalAnswer, RunStoppedError, type AgentEvent } from 'kit/agent-events';
import { runSerially, type CallRunner, type Executor } from 'kit/serial-executor';
import { assistantText, assistantToolCalls, toolResult, type AssistantMessage, type Message } from 'kit/messages';
import { ToolSet } from 'kit/tool';
import { MockProvider } from 'kit/mock-provider';
import type { ModelRequest, Provider } from 'kit/provider';
import { rejection } from '../helpers/assert.js';
import { requestOn, shape } from '../helpers/transcript.js';
import { agentWith, ask, collect, describeEvent, echoCall, theDone } from './fixtures.js';

const toolRound = (): AssistantMessage => ({
  ...assistantToolCalls([echoCall('c1', 'hi')], 'Let me echo.'),
  usage: { inputTokens: 10, outputTokens: 5 },
});

describe('Agent.run (src/agent.ts)', () => {
  test('a tool round as events, in this exact order, ending in one done', async () => {
    const { agent } = agentWith([toolRound(), assistantText('Done.', { inputTokens: 20, outputTokens: 3 })]);
    const events = await collect(agent.run(ask('echo hi')));
    expect(
      events.map(describeEvent),
      'the events of Agent.run (guided steps 3a-3d) and Agent.streamTurn, in order',
    ).toEqual([
      'turn_start 1',
      'text 1 "Let "',
      'text 1 "me "',
      'text 1 "echo."',
      'writing 1 echo#c1',
      'piece 1 c1 "{\\"tex"',
      'piece 1 c1 "t\\":\\"h"',
      'piece 1 c1 "i\\"}"',
      'usage 1 in=10 out=5',
      'requested 1 echo#c1 {"text":"hi"}',
      'decided 1 c1 allow',
      'result 1 c1 "hi"',
      'turn_start 2',
      'text 2 "Done."',
      'usage 2 in=20 out=3',
      'done end_turn',
    ]);
  });

  test('done carries the answer, the number of model calls and the usage of every turn added up', async () => {
    const { agent } = agentWith([
      toolRound(),
      { ...assistantText('Done.'), usage: { inputTokens: 20, outputTokens: 3, cacheReadTokens: 7 } },
    ]);
    const done = theDone(await collect(agent.run(ask('echo hi'))), 'after a tool round');
    expect(
      done,
      'done (finishRun guided step 2): reason, turns = model calls made, text of the last turn, usage added up; no message or pending key when there is none',
    ).toStrictEqual({
      type: 'done',
      reason: 'end_turn',
      turns: 2,
      text: 'Done.',
      usage: { inputTokens: 30, outputTokens: 8, cacheReadTokens: 7 },
    });
  });

  test('every request carries the system prompt, the whole history and the tools, and the history grows in place', async () => {
    const { agent, provider, tools } = agentWith([toolRound(), assistantText('Done.')], { system: 'Be brief.' });
    const history = ask('echo hi');
    await collect(agent.run(history));
    expect(
      requestOn(provider, 1),
      'the request is { system, messages: history, tools: definitions } (guided step 3b)',
    ).toMatchObject({
      system: 'Be brief.',
      tools: tools.definitions(),
    });
    expect(requestOn(provider, 2), 'the second request ends with the turn and its result').toEndWithResultsFor(['c1']);
    expect(shape(history), "Agent.run appends to the caller's history: the turn, its result, the answer").toEqual([
      'user',
      'assistant text + call echo#c1',
      'tool echo#c1',
      'assistant text',
    ]);
  });

  test('text events are handed out while the model is still writing, not once the turn is over', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const provider: Provider = {
      name: 'gated',
      complete: () => Promise.reject(new Error('a provider that can stream must be asked with stream()')),
      async *stream() {
        yield { type: 'text_delta', index: 0, text: 'Hello ' };
        await gate;
        yield { type: 'text_delta', index: 0, text: 'there' };
        yield { type: 'finish', stopReason: 'end_turn' };
      },
    };
    const { agent } = agentWith(provider);
    const iterator = agent.run(ask('hi'))[Symbol.asyncIterator]();
    expect((await iterator.next()).value, 'the first event is turn_start').toEqual({ type: 'turn_start', turn: 1 });
    const second = await Promise.race([
      iterator.next(),
      new Promise((resolve) => setTimeout(() => resolve('waiting'), 50)),
    ]);
    expect(
      second,
      'Agent.streamTurn: yield each text piece as it arrives, before the stream has finished (guided step 2)',
    ).toEqual({
      done: false,
      value: { type: 'text_delta', turn: 1, text: 'Hello ' },
    });
    release();
    const rest: AgentEvent[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest.push(next.value);
    expect(rest.map(describeEvent)).toEqual(['text 1 "there"', 'done end_turn']);
  });

  test('thinking becomes thinking events, and empty pieces are not events at all', async () => {
    const { agent } = agentWith([
      [
        { type: 'thinking_delta', index: 0, thinking: '' },
        { type: 'thinking_delta', index: 0, thinking: 'Hm.' },
        { type: 'text_delta', index: 1, text: '' },
        { type: 'text_delta', index: 1, text: 'Hi' },
        { type: 'finish', stopReason: 'end_turn' },
      ],
    ]);
    const events = await collect(agent.run(ask('hello')));
    expect(
      events.map(describeEvent),
      'Agent.streamTurn: a non-empty thinking_delta is a thinking event; empty pieces are skipped (guided step 2)',
    ).toEqual(['turn_start 1', 'thinking 1 "Hm."', 'text 1 "Hi"', 'done end_turn']);
  });

  test('a retry notice from the provider is passed on as a retry event, and is not part of the turn', async () => {
    const { agent } = agentWith([
      [
        { type: 'retry', attempt: 2, maxAttempts: 4, delayMs: 1500, reason: 'overloaded (529)' },
        { type: 'retry', attempt: 3, maxAttempts: 4, delayMs: 3000, reason: 'overloaded (529)', model: 'small-model' },
        { type: 'text_delta', index: 0, text: 'Hi' },
        { type: 'finish', stopReason: 'end_turn' },
      ],
    ]);
    const history = ask('hello');
    const events = await collect(agent.run(history));
    expect(
      events.filter((e) => e.type === 'retry'),
      'Agent.streamTurn: each retry notice becomes a retry event with the turn number and every field of the notice (guided step 2)',
    ).toEqual([
      { type: 'retry', turn: 1, attempt: 2, maxAttempts: 4, delayMs: 1500, reason: 'overloaded (529)' },
      {
        type: 'retry',
        turn: 1,
        attempt: 3,
        maxAttempts: 4,
        delayMs: 3000,
        reason: 'overloaded (529)',
        model: 'small-model',
      },
    ]);
    expect(
      events.map((e) => e.type),
      'the retry events come first, in the order the provider sent them',
    ).toEqual(['turn_start', 'retry', 'retry', 'text_delta', 'done']);
    expect(history.at(-1), 'the notices are not part of the turn').toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hi' }],
      stopReason: 'end_turn',
    });
  });

  test('a provider that cannot stream still works: its whole turn arrives as events', async () => {
    const provider: Provider = { name: 'plain', complete: async () => assistantText('no stream here') };
    const { agent } = agentWith(provider);
    const events = await collect(agent.run(ask('hi')));
    expect(
      events.map(describeEvent),
      'Agent.streamTurn: use turnEvents, which falls back to complete() (guided step 1)',
    ).toEqual(['turn_start 1', 'text 1 "no "', 'text 1 "stream "', 'text 1 "here"', 'done end_turn']);
    expect(theDone(events, 'a plain provider').text).toBe('no stream here');
  });

  test('a failing provider ends the run with done: error and its message, never a rejection', async () => {
    const { agent } = agentWith([toolRound(), new Error('503 overloaded')]);
    const history = ask('echo hi');
    const events = await collect(agent.run(history));
    const done = theDone(events, 'a provider failure');
    expect(done.reason, 'an error that is not an abort ends the run with reason error (guided step 5)').toBe('error');
    expect(done.message, "the message is the error's text (guided step 5)").toBe('503 overloaded');
    expect(history).toBeValidHistory('after a provider failure');
    expect(shape(history), 'the whole first round stays').toEqual([
      'user',
      'assistant text + call echo#c1',
      'tool echo#c1',
    ]);
  });

  test('a stream cut in the middle of a call: error, the half call never runs, nothing of the cut turn is kept', async () => {
    const { agent, ran } = agentWith([
      [
        { type: 'text_delta', index: 0, text: 'I will ' },
        { type: 'tool_call_start', index: 1, id: 'c9', name: 'echo' },
        { type: 'tool_call_delta', index: 1, argumentsDelta: '{"te' },
      ],
    ]);
    const history = ask('go');
    const done = theDone(await collect(agent.run(history)), 'a cut stream');
    expect(done.reason, "the TurnBuilder's StreamCutError ends the run with reason error").toBe('error');
    expect(done.message, "the message is the StreamCutError's text (guided step 5)").toMatch(/finish/);
    expect(ran, 'a call whose arguments never finished must not run').toEqual([]);
    expect(history).toBeValidHistory('after a cut stream');
    expect(shape(history), 'nothing of the cut turn is added').toEqual(['user']);
  });

  test('a turn cut at max_tokens never runs its half-written call, and ends the run as an answer', async () => {
    const cut: AssistantMessage = {
      ...assistantToolCalls([echoCall('c1', 'half')], 'Writing'),
      stopReason: 'max_tokens',
    };
    const { agent, ran } = agentWith([cut]);
    const history = ask('go');
    const done = theDone(await collect(agent.run(history)), 'a max_tokens turn');
    expect(
      ran,
      'pass every turn through normalizeTurn, which drops the calls of a turn not stopped for tool_use (guided step 3c)',
    ).toEqual([]);
    expect(done.reason).toBe('end_turn');
    expect(history).toBeValidHistory('after a max_tokens turn');
  });

  test('the turn limit is a done reason: maxTurns model calls, a valid history that a later run continues', async () => {
    let n = 0;
    const forever = () => assistantToolCalls([echoCall(`loop_${++n}`, 'again')]);
    const { agent, provider } = agentWith([forever, forever, forever, assistantText('finally')], { maxTurns: 3 });
    const history = ask('never stop');
    const events = await collect(agent.run(history));
    const done = theDone(events, 'at the turn limit');
    expect(done.reason, 'after maxTurns rounds the run ends with turn_limit (guided step 4)').toBe('turn_limit');
    expect(done.turns).toBe(3);
    expect(done.message, 'the message gives the limit (guided step 4)').toContain('3');
    expect(provider.requests, 'exactly maxTurns model calls').toHaveLength(3);
    expect(history).toBeValidHistory('at the turn limit');
    const again = theDone(await collect(agent.run(history)), 'a later run on the same history');
    expect(again.reason, 'a later run continues the history').toBe('end_turn');
    expect(again.text).toBe('finally');
  });

  test('a custom executor replaces the serial one: the loop hands it the calls and passes on its events', async () => {
    const seen: string[] = [];
    const reversed: Executor = async function* (calls, runCall, turn) {
      seen.push(calls.map((c) => c.id).join(','));
      for (const call of [...calls].reverse()) yield* runSerially([call], runCall, turn);
    };
    const { agent, ran } = agentWith(
      [assistantToolCalls([echoCall('a', '1'), echoCall('b', '2')]), assistantText('ok')],
      { executor: reversed },
    );
    const history = ask('go');
    const events = await collect(agent.run(history));
    expect(seen, 'run the calls with this.executor, given all the calls of the turn (guided step 3d)').toEqual(['a,b']);
    expect(ran, 'the executor decides the order').toEqual(['echo 2', 'echo 1']);
    expect(events.filter((e) => e.type === 'tool_result').map(describeEvent)).toEqual([
      'result 1 b "2"',
      'result 1 a "1"',
    ]);
    expect(history).toBeValidHistory('after a custom executor');
  });
});

describe('runSerially (src/serial-executor.ts)', () => {
  test('runs the calls one after another in call order, records each result, and starts none after an abort', async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const runCall: CallRunner = async function* (call) {
      log.push(`start ${call.id}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (call.id === 'b') controller.abort(new Error('stop'));
      log.push(`end ${call.id}`);
      yield { type: 'turn_start' as const, turn: 0 };
      return toolResult(call, `done ${call.id}`);
    };
    const calls = ['a', 'b', 'c'].map((id) => ({ type: 'tool_call' as const, id, name: 'echo', arguments: {} }));
    const events = await collect(
      runSerially(calls, runCall, {
        signal: controller.signal,
        tools: new ToolSet(),
        record: (result) => log.push(`record ${result.toolCallId}`),
      }),
    );
    expect(
      log,
      'one call at a time, in order, each recorded before the next starts; once the signal has aborted, no further call starts (guided step 1)',
    ).toEqual(['start a', 'end a', 'record a', 'start b', 'end b', 'record b']);
    expect(events, 'every event of runCall is passed on (guided step 2)').toHaveLength(2);
  });

  test('records nothing for a call left for the client', async () => {
    const recorded: string[] = [];
    const runCall: CallRunner = async function* (call) {
      yield { type: 'turn_start' as const, turn: 0 };
      return call.id === 'client' ? undefined : toolResult(call, 'ok');
    };
    const calls = ['a', 'client', 'b'].map((id) => ({ type: 'tool_call' as const, id, name: 'echo', arguments: {} }));
    await collect(
      runSerially(calls, runCall, {
        signal: new AbortController().signal,
        tools: new ToolSet(),
        record: (result) => recorded.push(result.toolCallId),
      }),
    );
    expect(
      recorded,
      'record the result runCall returns, in call order; a call left for the client returns none (guided step 2)',
    ).toEqual(['a', 'b']);
  });
});

describe('drain and finalAnswer (src/agent-events.ts)', () => {
  test('drain returns the done event and hands every event to onEvent', async () => {
    const { agent } = agentWith([toolRound(), assistantText('Done.')]);
    const seen: string[] = [];
    const done = await drain(agent.run(ask('echo hi')), (event) => seen.push(event.type));
    expect(done, 'drain returns the done event').toMatchObject({ type: 'done', reason: 'end_turn', text: 'Done.' });
    expect(seen[0], 'drain: every event goes to onEvent (guided step 1)').toBe('turn_start');
    expect(seen.at(-1), 'drain: the done event too (guided step 1)').toBe('done');
    expect(seen, 'drain: every event of the run, once (guided step 1)').toHaveLength(15);
  });

  test('drain refuses a run without a done, or with an event after it', async () => {
    async function* noDone(): AsyncGenerator<AgentEvent> {
      yield { type: 'turn_start', turn: 1 };
    }
    async function* afterDone(): AsyncGenerator<AgentEvent> {
      yield { type: 'done', reason: 'end_turn', turns: 1, text: '', usage: { inputTokens: 0, outputTokens: 0 } };
      yield { type: 'turn_start', turn: 2 };
    }
    expect(
      String(await rejection(drain(noDone()), 'drain: a run without done is an error (guided step 3)')),
      'drain guided step 3',
    ).toMatch(/done/);
    expect(
      String(await rejection(drain(afterDone()), 'drain: an event after done is an error (guided step 2)')),
      'drain guided step 2 names the event that came after done',
    ).toMatch(/turn_start/);
  });

  test('drain refuses a second done: done must be the only last event', async () => {
    const done = {
      type: 'done' as const,
      reason: 'end_turn' as const,
      turns: 1,
      text: '',
      usage: { inputTokens: 0, outputTokens: 0 },
    };
    async function* twice(): AsyncGenerator<AgentEvent> {
      yield done;
      yield { ...done, reason: 'turn_limit' };
    }
    const error = await rejection(
      drain(twice()),
      'drain: a second done after the first is an event after done: a broken loop (guided step 2)',
    );
    expect(String(error), 'drain: the message names the event that came after done (a done) (guided step 2)').toMatch(
      /done/,
    );
  });

  test('finalAnswer gives the answer, TurnLimitError at the turn limit, RunStoppedError otherwise', async () => {
    expect(await finalAnswer(agentWith([assistantText('42')]).agent.run(ask('?')))).toBe('42');
    const loop = () => assistantToolCalls([echoCall(`x${Math.random()}`, 'a')]);
    const limited = agentWith([loop, loop], { maxTurns: 2 }).agent;
    expect(
      await rejection(finalAnswer(limited.run(ask('go'))), 'the turn limit rejects'),
      "chapter 3's TurnLimitError",
    ).toBeInstanceOf(TurnLimitError);
    const controller = new AbortController();
    controller.abort(new Error('no'));
    const stopped = await rejection(
      finalAnswer(agentWith([assistantText('x')]).agent.run(ask('go'), { signal: controller.signal })),
      'a cancel rejects',
    );
    expect(stopped).toBeInstanceOf(RunStoppedError);
    expect((stopped as RunStoppedError).done.reason).toBe('cancelled');
  });
});

// Keep the unused-import checker quiet about types used only in annotations.
export type _Unused = Message | ModelRequest | MockProvider;
