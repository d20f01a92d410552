import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { StreamCutError } from 'kit/accumulate';
import { TurnLimitError } from 'kit/simple-agent';
import {
  assistantText,
  assistantToolCalls,
  historyProblems,
  userMessage,
  type AssistantMessage,
  type Message,
  type ToolResultMessage,
} from 'kit/messages';
import { MockProvider, type ScriptStep } from 'kit/mock-provider';
import type { ModelRequest, Provider } from 'kit/provider';
import type { StreamEvent } from 'kit/stream-events';
import { defineTool, ToolSet, type ToolContext } from 'kit/tool';
import { CANCELLED_RESULT, StreamingAgent, type StreamChatOptions } from 'kit/streaming-agent';
import { rejection, settles } from '../helpers/assert.js';
import { requestOn, shape } from '../helpers/transcript.js';
import { loopTools } from '../chapter03/fixtures.js';
import { HANG_MS } from '../helpers/wait.js';

const echoCall = (id: string, text: string) => assistantToolCalls([{ id, name: 'echo', arguments: { text } }]);

function agentWith(script: ScriptStep[], options: { system?: string; maxTurns?: number; tools?: ToolSet } = {}) {
  const fixture = loopTools();
  const provider = new MockProvider(script);
  const tools = options.tools ?? fixture.tools;
  return {
    agent: new StreamingAgent({ provider, tools, cwd: process.cwd(), ...options }),
    provider,
    tools,
    calls: fixture.calls,
  };
}

/** Handlers that write what they see into one log, in order. */
function recorder() {
  const log: string[] = [];
  const handlers: StreamChatOptions = {
    onText: (text) => log.push(`text ${text}`),
    onThinking: (thinking) => log.push(`thinking ${thinking}`),
    onToolCall: (call) => log.push(`call ${call.name}#${call.id}`),
    onToolResult: (result, call) =>
      log.push(`result ${call.id}->${result.toolCallId}${result.isError ? ' error' : ''}`),
  };
  return { log, handlers };
}

