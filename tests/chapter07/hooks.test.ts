import { describe, expect, test } from 'vitest';
import type { AgentEvent, ToolDecision } from 'kit/agent-events';
import { composeHooks, type HookContext, type Hooks } from 'kit/hooks';
import { assistantText, assistantToolCalls, toolResult, userMessage, type ToolCall } from 'kit/messages';
import { z } from 'zod';
import { defineTool } from 'kit/tool';
import { requestOn, shape } from '../helpers/transcript.js';
import { agentWith, ask, callsTurn, collect, describeEvent, echoCall, notWriting, theDone } from './fixtures.js';
import { hangs } from '../helpers/wait.js';

const twoEchoes = () => callsTurn(echoCall('c1', 'one'), echoCall('c2', 'two'));

describe('hooks in the loop (src/hooks.ts, src/hooked-call.ts)', () => {
  test('the request a beforeModelCall hook returns is the request sent; the history itself is not changed', async () => {
    const hook: Hooks = {
      beforeModelCall: (request) => ({
        ...request,
        system: `${request.system} Answer in French.`,
        messages: [...request.messages, userMessage('(reminder: French)')],
      }),
    };
    const { agent, provider } = agentWith([assistantText('Bonjour.')], { hooks: hook, system: 'Be brief.' });
    const history = ask('hello');
    await collect(agent.run(history));
    const sent = requestOn(provider, 1);
    expect(
      sent.system,
      'Agent.run: stream the request the hook returned, not the one you built (guided step 3b/3c)',
    ).toBe('Be brief. Answer in French.');
    expect(shape(sent.messages), "the hook's extra message was sent").toEqual(['user', 'user']);
    expect(shape(history), 'the hook changed the request, not the conversation').toEqual(['user', 'assistant text']);
  });

  test('beforeModelCall hooks run in the order given, each on the request the one before left', async () => {
    const order: string[] = [];
    const first: Hooks = { beforeModelCall: (r) => (order.push('first'), { ...r, system: 'A' }) };
    const second: Hooks = {
      beforeModelCall: (r) => (order.push(`second saw ${r.system}`), { ...r, system: `${r.system}B` }),
    };
    const quiet: Hooks = { beforeModelCall: () => undefined };
    const { agent, provider } = agentWith([assistantText('ok')], { hooks: [first, quiet, second] });
    await collect(agent.run(ask('x')));
    expect(
      order,
      'composeHooks: in order, each hook gets the request as the hooks before it left it (guided step 2)',
    ).toEqual(['first', 'second saw A']);
    expect(requestOn(provider, 1).system, 'a hook that returns nothing keeps the request').toBe('AB');
  });

  test('a beforeModelCall hook can stop the run: done cancelled with its reason, and no model call', async () => {
    const later: string[] = [];
    const { agent, provider } = agentWith([assistantText('never')], {
      hooks: [
        { beforeModelCall: () => ({ stop: 'budget used up' }) },
        { beforeModelCall: (r) => (later.push('asked'), r) },
      ],
    });
    const history = ask('hi');
    const events = await collect(agent.run(history));
    const done = theDone(events, 'a stop from a hook');
    expect(done.reason, 'Agent.run: a stop ends the run with reason cancelled (guided step 3b)').toBe('cancelled');
    expect(done.message, "the hook's reason is the message").toBe('budget used up');
    expect(
      done.text,
      "Agent.run: a stop without an answer leaves the run's text as it was ('' before any turn) (guided step 3b)",
    ).toBe('');
    expect(
      { requests: provider.requests.length, turns: done.turns },
      "Agent.run: throw the signal's reason after beforeModelCall: no model call is made (or counted in done.turns) after a stop (guided step 3b)",
    ).toEqual({ requests: 0, turns: 0 });
    expect(later, 'composeHooks: the chain ends at a stop; later hooks are not asked (guided step 2)').toEqual([]);
    expect(history).toBeValidHistory('after a hook stopped the run');
  });

  test('a stop with an answer ends the run as answered, with that answer as its text and no model call', async () => {
    const { agent, provider } = agentWith([callsTurn(echoCall('c1', 'hi')), assistantText('never')], {
      hooks: {
        beforeModelCall: (request, ctx) =>
          ctx.turn === 2 ? { stop: 'echo returned directly', answer: 'the tool said so' } : request,
      },
    });
    const history = ask('echo hi');
    const events = await collect(agent.run(history));
    const done = theDone(events, 'a stop with an answer');
    expect(done.reason, 'Agent.run: a stop that carries an answer ends the run with end_turn (guided step 3b)').toBe(
      'end_turn',
    );
    expect(done.text, "Agent.run: the answer is the run's text (guided step 3b)").toBe('the tool said so');
    expect(done.message, 'the stop is the message').toBe('echo returned directly');
    expect(provider.requests, 'one model call: the stop came before the second').toHaveLength(1);
    expect(history).toBeValidHistory('after a stop with an answer');
    expect(history.at(-1), 'the history ends with the result of the call').toMatchObject({
      role: 'tool',
      toolCallId: 'c1',
    });
  });

  test('events a hook emits reach the consumers right after the hook: before the model call, the decision, the result', async () => {
    const note = (text: string): AgentEvent => ({ type: 'text_delta', turn: 0, text });
    const { agent } = agentWith([callsTurn(echoCall('c1', 'hi')), assistantText('ok')], {
      hooks: {
        beforeModelCall: (request, ctx) => void ctx.emit(note(`model ${ctx.turn}`)),
        beforeToolCall: (call, ctx) => void ctx.emit(note(`before ${call.id}`)),
        afterToolCall: (call, _result, ctx) => void ctx.emit(note(`after ${call.id}`)),
      },
    });
    const events = await collect(agent.run(ask('echo hi')));
    expect(
      events.filter(notWriting).map((e) => (e.type === 'text_delta' && e.turn === 0 ? `emitted: ${e.text}` : e.type)),
      'the loop yields what ctx.emit received as soon as the hook returned (Agent.run guided step 3b, runToolCall guided steps 1 and 6)',
    ).toEqual([
      'turn_start',
      'emitted: model 1',
      'tool_call_requested',
      'emitted: before c1',
      'tool_call_decided',
      'emitted: after c1',
      'tool_result',
      'turn_start',
      'emitted: model 2',
      'text_delta',
      'done',
    ]);
  });

  test("events a tool emits while it runs reach the consumer at once, before its result, with the call's id and turn", async () => {
    let release = () => {};
    const seen: Array<{ callId?: string; turn?: number }> = [];
    const reporter = defineTool({
      name: 'reporter',
      description: 'Emits two events while it works.',
      input: z.object({}),
      async execute(_input, ctx) {
        seen.push({ callId: ctx.callId, turn: ctx.turn });
        ctx.emit?.({ type: 'text_delta', turn: 0, text: 'working' });
        await new Promise<void>((resolve) => (release = resolve)); // the consumer releases it once it saw 'working'
        ctx.emit?.({ type: 'text_delta', turn: 0, text: 'nearly there' });
        return 'finished';
      },
    });
    const { agent } = agentWith([callsTurn({ id: 'r1', name: 'reporter', arguments: {} }), assistantText('ok')], {
      extraTools: [reporter],
    });
    const order: string[] = [];
    const run = (async () => {
      for await (const event of agent.run(ask('report'))) {
        if (notWriting(event))
          order.push(event.type === 'text_delta' && event.turn === 0 ? `emitted: ${event.text}` : event.type);
        if (event.type === 'text_delta' && event.text === 'working') release();
      }
    })();
    const timedOut = await hangs(run);
    release();
    expect(
      timedOut,
      'runToolCall: run the tool with runTool (given), which yields what the tool emits while it is still running; awaiting executeToolCall alone holds the events back until the tool is done (guided step 5)',
    ).toBe(false);
    expect(seen, 'runTool gives the tool its call id and turn').toEqual([{ callId: 'r1', turn: 1 }]);
    expect(order.slice(2, 6), "a tool's events come after its decision and before its result").toEqual([
      'tool_call_decided',
      'emitted: working',
      'emitted: nearly there',
      'tool_result',
    ]);
  });

  test("onText hooks see every piece of text, in order, with the run's signal and turn", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const contexts: HookContext[] = [];
    const { agent } = agentWith([assistantText('one two three')], {
      hooks: [
        { onText: (text, ctx) => void (seen.push(`a:${text}`), contexts.push(ctx)) },
        { onText: (text) => void seen.push(`b:${text}`) },
      ],
    });
    await collect(agent.run(ask('count'), { signal: controller.signal }));
    expect(
      seen,
      'composeHooks guided step 3 and Agent.streamTurn guided step 2: every hook sees every non-empty piece',
    ).toEqual(['a:one ', 'b:one ', 'a:two ', 'b:two ', 'a:three', 'b:three']);
    controller.abort(new Error('later'));
    expect(
      contexts[0]?.signal.reason,
      "a hook gets the run's signal, which aborts when options.signal does (runSignal(options.signal))",
    ).toBe(controller.signal.reason);
    expect(contexts[0]?.turn, 'and the turn number, counting from 1').toBe(1);
  });

  test('an empty piece of text is not shown to onText hooks', async () => {
    const seen: string[] = [];
    const { agent } = agentWith(
      [
        [
          { type: 'text_delta', index: 0, text: '' },
          { type: 'text_delta', index: 0, text: 'hi' },
          { type: 'text_delta', index: 0, text: '' },
          { type: 'finish', stopReason: 'end_turn' },
        ],
      ],
      {
        hooks: { onText: (text) => void seen.push(text) },
      },
    );
    await collect(agent.run(ask('say hi')));
    expect(seen, 'Agent.streamTurn: only a non-empty text_delta goes to this.hooks.onText (guided step 2)').toEqual([
      'hi',
    ]);
  });

  test("a blocked call never runs: its result is the hook's message, and the model reads it", async () => {
    const after: string[] = [];
    const { agent, provider, ran } = agentWith([callsTurn(echoCall('c1', 'rm -rf')), assistantText('understood')], {
      hooks: {
        beforeToolCall: (call) =>
          call.name === 'echo' ? { type: 'block', message: 'Blocked: echo is not allowed here.' } : undefined,
        afterToolCall: (call) => void after.push(call.id),
      },
    });
    const history = ask('go');
    const events = await collect(agent.run(history));
    expect(ran, 'runToolCall: a blocked call must not run (guided step 2)').toEqual([]);
    expect(after, 'runToolCall: nothing ran, so the after hooks are not called (guided step 2)').toEqual([]);
    expect(events.filter(notWriting).map(describeEvent).slice(1, 4)).toEqual([
      'requested 1 echo#c1 {"text":"rm -rf"}',
      'decided 1 c1 block',
      'result 1 c1 error "Blocked: echo is not allowed here."',
    ]);
    expect(
      requestOn(provider, 2).messages.at(-1),
      "the model reads the hook's message as the call's error result",
    ).toEqual(toolResult({ id: 'c1', name: 'echo' }, 'Blocked: echo is not allowed here.', true));
    expect(history).toBeValidHistory('after a blocked call');
  });

  test('the first block wins: later hooks are not asked, and an allow after it does not undo it', async () => {
    const asked: string[] = [];
    const { agent, ran } = agentWith([callsTurn(echoCall('c1', 'x')), assistantText('ok')], {
      hooks: [
        { beforeToolCall: () => (asked.push('gate'), { type: 'block', message: 'no' }) },
        { beforeToolCall: () => (asked.push('second'), { type: 'allow' }) },
      ],
    });
    await collect(agent.run(ask('go')));
    expect(asked, 'composeHooks: a block is returned at once (guided step 4)').toEqual(['gate']);
    expect(ran, 'the call stays blocked').toEqual([]);
  });

  test("changed arguments are what runs; the model's call stays as it wrote it", async () => {
    const decided: ToolDecision[] = [];
    const { agent, provider, ran } = agentWith([callsTurn(echoCall('c1', 'loud')), assistantText('ok')], {
      hooks: {
        beforeToolCall: (call) => ({ type: 'change', arguments: { ...(call.arguments as object), text: 'quiet' } }),
      },
    });
    const events = await collect(agent.run(ask('go')));
    for (const e of events) if (e.type === 'tool_call_decided') decided.push(e.decision);
    expect(ran, "runToolCall: run the call with the hook's arguments (guided step 3)").toEqual(['echo quiet']);
    expect(decided, 'the decided event carries the change').toEqual([{ type: 'change', arguments: { text: 'quiet' } }]);
    const turn = requestOn(provider, 2).messages[1];
    expect(turn, 'the history keeps the call the model wrote').toEqual(callsTurn(echoCall('c1', 'loud')));
    expect(requestOn(provider, 2).messages.at(-1), 'the result answers the same call id').toMatchObject({
      toolCallId: 'c1',
      content: 'quiet',
    });
  });

  test('changes compose: each beforeToolCall hook sees the arguments the one before it set', async () => {
    const seen: unknown[] = [];
    const { agent, ran } = agentWith([callsTurn(echoCall('c1', 'a')), assistantText('ok')], {
      hooks: [
        {
          beforeToolCall: (call) => ({
            type: 'change',
            arguments: { text: `${(call.arguments as { text: string }).text}b` },
          }),
        },
        { beforeToolCall: (call) => void seen.push(call.arguments) },
        {
          beforeToolCall: (call) => ({
            type: 'change',
            arguments: { text: `${(call.arguments as { text: string }).text}c` },
          }),
        },
      ],
    });
    await collect(agent.run(ask('go')));
    expect(seen, 'composeHooks: a change replaces the arguments for the hooks after it (guided step 4)').toEqual([
      { text: 'ab' },
    ]);
    expect(ran, 'the last change is what runs').toEqual(['echo abc']);
  });

  test('an allow that says why reaches the decided event as the hook wrote it', async () => {
    const said = {
      type: 'allow' as const,
      permission: {
        outcome: 'allowed' as const,
        reason: 'allowed by rule Bash(echo:*)',
        mode: 'default',
        rule: 'Bash(echo:*)',
      },
    };
    const { agent } = agentWith([callsTurn(echoCall('c1', 'a'), echoCall('c2', 'b')), assistantText('ok')], {
      hooks: [{ beforeToolCall: (call) => (call.id === 'c1' ? said : undefined) }, { beforeToolCall: () => undefined }],
    });
    const events = await collect(agent.run(ask('go')));
    const decided = events.filter((e) => e.type === 'tool_call_decided').map((e) => e.decision);
    expect(
      decided,
      'composeHooks: with no change, the decision is the last allow a hook returned, as it was (a plain allow when no hook said anything) (guided step 4)',
    ).toEqual([said, { type: 'allow' }]);
  });

  test('an afterToolCall hook changes the result the history, the event and the model get', async () => {
    const { agent, provider } = agentWith([callsTurn(echoCall('c1', 'secret-token')), assistantText('ok')], {
      hooks: {
        afterToolCall: (_call, result) => ({
          ...result,
          content: result.content.replace('secret', '[redacted]'),
          toolCallId: 'wrong-id',
        }),
      },
    });
    const history = ask('go');
    const events = await collect(agent.run(history));
    expect(
      events.find((e) => e.type === 'tool_result'),
      'runToolCall: what afterToolCall returns is the result; the event carries it (guided step 5)',
    ).toMatchObject({
      callId: 'c1',
      content: '[redacted]-token',
    });
    expect(
      requestOn(provider, 2).messages.at(-1),
      'runToolCall: the history gets the result the after hooks returned, still answering c1 (guided step 6)',
    ).toEqual(toolResult({ id: 'c1', name: 'echo' }, '[redacted]-token'));
    expect(history).toBeValidHistory('after the after hooks');
  });

  test("hooks get the run's signal, the turn number and the history so far", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const signals = new Set<AbortSignal>();
    const note = (where: string, ctx: HookContext) => {
      signals.add(ctx.signal);
      seen.push(`${where} turn ${ctx.turn} ${ctx.signal ? 'signal' : 'NO SIGNAL'} ${ctx.history.length}`);
    };
    const { agent } = agentWith([callsTurn(echoCall('c1', 'x')), assistantText('ok')], {
      hooks: {
        beforeModelCall: (r, ctx) => void note('model', ctx),
        beforeToolCall: (_c, ctx) => void note('before', ctx),
        afterToolCall: (_c, _r, ctx) => void note('after', ctx),
      },
    });
    await collect(agent.run(ask('go'), { signal: controller.signal }));
    expect(seen, 'every hook gets the run (signal, turn, history) as its context').toEqual([
      'model turn 1 signal 1',
      'before turn 1 signal 2',
      'after turn 1 signal 2',
      'model turn 2 signal 3',
    ]);
    expect(signals.size, 'Agent.run: one signal for the whole run (runSignal, given) (guided step 1)').toBe(1);
    controller.abort(new Error('caller gave up'));
    expect(
      [...signals].map((s) => s.aborted && (s.reason as Error).message),
      "Agent.run: the run's signal follows options.signal (runSignal(options.signal)) (guided step 1)",
    ).toEqual(['caller gave up']);
  });
});

