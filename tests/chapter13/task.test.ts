import { describe, expect, test } from 'vitest';
import type { AgentEvent } from 'kit/agent-events';
import { Agent } from 'kit/agent';
import { MockProvider } from 'kit/mock-provider';
import { parallelExecutor } from 'kit/parallel-executor';
import { CHILD_SYSTEM, childTools, createTaskTool, runTask, TASK, type TaskOptions } from 'kit/planning/task';
import type { ModelRequest } from 'kit/provider';
import { newSession, SessionRecorder } from 'kit/session/session';
import { ToolSet, type Tool } from 'kit/tool';
import { requestOn, shape } from '../helpers/transcript.js';
import { ask, assistantText, call, callsTurn, childFactory, collect, fakeTools, names, ofType } from './fixtures.js';
import { hangs } from '../helpers/wait.js';

const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });
const taskCall = (id: string, prompt: string) => call(id, TASK, { description: 'look around', prompt });

/** A parent agent with the stand-in tools and a task tool made from `options` (tools: the parent's own set). */
function parentWith(
  script: ConstructorParameters<typeof MockProvider>[0],
  options: Omit<TaskOptions, 'tools'> & { tools?: TaskOptions['tools'] },
  extra: { executor?: ReturnType<typeof parallelExecutor> } = {},
) {
  const { tools: stand, ran } = fakeTools();
  const set = new ToolSet(stand);
  set.add(createTaskTool({ tools: () => set, ...options }));
  const provider = new MockProvider(script);
  const agent = new Agent({
    provider,
    tools: set,
    cwd: process.cwd(),
    system: 'Parent system.',
    executor: extra.executor,
  });
  return { agent, provider, tools: set, ran };
}

/** A child factory that refuses a sixth child: a test of nesting must end even when the depth limit does not hold. */
function boundedChildren(make: TaskOptions['makeChild']): TaskOptions['makeChild'] {
  let made = 0;
  return (spec) => {
    if (++made > 5)
      throw new Error('more than 5 children: the recursion is not bounded (childTools guided step 3: depth + 1)');
    return make(spec);
  };
}

const toolResults = (req: { messages: readonly unknown[] }) =>
  req.messages.filter(
    (m): m is { role: 'tool'; toolCallId: string; content: string; isError: boolean } =>
      (m as { role: string }).role === 'tool',
  );

