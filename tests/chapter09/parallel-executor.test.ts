import { describe, expect, test } from 'vitest';
import { parallelExecutor, runInParallel, runsInParallel } from 'kit/parallel-executor';
import type { Executor } from 'kit/serial-executor';
import { CANCELLED_RESULT } from 'kit/safe-call';
import { assistantText, assistantToolCalls, type Message } from 'kit/messages';
import { agentWith, ask, collect, theDone } from '../chapter07/fixtures.js';
import {
  call,
  controlledRunner,
  eventLines,
  flaggedTools,
  flush,
  gatedTool,
  runExecutor,
  settledSoon,
} from './fixtures.js';

const limit =
  (n: number): Executor =>
  (calls, runCall, turn) =>
    runInParallel(calls, runCall, turn, n);

describe('runsInParallel (src/parallel-executor.ts)', () => {
  test('a known read-only tool may run beside others; a writing tool may not', () => {
    const tools = flaggedTools();
    expect(
      runsInParallel(call('a', 'read'), tools),
      'runsInParallel: read is marked readOnly, so it may run with others',
    ).toBe(true);
    expect(runsInParallel(call('b', 'grep'), tools), 'runsInParallel: grep is marked readOnly').toBe(true);
    expect(runsInParallel(call('c', 'write'), tools), 'runsInParallel: write is not readOnly: it must run alone').toBe(
      false,
    );
  });

  test('a tool the set does not know runs alone: it might be anything', () => {
    expect(
      runsInParallel(call('a', 'mystery'), flaggedTools()),
      'runsInParallel: an unknown name is not known to only read (guided step 1)',
    ).toBe(false);
  });
});

describe('parallelExecutor (src/parallel-executor.ts)', () => {
  test('runs at most 4 read-only calls at once by default, and refuses a limit that is not a whole number of at least 1', async () => {
    const runner = controlledRunner();
    const calls = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => call(id));
    const run = runExecutor(parallelExecutor(), calls, runner.runCall);
    await flush();
    expect(
      runner.started(),
      'runInParallel: with the default limit (4), the first four reads start together and the fifth waits',
    ).toEqual(['a', 'b', 'c', 'd']);
    for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) runner.finish(id);
    await run.done;
    expect(runner.state.maxRunning, 'runInParallel: never more than 4 at once by default').toBe(4);
    expect(run.ids(), 'runInParallel: every result recorded once, in call order').toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
    ]);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(
        () => parallelExecutor({ concurrency: bad }),
        `parallelExecutor({ concurrency: ${bad} }) must throw a RangeError that names concurrency`,
      ).toThrow(/concurrency/);
    }
  });
});