describe('a hook that throws (src/agent.ts, src/finish-run.ts)', () => {
  test('in beforeModelCall: done error with its message, no model call, the history valid', async () => {
    const { agent, provider } = agentWith([assistantText('never')], {
      hooks: { beforeModelCall: () => Promise.reject(new Error('hook broke')) },
    });
    const history = ask('hi');
    const events = await collect(agent.run(history));
    const done = theDone(events, 'a throwing beforeModelCall hook');
    expect(
      done,
      'Agent.run: a hook that throws ends the run with reason error and its message (guided step 5)',
    ).toMatchObject({
      reason: 'error',
      message: 'hook broke',
    });
    expect(provider.requests).toHaveLength(0);
    expect(history).toBeValidHistory('after a throwing beforeModelCall hook');
  });

  test('in beforeToolCall on the second call: the first result is kept, the other calls are closed, no further model call', async () => {
    const { agent, provider, ran } = agentWith(
      [callsTurn(echoCall('c1', 'one'), echoCall('c2', 'two'), echoCall('c3', 'three')), assistantText('never')],
      {
        hooks: {
          beforeToolCall: (call: ToolCall) => {
            if (call.id === 'c2') throw new Error('permission store unreadable');
          },
        },
      },
    );
    const history = ask('go');
    const events = await collect(agent.run(history));
    const done = theDone(events, 'a throwing beforeToolCall hook');
    expect(done.reason).toBe('error');
    expect(done.message).toBe('permission store unreadable');
    expect(ran, 'the call before ran; the others did not').toEqual(['echo one']);
    expect(history, 'finishRun: every open call gets a result before done (guided step 1)').toBeValidHistory(
      'after a throwing beforeToolCall hook',
    );
    expect(history.at(-3), 'the result of the call that ran is kept').toMatchObject({
      toolCallId: 'c1',
      content: 'one',
      isError: false,
    });
    expect(
      history.at(-1),
      'a call closed by finishRun is an error result that says the run stopped, with the message',
    ).toMatchObject({ toolCallId: 'c3', isError: true });
    expect((history.at(-1) as { content: string }).content).toContain('permission store unreadable');
    expect(
      events.filter((e) => e.type === 'tool_result').map((e) => (e as { callId: string }).callId),
      'finishRun: a tool_result event for every call it closed (guided step 1)',
    ).toEqual(['c1', 'c2', 'c3']);
    expect(provider.requests).toHaveLength(1);
  });

  test('in afterToolCall or onText: done error, and the history valid', async () => {
    const after = agentWith([twoEchoes(), assistantText('never')], {
      hooks: {
        afterToolCall: () => {
          throw new Error('after broke');
        },
      },
    });
    const h1 = ask('go');
    expect(theDone(await collect(after.agent.run(h1)), 'a throwing after hook')).toMatchObject({
      reason: 'error',
      message: 'after broke',
    });
    expect(h1).toBeValidHistory('after a throwing afterToolCall hook');
    const text = agentWith([assistantToolCalls([echoCall('c1', 'x')], 'Some text')], {
      hooks: {
        onText: () => {
          throw new Error('screen gone');
        },
      },
    });
    const h2 = ask('go');
    expect(theDone(await collect(text.agent.run(h2)), 'a throwing onText hook')).toMatchObject({
      reason: 'error',
      message: 'screen gone',
    });
    expect(text.ran, 'the turn never finished, so its call never runs').toEqual([]);
    expect(h2).toBeValidHistory('after a throwing onText hook');
  });
});