describe('runTask (src/planning/task.ts): a child with a history of its own', () => {
  test('the child starts from its prompt alone; the parent gets its answer and never sees its turns', async () => {
    const children = childFactory([
      [callsTurn(call('k1', 'read', { path: 'a.ts' })), assistantText('parseConfig is called in a.ts:3')],
    ]);
    const { agent, provider } = parentWith(
      [callsTurn(taskCall('t1', 'Find the callers of parseConfig')), assistantText('Found it.')],
      { makeChild: children.makeChild },
    );
    const history = ask('where is parseConfig used?');
    await collect(agent.run(history));
    const first = requestOn(children.providers[0]!, 1);
    expect(
      shape(first.messages),
      "runTask: the child's history is one user message, its prompt (never the parent's) (guided step 3)",
    ).toEqual(['user']);
    expect(first.messages[0], 'runTask: the prompt as the model wrote it (guided step 3)').toEqual({
      role: 'user',
      content: 'Find the callers of parseConfig',
    });
    expect(first.system, "runTask: the child's system prompt is CHILD_SYSTEM by default (guided step 2)").toBe(
      CHILD_SYSTEM,
    );
    expect(shape(requestOn(provider, 2).messages), "the parent's next request holds its own turns only").toEqual([
      'user',
      'assistant call task#t1',
      'tool task#t1',
    ]);
    expect(
      toolResults(requestOn(provider, 2))[0],
      "runTask: the result is the child's answer (guided step 6)",
    ).toMatchObject({
      content: 'parseConfig is called in a.ts:3',
      isError: false,
    });
    expect(history).toBeValidHistory('after a task');
  });

  test("each task gets a new history: a second task does not see the first one's conversation", async () => {
    const children = childFactory([[assistantText('first answer')], [assistantText('second answer')]]);
    const { agent } = parentWith(
      [callsTurn(taskCall('t1', 'first job')), callsTurn(taskCall('t2', 'second job')), assistantText('ok')],
      { makeChild: children.makeChild },
    );
    await collect(agent.run(ask('two jobs')));
    expect(
      children.providers.map((p) => shape(requestOn(p, 1).messages)),
      'runTask: a history made for each task, never one shared by all tasks (guided step 3)',
    ).toEqual([['user'], ['user']]);
    expect(requestOn(children.providers[1]!, 1).messages[0]).toEqual({ role: 'user', content: 'second job' });
  });

  test('the factory is asked for the system prompt, turn limit and depth the options give', async () => {
    const children = childFactory([[assistantText('ok')]]);
    const { agent } = parentWith([callsTurn(taskCall('t1', 'job')), assistantText('ok')], {
      makeChild: children.makeChild,
      system: 'You are an explorer.',
      maxTurns: 7,
    });
    await collect(agent.run(ask('go')));
    expect(
      children.specs[0],
      "runTask: system, maxTurns and the child's depth (1 under the top agent) (guided step 2)",
    ).toMatchObject({ system: 'You are an explorer.', maxTurns: 7, depth: 1 });
    expect(requestOn(children.providers[0]!, 1).system).toBe('You are an explorer.');
  });

  test('a child that does not answer is an error result that says why; the parent goes on', async () => {
    const children = childFactory([
      [callsTurn(call('k1', 'read', { path: 'a' })), callsTurn(call('k2', 'read', { path: 'b' }))],
    ]);
    const { agent, provider } = parentWith([callsTurn(taskCall('t1', 'job')), assistantText('I will do it myself.')], {
      makeChild: children.makeChild,
      maxTurns: 2,
    });
    const history = ask('go');
    const events = await collect(agent.run(history));
    const result = toolResults(requestOn(provider, 2))[0]!;
    expect(result.isError, 'runTask: any end but end_turn is a failure (guided step 6)').toBe(true);
    expect(result.content, "runTask: the error gives the child's reason (guided step 6)").toContain('turn_limit');
    expect(result.content, "runTask: and the child's message (guided step 6)").toContain('after 2 model calls');
    expect(events.at(-1), 'the parent still answers').toMatchObject({ type: 'done', reason: 'end_turn' });
    expect(history).toBeValidHistory('after a failed task');
  });

  test('an empty prompt is refused before any child is made', async () => {
    const children = childFactory([[assistantText('never')]]);
    const { agent, provider } = parentWith([callsTurn(taskCall('t1', '  ')), assistantText('ok')], {
      makeChild: children.makeChild,
    });
    await collect(agent.run(ask('go')));
    expect(toolResults(requestOn(provider, 2))[0]!.isError, 'runTask guided step 1').toBe(true);
    expect(
      toolResults(requestOn(provider, 2))[0]!.content,
      'runTask: the error says the prompt is empty (guided step 1)',
    ).toMatch(/empty/);
    expect(children.specs, 'no child for an empty prompt').toEqual([]);
  });
});

