import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { AgentEvent, PermissionAnswer } from 'kit/agent-events';
import { oneAtATime } from 'kit/capstone/question';
import { assistantText, assistantToolCalls, userMessage, type Message } from 'kit/messages';
import type { ModelRequest } from 'kit/provider';
import type { PermissionRequest } from 'kit/permissions/gate';
import { build, workspace } from './factory-fixtures.js';

/** A promise and the functions that settle it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => ((resolve = yes), (reject = no)));
  return { promise, resolve, reject };
}

/** Lets every promise callback that is already due run (a macrotask: the queue is promises only). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Resolves once nothing in this thread waits on the file system any more (three turns of the event loop in a row
 * without a pending fs request), or as soon as `done()` holds. A busy machine makes fs calls slower, never this
 * wait wrong: it ends on what the code is doing, not on how long it took.
 */
async function settled(done: () => boolean): Promise<void> {
  for (let calm = 0; calm < 3 && !done(); ) {
    await flush();
    const busy = process.getActiveResourcesInfo().some((name) => name.startsWith('FSReq'));
    calm = busy ? 0 : calm + 1;
  }
}

/** A question for the line: records when it is shown, and is answered when the test says so. */
function question(name: string, shown: string[]) {
  const answer = deferred<string>();
  const show = () => {
    shown.push(name);
    return answer.promise;
  };
  return { show, answer };
}

type State<T> = { status: 'pending' } | { status: 'resolved'; value: T } | { status: 'rejected'; error: unknown };

/**
 * Watches a promise without waiting for it: `now()` says how it stands once every due callback has run. The queue is
 * made of promises only, so after a flush nothing more will happen until the test answers a question; a wrong queue
 * that never settles is seen as pending instead of hanging the test, and a rejection is never left unhandled.
 */
function watch<T>(promise: Promise<T>) {
  let state: State<T> = { status: 'pending' };
  promise.then(
    (value) => (state = { status: 'resolved', value }),
    (error: unknown) => (state = { status: 'rejected', error }),
  );
  return {
    async now(): Promise<State<T>> {
      await flush();
      return state;
    },
  };
}

describe('oneAtATime (src/capstone/question.ts)', () => {
  test('two questions asked at once: the second is shown once the first is answered, and each caller gets its own answer', async () => {
    const turn = oneAtATime();
    const shown: string[] = [];
    const signal = new AbortController().signal;
    const a = question('a', shown);
    const b = question('b', shown);
    const first = watch(turn(a.show, signal));
    const second = watch(turn(b.show, signal));
    await flush();
    expect(
      shown,
      'oneAtATime: while the first question is open, the second waits (one question on screen at a time) (guided step 2)',
    ).toEqual(['a']);
    a.answer.resolve('yes to a');
    expect(await first.now(), 'oneAtATime: the first caller gets the first answer (guided step 4)').toEqual({
      status: 'resolved',
      value: 'yes to a',
    });
    expect(
      shown,
      'oneAtATime: the second question is shown once the first is answered (none dropped) (guided step 2)',
    ).toEqual(['a', 'b']);
    expect(await second.now(), 'oneAtATime: the second caller waits for its own answer (guided step 4)').toEqual({
      status: 'pending',
    });
    b.answer.resolve('no to b');
    expect(
      await second.now(),
      'oneAtATime: the second caller gets the second answer (none dropped, none swapped) (guided step 4)',
    ).toEqual({ status: 'resolved', value: 'no to b' });
    expect(shown, 'oneAtATime: each question shown once, in the order asked').toEqual(['a', 'b']);
  });

  test('a third question waits for the second, not only for the first', async () => {
    const turn = oneAtATime();
    const shown: string[] = [];
    const signal = new AbortController().signal;
    const [a, b, c] = ['a', 'b', 'c'].map((name) => question(name, shown));
    const answers = [a!, b!, c!].map((q) => watch(turn(q.show, signal)));
    await flush();
    a!.answer.resolve('A');
    await flush();
    expect(
      shown,
      'oneAtATime: once the first is answered the second is shown, and the third waits for the one just before it (guided step 2)',
    ).toEqual(['a', 'b']);
    b!.answer.resolve('B');
    await flush();
    expect(shown, 'oneAtATime: the third question is shown once the second is answered (guided step 2)').toEqual([
      'a',
      'b',
      'c',
    ]);
    c!.answer.resolve('C');
    const states = [];
    for (const one of answers) states.push(await one.now());
    expect(states, 'oneAtATime: every caller gets its own answer (guided step 4)').toEqual(
      ['A', 'B', 'C'].map((value) => ({ status: 'resolved', value })),
    );
  });

  test('a question that failed does not stop the ones after it', async () => {
    const turn = oneAtATime();
    const shown: string[] = [];
    const signal = new AbortController().signal;
    const a = question('a', shown);
    const b = question('b', shown);
    const first = watch(turn(a.show, signal));
    const second = watch(turn(b.show, signal));
    await flush();
    a.answer.reject(new Error('the terminal went away'));
    expect(
      await first.now(),
      'oneAtATime: the failed question rejects for its caller, with its own error (guided step 4)',
    ).toMatchObject({ status: 'rejected', error: { message: 'the terminal went away' } });
    expect(
      shown,
      'oneAtATime: the next question is still shown after one failed (wait for it to settle either way) (guided step 3)',
    ).toEqual(['a', 'b']);
    b.answer.resolve('B');
    expect(await second.now(), 'oneAtATime: and its caller gets its answer (guided step 3)').toEqual({
      status: 'resolved',
      value: 'B',
    });
  });

  test('a question whose run was stopped while it waited is never shown; the ones after it still are', async () => {
    const turn = oneAtATime();
    const shown: string[] = [];
    const stopped = new AbortController();
    const open = new AbortController().signal;
    const [a, b, c] = ['a', 'b', 'c'].map((name) => question(name, shown));
    const first = watch(turn(a!.show, open));
    const second = watch(turn(b!.show, stopped.signal));
    const third = watch(turn(c!.show, open));
    await flush();
    stopped.abort(new Error('stopped with Ctrl-C'));
    a!.answer.resolve('A');
    await flush();
    expect(
      shown,
      'oneAtATime: a question whose signal aborted while it waited is not shown; the next one is (guided step 4)',
    ).toEqual(['a', 'c']);
    expect(
      await second.now(),
      "oneAtATime: the stopped question rejects with the signal's reason (guided step 4)",
    ).toMatchObject({ status: 'rejected', error: { message: 'stopped with Ctrl-C' } });
    c!.answer.resolve('C');
    expect(await first.now(), 'oneAtATime').toEqual({ status: 'resolved', value: 'A' });
    expect(await third.now(), 'oneAtATime').toEqual({ status: 'resolved', value: 'C' });
  });
});