describe('runInParallel (src/parallel-executor.ts)', () => {
  test('consecutive reads run together: both start before either finishes', async () => {
    const runner = controlledRunner();
    const run = runExecutor(limit(4), [call('a'), call('b', 'grep')], runner.runCall);
    await flush();
    expect(runner.started(), 'runInParallel: a read may start while another read runs (guided step 2)').toEqual([
      'a',
      'b',
    ]);
    runner.finish('b');
    runner.finish('a');
    await run.done;
  });

  test('results are recorded in call order under every finishing order', async () => {
    const orders = [
      ['a', 'b', 'c'],
      ['a', 'c', 'b'],
      ['b', 'a', 'c'],
      ['b', 'c', 'a'],
      ['c', 'a', 'b'],
      ['c', 'b', 'a'],
    ];
    for (const order of orders) {
      const runner = controlledRunner();
      const run = runExecutor(limit(4), [call('a'), call('b'), call('c')], runner.runCall);
      await flush();
      for (const id of order) {
        runner.finish(id);
        await flush();
      }
      await run.done;
      expect(
        run.ids(),
        `runInParallel: the calls finished in the order ${order.join(', ')}, but results go into the history in call order (guided step 3)`,
      ).toEqual(['a', 'b', 'c']);
      expect(
        run.recorded.map((r) => r.content),
        'runInParallel: each recorded result is the one its own call returned',
      ).toEqual(['out a', 'out b', 'out c']);
    }
  });

  test('a finished call is recorded as soon as every call before it has finished', async () => {
    const runner = controlledRunner();
    const run = runExecutor(limit(4), [call('a'), call('b'), call('c')], runner.runCall);
    await flush();
    runner.finish('b');
    await flush();
    expect(
      run.ids(),
      'runInParallel: b finished first, but a is still running: nothing may be recorded yet (guided step 3)',
    ).toEqual([]);
    runner.finish('a');
    await flush();
    expect(
      run.ids(),
      'runInParallel: once a finishes, a and then b are recorded at once, without waiting for c (guided step 3)',
    ).toEqual(['a', 'b']);
    runner.finish('c');
    await run.done;
    expect(run.ids(), 'runInParallel: c last').toEqual(['a', 'b', 'c']);
  });

  test('events are passed on as they happen, not call by call', async () => {
    const runner = controlledRunner();
    const run = runExecutor(limit(4), [call('a'), call('b')], runner.runCall);
    await flush();
    runner.finish('b');
    await flush();
    expect(
      eventLines(run.events),
      'runInParallel: b finished while a still runs; its tool_result must be yielded now, not after a (guided step 3)',
    ).toEqual(['decided a', 'decided b', 'result b']);
    runner.finish('a');
    await run.done;
    expect(eventLines(run.events), "runInParallel: a's result comes when a finishes").toEqual([
      'decided a',
      'decided b',
      'result b',
      'result a',
    ]);
  });

  test('a write between reads splits the batch: it waits for the reads before it, and the reads after it wait for it', async () => {
    const runner = controlledRunner();
    const calls = [call('r1'), call('r2', 'grep'), call('w', 'write'), call('r3'), call('r4')];
    const run = runExecutor(limit(4), calls, runner.runCall);
    await flush();
    expect(
      runner.started(),
      'runInParallel: r1 and r2 run together; the write must wait for them (guided step 2)',
    ).toEqual(['r1', 'r2']);
    runner.finish('r1');
    await flush();
    expect(runner.started(), 'runInParallel: r2 is still running, so the write still waits (guided step 2)').toEqual([
      'r1',
      'r2',
    ]);
    runner.finish('r2');
    await flush();
    expect(
      runner.started(),
      'runInParallel: the write starts once the reads before it have finished, and alone (guided step 2)',
    ).toEqual(['r1', 'r2', 'w']);
    expect(
      runner.log.includes('decide r3'),
      'runInParallel: r3 must not even be asked for while the write runs (guided step 2)',
    ).toBe(false);
    runner.finish('w');
    await flush();
    expect(runner.started(), 'runInParallel: after the write, r3 and r4 run together (guided step 2)').toEqual([
      'r1',
      'r2',
      'w',
      'r3',
      'r4',
    ]);
    runner.finish('r4');
    runner.finish('r3');
    await run.done;
    expect(run.ids(), 'runInParallel: results in call order').toEqual(['r1', 'r2', 'w', 'r3', 'r4']);
  });

  test('two writes in a row run one after the other', async () => {
    const runner = controlledRunner();
    const run = runExecutor(limit(4), [call('w1', 'write'), call('w2', 'edit'), call('r')], runner.runCall);
    await flush();
    expect(runner.started(), 'runInParallel: a write runs alone; the next call waits for it (guided step 2)').toEqual([
      'w1',
    ]);
    runner.finish('w1');
    await flush();
    expect(runner.started(), 'runInParallel: the second write runs alone too (guided step 2)').toEqual(['w1', 'w2']);
    runner.finish('w2');
    await flush();
    runner.finish('r');
    await run.done;
    expect(runner.state.maxRunning, 'runInParallel: a write never runs beside anything').toBe(1);
  });

  test('a call of an unknown tool runs alone, like a write', async () => {
    const runner = controlledRunner();
    const run = runExecutor(limit(4), [call('a'), call('x', 'mystery'), call('b')], runner.runCall);
    await flush();
    expect(
      runner.started(),
      'runInParallel: a tool the set does not know waits for the read before it (guided step 2)',
    ).toEqual(['a']);
    runner.finish('a');
    await flush();
    expect(runner.started(), 'runInParallel: and the read after it waits for it (guided step 2)').toEqual(['a', 'x']);
    runner.finish('x');
    await flush();
    runner.finish('b');
    await run.done;
    expect(run.ids(), 'runInParallel: results in call order').toEqual(['a', 'x', 'b']);
  });

  test('never more than the limit at once, and exactly the limit when there is enough work (1, 2 and 3)', async () => {
    for (const n of [1, 2, 3]) {
      const runner = controlledRunner();
      const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
      const run = runExecutor(
        limit(n),
        ids.map((id) => call(id)),
        runner.runCall,
      );
      await flush();
      expect(
        runner.started().length,
        `runInParallel: with a limit of ${n}, exactly ${n} reads start at first (guided step 2)`,
      ).toBe(n);
      for (const id of ids) {
        runner.finish(id);
        await flush();
      }
      await run.done;
      expect(
        runner.state.maxRunning,
        `runInParallel: with a limit of ${n}, at most ${n} calls may run at once (measured) (guided step 2)`,
      ).toBe(n);
      expect(run.ids(), 'runInParallel: every call recorded once, in call order').toEqual(ids);
    }
  });

  test('a slot freed by a finished call is filled by the next call at once', async () => {
    const runner = controlledRunner();
    const run = runExecutor(limit(2), [call('a'), call('b'), call('c')], runner.runCall);
    await flush();
    runner.finish('b');
    await flush();
    expect(
      runner.started(),
      'runInParallel: b finished, so c may start while a still runs (a limit, not batches of two) (guided step 3)',
    ).toEqual(['a', 'b', 'c']);
    runner.finish('a');
    runner.finish('c');
    await run.done;
  });

  test('the before hooks are asked in call order, one call at a time', async () => {
    const runner = controlledRunner({ holdDecisions: true });
    const run = runExecutor(limit(4), [call('a'), call('b'), call('c')], runner.runCall);
    await flush();
    expect(
      runner.log,
      'runInParallel: b may not be asked for while a is being decided (two permission prompts at once) (guided step 1)',
    ).toEqual(['decide a']);
    runner.decide('a');
    await flush();
    expect(runner.log, 'runInParallel: once a is decided it runs, and b is asked for next (guided step 3)').toEqual([
      'decide a',
      'start a',
      'decide b',
    ]);
    runner.decide('c');
    await flush();
    expect(runner.log.includes('decide c'), 'runInParallel: c comes after b, whatever the order of the answers').toBe(
      false,
    );
    runner.decide('b');
    await flush();
    expect(runner.log, 'runInParallel: decisions in call order').toEqual([
      'decide a',
      'start a',
      'decide b',
      'start b',
      'decide c',
      'start c',
    ]);
    expect(runner.state.maxDeciding, 'runInParallel: never two decisions at once').toBe(1);
    for (const id of ['a', 'b', 'c']) runner.finish(id);
    await run.done;
  });

  test('a call that finishes while the next one is being decided does not let a third question open', async () => {
    const runner = controlledRunner({ holdDecisions: true });
    const run = runExecutor(limit(4), [call('a'), call('b'), call('c')], runner.runCall);
    await flush();
    runner.decide('a');
    await flush();
    runner.finish('a');
    await flush();
    expect(
      runner.log,
      "runInParallel: a finished while b is still being decided; c must wait for b's decision, not for a (guided step 3)",
    ).toEqual(['decide a', 'start a', 'decide b', 'end a']);
    runner.decide('b');
    runner.decide('c');
    await flush();
    runner.finish('b');
    runner.finish('c');
    await run.done;
    expect(run.ids(), 'runInParallel: every result, in call order').toEqual(['a', 'b', 'c']);
  });

  test('an event a hook emits before its decision does not count as the decision', async () => {
    const runner = controlledRunner({ holdDecisions: true, emitFirst: true });
    const run = runExecutor(limit(4), [call('a'), call('b')], runner.runCall);
    await flush();
    expect(
      run.events.map((e) => e.type),
      "runInParallel: the hook's event is passed on at once",
    ).toEqual(['turn_start']);
    expect(
      runner.log,
      'runInParallel: only the tool_call_decided event of the call being decided lets the next call be asked (guided step 3)',
    ).toEqual(['decide a']);
    runner.decide('a');
    runner.decide('b');
    await flush();
    runner.finish('a');
    runner.finish('b');
    await run.done;
  });

  test('a call that returns without a decision does not hold the calls after it', async () => {
    const runner = controlledRunner();
    const quiet = async function* (c: { id: string; name: string }) {
      return { role: 'tool' as const, toolCallId: c.id, toolName: c.name, content: 'quiet', isError: false };
    };
    const run = runExecutor(limit(4), [call('q'), call('b')], (c) => (c.id === 'q' ? quiet(c) : runner.runCall(c)));
    await flush();
    expect(
      runner.started(),
      'runInParallel: a call that has returned is no longer being decided (guided step 3)',
    ).toEqual(['b']);
    runner.finish('b');
    await run.done;
    expect(run.ids(), 'runInParallel: both recorded, in call order').toEqual(['q', 'b']);
  });

  test('after an abort no more calls start; the running ones still end and are recorded', async () => {
    const runner = controlledRunner();
    const controller = new AbortController();
    const run = runExecutor(limit(2), [call('a'), call('b'), call('c'), call('d')], runner.runCall, {
      signal: controller.signal,
    });
    await flush();
    expect(
      runner.started(),
      'runInParallel: with a concurrency of 2, only a and b start (fewer than `concurrency` must run for the next to start) (guided step 2)',
    ).toEqual(['a', 'b']);
    controller.abort(new Error('stop'));
    runner.finish('a');
    runner.finish('b');
    await flush();
    expect(
      runner.log.filter((entry) => entry.startsWith('decide')),
      'runInParallel: the signal aborted while a and b ran: look at it before every start, not once before the first call, so c and d are never asked for (guided step 2)',
    ).toEqual(['decide a', 'decide b']);
    await settledSoon(
      run.done,
      'runInParallel: once a and b have ended and the signal has aborted, nothing runs, so the executor must end (guided step 3)',
    );
    expect(
      runner.started(),
      'runInParallel: once the signal has aborted, no call may start (the loop closes c and d) (guided step 2)',
    ).toEqual(['a', 'b']);
    expect(run.ids(), 'runInParallel: the calls that ran are recorded; the ones that never started are not').toEqual([
      'a',
      'b',
    ]);
  });

  test('an abort before the turn starts nothing', async () => {
    const runner = controlledRunner();
    const controller = new AbortController();
    controller.abort();
    const run = runExecutor(limit(2), [call('a'), call('b')], runner.runCall, { signal: controller.signal });
    await run.done;
    expect(runner.log, 'runInParallel: an aborted signal starts nothing (guided step 2)').toEqual([]);
    expect(run.events, 'runInParallel: no events').toEqual([]);
  });

  test('a call that throws (a hook failed) ends the executor with that error and closes the other running calls', async () => {
    const runner = controlledRunner();
    const run = runExecutor(limit(4), [call('a'), call('b'), call('c')], runner.runCall);
    await flush();
    runner.fail('b', new Error('hook exploded'));
    await expect(run.done, 'runInParallel: the error of a failing call goes on to the loop').rejects.toThrow(
      'hook exploded',
    );
    runner.finish('a');
    runner.finish('c');
    await flush();
    expect(
      runner.log.filter((line) => line.startsWith('closed')).sort(),
      'runInParallel: the calls still running (a, c) must be closed with return(), not left dangling (guided step 4)',
    ).toEqual(['closed a', 'closed b', 'closed c']);
  });

  test('a consumer that stops reading closes every running call', async () => {
    const runner = controlledRunner();
    const tools = flaggedTools();
    const generator = runInParallel(
      [call('a'), call('b')],
      runner.runCall,
      { signal: new AbortController().signal, tools, record: () => {} },
      4,
    );
    expect((await generator.next()).value, "runInParallel: the first event is a's decision").toMatchObject({
      type: 'tool_call_decided',
      callId: 'a',
    });
    expect((await generator.next()).value, "runInParallel: then b's").toMatchObject({
      type: 'tool_call_decided',
      callId: 'b',
    });
    await generator.return(undefined);
    runner.finish('a');
    runner.finish('b');
    await flush();
    expect(
      runner.log.filter((line) => line.startsWith('closed')).sort(),
      'runInParallel: when the executor is closed, its running calls are closed too (return() in finally) (guided step 4)',
    ).toEqual(['closed a', 'closed b']);
  });

  test('a call left for the client records nothing, and the calls after it are still recorded', async () => {
    const runner = controlledRunner();
    const client = async function* (c: { id: string; name: string }) {
      yield {
        type: 'tool_call_decided' as const,
        turn: 1,
        callId: c.id,
        name: c.name,
        decision: { type: 'allow' as const },
      };
      return undefined;
    };
    const run = runExecutor(limit(4), [call('a'), call('ask', 'read'), call('b')], (c) =>
      c.id === 'ask' ? client(c) : runner.runCall(c),
    );
    await flush();
    runner.finish('b');
    runner.finish('a');
    await run.done;
    expect(
      run.ids(),
      'runInParallel: a call that returns no result is skipped, and recording goes on past it (guided step 3)',
    ).toEqual(['a', 'b']);
  });

  test('no calls: no events, nothing recorded', async () => {
    const runner = controlledRunner();
    const run = runExecutor(limit(4), [], runner.runCall);
    await run.done;
    expect([run.events, run.recorded], 'runInParallel: nothing to do').toEqual([[], []]);
  });
});