describe('childTools (src/planning/task.ts): what a child may use, and the depth limit', () => {
  test("a child gets the parent's tools without task; a read-only task gives only the read-only ones", async () => {
    const children = childFactory([[assistantText('ok')], [assistantText('ok')]]);
    const { agent } = parentWith([callsTurn(taskCall('t1', 'job')), assistantText('ok')], {
      makeChild: children.makeChild,
    });
    await collect(agent.run(ask('go')));
    expect(
      requestOn(children.providers[0]!, 1).tools.map((t) => t.name),
      'childTools: every tool but task (guided step 1)',
    ).toEqual(['read', 'grep', 'write', 'edit', 'bash']);
    const readOnly = parentWith([callsTurn(taskCall('t1', 'job')), assistantText('ok')], {
      makeChild: children.makeChild,
      readOnly: true,
    });
    await collect(readOnly.agent.run(ask('go')));
    expect(
      requestOn(children.providers[1]!, 1).tools.map((t) => t.name),
      'childTools: readOnly keeps only read-only tools (guided step 2)',
    ).toEqual(['read', 'grep']);
    expect(readOnly.tools.get(TASK)?.readOnly, 'a read-only task tool is read-only itself').toBe(true);
  });

  test("the parent's tools are read when the task starts, not when the task tool was made", () => {
    const list: Tool[] = [...fakeTools().tools.slice(0, 1)];
    const options: TaskOptions = {
      makeChild: () => {
        throw new Error('unused');
      },
      tools: () => list,
    };
    expect(childTools(options, 0).names()).toEqual(['read']);
    list.push(fakeTools().tools[1]!);
    expect(childTools(options, 0).names(), 'childTools: call options.tools() each time (guided step 1)').toEqual([
      'read',
      'grep',
    ]);
  });

  test('nesting: within maxDepth a child gets a task tool one level deeper; at the limit it gets none', () => {
    const options: TaskOptions = {
      makeChild: () => {
        throw new Error('unused');
      },
      tools: () => fakeTools().tools,
      maxDepth: 2,
    };
    expect(
      childTools(options, 0).names(),
      'childTools: a child at depth 1 may still have children when maxDepth is 2 (guided step 3)',
    ).toContain(TASK);
    expect(
      childTools(options, 1).names(),
      'childTools: a child at depth 2 (the limit) gets no task tool (guided step 3)',
    ).not.toContain(TASK);
    expect(
      childTools({ ...options, maxDepth: undefined }, 0).names(),
      'childTools: maxDepth 1 by default: children have no task tool (guided step 3)',
    ).not.toContain(TASK);
  });

  test('a task tool past the depth limit refuses, and makes no child', async () => {
    const children = childFactory([[assistantText('never')]]);
    const { agent, provider } = parentWith([callsTurn(taskCall('t1', 'job')), assistantText('ok')], {
      makeChild: children.makeChild,
      depth: 1,
      maxDepth: 1,
    });
    await collect(agent.run(ask('go')));
    const result = toolResults(requestOn(provider, 2))[0]!;
    expect(result.isError, 'runTask: a child at depth 2 is deeper than maxDepth 1 (guided step 1)').toBe(true);
    expect(result.content, 'runTask: the error gives the limit (guided step 1)').toContain('1');
    expect(children.specs).toEqual([]);
  });

  test('recursion is bounded: agents that always delegate stop at maxDepth', async () => {
    // Every model delegates whenever it has a task tool, and answers otherwise.
    const delegating = (request: ModelRequest) =>
      request.tools.some((t) => t.name === TASK) && !request.messages.some((m) => m.role === 'tool')
        ? callsTurn(taskCall(`t${request.messages.length}`, 'go deeper'))
        : assistantText('bottom');
    const specs: number[] = [];
    const makeChild: TaskOptions['makeChild'] = (spec) => {
      if (specs.length >= 5)
        throw new Error('more than 5 children: the recursion is not bounded (childTools guided step 3: depth + 1)');
      specs.push(spec.depth);
      return new Agent({
        provider: new MockProvider([delegating, delegating]),
        tools: spec.tools,
        cwd: process.cwd(),
        maxTurns: spec.maxTurns,
      });
    };
    const { agent } = parentWith([delegating, delegating], { makeChild, maxDepth: 2 });
    const events = await collect(agent.run(ask('go')));
    expect(
      specs,
      "childTools: the child's own task tool is one level deeper, so depth 2 has none (guided step 3)",
    ).toEqual([1, 2]);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'end_turn' });
  });
});