describe('StreamingAgent.streamTurn (src/streaming-agent.ts)', () => {
  test('hands each text piece to onText while the turn is still streaming', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seenBeforeEnd: string[] = [];
    const texts: string[] = [];
    const provider: Provider = {
      name: 'gated',
      complete: () => Promise.reject(new Error('the streaming agent must call stream(), not complete()')),
      async *stream() {
        yield { type: 'text_delta', index: 0, text: 'Hello ' };
        yield { type: 'text_delta', index: 0, text: 'there' };
        await gate;
        seenBeforeEnd.push(...texts);
        yield { type: 'text_delta', index: 0, text: '!' };
        yield { type: 'finish', stopReason: 'end_turn' };
      },
    };
    const agent = new StreamingAgent({ provider, tools: new ToolSet(), cwd: process.cwd() });
    const answer = agent.run('hi', { onText: (text) => texts.push(text) });
    answer.catch(() => {}); // awaited below; this only keeps an early failure from counting as unhandled
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    expect(await answer).toBe('Hello there!');
    expect(seenBeforeEnd, 'onText must be called as each delta arrives, not once the turn is complete').toEqual([
      'Hello ',
      'there',
    ]);
    expect(texts).toEqual(['Hello ', 'there', '!']);
  });

  test('sends thinking to onThinking, never to onText, and keeps the signed thinking in the history', async () => {
    const turn: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Short answer wanted.', signature: 'sig-1' },
        { type: 'text', text: 'Yes.' },
      ],
      stopReason: 'end_turn',
    };
    const { agent } = agentWith([turn]);
    const { log, handlers } = recorder();
    const history: Message[] = [userMessage('ok?')];
    expect(await agent.chat(history, handlers)).toBe('Yes.');
    expect(log, 'thinking pieces go to onThinking, text pieces to onText').toEqual([
      'thinking Short ',
      'thinking answer ',
      'thinking wanted.',
      'text Yes.',
    ]);
    expect(history[1], 'the turn pushed is the whole turn, thinking and its signature included').toEqual(turn);
  });

  test('never hands an empty piece to onText or onThinking', async () => {
    const { agent } = agentWith([
      [
        { type: 'thinking_delta', index: 0, thinking: '' },
        { type: 'thinking_delta', index: 0, thinking: 'Hm.' },
        { type: 'text_delta', index: 1, text: '' },
        { type: 'text_delta', index: 1, text: 'Hi' },
        { type: 'text_delta', index: 1, text: '' },
        { type: 'finish', stopReason: 'end_turn' },
      ],
    ]);
    const { log, handlers } = recorder();
    expect(await agent.run('hello', handlers)).toBe('Hi');
    expect(
      log,
      'an empty text_delta or thinking_delta carries nothing to show: skip it (the handlers promise never empty)',
    ).toEqual(['thinking Hm.', 'text Hi']);
  });

  test('every handler is optional: thinking streams fine with only onText, or with no handler at all', async () => {
    const turn: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Nobody listens to this.' },
        { type: 'text', text: 'Answer.' },
      ],
      stopReason: 'end_turn',
    };
    const { agent } = agentWith([turn, turn]);
    const texts: string[] = [];
    expect(
      await settles(
        agent.run('one', { onText: (t) => texts.push(t) }),
        'a run without onThinking must not fail: call it as options.onThinking?.(...)',
      ),
    ).toBe('Answer.');
    expect(texts).toEqual(['Answer.']);
    expect(await settles(agent.run('two'), 'a run with no handlers at all must not fail'), 'no handlers at all').toBe(
      'Answer.',
    );
  });

  test("an abort that ends the provider's stream quietly still rejects with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error('user pressed Esc');
    const provider: Provider = {
      name: 'quiet',
      complete: () => Promise.reject(new Error('the streaming agent must call stream(), not complete()')),
      async *stream(request: ModelRequest) {
        yield { type: 'text_delta', index: 0, text: 'Half an ' };
        // Like the SDKs: on abort the stream just ends, with no error and no finish.
        if (request.signal?.aborted) return;
        yield { type: 'text_delta', index: 0, text: 'answer' };
        yield { type: 'finish', stopReason: 'end_turn' };
      },
    };
    const agent = new StreamingAgent({ provider, tools: new ToolSet(), cwd: process.cwd() });
    const history: Message[] = [userMessage('go')];
    const error = await rejection(
      agent.chat(history, { signal: controller.signal, onText: () => controller.abort(reason) }),
      'an aborted run must reject',
    );
    expect(
      error,
      'after the loop, check the signal and throw its reason: an aborted turn is not a StreamCutError',
    ).toBe(reason);
    expect(shape(history), 'nothing is added to the history').toEqual(['user']);
  });

  test('passes the signal to the provider with the request, so it can cancel the connection', async () => {
    const controller = new AbortController();
    const seen: Array<AbortSignal | undefined> = [];
    const provider: Provider = {
      name: 'watching',
      complete: () => Promise.reject(new Error('the streaming agent must call stream(), not complete()')),
      async *stream(request: ModelRequest) {
        seen.push(request.signal);
        yield { type: 'text_delta', index: 0, text: 'ok' };
        yield { type: 'finish', stopReason: 'end_turn' };
      },
    };
    const agent = new StreamingAgent({ provider, tools: new ToolSet(), cwd: process.cwd() });
    await settles(
      agent.streamTurn([userMessage('hi')], { signal: controller.signal }),
      'streamTurn must return the whole turn',
    );
    expect(
      seen[0],
      'streamTurn: the request carries options.signal, so a real provider can close its HTTP request on a cancel (guided step 1)',
    ).toBe(controller.signal);
  });

  test('can be called on its own, without options: it returns the whole turn', async () => {
    const turn = assistantToolCalls([{ id: 'o1', name: 'echo', arguments: { text: 'x' } }], 'Alone.');
    const { agent } = agentWith([turn]);
    const built = await settles(
      agent.streamTurn([userMessage('hi')]),
      'streamTurn without options (no signal, no handlers) must work: use options.signal?. and options.onText?.',
    );
    expect(built, 'the whole turn, as the provider wrote it').toEqual(turn);
  });

  test('works with a provider that cannot stream: its whole turn arrives as events', async () => {
    const provider: Provider = { name: 'plain', complete: async () => assistantText('no stream here') };
    const agent = new StreamingAgent({ provider, tools: new ToolSet(), cwd: process.cwd() });
    const texts: string[] = [];
    expect(await agent.run('hi', { onText: (t) => texts.push(t) }), 'without provider.stream, use complete()').toBe(
      'no stream here',
    );
    expect(texts.join(''), 'its text still reaches onText').toBe('no stream here');
  });
});

