/**
 * Pointers that are right or honest (issue 44, point 2): where watch and hint point for a failing test
 * (scripts/kit/stubs.ts, pointTests and chapterPointer), what the screen says (screen.ts, pointerLines), and how
 * scripts/authors/pointers.ts judges it against the stub a known-wrong solution breaks.
 */
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { judgePointer, pointerGateFromOutcomes, pointerSummary } from '../../scripts/authors/pointers.js';
import type { WrongSolution } from '../../scripts/authors/lib/wrong-solutions.js';
import { stripAnsi } from '../../scripts/kit/outcomes.js';
import { chapterPointer, pointTests, type LearnerStub } from '../../scripts/kit/stubs.js';
import type { TestOutcome } from '../../scripts/kit/test-outcome.js';
import { pointerLines } from '../../scripts/kit/watch/screen.js';
import { REPO } from './helpers.js';

const stub = (name: string, chapter = 7, todo = false): LearnerStub => ({
  chapter,
  name,
  file: `starter/src/${name.toLowerCase()}.ts`,
  line: 10,
  steps: [],
  body: [],
  todo,
});
const composeHooks = stub('composeHooks');
const runSerially = stub('runSerially');
const toolSetAdd = stub('ToolSet.add', 2);
const executeToolCall = stub('executeToolCall', 3);
const stubs = [toolSetAdd, executeToolCall, composeHooks, runSerially];

const outcome = (
  name: string,
  status: 'passed' | 'failed',
  regions: string[],
  message = status === 'failed' ? 'expected true to be false' : '',
  suite = 'composeHooks (src/hooks.ts)',
): TestOutcome => ({
  chapter: 7,
  file: 'tests/chapter07/hooks.test.ts',
  suites: [suite],
  name,
  fullName: `${suite} > ${name}`,
  status,
  message,
  regions,
});

describe('pointers (scripts/kit/stubs.ts)', () => {
  it('does not guess between written stubs the failing test reached: it lists them, whatever the title names', () => {
    // The case of the issue: runSerially is wrong, the failing test is titled after composeHooks and reaches both.
    const failing = outcome('a block is returned at once', 'failed', [
      'chapter 7: composeHooks',
      'chapter 7: runSerially',
    ]);
    const pointer = pointTests([failing], stubs).get(failing)!;
    expect(pointer.kind, 'several written stubs, nothing telling which').toBe('several');
    expect(pointer.kind === 'several' && pointer.stubs.map((s) => s.name)).toEqual(
      expect.arrayContaining(['composeHooks', 'runSerially']),
    );
    const lines = stripAnsi(pointerLines(pointer).join('\n'));
    expect(lines, 'no Edit line for a guess').not.toMatch(/Edit:/);
    expect(lines).toMatch(/^Check: this test exercised 2 stubs you have written/);
    expect(lines).toContain('starter/src/runserially.ts:10  (#region chapter 7: runSerially)');
  });

  it('puts first the stub whose step the failure message names', () => {
    const failing = outcome(
      'stops when aborted',
      'failed',
      ['chapter 7: composeHooks', 'chapter 7: runSerially'],
      'runSerially step 2: an aborted signal stops before the next call',
    );
    const pointer = pointTests([failing], stubs).get(failing)!;
    expect(pointer).toMatchObject({ kind: 'several', named: runSerially, stubs: [runSerially, composeHooks] });
    expect(stripAnsi(pointerLines(pointer).join('\n'))).toMatch(/names a step of runSerially: start there/);
  });

  it('names one stub when the failure does: a TODO, the only stub reached, or the only one shown wrong', () => {
    const todo = outcome('x', 'failed', ['chapter 7: composeHooks'], 'TodoError: TODO(chapter 7): runSerially');
    const only = outcome('y', 'failed', ['chapter 7: runSerially']);
    const both = outcome('z', 'failed', ['chapter 7: composeHooks', 'chapter 7: runSerially']);
    const pointers = pointTests([todo, only, both], stubs);
    expect(pointers.get(todo)).toMatchObject({ kind: 'stub', stub: runSerially, why: 'todo' });
    expect(pointers.get(only)).toMatchObject({ kind: 'stub', stub: runSerially, why: 'only' });
    expect(pointers.get(both), 'y shows runSerially wrong, and z reached it').toMatchObject({
      kind: 'stub',
      stub: runSerially,
      why: 'shown',
    });
    expect(stripAnsi(pointerLines(pointers.get(only)!).join('\n'))).toBe(
      'Edit: starter/src/runserially.ts:10  (#region chapter 7: runSerially)',
    );
  });

  it("weighs a stub of the test's chapter that the message names even where the test's trace missed it", () => {
    // The stub ran in the file's beforeAll: the test's own trace holds only the other one.
    const failing = outcome('progress arrives', 'failed', ['chapter 7: composeHooks'], 'runSerially step 4: too late');
    expect(pointTests([failing], stubs).get(failing)).toMatchObject({
      kind: 'several',
      named: runSerially,
      stubs: [runSerially, composeHooks],
    });
  });

  it("weighs an earlier chapter's stubs only when the test reached none of its own chapter", () => {
    const viaOwn = outcome('a', 'failed', [
      'chapter 2: ToolSet.add',
      'chapter 3: executeToolCall',
      'chapter 7: runSerially',
    ]);
    const viaEarlier = outcome('b', 'failed', ['chapter 2: ToolSet.add', 'chapter 3: executeToolCall']);
    const pointers = pointTests([viaOwn, viaEarlier], stubs);
    expect(pointers.get(viaOwn)).toMatchObject({ kind: 'stub', stub: runSerially, why: 'only' });
    // Chapter 4's refused path, blamed on ToolSet.add in the issue: both earlier stubs are listed, neither guessed.
    expect(pointers.get(viaEarlier)).toMatchObject({ kind: 'several' });
  });

  it('shows a failure that names one stub before one that lists several', () => {
    const listed = outcome('a', 'failed', ['chapter 7: composeHooks', 'chapter 7: runSerially']);
    const named = outcome('b', 'failed', ['chapter 3: executeToolCall'], 'TodoError: TODO(chapter 3): executeToolCall');
    expect(chapterPointer([composeHooks, runSerially], stubs, [listed, named])).toMatchObject({
      test: named,
      pointer: { kind: 'stub', stub: executeToolCall },
    });
    expect(chapterPointer([composeHooks, runSerially], stubs, [outcome('c', 'passed', [])])).toBeUndefined();
  });
});