describe("runTask (src/planning/task.ts): a child's events, usage and signal reach the parent", () => {
  test("every child event reaches the parent's consumers as a subagent event with the call id, before the call's result", async () => {
    const children = childFactory([[callsTurn(call('k1', 'read', { path: 'a.ts' })), assistantText('done')]]);
    const { agent } = parentWith([callsTurn(taskCall('t1', 'job')), assistantText('ok')], {
      makeChild: children.makeChild,
    });
    const events = await collect(agent.run(ask('go')));
    const nested = ofType(events, 'subagent');
    expect(
      nested.every((e) => e.callId === 't1' && e.turn === 1),
      'runTask: each wraps the event with the parent call id and turn (guided step 4)',
    ).toBe(true);
    expect(
      names(nested.map((e) => e.event)),
      'runTask: every event of the child, in order, unchanged (guided step 4)',
    ).toEqual([
      'turn_start',
      'tool_call_requested',
      'tool_call_decided k1',
      'tool_result k1',
      'turn_start',
      'text_delta',
      'done',
    ]);
    expect(ofType(events, 'usage'), 'runTask: no usage event when the child used nothing (guided step 5)').toEqual([]);
    const all = names(events);
    expect(all.indexOf('tool_result t1'), "all of them before the task call's result").toBeGreaterThan(
      all.lastIndexOf('subagent(t1) done'),
    );
  });

  test("a grandchild's events arrive wrapped twice, under each call id", async () => {
    const grand = (request: ModelRequest) =>
      request.tools.some((t) => t.name === TASK) && !request.messages.some((m) => m.role === 'tool')
        ? callsTurn(taskCall('g1', 'deeper'))
        : assistantText('leaf');
    const makeChild = boundedChildren(
      (spec) => new Agent({ provider: new MockProvider([grand, grand]), tools: spec.tools, cwd: process.cwd() }),
    );
    const { agent } = parentWith([callsTurn(taskCall('t1', 'job')), assistantText('ok')], { makeChild, maxDepth: 2 });
    const events = await collect(agent.run(ask('go')));
    const twice = ofType(events, 'subagent').filter((e) => e.event.type === 'subagent');
    expect(twice.length, "the child's own subagent events are passed on like any other event").toBeGreaterThan(0);
    expect(twice[0]!.event, "the inner wrapper carries the child's call id").toMatchObject({
      type: 'subagent',
      callId: 'g1',
    });
  });

  test("a child's events come out while it is still working, not when it is done", async () => {
    let release = () => {};
    const waiting = new Promise<void>((resolve) => (release = resolve));
    const slow = async () => {
      await waiting; // the parent's consumer releases it once it saw the child's first event
      return assistantText('done');
    };
    const children = childFactory([[slow]]);
    const { agent } = parentWith([callsTurn(taskCall('t1', 'job')), assistantText('ok')], {
      makeChild: children.makeChild,
    });
    const run = (async () => {
      for await (const event of agent.run(ask('go')))
        if (event.type === 'subagent' && event.event.type === 'turn_start') release();
    })();
    const timedOut = await hangs(run);
    release();
    expect(
      timedOut,
      'runTask: emit each event as the child yields it (collecting them and emitting at the end holds the child up) (guided step 4)',
    ).toBe(false);
  });

  test("the child's usage is counted once in the parent session's totals, grandchildren included", async () => {
    const grand = (request: ModelRequest) =>
      request.tools.some((t) => t.name === TASK) && !request.messages.some((m) => m.role === 'tool')
        ? { ...callsTurn(taskCall('g1', 'deeper')), usage: usage(10, 1) }
        : assistantText('leaf', usage(100, 10));
    const makeChild = boundedChildren(
      (spec) => new Agent({ provider: new MockProvider([grand, grand]), tools: spec.tools, cwd: process.cwd() }),
    );
    const parent = parentWith(
      [{ ...callsTurn(taskCall('t1', 'job')), usage: usage(1000, 100) }, assistantText('ok', usage(2000, 200))],
      { makeChild, maxDepth: 2 },
    );
    const session = newSession({ id: 's1', cwd: process.cwd(), now: '2026-01-01T00:00:00.000Z' });
    const recorder = new SessionRecorder(session, () => undefined);
    session.messages.push(...ask('go'));
    const events: AgentEvent[] = [];
    for await (const event of parent.agent.run(session.messages)) {
      events.push(event);
      recorder.record(event);
    }
    // parent 1000+2000 in; child 10 + 100 (its answer after the grandchild) in; grandchild 100 in.
    expect(
      session.usage,
      "runTask: one usage event with everything the child used, counted by the session like the parent's own (guided step 5)",
    ).toEqual({ inputTokens: 3210, outputTokens: 321 });
    const topUsage = ofType(events, 'usage');
    expect(
      topUsage.map((e) => e.usage.inputTokens),
      'runTask: one usage event per task, after its subagent events (guided step 5)',
    ).toEqual([1000, 210, 2000]);
  });

  test('aborting the parent reaches the child: its model call sees the signal, and the run ends cancelled with a valid history', async () => {
    const controller = new AbortController();
    let childSignal: AbortSignal | undefined;
    const hang = (request: ModelRequest) =>
      new Promise<never>((_resolve, reject) => {
        childSignal = request.signal;
        request.signal?.addEventListener('abort', () => reject(request.signal!.reason));
        setTimeout(() => controller.abort(new Error('stop')), 5);
      });
    const children = childFactory([[hang]]);
    const { agent } = parentWith([callsTurn(taskCall('t1', 'job')), assistantText('never')], {
      makeChild: children.makeChild,
    });
    const history = ask('go');
    const events = await collect(agent.run(history, { signal: controller.signal }));
    expect(childSignal?.aborted, "runTask: run the child with the parent's signal (ctx.signal) (guided step 4)").toBe(
      true,
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'cancelled' });
    expect(history).toBeValidHistory('after a cancel during a task');
  });

  test("two read-only tasks in one turn run side by side on chapter 9's parallel executor, results in call order", async () => {
    let started = 0;
    let bothStarted = () => {};
    const both = new Promise<void>((resolve) => (bothStarted = resolve));
    const meet = (answer: string) => async () => {
      if (++started === 2) bothStarted();
      const timedOut = await hangs(both);
      return assistantText(timedOut ? 'ran alone' : answer);
    };
    const children = childFactory([[meet('A')], [meet('B')]]);
    const { agent, provider } = parentWith(
      [callsTurn(taskCall('t1', 'a'), taskCall('t2', 'b')), assistantText('ok')],
      { makeChild: children.makeChild, readOnly: true },
      { executor: parallelExecutor({ concurrency: 4 }) },
    );
    await collect(agent.run(ask('go')));
    expect(
      toolResults(requestOn(provider, 2)).map((r) => [r.toolCallId, r.content]),
      'a read-only task tool (readOnly option) lets the parallel executor run both children at once',
    ).toEqual([
      ['t1', 'A'],
      ['t2', 'B'],
    ]);
  });
});