describe('StreamingAgent.executeTools (src/streaming-agent.ts)', () => {
  test('can be called on its own, without options: one result per call, in call order', async () => {
    const { agent, calls } = agentWith([]);
    const results = await settles(
      agent.executeTools([
        { type: 'tool_call', id: 'e1', name: 'echo', arguments: { text: 'one' } },
        { type: 'tool_call', id: 'e2', name: 'fail', arguments: {} },
      ]),
      'executeTools without options (no signal, no handlers) must not throw: use options.signal?. and the handlers with ?.',
    );
    expect(
      results.map((r) => [r.toolCallId, r.isError]),
      'one result per call, in call order',
    ).toEqual([
      ['e1', false],
      ['e2', true],
    ]);
    expect(
      calls.map((c) => c.tool),
      'each call runs once',
    ).toEqual(['echo', 'fail']);
  });
});

describe('StreamingAgent.chat (src/streaming-agent.ts)', () => {
  test('loops like SimpleAgent: runs the tools when each turn ends and sends their results back', async () => {
    const { agent, provider, tools } = agentWith([echoCall('c1', 'a'), echoCall('c2', 'b'), assistantText('ab')], {
      system: 'Be terse.',
    });
    const history: Message[] = [userMessage('spell')];
    expect(await agent.chat(history), 'chat returns the text of the turn without tool calls').toBe('ab');
    expect(
      shape(requestOn(provider, 3).messages),
      'request 3 holds every earlier turn, each followed by its result',
    ).toEqual(['user', 'assistant call echo#c1', 'tool echo#c1', 'assistant call echo#c2', 'tool echo#c2']);
    expect(requestOn(provider, 2)).toEndWithResultsFor(['c1']);
    expect(requestOn(provider, 1), 'every request carries the system prompt and the tools').toMatchObject({
      system: 'Be terse.',
      tools: tools.definitions(),
    });
    expect(shape(history), 'the history ends with the answer').toEqual([
      ...shape(requestOn(provider, 3).messages),
      'assistant text',
    ]);
  });

  test('reports each tool call before it runs and its result right after, paired by id', async () => {
    const { agent } = agentWith([
      assistantToolCalls(
        [
          { id: 'x1', name: 'echo', arguments: { text: 'one' } },
          { id: 'x2', name: 'fail', arguments: {} },
        ],
        'Two calls. ',
      ),
      assistantText('Done.'),
    ]);
    const { log, handlers } = recorder();
    await agent.run('go', handlers);
    expect(
      log,
      "text first, then for each call in order: onToolCall, then onToolResult with that call's result",
    ).toEqual([
      'text Two ',
      'text calls. ',
      'call echo#x1',
      'result x1->x1',
      'call fail#x2',
      'result x2->x2 error',
      'text Done.',
    ]);
  });

  test('parses arguments streamed in pieces before running the tool', async () => {
    const { agent, calls } = agentWith([
      [
        { type: 'tool_call_start', index: 0, id: 'p1', name: 'echo' },
        { type: 'tool_call_delta', index: 0, argumentsDelta: '{"text":"caf' },
        { type: 'tool_call_delta', index: 0, argumentsDelta: '\\u00e9","tim' },
        { type: 'tool_call_delta', index: 0, argumentsDelta: 'es":1' },
        { type: 'tool_call_delta', index: 0, argumentsDelta: '2}' },
        { type: 'tool_call_end', index: 0 },
        { type: 'finish', stopReason: 'tool_use' },
      ],
      assistantText('ok'),
    ]);
    await agent.run('go');
    expect(calls, 'the tool gets the arguments parsed from all the pieces joined').toEqual([
      { tool: 'echo', input: { text: 'café', times: 12 } },
    ]);
  });

  test('a stream cut in the middle rejects the run and adds no half turn to the history', async () => {
    const { agent, provider, calls } = agentWith([
      echoCall('c1', 'first'),
      [
        { type: 'text_delta', index: 0, text: 'Now I will ' },
        { type: 'tool_call_start', index: 1, id: 'c2', name: 'echo' },
        { type: 'tool_call_delta', index: 1, argumentsDelta: '{"te' },
        new Error('connection reset by peer'),
      ],
      assistantText('recovered'),
    ]);
    const history: Message[] = [userMessage('go')];
    const texts: string[] = [];
    const error = await rejection(
      agent.chat(history, { onText: (t) => texts.push(t) }),
      'a cut stream must end the run with an error',
    );
    expect((error as Error).message, "the run rejects with the stream's error").toBe('connection reset by peer');
    expect(texts, 'the text that arrived before the cut was shown').toEqual(['Now I will ']);
    expect(
      calls.map((c) => c.input),
      'only the first, whole call ran; the half call never runs',
    ).toEqual([{ text: 'first', times: 1 }]);
    expect(shape(history), 'the history keeps the whole first round and nothing of the cut turn').toEqual([
      'user',
      'assistant call echo#c1',
      'tool echo#c1',
    ]);
    expect(historyProblems(history)).toEqual([]);
    expect(await settles(agent.chat(history), 'a later chat continues the same history'), 'the next turn is read').toBe(
      'recovered',
    );
    expect(shape(requestOn(provider, 3).messages), 'the retry sends the valid history, without the cut turn').toEqual([
      'user',
      'assistant call echo#c1',
      'tool echo#c1',
    ]);
  });

  test('a stream that stops before its finish (a call never ended) is a StreamCutError, and no tool runs', async () => {
    const { agent, calls } = agentWith([
      [
        { type: 'tool_call_start', index: 0, id: 'w1', name: 'echo' },
        { type: 'tool_call_delta', index: 0, argumentsDelta: '{"text":"hal' },
      ],
    ]);
    const history: Message[] = [userMessage('go')];
    const error = await rejection(agent.chat(history), 'a stream that just stops must not count as a turn');
    expect(error, 'the TurnBuilder reports the early end as StreamCutError').toBeInstanceOf(StreamCutError);
    expect(calls, 'a call whose arguments never finished must not run').toEqual([]);
    expect(shape(history), 'nothing is added to the history').toEqual(['user']);
  });

  test("an abort during the stream rejects with the signal's reason and leaves the history valid", async () => {
    const controller = new AbortController();
    const reason = new Error('user pressed Ctrl-C');
    const { agent, provider } = agentWith([
      echoCall('c1', 'x'),
      assistantText('a long answer that goes on and on'),
      assistantText('unused'),
    ]);
    const history: Message[] = [userMessage('go')];
    const error = await rejection(
      agent.chat(history, { signal: controller.signal, onText: () => controller.abort(reason) }),
      'an aborted run must reject',
    );
    expect(error, 'the run rejects with signal.reason').toBe(reason);
    expect(shape(history), 'the finished round stays; the aborted turn is not added').toEqual([
      'user',
      'assistant call echo#c1',
      'tool echo#c1',
    ]);
    expect(provider.requests, 'no model call after the abort').toHaveLength(2);
  });

  test('an abort while tools run: the remaining calls get a cancelled result, and no further model call is made', async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const signals: Array<AbortSignal | undefined> = [];
    const step = defineTool({
      name: 'step',
      description: 'One step; the second aborts the run',
      input: z.object({ n: z.number() }),
      execute: async ({ n }, ctx: ToolContext) => {
        ran.push(`step ${n}`);
        signals.push(ctx.signal);
        if (n === 2) controller.abort(new Error('stop now'));
        return `step ${n} done`;
      },
    });
    const { agent, provider } = agentWith(
      [
        assistantToolCalls([1, 2, 3].map((n) => ({ id: `s${n}`, name: 'step', arguments: { n } }))),
        assistantText('never'),
      ],
      { tools: new ToolSet([step]) },
    );
    const history: Message[] = [userMessage('go')];
    const { log, handlers } = recorder();
    const error = await rejection(
      agent.chat(history, { ...handlers, signal: controller.signal }),
      'the run must end once aborted',
    );
    expect((error as Error).message).toBe('stop now');
    expect(
      log,
      'executeTools: check the signal before each call; a call cancelled by the abort is not reported to onToolCall or onToolResult (guided step 1)',
    ).toEqual(['call step#s1', 'result s1->s1', 'call step#s2', 'result s2->s2 error']);
    expect(
      ran,
      'executeTools: check the signal before each call, not once before the first: calls after the abort do not run (guided step 1)',
    ).toEqual(['step 1', 'step 2']);
    expect(
      signals[0]?.aborted,
      "each tool gets the run's signal in its context: it aborts when the caller aborts",
    ).toBe(true);
    expect(signals[0]?.reason, "the tool's signal carries the caller's reason").toBe(error);
    expect(
      history,
      'executeTools: every call still has a result (step 1: a cancelled one too): the turn, then s1, s2, s3 (guided step 3)',
    ).toEndWithResultsFor(['s1', 's2', 's3']);
    expect(history.at(-1), 'the call that never ran gets an error result saying it was cancelled').toMatchObject({
      role: 'tool',
      toolCallId: 's3',
      isError: true,
      content: CANCELLED_RESULT,
    });
    expect(historyProblems(history)).toEqual([]);
    expect(provider.requests, 'no model call after the abort').toHaveLength(1);
  });

  test('gives up with TurnLimitError after maxTurns streamed turns, leaving a valid history', async () => {
    let n = 0;
    const forever = () => echoCall(`loop_${++n}`, 'again');
    const { agent, provider } = agentWith(
      Array.from({ length: 10 }, () => forever),
      { maxTurns: 3 },
    );
    const history: Message[] = [userMessage('never stop')];
    const error = await rejection(agent.chat(history), 'the loop must stop at the turn limit');
    expect(error, 'the loop must stop at the turn limit with a TurnLimitError').toBeInstanceOf(TurnLimitError);
    expect(provider.requests, 'exactly maxTurns model calls').toHaveLength(3);
    expect(historyProblems(history), 'every call in the history has its result').toEqual([]);
  });

  test('a cancel during the tools of the last allowed round rejects with the cancel, not TurnLimitError', async () => {
    const controller = new AbortController();
    const reason = new Error('stopped during the last round');
    const { agent, provider } = agentWith([echoCall('c1', 'x'), assistantText('never')], { maxTurns: 1 });
    const history: Message[] = [userMessage('go')];
    const error = await rejection(
      agent.chat(history, { signal: controller.signal, onToolResult: () => controller.abort(reason) }),
      'an aborted run must reject',
    );
    expect(
      error,
      "chat: when the loop runs out, throw the signal's reason if it was aborted; TurnLimitError only when it was not (guided step 4)",
    ).toBe(reason);
    expect(provider.requests, 'one round only (maxTurns: 1)').toHaveLength(1);
    expect(history).toBeValidHistory('after the cancel in the last round');
  });

  test("streams every turn: the mock's complete() is never used", async () => {
    const provider = new MockProvider([echoCall('c1', 'a'), assistantText('b')]);
    const used: string[] = [];
    const spy: Provider = {
      name: 'spy',
      complete: (request: ModelRequest) => {
        used.push('complete');
        return provider.complete(request);
      },
      stream: (request: ModelRequest): AsyncIterable<StreamEvent> => {
        used.push('stream');
        return provider.stream(request);
      },
    };
    const agent = new StreamingAgent({ provider: spy, tools: loopTools().tools, cwd: process.cwd() });
    expect(await agent.run('go')).toBe('b');
    expect(used, 'a provider that can stream is asked with stream() on every turn').toEqual(['stream', 'stream']);
  });

  test('every request carries the system prompt and the tools, not only the first', async () => {
    const { agent, provider, tools } = agentWith([echoCall('c1', 'a'), echoCall('c2', 'b'), assistantText('ab')], {
      system: 'Be terse.',
    });
    await agent.run('spell');
    for (const n of [1, 2, 3]) {
      expect(
        requestOn(provider, n),
        `request ${n} must carry the system prompt and the tools (streamTurn guided step 1 builds every request)`,
      ).toMatchObject({
        system: 'Be terse.',
        tools: tools.definitions(),
      });
    }
  });

  test('onToolCall comes before the tool runs, onToolResult after it', async () => {
    const log: string[] = [];
    const noted = defineTool({
      name: 'noted',
      description: 'Writes to the log while it runs',
      input: z.object({}),
      execute: async () => {
        log.push('tool runs');
        return 'ok';
      },
    });
    const { agent } = agentWith(
      [assistantToolCalls([{ id: 'n1', name: 'noted', arguments: {} }]), assistantText('done')],
      {
        tools: new ToolSet([noted]),
      },
    );
    await agent.run('go', {
      onToolCall: (call) => log.push(`onToolCall ${call.id}`),
      onToolResult: (result) => log.push(`onToolResult ${result.toolCallId}`),
    });
    expect(
      log,
      'executeTools: call onToolCall before the tool runs (the person sees what is about to happen), onToolResult after (guided step 2)',
    ).toEqual(['onToolCall n1', 'tool runs', 'onToolResult n1']);
  });

  test('checks the signal at the top of every round: no model call starts after an abort, even if the provider ignores it', async () => {
    const controller = new AbortController();
    const script = new MockProvider([echoCall('c1', 'x'), assistantText('never')]);
    let streams = 0;
    const deaf: Provider = {
      name: 'deaf',
      complete: (request) => script.complete({ ...request, signal: undefined }),
      stream: (request) => {
        streams++;
        return script.stream({ ...request, signal: undefined });
      },
    };
    const agent = new StreamingAgent({ provider: deaf, tools: loopTools().tools, cwd: process.cwd() });
    const history: Message[] = [userMessage('go')];
    const reason = new Error('stop after the tools');
    const error = await rejection(
      agent.chat(history, { signal: controller.signal, onToolResult: () => controller.abort(reason) }),
      'an aborted run must reject',
    );
    expect(error, "the run rejects with the signal's reason").toBe(reason);
    expect(
      streams,
      "chat: throw the signal's reason at the top of every round, before streamTurn, not once before the loop (guided step 2)",
    ).toBe(1);
    expect(history).toBeValidHistory('after the abort');
  });

  test('an abort while a tool hangs (it never settles) ends the run, and the call gets its cancelled result', async () => {
    const controller = new AbortController();
    const seen: Array<AbortSignal | undefined> = [];
    const hang = defineTool({
      name: 'hang',
      description: 'Never finishes',
      input: z.object({}),
      execute: (_input, ctx: ToolContext) => {
        seen.push(ctx.signal);
        setTimeout(() => controller.abort(new Error('user pressed Esc')), 5);
        return new Promise<string>(() => {});
      },
    });
    const { agent, provider } = agentWith(
      [assistantToolCalls([{ id: 'h1', name: 'hang', arguments: {} }]), assistantText('never')],
      {
        tools: new ToolSet([hang]),
      },
    );
    const history: Message[] = [userMessage('go')];
    const outcome = await Promise.race([
      agent.chat(history, { signal: controller.signal }).then(
        () => 'resolved',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), HANG_MS)),
    ]);
    expect(
      outcome,
      'the run must end after the abort, even though the tool never settles (executeToolCall stops waiting: chapter 3, guided step 3)',
    ).not.toBe('still waiting');
    expect((outcome as Error).message, "the run rejects with the signal's reason").toBe('user pressed Esc');
    expect(seen[0]?.aborted, "the hanging tool got the run's signal, so it could stop").toBe(true);
    expect(history, "the turn, then the hung call's result").toEndWithResultsFor(['h1']);
    expect(history.at(-1), 'the hung call gets the cancelled result').toMatchObject({
      toolCallId: 'h1',
      isError: true,
      content: CANCELLED_RESULT,
    });
    expect(history).toBeValidHistory('after aborting a hung tool');
    expect(provider.requests, 'no model call after the abort').toHaveLength(1);
  });
});

