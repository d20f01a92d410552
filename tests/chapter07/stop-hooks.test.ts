import { describe, expect, test } from 'vitest';
import { composeHooks, type HookContext, type StopRun } from 'kit/hooks';
import { assistantText, assistantToolCalls } from 'kit/messages';
import { shape } from '../helpers/transcript.js';
import { agentWith, ask, callsTurn, collect, describeEvent, echoCall, theDone } from './fixtures.js';

describe('Agent.run (src/agent.ts): afterModelCall, and any hook that stops the run', () => {
  test('afterModelCall sees every whole turn once it is in the history, after its usage and before its calls are requested', async () => {
    const log: string[] = [];
    const { agent } = agentWith(
      [{ ...callsTurn(echoCall('c1', 'x')), usage: { inputTokens: 3, outputTokens: 2 } }, assistantText('All done.')],
      {
        hooks: {
          afterModelCall: (turn, ctx) => {
            log.push(
              `afterModelCall ${ctx.turn} ${shape([turn]).join('')} last-in-history=${ctx.history.at(-1) === turn}`,
            );
          },
        },
      },
    );
    for await (const event of agent.run(ask('go'))) log.push(describeEvent(event));
    const seen = log.filter(
      (line) => !line.startsWith('writing') && !line.startsWith('piece') && !line.startsWith('text'),
    );
    expect(
      seen,
      'Agent.run: after pushing each turn (an answer as well as a tool round) and its usage event, await this.hooks.afterModelCall(turn, run); then the switch (guided step 3c)',
    ).toEqual([
      'turn_start 1',
      'usage 1 in=3 out=2',
      'afterModelCall 1 assistant call echo#c1 last-in-history=true',
      'requested 1 echo#c1 {"text":"x"}',
      'decided 1 c1 allow',
      'result 1 c1 "x"',
      'turn_start 2',
      'afterModelCall 2 assistant text last-in-history=true',
      'done end_turn',
    ]);
  });

  test('an afterModelCall stop on a tool round: no call runs, each gets a result, no further model call, done cancelled with the stop', async () => {
    const { agent, provider, ran } = agentWith(
      [callsTurn(echoCall('c1', 'a'), echoCall('c2', 'b')), assistantText('unused')],
      {
        hooks: {
          afterModelCall: (turn) => (turn.stopReason === 'tool_use' ? { stop: 'tool budget spent' } : undefined),
        },
      },
    );
    const history = ask('go');
    const events = await collect(agent.run(history));
    expect(
      theDone(events, 'a stop after the model call'),
      "Agent.run guided step 3c and guided step 5: the hook's stop ends the run as cancelled, the stop as the message",
    ).toMatchObject({ reason: 'cancelled', message: 'tool budget spent', turns: 1 });
    expect(ran, 'a stopped run starts no call').toEqual([]);
    expect(provider.requests, 'no model call after the stop').toHaveLength(1);
    expect(history).toBeValidHistory('after an afterModelCall stop');
  });

  test('an afterModelCall stop on an answer is honoured too: done says the hook stopped the run', async () => {
    const { agent } = agentWith([assistantText('Here is the secret: hunter2')], {
      hooks: {
        afterModelCall: (turn) =>
          JSON.stringify(turn).includes('hunter2') ? { stop: 'answer held back: it holds a secret' } : undefined,
      },
    });
    const events = await collect(agent.run(ask('tell me')));
    expect(
      theDone(events, 'a stop on the last turn'),
      "Agent.run: throw the signal's reason after afterModelCall, before the switch, so a stop on a turn without calls is honoured too (not only a stop before a model call) (guided step 3c)",
    ).toMatchObject({ reason: 'cancelled', message: 'answer held back: it holds a secret' });
  });

  test('a beforeToolCall hook may stop the run: that call does not run, nor any after it', async () => {
    const { agent, provider, ran } = agentWith(
      [callsTurn(echoCall('c1', 'a'), echoCall('c2', 'b')), assistantText('unused')],
      {
        hooks: { beforeToolCall: (_call, ctx) => ctx.stop?.({ stop: 'the person left' }) },
      },
    );
    const history = ask('go');
    const events = await collect(agent.run(history));
    expect(
      theDone(events, 'a stop in beforeToolCall'),
      'any hook may end the run with ctx.stop: done cancelled with its message (endingOf, given, in Agent.run guided step 5)',
    ).toMatchObject({ reason: 'cancelled', message: 'the person left' });
    expect(ran, 'the stopped call and the ones after it never run').toEqual([]);
    expect(provider.requests).toHaveLength(1);
    expect(history).toBeValidHistory('after a stop in beforeToolCall');
  });

  test('an afterToolCall stop with an answer ends the run as answered, with that text, and the calls after it closed', async () => {
    const { agent, provider, ran } = agentWith(
      [callsTurn(echoCall('c1', 'a'), echoCall('c2', 'b')), assistantText('unused')],
      {
        hooks: {
          afterToolCall: (_call, result, ctx) =>
            void ctx.stop?.({ stop: 'first result is the answer', answer: `Result: ${result.content}` }),
        },
      },
    );
    const history = ask('go');
    const events = await collect(agent.run(history));
    expect(
      theDone(events, 'a stop with an answer'),
      "Agent.run: the ending's answer is the run's text: a stop with an answer ends as end_turn, the answer as the text (guided step 5)",
    ).toMatchObject({ reason: 'end_turn', text: 'Result: a', message: 'first result is the answer' });
    expect(ran, 'the call the hook saw ran; the next did not').toEqual(['echo a']);
    expect(provider.requests, 'the answer needs no further model call').toHaveLength(1);
    expect(history).toBeValidHistory('after a stop with an answer');
  });

  test("an onText hook may stop the run while the model writes: the cut turn is not kept, and the caller's signal stays as it was", async () => {
    const controller = new AbortController();
    const { agent, provider } = agentWith([assistantText('one two three four'), assistantText('unused')], {
      hooks: { onText: (text, ctx) => (text.startsWith('two') ? ctx.stop?.({ stop: 'heard enough' }) : undefined) },
    });
    const history = ask('count');
    const events = await collect(agent.run(history, { signal: controller.signal }));
    expect(
      theDone(events, 'a stop in onText'),
      'a stop in onText aborts the stream; done cancelled with the stop',
    ).toMatchObject({ reason: 'cancelled', message: 'heard enough' });
    expect(shape(history), 'the cut turn is not added').toEqual(['user']);
    expect(provider.requests).toHaveLength(1);
    expect(controller.signal.aborted, "a stop aborts the run's own signal (runSignal), never the caller's").toBe(false);
  });
});