/** The text of a request's first user message: which agent is asking. */
const firstPrompt = (request: ModelRequest) => {
  const first = request.messages.find((m: Message) => m.role === 'user');
  return first && typeof first.content === 'string' ? first.content : JSON.stringify(first?.content ?? '');
};

describe('gateFor: two sub-agents asking at once (src/capstone/factory-steps.ts)', () => {
  test('their questions reach the person one at a time, none lost, each answer to its own call', async () => {
    const { cwd, home } = workspace();
    // The parent starts two sub-agents side by side; each wants to run one command that needs asking.
    const model = (request: ModelRequest) => {
      const who = firstPrompt(request);
      if (who === 'go') return assistantText('both children finished');
      const name = who === 'make one' ? 'one' : 'two';
      if (request.messages.some((m) => m.role === 'tool')) return assistantText(`${name} done`);
      return assistantToolCalls([{ id: `k-${name}`, name: 'bash', arguments: { command: `touch ${name}.txt` } }]);
    };
    const questions: Array<{ request: PermissionRequest; answer: (value: PermissionAnswer) => void }> = [];
    let open = 0;
    let most = 0;
    let arrived = deferred<void>();
    const { built } = await build(
      [
        assistantToolCalls([
          { id: 't1', name: 'task', arguments: { description: 'one', prompt: 'make one' } },
          { id: 't2', name: 'task', arguments: { description: 'two', prompt: 'make two' } },
        ]),
        model,
        model,
        model,
        model,
        model,
      ],
      {
        cwd,
        home,
        ask: (request) =>
          new Promise<PermissionAnswer>((resolve) => {
            open++;
            most = Math.max(most, open);
            questions.push({
              request,
              answer: (value) => {
                open--;
                resolve(value);
              },
            });
            arrived.resolve();
          }),
      },
    );
    built.history.push(userMessage('go'));
    const events: AgentEvent[] = [];
    let seen = deferred<void>();
    const run = (async () => {
      for await (const event of built.agent.run(built.history)) {
        events.push(event);
        seen.resolve();
        seen = deferred<void>();
      }
    })();
    let ended = false;
    void run.finally(() => (ended = true));
    /** Waits for `promise`, or fails with `message` if the run ends first (a lost question would hang instead). */
    const before = async (promise: Promise<void>, message: string) => {
      await Promise.race([promise, run]);
      if (ended && questions.length === 0) expect.fail(message);
    };
    const requested = () =>
      events.filter((e) => e.type === 'subagent' && e.event.type === 'tool_call_requested').length;
    await before(
      arrived.promise,
      "gateFor: the sub-agents' commands need asking, so config.ask (through queuedQuestions) is asked",
    );
    while (requested() < 2 && !ended) await Promise.race([seen.promise, run]); // both children have asked for their command
    // The second child now either asked (the gate called config.ask directly) or waits in the queue: let whatever it
    // still does on the disk (the gate resolves paths) finish before looking.
    await settled(() => questions.length > 1);
    expect(
      most,
      'gateFor: the second sub-agent asked while the first question was open: the gate must ask through queuedQuestions(config) (one question at a time)',
    ).toBe(1);
    expect(questions, 'gateFor: one question on screen at a time').toHaveLength(1);
    arrived = deferred<void>();
    const first = questions[0]!;
    first.answer(
      first.request.call.arguments && JSON.stringify(first.request.call.arguments).includes('one.txt')
        ? 'allow_once'
        : 'reject_once',
    );
    await Promise.race([arrived.promise, run]);
    expect(questions, 'gateFor: the second question is asked once the first is answered (none lost)').toHaveLength(2);
    expect(most, 'gateFor: still one question at a time').toBe(1);
    const second = questions[1]!;
    second.answer(JSON.stringify(second.request.call.arguments).includes('one.txt') ? 'allow_once' : 'reject_once');
    await run;
    const done = events.at(-1);
    expect(
      done?.type === 'done' && done.reason,
      'buildAgent: the run with two sub-agents that asked ends normally',
    ).toBe('end_turn');
    expect(
      questions.map((q) => (q.request.call.arguments as { command: string }).command).sort(),
      'gateFor: both sub-agents were asked about, once each',
    ).toEqual(['touch one.txt', 'touch two.txt']);
    expect(existsSync(path.join(cwd, 'one.txt')), 'gateFor: "yes" went to the call it was given for').toBe(true);
    expect(existsSync(path.join(cwd, 'two.txt')), 'gateFor: "no" went to the call it was given for').toBe(false);
  });
});
