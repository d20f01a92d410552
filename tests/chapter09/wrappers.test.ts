import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { executeToolCall } from 'kit/safe-call';
import { assistantText, assistantToolCalls, toolResult, type Message } from 'kit/messages';
import { defineTool, ToolSet, type Tool } from 'kit/tool';
import { catchErrors, endRunOnError, returnDirect, returnDirectHooks, withTimeout } from 'kit/tool-wrappers';
import { agentWith, ask, collect, theDone } from '../chapter07/fixtures.js';
import { flush, gatedTool, settledSoon } from './fixtures.js';

afterEach(() => {
  vi.useRealTimers();
});

const timeoutCall = { type: 'tool_call' as const, id: 't1', name: 'slow', arguments: { text: 'x' } };

describe('withTimeout (src/tool-wrappers.ts)', () => {
  test('a tool that never finishes ends at the limit with an error result that says it timed out after N ms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { tool } = gatedTool();
    const pending = executeToolCall(new ToolSet([withTimeout(tool, 250)]), timeoutCall, { cwd: process.cwd() });
    pending.catch(() => undefined); // if it rejects (a stub's TodoError), the test reports it, not an unhandled rejection
    await vi.advanceTimersByTimeAsync(249);
    let settled = false;
    void pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    await flush(1);
    expect(settled, 'withTimeout: 1 ms before the limit the call must still be running (guided step 1)').toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const result = await settledSoon(
      pending,
      'withTimeout: at the limit the call ends, although this tool ignores its signal and never finishes (run it through untilAborted, do not just await it) (guided step 2)',
    );
    expect(result.isError, 'withTimeout: a call that timed out is an error result (guided step 3)').toBe(true);
    expect(
      result.content,
      'withTimeout: the result says the tool timed out, and after how many ms (ToolTimeoutError) (guided step 3)',
    ).toMatch(/slow timed out after 250 ms/);
  });

  test("the tool's signal fires at the limit, with the timeout as its reason", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { tool, signals } = gatedTool();
    const pending = executeToolCall(new ToolSet([withTimeout(tool, 100)]), timeoutCall, { cwd: process.cwd() });
    pending.catch(() => undefined); // if it rejects (a stub's TodoError), the test reports it, not an unhandled rejection
    await vi.advanceTimersByTimeAsync(0);
    expect(signals.length, 'withTimeout: the tool must get a signal in its context (guided step 2)').toBe(1);
    expect(signals[0]!.aborted, 'withTimeout: before the limit the signal has not fired').toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    await settledSoon(
      pending,
      'withTimeout: at the limit the call ends, although this tool never finishes (run it through untilAborted, do not just await it) (guided step 2)',
    );
    expect(
      signals[0]!.aborted,
      "withTimeout: at the limit the tool's signal must fire, so it can stop its work (guided step 1)",
    ).toBe(true);
    expect(
      String(signals[0]!.reason?.message),
      "withTimeout: the signal's reason is the ToolTimeoutError (guided step 1)",
    ).toMatch(/timed out after 100 ms/);
  });

  test('a result that comes after the limit never lands in the history', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { tool, gates } = gatedTool();
    const { agent, provider } = agentWith(
      [assistantToolCalls([{ id: 't1', name: 'slow', arguments: { text: 'x' } }]), assistantText('ok')],
      { extraTools: [withTimeout(tool, 50)] },
    );
    const history: Message[] = ask('go');
    const running = collect(agent.run(history));
    await vi.advanceTimersByTimeAsync(60);
    gates[0]!.resolve('LATE RESULT');
    const events = await running;
    expect(theDone(events, 'withTimeout').reason, 'the run goes on after a timeout: the model reads the error').toBe(
      'end_turn',
    );
    const results = history.filter((m) => m.role === 'tool');
    expect(
      results.map((m) => m.content).join(' | '),
      'withTimeout: the late output must not replace the timeout result (untilAborted) (guided step 2)',
    ).not.toMatch(/LATE RESULT/);
    expect(results[0]!.content, 'withTimeout: the history holds the timeout result').toMatch(/timed out after 50 ms/);
    expect(
      JSON.stringify(provider.requests[1]!.messages),
      'withTimeout: the model is never sent the late result',
    ).not.toMatch(/LATE RESULT/);
    expect(history).toBeValidHistory('after a call timed out');
  });

  test('a tool that finishes in time gives its output, and leaves no timer behind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { tool, gates } = gatedTool();
    const pending = executeToolCall(new ToolSet([withTimeout(tool, 1000)]), timeoutCall, { cwd: process.cwd() });
    pending.catch(() => undefined); // if it rejects (a stub's TodoError), the test reports it, not an unhandled rejection
    await vi.advanceTimersByTimeAsync(10);
    gates[0]!.resolve('fine');
    const result = await pending;
    expect(result, 'withTimeout: a tool that finishes in time returns its output (guided step 3)').toMatchObject({
      content: 'fine',
      isError: false,
    });
    expect(
      vi.getTimerCount(),
      'withTimeout: clear the timer in finally, or it fires later for nothing (guided step 4)',
    ).toBe(0);
  });

  test('a tool that throws in time fails with its own error, not a timeout', async () => {
    const failing = defineTool({
      name: 'boom',
      description: 'fails',
      input: z.object({}),
      execute: async () => {
        throw new Error('disk full');
      },
    });
    const result = await executeToolCall(
      new ToolSet([withTimeout(failing, 1000)]),
      { type: 'tool_call' as const, id: 'b', name: 'boom', arguments: {} },
      { cwd: process.cwd() },
    );
    expect(result.content, "withTimeout: the tool's own error goes through (guided step 3)").toMatch(/disk full/);
  });

  test("the run's cancel reaches the tool through the wrapper", async () => {
    const { tool, signals } = gatedTool();
    const controller = new AbortController();
    const pending = executeToolCall(new ToolSet([withTimeout(tool, 60_000)]), timeoutCall, {
      cwd: process.cwd(),
      signal: controller.signal,
    });
    pending.catch(() => undefined); // if it rejects (a stub's TodoError), the test reports it, not an unhandled rejection
    await flush(1);
    controller.abort(new Error('person pressed Esc'));
    await pending;
    expect(
      signals[0]!.aborted,
      "withTimeout: when the run's signal aborts, the tool's own signal must abort too (guided step 1)",
    ).toBe(true);
  });

  test('a tool that throws leaves no timer and no listener behind either', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const controller = new AbortController();
    const failing = defineTool({
      name: 'boom',
      description: 'fails',
      input: z.object({}),
      execute: async () => {
        throw new Error('disk full');
      },
    });
    const error = await withTimeout(failing, 1000)
      .execute({}, { cwd: process.cwd(), signal: controller.signal })
      .then(
        () => expect.fail('withTimeout: the tool threw "disk full"; the call must throw it too (guided step 3)'),
        (thrown: unknown) => thrown,
      );
    if (error instanceof Error && error.name === 'TodoError') throw error;
    expect(String(error), "withTimeout: the tool's own error goes through (guided step 3)").toMatch(/disk full/);
    expect(
      vi.getTimerCount(),
      'withTimeout: clear the timer in finally, so that it is cleared when the tool throws too (guided step 4)',
    ).toBe(0);
    expect(
      getEventListeners(controller.signal, 'abort').length,
      "withTimeout: stop listening to the run's signal in finally, so that a tool that throws leaves no listener either (guided step 4)",
    ).toBe(0);
  });

  test("a run cancelled during the call ends it with the run's reason, not a timeout", async () => {
    const { tool } = gatedTool();
    const controller = new AbortController();
    const pending = withTimeout(tool, 60_000).execute({ text: 'x' }, { cwd: process.cwd(), signal: controller.signal });
    pending.catch(() => undefined); // if it rejects (a stub's TodoError), the test reports it, not an unhandled rejection
    await flush(1);
    const reason = new Error('person pressed Esc');
    controller.abort(reason);
    const error = await settledSoon(
      pending.then(
        () => expect.fail('withTimeout: the run was cancelled while the tool ran; the call must throw (guided step 3)'),
        (thrown: unknown) => thrown,
      ),
      'withTimeout: when the run is cancelled the call ends at once (untilAborted) (guided step 2)',
    );
    if (error instanceof Error && error.name === 'TodoError') throw error;
    expect(
      error,
      "withTimeout: ABORTED: throw the controller's reason, which is the run's own reason when the run was cancelled (not a ToolTimeoutError) (guided step 3)",
    ).toBe(reason);
  });

  test("stops listening to the run's signal once the call is over", async () => {
    const controller = new AbortController();
    const quick = defineTool({
      name: 'quick',
      description: 'answers at once',
      input: z.object({}),
      execute: async () => 'done',
    });
    await withTimeout(quick, 1000).execute({}, { cwd: process.cwd(), signal: controller.signal });
    expect(
      getEventListeners(controller.signal, 'abort').length,
      "withTimeout: remove the abort listener in finally, or every call leaves one on the run's signal (guided step 4)",
    ).toBe(0);
  });

  test('a run already cancelled gives the tool a signal that has fired', async () => {
    const seen: boolean[] = [];
    const peek = defineTool({
      name: 'peek',
      description: 'looks at its signal',
      input: z.object({}),
      execute: async (_input, ctx) => {
        seen.push(ctx.signal!.aborted);
        return 'seen';
      },
    });
    const controller = new AbortController();
    controller.abort();
    await withTimeout(peek, 1000)
      .execute({}, { cwd: process.cwd(), signal: controller.signal })
      .catch(() => {});
    expect(
      seen.every(Boolean),
      "withTimeout: if the run's signal has already aborted, abort the tool's at once (guided step 1)",
    ).toBe(true);
  });

  test("keeps the tool's name, description, schema and readOnly flag; refuses a limit that is not positive", async () => {
    const tool = defineTool({
      name: 'quick',
      description: 'answers at once',
      input: z.object({}),
      readOnly: true,
      execute: async () => 'quick answer',
    });
    const wrapped = withTimeout(tool, 1000);
    expect(
      await wrapped.execute({}, { cwd: process.cwd() }),
      'withTimeout: the output of a tool that answers in time (guided step 3)',
    ).toBe('quick answer');
    expect(
      [wrapped.name, wrapped.description, wrapped.input, wrapped.readOnly],
      'withTimeout: the wrapper is the same tool to everyone else',
    ).toEqual([tool.name, tool.description, tool.input, true]);
    for (const bad of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => withTimeout(tool, bad), `withTimeout(tool, ${bad}) must throw at set-up`).toThrow(RangeError);
    }
  });
});