describe('composeHooks (src/hooks.ts)', () => {
  test('two gates: an allow from the first hook does not stop the second from blocking', async () => {
    const ctx: HookContext = { signal: new AbortController().signal, turn: 1, history: [], emit: () => undefined };
    const asked: string[] = [];
    const gates = composeHooks([
      { beforeToolCall: () => (asked.push('first'), { type: 'allow' }) },
      { beforeToolCall: () => (asked.push('second'), { type: 'block', message: 'not here' }) },
    ]);
    const decision = await gates.beforeToolCall(echoCall('c1', 'x') as ToolCall, ctx);
    expect(
      asked,
      'composeHooks: an allow is not final; every later hook is still asked (only a block returns at once) (guided step 4)',
    ).toEqual(['first', 'second']);
    expect(decision, 'composeHooks: the second hook blocks, so the call is blocked (guided step 4)').toEqual({
      type: 'block',
      message: 'not here',
    });
  });

  test('a change survives a later hook that allows: the decision is the change, with the changed arguments', async () => {
    const ctx: HookContext = { signal: new AbortController().signal, turn: 1, history: [], emit: () => undefined };
    const seen: unknown[] = [];
    const hooks = composeHooks([
      { beforeToolCall: () => ({ type: 'change', arguments: { text: 'quiet' } }) },
      { beforeToolCall: (call) => (seen.push(call.arguments), { type: 'allow' }) },
    ]);
    const decision = await hooks.beforeToolCall(echoCall('c1', 'loud') as ToolCall, ctx);
    expect(seen, 'composeHooks: the second hook sees the changed arguments (guided step 4)').toEqual([
      { text: 'quiet' },
    ]);
    expect(
      decision,
      'composeHooks: when any hook changed the arguments, the decision is a change with the last arguments, even if a later hook allowed (guided step 4)',
    ).toEqual({
      type: 'change',
      arguments: { text: 'quiet' },
    });
  });
  test('with no hooks: the request is kept, every call is allowed, every result kept', async () => {
    const none = composeHooks([]);
    const ctx: HookContext = { signal: new AbortController().signal, turn: 1, history: [], emit: () => undefined };
    const request = { messages: [userMessage('x')], tools: [] };
    expect(
      await none.beforeModelCall(request, ctx),
      'composeHooks: no hooks, the same request (guided step 2)',
    ).toEqual(request);
    expect(await none.beforeToolCall(echoCall('c1', 'x') as ToolCall, ctx), 'no hooks, allow (guided step 4)').toEqual({
      type: 'allow',
    });
    const result = toolResult({ id: 'c1', name: 'echo' }, 'x');
    expect(
      await none.afterToolCall({ type: 'tool_call', id: 'c1', name: 'echo', arguments: {} }, result, ctx),
      'guided step 5',
    ).toEqual(result);
    const chained = composeHooks([
      { afterToolCall: (_c, r) => ({ ...r, content: `${r.content}+a` }) },
      { afterToolCall: () => undefined },
      { afterToolCall: (_c, r) => ({ ...r, content: `${r.content}+b`, toolCallId: 'other', toolName: 'other' }) },
    ]);
    expect(
      await chained.afterToolCall({ type: 'tool_call', id: 'c1', name: 'echo', arguments: {} }, result, ctx),
      "composeHooks: each after hook gets the result the one before it returned, and the result keeps the call's id and name (guided step 5)",
    ).toEqual(toolResult({ id: 'c1', name: 'echo' }, 'x+a+b'));
    const single = composeHooks({ beforeToolCall: () => ({ type: 'block', message: 'm' }) });
    expect(
      await single.beforeToolCall(echoCall('c1', 'x') as ToolCall, ctx),
      'one set of hooks, not in an array, works too (guided step 1)',
    ).toEqual({ type: 'block', message: 'm' });
  });
});
