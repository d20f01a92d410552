/**
 * The learner's stubs: where each chapter region is in starter/src, whether its body is still the stub, which tests
 * belong to it, and which one to work on next.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { listRegions, type StubInfo } from '../lib/regions.js';
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
export function chapterStubs(root: string, chapter: number, workspace: 'starter' | 'solution' = 'starter'): LearnerStub[] {
  const stubs = learnerStubs(root, workspace).filter((stub) => stub.chapter === chapter);
  const order = hintOrder(root, chapter);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return stubs
    .map((stub, index) => ({ stub, index }))
    .sort((a, b) => rank(a.stub.name) - rank(b.stub.name) || a.index - b.index)
    .map(({ stub }) => stub);
}

/** The stub a failing test points at: named in a TODO message, or by the test's describe block. */
export function stubOfTest(test: TestOutcome, stubs: readonly StubInfo[]): StubInfo | undefined {
  const todo = /TODO\(chapter (\d+)\): (\S+)/.exec(test.message);
  if (todo) return stubs.find((stub) => stub.chapter === Number(todo[1]) && stub.name === todo[2]);
  return stubs.find((stub) => stub.chapter === test.chapter && test.suites.some((suite) => suiteNamesStub(suite, stub.name)));
}

/**
 * True when a describe title names the stub: `singleTurn (src/agent.ts)` names singleTurn, `ToolSet (src/tool.ts)`
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
  return stubs.map((stub) => {
    const failing = tests.filter((test) => test.status === 'failed' && stubOfTest(test, stubs) === stub);
    return { stub, failing, done: !stub.todo && failing.length === 0 };
  });
}

/** The first stub, in teaching order, whose body still throws TodoError or whose tests fail. */
export function firstUnfinished(stubs: readonly LearnerStub[], tests: readonly TestOutcome[]): StubProgress | undefined {
  return stubProgress(stubs, tests).find((entry) => !entry.done);
}
