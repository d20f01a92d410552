import { describe, expect, test } from 'vitest';
import type { AgentEvent } from 'kit/agent-events';
import { CANCELLED_RESULT } from 'kit/safe-call';
import { assistantText } from 'kit/messages';
import { shape } from '../helpers/transcript.js';
import { agentWith, ask, callsTurn, collect, describeEvent, echoCall, theDone } from './fixtures.js';
import { waitUntil, within } from '../helpers/wait.js';

/** Every call the run asked for has exactly one tool_result event, or is pending. */
function everyCallAnswered(events: readonly AgentEvent[], where: string) {
  const requested = events.flatMap((e) => (e.type === 'tool_call_requested' ? [e.callId] : []));
  const answered = events.flatMap((e) => (e.type === 'tool_result' ? [e.callId] : []));
  expect(
    answered.sort(),
    `${where}: every tool_call_requested gets exactly one tool_result event (finishRun guided step 1 yields one for each call it closes)`,
  ).toEqual(requested.sort());
}

describe('cancellation (src/agent.ts, src/serial-executor.ts, src/finish-run.ts)', () => {
  test('aborted before the run: one done cancelled, no model call, the history untouched', async () => {
    const controller = new AbortController();
    controller.abort(new Error('user pressed Esc'));
    const { agent, provider } = agentWith([assistantText('never')]);
    const history = ask('hi');
    const events = await collect(agent.run(history, { signal: controller.signal }));
    expect(events.map(describeEvent), 'Agent.run: check the signal before turn_start (guided step 3a)').toEqual([
      'done cancelled',
    ]);
    expect(
      theDone(events, 'a run aborted before it began'),
      "the abort reason's text is the message (guided step 5)",
    ).toMatchObject({ reason: 'cancelled', message: 'user pressed Esc', turns: 0, text: '' });
    expect(provider.requests).toHaveLength(0);
    expect(history).toBeValidHistory('after an abort before the run');
    expect(shape(history)).toEqual(['user']);
  });

  test('aborted mid-stream: one done cancelled, the cut turn is not kept, no further model call', async () => {
    const controller = new AbortController();
    const { agent, provider } = agentWith([
      callsTurn(echoCall('c1', 'x')),
      assistantText('a long answer that goes on and on'),
      assistantText('unused'),
    ]);
    const history = ask('go');
    const events: AgentEvent[] = [];
    for await (const event of agent.run(history, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort(new Error('stop streaming'));
    }
    const done = theDone(events, 'an abort mid-stream');
    expect(
      done,
      'Agent.run: an error after an abort is a cancel, with the abort reason as message (guided step 5)',
    ).toMatchObject({ reason: 'cancelled', message: 'stop streaming' });
    expect(shape(history), 'the finished round stays; the aborted turn is not added').toEqual([
      'user',
      'assistant call echo#c1',
      'tool echo#c1',
    ]);
    expect(history).toBeValidHistory('after an abort mid-stream');
    expect(provider.requests, 'no model call after the abort').toHaveLength(2);
  });

  test('a provider whose stream ends quietly on abort still ends the run as cancelled', async () => {
    const controller = new AbortController();
    const { agent } = agentWith({
      name: 'quiet',
      complete: () => Promise.reject(new Error('use stream()')),
      async *stream(request) {
        yield { type: 'text_delta', index: 0, text: 'Half ' };
        if (request.signal?.aborted) return; // like the SDKs: no error, no finish
        yield { type: 'finish', stopReason: 'end_turn' };
      },
    });
    const history = ask('go');
    const events: AgentEvent[] = [];
    for await (const event of agent.run(history, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort(new Error('Esc'));
    }
    expect(
      theDone(events, 'a quiet abort'),
      "Agent.streamTurn: after the stream, throw the signal's reason if it aborted (guided step 3)",
    ).toMatchObject({ reason: 'cancelled', message: 'Esc' });
    expect(history).toBeValidHistory('after a quiet abort');
  });

  test('a provider that ignores the signal and finishes its stream: an abort that arrives as the stream closes still cancels', async () => {
    const controller = new AbortController();
    const { agent } = agentWith({
      name: 'deaf',
      complete: () => Promise.reject(new Error('use stream()')),
      async *stream() {
        yield { type: 'text_delta', index: 0, text: 'All done.' };
        yield { type: 'finish', stopReason: 'end_turn' };
        controller.abort(new Error('Esc as the stream closed')); // after the last event: no event is left to check it on
      },
    });
    const history = ask('go');
    const events = await collect(agent.run(history, { signal: controller.signal }));
    expect(
      theDone(events, 'an abort after the last event'),
      "Agent.streamTurn: after the loop, throw the signal's reason if it aborted (a check inside the loop never sees an abort that comes after the last event) (guided step 3)",
    ).toMatchObject({ reason: 'cancelled', message: 'Esc as the stream closed' });
    expect(
      shape(history),
      'Agent.streamTurn: the turn of a cancelled stream is not added to the history (guided step 3)',
    ).toEqual(['user']);
  });

  test('aborted while a tool that ignores the signal runs: the run is not held, every call gets a cancelled result', async () => {
    const controller = new AbortController();
    const { agent, provider, ran } = agentWith([
      callsTurn(echoCall('c1', 'first'), { id: 'c2', name: 'stuck', arguments: {} }, echoCall('c3', 'never')),
      assistantText('never'),
    ]);
    const history = ask('go');
    // Aborted once the stuck tool has started, on any machine (not after a fixed time).
    // If the run fails before the stuck call starts (a stub that throws), the test fails on its own; the wait then
    // gives up quietly rather than as an unhandled rejection that lands on whichever test runs 15 s later.
    void waitUntil(() => ran.includes('stuck'), 'runSerially: the stuck call must start').then(
      () => controller.abort(new Error('Ctrl-C')),
      () => {},
    );
    const events = await within(
      collect(agent.run(history, { signal: controller.signal })),
      'a tool whose promise never settles must not hold the run once the signal aborts',
    );
    expect(theDone(events, 'an abort mid-tool')).toMatchObject({ reason: 'cancelled', message: 'Ctrl-C' });
    expect(ran, 'runSerially: no call starts after the abort (guided step 1)').toEqual(['echo first', 'stuck']);
    expect(history, 'the turn, then a result for c1, c2 and c3').toEndWithResultsFor(['c1', 'c2', 'c3']);
    expect(history.slice(-2), 'the interrupted call and the call that never ran both get CANCELLED_RESULT').toEqual([
      { role: 'tool', toolCallId: 'c2', toolName: 'stuck', content: CANCELLED_RESULT, isError: true },
      { role: 'tool', toolCallId: 'c3', toolName: 'echo', content: CANCELLED_RESULT, isError: true },
    ]);
    expect(history).toBeValidHistory('after an abort mid-tool');
    everyCallAnswered(events, 'an abort mid-tool');
    expect(provider.requests, 'no model call after the abort').toHaveLength(1);
  });

  test('aborted during the tools of the last allowed turn: cancelled, not turn_limit, and the calls left get CANCELLED_RESULT', async () => {
    const controller = new AbortController();
    const { agent, provider, ran } = agentWith(
      [callsTurn(echoCall('c1', 'first'), echoCall('c2', 'never')), assistantText('never')],
      {
        maxTurns: 1,
        hooks: { afterToolCall: () => void controller.abort(new Error('Esc in the last turn')) },
      },
    );
    const history = ask('go');
    const events = await collect(agent.run(history, { signal: controller.signal }));
    expect(ran, 'runSerially: no call starts after the abort (guided step 1)').toEqual(['echo first']);
    expect(
      theDone(events, 'an abort in the last allowed turn'),
      "Agent.run: after the executor, throw the signal's reason if it aborted (every time, not only before a pause): the run was cancelled, it did not reach its turn limit (guided step 3d)",
    ).toMatchObject({ reason: 'cancelled', message: 'Esc in the last turn' });
    expect(
      history.at(-1),
      'the call that never ran gets CANCELLED_RESULT (finishRun guided step 1, reason cancelled)',
    ).toMatchObject({
      toolCallId: 'c2',
      content: CANCELLED_RESULT,
      isError: true,
    });
    expect(history).toBeValidHistory('after an abort in the last allowed turn');
    expect(provider.requests).toHaveLength(1);
  });

  test('aborted inside a beforeToolCall hook: no tool runs, no later hook is asked, every call is cancelled', async () => {
    const controller = new AbortController();
    const asked: string[] = [];
    const { agent, ran } = agentWith([callsTurn(echoCall('c1', 'a'), echoCall('c2', 'b')), assistantText('never')], {
      hooks: {
        beforeToolCall: (call) => {
          asked.push(call.id);
          controller.abort(new Error('the person said no to everything'));
          return { type: 'allow' };
        },
      },
    });
    const history = ask('go');
    const events = await collect(agent.run(history, { signal: controller.signal }));
    expect(theDone(events, 'an abort in a hook').reason).toBe('cancelled');
    expect(ran, 'a call whose signal aborted before it ran does not run').toEqual([]);
    expect(
      asked,
      'runSerially: after the abort no further call starts, so no hook is asked about it (guided step 1)',
    ).toEqual(['c1']);
    expect(history).toBeValidHistory('after an abort in a hook');
    everyCallAnswered(events, 'an abort in a hook');
  });

  test('aborted inside a beforeModelCall hook: cancelled, and the model is never called', async () => {
    const controller = new AbortController();
    const { agent, provider } = agentWith([assistantText('never')], {
      hooks: { beforeModelCall: (request) => (controller.abort(new Error('compaction cancelled')), request) },
    });
    const history = ask('go');
    const events = await collect(agent.run(history, { signal: controller.signal }));
    expect(
      theDone(events, 'an abort in beforeModelCall'),
      "the stream is asked with the run's signal, which has aborted",
    ).toMatchObject({ reason: 'cancelled', message: 'compaction cancelled' });
    expect(provider.requests, 'no model call').toHaveLength(0);
    expect(history).toBeValidHistory('after an abort in beforeModelCall');
  });

  test('aborted between turns: the round is whole, and the next model call never happens', async () => {
    const controller = new AbortController();
    const { agent, provider } = agentWith([callsTurn(echoCall('c1', 'x')), assistantText('never')]);
    const history = ask('go');
    const events: AgentEvent[] = [];
    for await (const event of agent.run(history, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'tool_result') controller.abort(new Error('enough'));
    }
    expect(
      events.map(describeEvent).slice(-2),
      'Agent.run: the check at the top of the next round ends the run before turn_start (guided step 3a)',
    ).toEqual(['result 1 c1 "x"', 'done cancelled']);
    expect(theDone(events, 'an abort between turns').turns).toBe(1);
    expect(provider.requests).toHaveLength(1);
    expect(history).toBeValidHistory('after an abort between turns');
  });

  test("the tool gets the run's signal, and a tool that honours it ends with a cancelled result", async () => {
    const controller = new AbortController();
    const { agent } = agentWith([callsTurn({ id: 'w1', name: 'wait', arguments: {} }), assistantText('never')], {
      extraTools: [
        {
          name: 'wait',
          description: 'Waits for the signal',
          input: (await import('zod')).z.object({}),
          readOnly: true,
          execute: (_input, ctx) =>
            new Promise<string>((_resolve, reject) => {
              ctx.signal?.addEventListener('abort', () => reject(ctx.signal?.reason));
              setTimeout(() => controller.abort(new Error('bye')), 5);
            }),
        },
      ],
    });
    const history = ask('go');
    const events = await collect(agent.run(history, { signal: controller.signal }));
    expect(theDone(events, 'an abort a tool honours')).toMatchObject({ reason: 'cancelled', message: 'bye' });
    expect(
      history.at(-1),
      'runToolCall: executeToolCall gets { cwd, signal: run.signal } (guided step 5)',
    ).toMatchObject({
      toolCallId: 'w1',
      isError: true,
      content: CANCELLED_RESULT,
    });
    expect(history).toBeValidHistory('after a tool honoured the abort');
  });
});