describe('runTask (src/planning/task.ts) at its edges', () => {
  const bare: Omit<TaskOptions, 'makeChild'> = { tools: () => [] };

  test("it works with no emit, and its events say turn 0 and call id '' when the context has none", async () => {
    const children = childFactory([[assistantText('answer', usage(5, 1))], [assistantText('again', usage(5, 1))]]);
    await expect(
      runTask({ ...bare, makeChild: children.makeChild }, { description: 'd', prompt: 'p' }, {}),
      'runTask: ctx.emit may be absent (ctx.emit?.(...))',
    ).resolves.toBe('answer');
    const seen: AgentEvent[] = [];
    await runTask(
      { ...bare, makeChild: children.makeChild },
      { description: 'd', prompt: 'p' },
      { emit: (event) => void seen.push(event) },
    );
    expect(seen[0], "runTask: turn 0 and call id '' when absent (guided step 4)").toMatchObject({
      type: 'subagent',
      turn: 0,
      callId: '',
    });
    expect(seen.at(-1), 'runTask guided step 5').toEqual({ type: 'usage', turn: 0, usage: usage(5, 1) });
  });

  test('a child that answers with nothing but spaces: the result says it gave no answer', async () => {
    const children = childFactory([[assistantText('   ')]]);
    await expect(
      runTask({ ...bare, makeChild: children.makeChild }, { description: 'd', prompt: 'p' }, {}),
      'runTask: an empty answer (once trimmed) is a sentence that says so (guided step 6)',
    ).resolves.toMatch(/\banswer\b/);
  });

  test('a child that wrote some text and then hit its turn limit has not answered: its text is not the result', async () => {
    const busy = (id: string) => {
      const turn = callsTurn(call(id, 'read', { path: 'b.ts' }));
      return { ...turn, content: [{ type: 'text' as const, text: 'Let me check b.ts next.' }, ...turn.content] };
    };
    const children = childFactory([[busy('k1'), busy('k2')]]);
    const error = await runTask(
      { ...bare, makeChild: children.makeChild, maxTurns: 2 },
      { description: 'd', prompt: 'p' },
      {},
    ).then(
      (answer) => `resolved with ${JSON.stringify(answer)}`,
      (e: unknown) => e,
    );
    expect(
      error,
      "runTask: decide by the done's reason: only end_turn is an answer; a child stopped at its turn limit failed, whatever text it wrote last (guided step 6)",
    ).toBeInstanceOf(Error);
    expect(String(error), 'runTask: the error gives the reason (guided step 6)').toContain('turn_limit');
  });

  test('a child whose events end without a done is a failure that says so', async () => {
    const silent = { run: async function* () {} };
    await expect(
      runTask({ ...bare, makeChild: () => silent }, { description: 'd', prompt: 'p' }, {}),
      'runTask: no done event is not an answer (guided step 6)',
    ).rejects.toThrow('task: the sub-agent did not finish (no done event)');
  });
});