describe('judging pointers (scripts/authors/pointers.ts)', () => {
  const two = ['chapter 7: composeHooks', 'chapter 7: runSerially'];
  it('right for the broken stub named, honest for a list that holds it, wrong otherwise', () => {
    const chapter = [composeHooks, runSerially];
    expect(judgePointer(chapter, stubs, [outcome('a', 'failed', ['chapter 7: runSerially'])], 'runSerially')).toEqual({
      got: 'runSerially',
      verdict: 'right',
    });
    expect(judgePointer(chapter, stubs, [outcome('a', 'failed', two)], 'runSerially').verdict).toBe('honest');
    expect(judgePointer(chapter, stubs, [outcome('a', 'failed', ['chapter 7: composeHooks'])], 'runSerially')).toEqual({
      got: 'composeHooks',
      verdict: 'wrong',
    });
    expect(judgePointer(chapter, stubs, [outcome('a', 'failed', [])], 'runSerially').verdict).toBe('wrong');
  });

  it("counts each chapter's right, honest and wrong", () => {
    const summary = pointerSummary([
      { chapter: 7, slug: 'a', want: 'x', verdict: 'right', uncaught: false },
      { chapter: 7, slug: 'b', want: 'x', verdict: 'honest', uncaught: false },
      { chapter: 7, slug: 'c', want: 'x', verdict: 'wrong', uncaught: false },
      { chapter: 8, slug: 'd', want: 'x', uncaught: true },
    ]);
    expect(summary).toEqual([
      'chapter 7: 1 right, 1 honest, 1 wrong of 3 (66% right or honest)',
      'chapter 8: 0 right, 0 honest, 0 wrong of 0 (100% right or honest)',
      'all: 1 right, 1 honest, 1 wrong of 3 (66% right or honest)',
    ]);
  });

  it("gates verify's own outcomes: a wrong pointer fails it and is named", () => {
    const wrong = (slug: string): WrongSolution => ({
      chapter: 3,
      slug,
      file: path.join(REPO, `tests/chapter03/wrong/${slug}.txt`),
      region: 'chapter 3: executeToolCall',
      expect: /x/,
      why: 'a mistake',
      body: [],
    });
    const failing = (regions: string[]) => ({
      file: 'tests/chapter03/safe-call.test.ts',
      name: 'executeToolCall (src/safe-call.ts) > an unknown tool becomes an error result',
      state: 'failed',
      messages: ['AssertionError: expected 1 to be 2'],
      regions,
    });
    const honest = pointerGateFromOutcomes(REPO, [
      { wrong: wrong('a'), outcomes: [failing(['chapter 3: executeToolCall', 'chapter 3: singleTurn'])] },
    ]);
    expect(honest).toMatchObject({ ok: true, misses: [] });
    expect(honest.summary.at(-1)).toBe('all: 0 right, 1 honest, 0 wrong of 1 (100% right or honest)');
    const missed = pointerGateFromOutcomes(REPO, [
      { wrong: wrong('b'), outcomes: [failing(['chapter 3: singleTurn'])] },
    ]);
    expect(missed.ok).toBe(false);
    expect(missed.misses).toEqual([
      'tests/chapter03/wrong/b.txt: watch and hint point at singleTurn, the mistake is in executeToolCall',
    ]);
  });
});