describe('catchErrors (src/tool-wrappers.ts)', () => {
  const failing = defineTool({
    name: 'tests',
    description: 'runs the tests',
    input: z.object({}),
    execute: async () => {
      throw new Error('3 tests failed');
    },
  });

  test("a thrown error becomes the tool's output, not an error result", async () => {
    const result = await executeToolCall(
      new ToolSet([catchErrors(failing)]),
      { type: 'tool_call' as const, id: 'c', name: 'tests', arguments: {} },
      { cwd: process.cwd() },
    );
    expect(
      result,
      'catchErrors: the error is the answer: an ordinary result naming the tool and the message (guided step 1)',
    ).toMatchObject({ content: 'tests failed: 3 tests failed', isError: false });
  });

  test('a tool whose execute throws before it returns a promise is caught too', async () => {
    const eager: Tool = {
      name: 'eager',
      description: 'checks its input before it starts',
      input: z.object({}),
      readOnly: false,
      execute: () => {
        throw new Error('no config file');
      },
    };
    const output = await catchErrors(eager)
      .execute({}, { cwd: process.cwd() })
      .catch((error: unknown) => {
        if (error instanceof Error && error.name === 'TodoError') throw error;
        return expect.fail(
          `catchErrors: the tool threw at once (its execute is not async); catch that as well, with try around an awaited call, not .catch() on the promise; it threw ${String(error)} (guided step 1)`,
        );
      });
    expect(output, 'catchErrors: the output is format(error) (guided step 1)').toBe('eager failed: no config file');
  });

  test('a custom format decides the text; a tool that works is left alone', async () => {
    const wrapped = catchErrors(failing, (error) => `FAILED: ${(error as Error).message}`);
    expect(
      await wrapped.execute({}, { cwd: process.cwd() }),
      'catchErrors: the output is format(error) (guided step 1)',
    ).toBe('FAILED: 3 tests failed');
    const fine = defineTool({
      name: 'ok',
      description: 'works',
      input: z.object({}),
      execute: async () => 'all green',
    });
    expect(
      await catchErrors(fine).execute({}, { cwd: process.cwd() }),
      'catchErrors: a tool that works returns its own output',
    ).toBe('all green');
  });
});

