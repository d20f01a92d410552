/**
 * The learner's stubs: where each chapter region is in starter/src, whether its body is still the stub, which tests
 * belong to it, and which one to work on next.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { listRegions, type StubInfo } from '../lib/regions.js';
import { chaptersWithTests } from './args.js';
import { hintOrder } from './hints.js';
import type { TestOutcome } from './run-tests.js';

export interface LearnerStub extends StubInfo {
  /** The body still throws TodoError (the learner has not written it yet). */
  todo: boolean;
}

/** Every region of the learner's tree (starter/ by default), with its stub state. */
export function learnerStubs(root: string, workspace: 'starter' | 'solution' = 'starter'): LearnerStub[] {
  if (!existsSync(path.join(root, workspace, 'src'))) return [];
  return listRegions(root, workspace).map((stub) => ({
    ...stub,
    todo: stub.body.some((line) => /\bthrow new TodoError\(/.test(line)),
  }));
}

/** The stubs of one chapter, in the order the chapter teaches them (its hints.md), then region order. */
export function chapterStubs(
  root: string,
  chapter: number,
  workspace: 'starter' | 'solution' = 'starter',
): LearnerStub[] {
  const stubs = learnerStubs(root, workspace).filter((stub) => stub.chapter === chapter);
  const order = hintOrder(root, chapter);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return stubs
    .map((stub, index) => ({ stub, index }))
    .sort((a, b) => rank(a.stub.name) - rank(b.stub.name) || a.index - b.index)
    .map(({ stub }) => stub);
}

const TODO = /TODO\(chapter (\d+)\): (\S+)/;
const keyOf = (stub: Pick<StubInfo, 'chapter' | 'name'>) => `chapter ${stub.chapter}: ${stub.name}`;

/**
 * The stub each failing test points at, in this order:
 * 1. the stub named in a TODO message (`TODO(chapter 3): SimpleAgent.chat`): the test reached an unwritten stub;
 * 1b. among the stubs whose code the test reached, the one whose step the failure message names, when it names
 *    exactly one (`runToolCall step 5: ...`: the graded tests label their assertions with the step they check);
 * 2. among the stubs whose code the test reached (its `regions`, recorded at run time by trace.ts): the one its
 *    describe title names, when the title names exactly one of them (`singleTurn (src/simple-agent.ts)`);
 * 3. otherwise (a title naming several, `SimpleAgent.run and chat`, or none), among the reached stubs: one that steps
 *    1-2 already blamed for another failure (one mistake usually explains many failures), then the most suspicious
 *    across the whole run, reached by as many failing tests and as few passing ones as possible (the Ochiai score of
 *    spectrum-based fault localisation). With `chat` wrong and `run` right, the tests of run fail too, but the tests
 *    that call chat directly fail as well and none of them reaches run, so chat scores higher. Ties go to a stub of
 *    the test's own chapter, then to one the title names, then to the one the test reached first;
 * 4. without a trace (a test that reached no region, or results from an older reporter): the stub its describe
 *    title names.
 * On the known-wrong solutions of chapters 1-7 (one wrong stub each, the rest solved), the chapter's first unfinished
 * stub is the wrong one for 127 of 143 (scripts/authors/pointers.ts); by describe title alone, for 100 of 142.
 */
export function assignStubs<S extends StubInfo>(
  tests: readonly TestOutcome[],
  stubs: readonly S[],
): Map<TestOutcome, S | undefined> {
  // A failure with a TODO message is explained by its stub: it says nothing about the others.
  const explained = (test: TestOutcome) => TODO.test(test.message);
  const failedTotal = tests.filter((t) => t.status === 'failed' && !explained(t)).length;
  const failedAt = new Map<string, number>();
  const passedAt = new Map<string, number>();
  for (const test of tests) {
    if (test.status === 'skipped' || explained(test)) continue;
    const counts = test.status === 'failed' ? failedAt : passedAt;
    for (const key of new Set(test.regions ?? [])) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const score = (key: string) => {
    const failed = failedAt.get(key) ?? 0;
    const passed = passedAt.get(key) ?? 0;
    return failed === 0 ? 0 : failed / Math.sqrt(failedTotal * (failed + passed));
  };
  const byKey = new Map(stubs.map((stub) => [keyOf(stub), stub]));
  const result = new Map<TestOutcome, S | undefined>();
  const later: TestOutcome[] = [];
  const reachedBy = (test: TestOutcome) => (test.regions ?? []).filter((key) => byKey.has(key));
  const named = (test: TestOutcome, key: string) =>
    test.suites.some((suite) => suiteNamesStub(suite, byKey.get(key)!.name));
  // First pass: the failures that name their stub (a TODO message, or a title naming exactly one reached stub).
  for (const test of tests) {
    if (test.status !== 'failed') continue;
    const todo = TODO.exec(test.message);
    if (todo) {
      result.set(test, byKey.get(`chapter ${Number(todo[1])}: ${todo[2]}`));
      continue;
    }
    const stepped = reachedBy(test).filter((key) => messageNamesStep(test.message, byKey.get(key)!.name));
    if (stepped.length === 1) {
      result.set(test, byKey.get(stepped[0]!));
      continue;
    }
    const titled = reachedBy(test).filter((key) => named(test, key));
    if (titled.length === 1) result.set(test, byKey.get(titled[0]!));
    else later.push(test);
  }
  // Second pass: the rest, by the reached stubs. One mistake usually explains many failures, so a stub the first pass
  // already blamed is preferred to one it did not; among equals, the most suspicious.
  const blamed = new Set([...result.values()].filter((stub) => stub !== undefined).map((stub) => keyOf(stub!)));
  for (const test of later) {
    const reached = reachedBy(test);
    if (reached.length > 0) {
      const rank = (key: string): number[] => [
        blamed.has(key) ? 1 : 0,
        score(key),
        byKey.get(key)!.chapter === test.chapter ? 1 : 0,
        named(test, key) ? 1 : 0,
        -reached.indexOf(key),
      ];
      const better = (a: number[], b: number[]) => {
        for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
        return false;
      };
      let best = reached[0]!;
      let bestRank = rank(best);
      for (const key of reached.slice(1)) {
        const r = rank(key);
        if (better(r, bestRank)) [best, bestRank] = [key, r];
      }
      result.set(test, byKey.get(best));
      continue;
    }
    result.set(
      test,
      stubs.find(
        (stub) => stub.chapter === test.chapter && test.suites.some((suite) => suiteNamesStub(suite, stub.name)),
      ),
    );
  }
  return result;
}

/**
 * Where the kit points a learner for a failing test, without guessing. The stubs it weighs are those the test reached
 * (its trace) of its own chapter or a later one, and those of its chapter whose step the failure message names: an
 * earlier chapter's stubs passed their own chapter's tests (the kit is done in order, and watch says when an earlier
 * chapter fails now), so they are weighed only when there is no other.
 * - `stub`: the one stub the failure is about: its message is a TODO of that stub (`todo`); or it is the only stub
 *   weighed (`only`); or, of those weighed, it is the only one another failure of the same run shows wrong (`shown`:
 *   a TODO, or the only stub a failing test reached);
 * - `several`: several written stubs are weighed and nothing tells which is wrong: each of them, the one whose step
 *   the failure message names first (`named`, when it names exactly one: `runSerially step 2: ...`), else the one
 *   assignStubs would pick, then the rest from the most suspicious (reached by the most failing tests of the run and
 *   the fewest passing ones), for the learner to check against what the failure says;
 * - `none`: the test reached no stub (it failed before calling any, or its file could not load).
 */
export type Pointer<S extends StubInfo = LearnerStub> =
  | { kind: 'stub'; stub: S; why: 'todo' | 'only' | 'shown' }
  | { kind: 'several'; stubs: S[]; named?: S }
  | { kind: 'none' };

/** Each failing test's pointer (see Pointer); `tests` is the whole run. */
export function pointTests<S extends StubInfo>(
  tests: readonly TestOutcome[],
  stubs: readonly S[],
): Map<TestOutcome, Pointer<S>> {
  const byKey = new Map(stubs.map((stub) => [keyOf(stub), stub]));
  const guesses = assignStubs(tests, stubs);
  // How suspicious each stub is over the whole run: reached by many failing tests and few passing ones (Ochiai).
  const failingOf = (key: string, status: TestOutcome['status']) =>
    tests.filter((t) => t.status === status && !TODO.test(t.message) && t.regions?.includes(key)).length;
  const failedTotal = tests.filter((t) => t.status === 'failed' && !TODO.test(t.message)).length;
  const suspicion = new Map<S, number>();
  const suspicionOf = (stub: S) => {
    if (!suspicion.has(stub)) {
      const failed = failingOf(keyOf(stub), 'failed');
      const passed = failingOf(keyOf(stub), 'passed');
      suspicion.set(stub, failed === 0 ? 0 : failed / Math.sqrt(failedTotal * (failed + passed)));
    }
    return suspicion.get(stub)!;
  };
  const result = new Map<TestOutcome, Pointer<S>>();
  const undecided: [TestOutcome, S[], S | undefined][] = [];
  for (const test of tests) {
    if (test.status !== 'failed') continue;
    const todo = TODO.exec(test.message);
    const named = todo && byKey.get(`chapter ${Number(todo[1])}: ${todo[2]}`);
    if (named) {
      result.set(test, { kind: 'stub', stub: named, why: 'todo' });
      continue;
    }
    const reached = [...new Set(test.regions ?? [])].flatMap((key) => byKey.get(key) ?? []);
    const own = reached.filter((stub) => stub.chapter >= test.chapter);
    // A stub of the test's chapter whose step the message names is weighed even when the test's own trace misses it
    // (it ran in the file's beforeAll, say): the failure is about it.
    const cited = stubs.filter(
      (stub) => stub.chapter === test.chapter && !own.includes(stub) && messageNamesStep(test.message, stub.name),
    );
    const weighed = own.length || cited.length ? [...own, ...cited] : reached;
    if (weighed.length === 0) result.set(test, { kind: 'none' });
    else if (weighed.length === 1) result.set(test, { kind: 'stub', stub: weighed[0]!, why: 'only' });
    else {
      const stepped = weighed.filter((stub) => messageNamesStep(test.message, stub.name));
      const guess = guesses.get(test);
      const first = stepped.length === 1 ? stepped[0] : guess && weighed.includes(guess) ? guess : undefined;
      const rest = weighed.filter((stub) => stub !== first).sort((a, b) => suspicionOf(b) - suspicionOf(a));
      const ordered = first ? [first, ...rest] : rest;
      undecided.push([test, ordered, stepped.length === 1 ? stepped[0] : undefined]);
    }
  }
  // A stub shown wrong by another failure (a TODO, the only stub a failing test reached) explains this one when it is
  // the only such stub among those weighed here.
  const shown = new Set([...result.values()].flatMap((p) => (p.kind === 'stub' ? [p.stub] : [])));
  for (const [test, weighed, named] of undecided) {
    const known = weighed.filter((stub) => shown.has(stub));
    result.set(
      test,
      known.length === 1
        ? { kind: 'stub', stub: known[0]!, why: 'shown' }
        : { kind: 'several', stubs: weighed, ...(named ? { named } : {}) },
    );
  }
  return result;
}

/**
 * What watch and hint show for a chapter's run: the failing test to look at and where it points. The test is the
 * first failing one whose pointer names one stub, the earliest in teaching order (`chapterStubs` first, then the
 * other chapters' stubs, earlier chapters first); else the failing test with the fewest stubs to check. Undefined
 * when nothing failed.
 */
export function chapterPointer<S extends LearnerStub>(
  chapterStubs: readonly S[],
  allStubs: readonly S[],
  tests: readonly TestOutcome[],
): { test: TestOutcome; pointer: Pointer<S> } | undefined {
  const pointers = pointTests(tests, allStubs);
  const failing = tests.filter((t) => t.status === 'failed');
  if (failing.length === 0) return undefined;
  // The chapter's stubs in teaching order, then the others by chapter (an earlier chapter's mistake comes first).
  const others = [...allStubs].sort((a, b) => a.chapter - b.chapter);
  const order = [...chapterStubs.map(keyOf), ...others.map(keyOf)];
  const rank = (pointer: Pointer<S>) =>
    pointer.kind === 'stub'
      ? order.indexOf(keyOf(pointer.stub))
      : pointer.kind === 'several'
        ? order.length + pointer.stubs.length
        : 2 * order.length;
  let best = failing[0]!;
  for (const test of failing.slice(1)) if (rank(pointers.get(test)!) < rank(pointers.get(best)!)) best = test;
  return { test: best, pointer: pointers.get(best)! };
}

/** The stub one failing test points at (see assignStubs); `tests` is the whole run, for the suspicion scores. */
export function stubOfTest<S extends StubInfo>(
  test: TestOutcome,
  stubs: readonly S[],
  tests: readonly TestOutcome[] = [test],
): S | undefined {
  return assignStubs(tests.includes(test) ? tests : [...tests, test], stubs).get(test);
}

/**
 * True when a failure message points at the stub, the way the graded tests label their assertions:
 * `runToolCall: …` or `runToolCall guided step 5: …` (and the older `runToolCall step 5: …`) names runToolCall;
 * `executeTools guided step 1` names StreamingAgent.executeTools (a method may be named without its class, but then
 * only with its step or at the start of the message); `StreamingAgent.chat step 2` does not name Agent.chat.
 */
export function messageNamesStep(message: string, stub: string): boolean {
  const member = stub.includes('.') ? stub.slice(stub.lastIndexOf('.') + 1) : undefined;
  const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [stub, member].some(
    (name) =>
      name !== undefined &&
      (new RegExp(`(^|[^\\w.])${escape(name)} (guided )?steps? \\d`).test(message) ||
        new RegExp(`^${escape(name)}: `).test(message) ||
        (name === stub && new RegExp(`(^|[^\\w.])${escape(name)}: `).test(message))),
  );
}

/**
 * True when a describe title names the stub: `singleTurn (src/simple-agent.ts)` names singleTurn, `ToolSet (src/tool.ts)`
 * names every ToolSet method, `SimpleAgent.run and chat (...)` names SimpleAgent.run and SimpleAgent.chat.
 */
export function suiteNamesStub(suite: string, stub: string): boolean {
  const head = suite.replace(/\s*\(.*$/, '').trim();
  if (head === stub || head.startsWith(`${stub} `)) return true;
  const [owner, member] = stub.split('.');
  if (!member) return false;
  const words = head.split(/[\s.,]+/);
  return words[0] === owner && (words.length === 1 || words.slice(1).includes(member!));
}

export interface StubProgress {
  stub: LearnerStub;
  failing: TestOutcome[];
  done: boolean;
}

/** Each stub of a chapter with the failing tests that point at it. A stub is done when it has a body and none fail. */
export function stubProgress(stubs: readonly LearnerStub[], tests: readonly TestOutcome[]): StubProgress[] {
  const assigned = assignStubs(tests, stubs);
  return stubs.map((stub) => {
    const failing = tests.filter((test) => test.status === 'failed' && assigned.get(test) === stub);
    return { stub, failing, done: !stub.todo && failing.length === 0 };
  });
}

/** The first stub, in teaching order, whose body still throws TodoError or whose tests fail. */
export function firstUnfinished(
  stubs: readonly LearnerStub[],
  tests: readonly TestOutcome[],
): StubProgress | undefined {
  return stubProgress(stubs, tests).find((entry) => !entry.done);
}

/** The first chapter with tests whose stubs are not all written (cheap: reads starter/src, runs nothing). */
export function likelyChapter(root: string): number {
  const all = chaptersWithTests(root);
  const todo = new Set(
    learnerStubs(root)
      .filter((s) => s.todo)
      .map((s) => s.chapter),
  );
  return all.find((n) => todo.has(n)) ?? all.at(-1) ?? 1;
}