describe('StreamingAgent.chat when a handler throws (src/streaming-agent.ts)', () => {
  const GUARD =
    'chat: use guardHandlers(options) for the whole run, so a handler that throws aborts the run instead of losing the turn (guided step 1)';

  test('onToolResult throws: the tool that ran keeps its result, the rest are cancelled, and a retry does not run it again', async () => {
    const { agent, calls } = agentWith([
      assistantToolCalls([
        { id: 'a', name: 'echo', arguments: { text: 'side effect' } },
        { id: 'b', name: 'echo', arguments: { text: 'not yet' } },
      ]),
      assistantText('done'),
    ]);
    const history: Message[] = [userMessage('go')];
    const broken = new Error('the screen went away');
    const error = await rejection(
      agent.chat(history, {
        onToolResult: () => {
          throw broken;
        },
      }),
      'a handler that throws must end the run',
    );
    expect(error, "the run rejects with the handler's error").toBe(broken);
    expect(
      calls.map((c) => (c.input as { text: string }).text),
      'the first tool ran once; the second never ran',
    ).toEqual(['side effect']);
    expect(history, GUARD).toEndWithResultsFor(['a', 'b']);
    expect(history).toBeValidHistory('after onToolResult threw');
    expect(history[2], 'the result of the call that ran is kept').toMatchObject({
      toolCallId: 'a',
      content: 'side effect',
      isError: false,
    });
    expect(history[3], 'the call that did not run gets the cancelled result').toMatchObject({
      toolCallId: 'b',
      isError: true,
      content: CANCELLED_RESULT,
    });
    expect(
      await settles(agent.chat(history), 'a retry continues the same history'),
      'the retry reads the next turn',
    ).toBe('done');
    expect(calls, 'the retry does not run the side effect again').toHaveLength(1);
  });

  test('a handler that throws ends the run before the next model call, even with a provider that ignores the signal', async () => {
    const script = new MockProvider([echoCall('c1', 'x'), assistantText('never')]);
    let streams = 0;
    const deaf: Provider = {
      name: 'deaf',
      complete: (request) => script.complete({ ...request, signal: undefined }),
      stream: (request) => {
        streams++;
        return script.stream({ ...request, signal: undefined });
      },
    };
    const agent = new StreamingAgent({ provider: deaf, tools: loopTools().tools, cwd: process.cwd() });
    const history: Message[] = [userMessage('go')];
    const broken = new Error('the screen went away');
    const error = await rejection(
      agent.chat(history, {
        onToolResult: () => {
          throw broken;
        },
      }),
      'a handler that throws must end the run',
    );
    expect(error, "the run rejects with the handler's error").toBe(broken);
    expect(
      streams,
      "chat: check the run's signal (the one guardHandlers returns, which a throwing handler aborts), not only the caller's, at the top of every round: no model call after a handler threw (guided step 2)",
    ).toBe(1);
    expect(history).toBeValidHistory('after onToolResult threw');
  });

  test('onToolCall throws: the tool does not run, and the history stays valid', async () => {
    const { agent, calls } = agentWith([echoCall('c1', 'x'), assistantText('never')]);
    const history: Message[] = [userMessage('go')];
    const broken = new Error('cannot draw the call');
    const error = await rejection(
      agent.chat(history, {
        onToolCall: () => {
          throw broken;
        },
      }),
      'a handler that throws must end the run',
    );
    expect(error, "the run rejects with the handler's error").toBe(broken);
    expect(calls, 'a call whose onToolCall threw must not run').toEqual([]);
    expect(history, GUARD).toEndWithResultsFor(['c1']);
    expect((history.at(-1) as ToolResultMessage).content, 'it gets the cancelled result').toBe(CANCELLED_RESULT);
    expect(history).toBeValidHistory('after onToolCall threw');
  });

  test('onText throws while a turn streams: the run rejects with that error, runs nothing and adds nothing', async () => {
    const history: Message[] = [userMessage('go')];
    const broken = new Error('terminal closed');
    const turn = assistantToolCalls([{ id: 't1', name: 'echo', arguments: { text: 'x' } }], 'Running it.');
    const { agent, calls } = agentWith([turn, assistantText('never')]);
    const error = await rejection(
      agent.chat(history, {
        onText: () => {
          throw broken;
        },
      }),
      'a handler that throws must end the run',
    );
    expect(error, GUARD).toBe(broken);
    expect(shape(history), 'the turn whose text could not be shown is not added').toEqual(['user']);
    expect(calls, 'no tool of that turn runs').toEqual([]);
    expect(history).toBeValidHistory('after onText threw');
  });
});