describe('parallelExecutor in the Agent (src/parallel-executor.ts)', () => {
  const slowCalls = (...texts: string[]) =>
    assistantToolCalls(texts.map((text, i) => ({ id: `s${i + 1}`, name: 'slow', arguments: { text } })));

  test('reads run together and their results go into the history in call order, each paired with its call', async () => {
    const { tool, gates, seen } = gatedTool();
    const { agent } = agentWith([slowCalls('a', 'b', 'c'), assistantText('done')], {
      extraTools: [tool],
      executor: parallelExecutor({ concurrency: 4 }),
    });
    const history: Message[] = ask('read three');
    const running = collect(agent.run(history));
    await flush();
    expect(seen, 'parallelExecutor: all three reads are running before any finishes').toEqual(['a', 'b', 'c']);
    gates[2]!.resolve('C');
    gates[0]!.resolve('A');
    await flush();
    gates[1]!.resolve('B');
    const events = await running;
    expect(theDone(events, 'parallel run').reason, 'the run ends normally').toBe('end_turn');
    expect(
      history.filter((m) => m.role === 'tool').map((m) => `${(m as { toolCallId: string }).toolCallId}=${m.content}`),
      'runInParallel: results recorded in call order, each with its own call id',
    ).toEqual(['s1=A', 's2=B', 's3=C']);
    expect(history).toBeValidHistory('after a parallel turn');
  });

  test("an error in one call leaves the others' results intact", async () => {
    const { tool, gates } = gatedTool();
    const { agent } = agentWith(
      [
        assistantToolCalls([
          { id: 's1', name: 'slow', arguments: { text: 'a' } },
          { id: 'f1', name: 'fail', arguments: {} },
          { id: 's2', name: 'slow', arguments: { text: 'b' } },
        ]),
        assistantText('ok'),
      ],
      {
        extraTools: [tool],
        executor: parallelExecutor({ concurrency: 4 }),
      },
    );
    const history: Message[] = ask('go');
    const running = collect(agent.run(history));
    await flush();
    gates[0]?.resolve('A');
    await flush();
    gates[1]?.resolve('B');
    await running;
    const results = history.filter((m): m is Extract<Message, { role: 'tool' }> => m.role === 'tool');
    expect(
      results.map((r) => [r.toolCallId, r.isError]),
      'parallelExecutor: the failing call is an error result; the others keep theirs, in call order',
    ).toEqual([
      ['s1', false],
      ['f1', true],
      ['s2', false],
    ]);
    expect(
      results.map((r) => r.content).filter((c) => c === 'A' || c === 'B'),
      "the reads' outputs are intact",
    ).toEqual(['A', 'B']);
    expect(history).toBeValidHistory('after one call of a batch failed');
  });

  test('an abort mid-batch cancels the running calls, starts no more, and leaves every call with a result', async () => {
    const { tool, seen } = gatedTool();
    const controller = new AbortController();
    const { agent, provider } = agentWith([slowCalls('a', 'b', 'c'), assistantText('never')], {
      extraTools: [tool],
      executor: parallelExecutor({ concurrency: 2 }),
    });
    const history: Message[] = ask('go');
    const running = collect(agent.run(history, { signal: controller.signal }));
    await flush();
    controller.abort(new Error('person pressed Esc'));
    const events = await running;
    expect(theDone(events, 'abort mid-batch').reason, 'the run ends as cancelled').toBe('cancelled');
    expect(seen, 'runInParallel: with a limit of 2, the third call never started (guided step 2)').toEqual(['a', 'b']);
    expect(
      history.filter((m) => m.role === 'tool').map((m) => m.content),
      'every call has a result: the two running ones cancelled, the third closed by the loop',
    ).toEqual([CANCELLED_RESULT, CANCELLED_RESULT, CANCELLED_RESULT]);
    expect(provider.requests.length, 'no model call after the abort').toBe(1);
    expect(history).toBeValidHistory('after an abort in the middle of a batch');
  });

  test('a before hook is asked in call order, never for two calls at once, while earlier reads run', async () => {
    const { tool, gates } = gatedTool();
    const asked: string[] = [];
    let open = 0;
    let maxOpen = 0;
    const answers = new Map<string, () => void>();
    const hooks = {
      beforeToolCall: async (c: { id: string }) => {
        asked.push(c.id);
        open++;
        maxOpen = Math.max(maxOpen, open);
        await new Promise<void>((resolve) => answers.set(c.id, resolve));
        open--;
        return { type: 'allow' as const };
      },
    };
    const { agent } = agentWith([slowCalls('a', 'b', 'c'), assistantText('ok')], {
      extraTools: [tool],
      hooks,
      executor: parallelExecutor({ concurrency: 4 }),
    });
    const running = collect(agent.run(ask('go')));
    await flush();
    expect(asked, 'runInParallel: the permission question for s2 waits until s1 is answered').toEqual(['s1']);
    answers.get('s1')!();
    await flush();
    expect([asked, gates.length], 'runInParallel: s1 runs while s2 is asked').toEqual([['s1', 's2'], 1]);
    answers.get('s2')!();
    await flush();
    answers.get('s3')!();
    await flush();
    for (const gate of gates) gate.resolve('x');
    await running;
    expect(maxOpen, 'runInParallel: never two questions open at once').toBe(1);
  });
});