describe('endRunOnError.afterToolCall (src/tool-wrappers.ts)', () => {
  const deploy = defineTool({
    name: 'deploy',
    description: 'deploys',
    input: z.object({ to: z.string() }),
    execute: async () => {
      throw new Error('migration failed');
    },
  });

  test('a failure of the tool ends the run with reason error, without asking the model again', async () => {
    const fatal = endRunOnError(deploy);
    const { agent, provider } = agentWith(
      [assistantToolCalls([{ id: 'd1', name: 'deploy', arguments: { to: 'prod' } }]), assistantText('never')],
      {
        extraTools: [fatal.tool],
        hooks: fatal.hooks,
      },
    );
    const history: Message[] = ask('ship it');
    const done = theDone(await collect(agent.run(history)), 'endRunOnError');
    expect(done.reason, 'endRunOnError: the after hook throws, so the run ends with reason error (guided step 1)').toBe(
      'error',
    );
    expect(
      done.message,
      'endRunOnError: the message names the tool and its error (ToolFailedRunError) (guided step 1)',
    ).toMatch(/deploy failed.*migration failed/);
    expect(provider.requests.length, 'endRunOnError: the model must not be called after the failure').toBe(1);
    expect(history).toBeValidHistory('after a tool whose failure ends the run');
  });

  test('arguments the model got wrong do not end the run: the tool never ran', async () => {
    const fatal = endRunOnError(deploy);
    const { agent, provider } = agentWith(
      [assistantToolCalls([{ id: 'd1', name: 'deploy', arguments: { where: 1 } }]), assistantText('fixed')],
      {
        extraTools: [fatal.tool],
        hooks: fatal.hooks,
      },
    );
    const done = theDone(await collect(agent.run(ask('ship it'))), 'endRunOnError');
    expect(
      done.reason,
      'endRunOnError: only a failure the tool threw ends the run; a schema error goes back to the model (guided step 1)',
    ).toBe('end_turn');
    expect(provider.requests.length, 'endRunOnError: the model was asked again').toBe(2);
  });

  test('the hook throws only for an error result of its own tool, and only once per failure', async () => {
    const fatal = endRunOnError(deploy);
    await fatal.tool.execute({ to: 'prod' }, { cwd: process.cwd() }).catch(() => {});
    const after = fatal.hooks.afterToolCall!;
    const hookCtx = { signal: new AbortController().signal, turn: 1, history: [], emit: () => {} };
    const other = { type: 'tool_call' as const, id: 'o1', name: 'grep', arguments: {} };
    const mine = { type: 'tool_call' as const, id: 'd1', name: 'deploy', arguments: {} };
    expect(
      await after(other, toolResult(other, 'Error: bad pattern', true), hookCtx),
      "endRunOnError: another tool's error is not this tool's failure (guided step 1)",
    ).toBeUndefined();
    expect(
      await after(mine, toolResult(mine, 'fine after all'), hookCtx),
      'endRunOnError: a result that is not an error ends nothing (guided step 1)',
    ).toBeUndefined();
    expect(
      () => after(mine, toolResult(mine, 'Error: migration failed', true), hookCtx),
      "endRunOnError: this tool's error result with a failure waiting: throw (guided step 1)",
    ).toThrow(/deploy failed/);
    const again = await Promise.resolve()
      .then(() => after(mine, toolResult(mine, 'Error: again', true), hookCtx))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(
      again,
      'endRunOnError.afterToolCall: take the failure out (shift) when you throw for it; no failure is waiting now, so this error result ends nothing (guided step 1)',
    ).toBeUndefined();
  });

  test("another tool's error does not end the run", async () => {
    const fatal = endRunOnError(deploy);
    const { agent, provider } = agentWith(
      [assistantToolCalls([{ id: 'f1', name: 'fail', arguments: {} }]), assistantText('done')],
      { extraTools: [fatal.tool], hooks: fatal.hooks },
    );
    expect(
      theDone(await collect(agent.run(ask('go'))), 'endRunOnError').reason,
      'endRunOnError: only calls of the wrapped tool may end the run (guided step 1)',
    ).toBe('end_turn');
    expect(provider.requests.length, "endRunOnError: the model reads the other tool's error and goes on").toBe(2);
  });
});