describe('StreamingAgent.chat and the turn rules (src/streaming-agent.ts, src/turn-rules.ts)', () => {
  const NORMALIZE = 'chat: pass every streamed turn through normalizeTurn(turn, history) (guided step 2)';

  test('repeated ids, in one turn or from an earlier one, become unique before the turn enters the history', async () => {
    const { agent, calls } = agentWith([
      assistantToolCalls([
        { id: 'same', name: 'echo', arguments: { text: 'one' } },
        { id: 'same', name: 'echo', arguments: { text: 'two' } },
      ]),
      echoCall('same', 'three'),
      assistantText('ok'),
    ]);
    const history: Message[] = [userMessage('go')];
    expect(await agent.chat(history)).toBe('ok');
    expect(calls, 'every call runs').toHaveLength(3);
    expect(history, NORMALIZE).toBeValidHistory('after repeated call ids');
  });

  test('a tool_use turn without calls, or with no content at all, ends the run as an answer', async () => {
    const noCalls: AssistantMessage = {
      role: 'assistant',
      content: [{ type: 'text', text: 'Nothing to run.' }],
      stopReason: 'tool_use',
    };
    const { agent, provider } = agentWith([noCalls, assistantText('never')]);
    const history: Message[] = [userMessage('go')];
    expect(await settles(agent.chat(history), 'chat must not fail on a tool_use turn without calls')).toBe(
      'Nothing to run.',
    );
    expect(provider.requests, `${NORMALIZE}: a tool_use turn with no call is an answer`).toHaveLength(1);
    expect(history).toBeValidHistory('after a tool_use turn without calls');

    const blank = agentWith([[{ type: 'finish', stopReason: 'end_turn' }]]);
    const second: Message[] = [userMessage('go')];
    await settles(blank.agent.chat(second), 'chat must not fail on an empty turn');
    expect(
      (second.at(-1) as AssistantMessage).content.length,
      `${NORMALIZE}: an empty turn gets a text block`,
    ).toBeGreaterThan(0);
  });

  test('a turn cut by the token limit in the middle of a call never runs it, and ends the run with the cut turn last', async () => {
    const { agent, calls, provider } = agentWith([
      [
        { type: 'text_delta', index: 0, text: 'Writing it now' },
        { type: 'tool_call_start', index: 1, id: 'w1', name: 'echo' },
        { type: 'tool_call_delta', index: 1, argumentsDelta: '{"text":"hal' },
        { type: 'tool_call_end', index: 1 },
        { type: 'finish', stopReason: 'max_tokens' },
      ],
      assistantText('never'),
    ]);
    const history: Message[] = [userMessage('go')];
    expect(
      await settles(agent.chat(history), 'a cut turn ends the run like an answer'),
      'chat returns the text that was written',
    ).toBe('Writing it now');
    expect(calls, 'a call of a turn that is not tool_use must never run').toEqual([]);
    expect(provider.requests).toHaveLength(1);
    expect(history, `${NORMALIZE}: it drops the calls of a turn that is not tool_use`).toBeValidHistory(
      'after a cut turn',
    );
    expect(history.at(-1), 'the caller sees the cut: the last turn keeps its stop reason').toMatchObject({
      stopReason: 'max_tokens',
    });
  });
});