describe('composeHooks (src/hooks.ts): a stop, before and after a model call', () => {
  const ctxWith = (stops: StopRun[]): HookContext => ({
    signal: new AbortController().signal,
    turn: 1,
    history: [],
    emit: () => {},
    stop: (stop) => void stops.push(stop),
  });

  test('every hook sees the turn in order; the first stop goes to ctx.stop and the hooks after it are not asked', async () => {
    const seen: string[] = [];
    const stops: StopRun[] = [];
    const turn = assistantToolCalls([echoCall('c1', 'x')]);
    const composed = composeHooks([
      { afterModelCall: (t) => void seen.push(`a ${t === turn}`) },
      { afterModelCall: () => (seen.push('b'), { stop: 'b stops', answer: 'from b' }) },
      { afterModelCall: () => (seen.push('c'), { stop: 'c stops' }) },
    ]);
    expect(
      typeof composed.afterModelCall,
      'composeHooks: the composed hooks have an afterModelCall (guided steps 1 and 3)',
    ).toBe('function');
    await composed.afterModelCall(turn, ctxWith(stops));
    expect(
      seen,
      'composeHooks: afterModelCall asks each hook in order with the turn, and none after the first stop (guided step 3)',
    ).toEqual(['a true', 'b']);
    expect(
      stops,
      'composeHooks: the first stop a hook returns is handed to ctx.stop, as it is (guided step 3)',
    ).toEqual([{ stop: 'b stops', answer: 'from b' }]);
  });

  test('beforeModelCall: the first stop goes to ctx.stop, as it is; the hooks after it are not asked', async () => {
    const seen: string[] = [];
    const stops: StopRun[] = [];
    const request = { system: 'base', messages: [], tools: [] };
    const composed = composeHooks([
      { beforeModelCall: (r) => (seen.push('a'), { ...r, system: 'changed' }) },
      { beforeModelCall: (r) => (seen.push(`b saw ${r.system}`), { stop: 'b stops', answer: 'from b' }) },
      { beforeModelCall: () => (seen.push('c'), { stop: 'c stops' }) },
    ]);
    const out = await composed.beforeModelCall(request, ctxWith(stops));
    expect(
      stops,
      'composeHooks: a stop a beforeModelCall hook returns is handed to ctx.stop, as it is (the one way a hook stops a run) (guided step 2)',
    ).toEqual([{ stop: 'b stops', answer: 'from b' }]);
    expect(seen, 'composeHooks: the chain ends at the first stop; later hooks are not asked (guided step 2)').toEqual([
      'a',
      'b saw changed',
    ]);
    expect(
      out,
      'composeHooks: after a stop, the request is returned as the hooks before it left it (guided step 2)',
    ).toEqual({
      ...request,
      system: 'changed',
    });
  });

  test('beforeModelCall called with a context of its own (no ctx.stop): a stop ends the chain, and nothing throws', async () => {
    const seen: string[] = [];
    const request = { system: 'base', messages: [], tools: [] };
    const composed = composeHooks([
      { beforeModelCall: () => (seen.push('a'), { stop: 'a stops' }) },
      { beforeModelCall: () => void seen.push('b') },
    ]);
    const bare: HookContext = { signal: new AbortController().signal, turn: 1, history: [], emit: () => {} };
    expect(
      await composed.beforeModelCall(request, bare),
      'composeHooks: ctx.stop is optional (ctx.stop?.(stop)): a hook called outside a run has no run to stop, so the request comes back as it was (guided step 2)',
    ).toEqual(request);
    expect(seen, 'composeHooks: the chain still ends at the stop (guided step 2)').toEqual(['a']);
  });

  test('with no stop, nothing is stopped', async () => {
    const stops: StopRun[] = [];
    const composed = composeHooks([{ afterModelCall: () => undefined }, {}]);
    expect(
      typeof composed.afterModelCall,
      'composeHooks: the composed hooks have an afterModelCall (guided steps 1 and 3)',
    ).toBe('function');
    await composed.afterModelCall(assistantText('hi'), ctxWith(stops));
    await composeHooks().afterModelCall(assistantText('hi'), ctxWith(stops));
    expect(stops, 'composeHooks: nothing returned means no stop (guided step 3)').toEqual([]);
  });

  test("a context of its own without stop: a hook's stop has nowhere to go, and the composed hook does not throw", async () => {
    const seen: string[] = [];
    const composed = composeHooks([
      { afterModelCall: () => ({ stop: 'a stops' }) },
      { afterModelCall: () => void seen.push('b') },
    ]);
    const bare: HookContext = { signal: new AbortController().signal, turn: 1, history: [], emit: () => {} };
    await expect(
      composed.afterModelCall(assistantText('hi'), bare),
      'composeHooks: ctx.stop is optional (HookContext), so hand the stop over with ctx.stop?.(stop) (guided step 3)',
    ).resolves.toBeUndefined();
    expect(seen, 'composeHooks: the chain still ends at the first stop (guided step 3)').toEqual([]);
  });
});