describe('returnDirectHooks.beforeModelCall (src/tool-wrappers.ts)', () => {
  const lookup = returnDirect(
    defineTool({
      name: 'lookup',
      description: 'finds the answer',
      input: z.object({ q: z.string() }),
      readOnly: true,
      execute: async ({ q }) => {
        if (q === 'bad') throw new Error('not found');
        return `answer to ${q}`;
      },
    }),
  );

  test("the output of a returnDirect tool is the run's answer, with no further model call", async () => {
    const { agent, provider } = agentWith(
      [assistantToolCalls([{ id: 'l1', name: 'lookup', arguments: { q: 'life' } }]), assistantText('the model again')],
      { extraTools: [lookup], hooks: returnDirectHooks(new ToolSet([lookup])) },
    );
    const history: Message[] = ask('what is it?');
    const events = await collect(agent.run(history));
    const done = theDone(events, 'returnDirect');
    expect(
      provider.requests.length,
      'returnDirectHooks: the model must not be called after a returnDirect tool answered',
    ).toBe(1);
    expect(done.reason, 'returnDirectHooks: a stop with an answer ends the run as end_turn (guided step 3)').toBe(
      'end_turn',
    );
    expect(done.text, "returnDirectHooks: the answer is the tool's output (guided step 3)").toBe('answer to life');
    expect(history).toBeValidHistory('after a returnDirect answer');
  });

  test('a failed call of a returnDirect tool is not an answer: the model sees the error', async () => {
    const { agent, provider } = agentWith(
      [assistantToolCalls([{ id: 'l1', name: 'lookup', arguments: { q: 'bad' } }]), assistantText('sorry')],
      { extraTools: [lookup], hooks: returnDirectHooks(new ToolSet([lookup])) },
    );
    const events = await collect(agent.run(ask('q')));
    expect(
      theDone(events, 'returnDirect').text,
      'returnDirectHooks: an error result goes back to the model (guided step 2)',
    ).toBe('sorry');
    expect(provider.requests.length, 'returnDirectHooks: the model is asked again (guided step 2)').toBe(2);
  });

  test('results of ordinary tools do not stop the run', async () => {
    const { agent, provider } = agentWith(
      [assistantToolCalls([{ id: 'e1', name: 'echo', arguments: { text: 'hi' } }]), assistantText('model answer')],
      { extraTools: [lookup], hooks: returnDirectHooks(new ToolSet([lookup])) },
    );
    const events = await collect(agent.run(ask('q')));
    expect(
      theDone(events, 'returnDirect').text,
      'returnDirectHooks: only tools marked with returnDirect answer directly (guided step 2)',
    ).toBe('model answer');
    expect(provider.requests.length, 'returnDirectHooks: an ordinary result goes back to the model').toBe(2);
  });

  test('several direct results in one turn: their outputs in call order, joined by a blank line; ordinary results beside them are left out', () => {
    const tools = new ToolSet([lookup]);
    const hooks = returnDirectHooks(tools);
    const messages: Message[] = [
      ...ask('q'),
      assistantToolCalls([
        { id: 'a', name: 'lookup', arguments: {} },
        { id: 'b', name: 'echo', arguments: {} },
        { id: 'c', name: 'lookup', arguments: {} },
      ]),
      { role: 'tool', toolCallId: 'a', toolName: 'lookup', content: 'first', isError: false },
      { role: 'tool', toolCallId: 'b', toolName: 'echo', content: 'ordinary', isError: false },
      { role: 'tool', toolCallId: 'c', toolName: 'lookup', content: 'second', isError: false },
    ];
    const out = hooks.beforeModelCall!(
      { messages, tools: [] },
      { signal: new AbortController().signal, turn: 2, history: messages, emit: () => {} },
    ) as { stop: string; answer: string };
    expect(
      out?.answer,
      'returnDirectHooks: the direct outputs, in call order, joined by a blank line (guided step 3)',
    ).toBe('first\n\nsecond');
    expect(out?.stop, 'returnDirectHooks: the stop message names the tool (guided step 3)').toMatch(/lookup/);
  });

  test("a history that ends with the user's message changes nothing", () => {
    const hooks = returnDirectHooks(new ToolSet([lookup]));
    const messages: Message[] = [
      ...ask('q'),
      assistantToolCalls([{ id: 'a', name: 'lookup', arguments: {} }]),
      { role: 'tool', toolCallId: 'a', toolName: 'lookup', content: 'old answer', isError: false },
      assistantText('told you'),
      ...ask('and now?'),
    ];
    const out = hooks.beforeModelCall!(
      { messages, tools: [] },
      { signal: new AbortController().signal, turn: 1, history: messages, emit: () => {} },
    );
    expect(
      out,
      'returnDirectHooks: only the results at the very end count; an older answer does not end a new run (guided step 1)',
    ).toBeUndefined();
  });
});
