/**
 * What npm run watch shows after a run of a chapter's tests: the first failing test, the stub to edit and the hint
 * command (or that the chapter passes), then the type errors of the learner's files and the earlier chapters that
 * fail now.
 */
import { stepNote } from '../step-note.js';
import { chaptersWithTests } from '../args.js';
import type { TestOutcome } from '../run-tests.js';
import { chapterPointer, chapterStubs, learnerStubs, type LearnerStub, type Pointer } from '../stubs.js';
import { formatTypeErrors, type TypeErrorInfo } from '../typecheck.js';
import { bar, bold, chapterTitle, cyan, dim, green, indent, red, yellow } from '../ui.js';

/** The failing test to show and where it points (stubs.ts, chapterPointer); undefined when nothing failed. */
function focus(root: string, chapter: number, tests: readonly TestOutcome[]) {
  return chapterPointer(chapterStubs(root, chapter), learnerStubs(root), tests);
}

/**
 * The stub the focused failure points at (an earlier chapter's stub when the test reached its TODO or its bug); when
 * it cannot tell, the most suspicious of the stubs the test exercised (for the hint key, never shown as "Edit").
 */
export function focusStub(root: string, chapter: number, tests: readonly TestOutcome[]): LearnerStub | undefined {
  const pointer = focus(root, chapter, tests)?.pointer;
  return pointer?.kind === 'stub' ? pointer.stub : pointer?.kind === 'several' ? pointer.stubs[0] : undefined;
}

/** The lines that say where to look: one stub to edit, or the stubs the test exercised when nothing tells which. */
export function pointerLines(pointer: Pointer): string[] {
  const at = (stub: LearnerStub) =>
    `${cyan(`${stub.file}:${stub.line}`)}  ${dim(`(#region chapter ${stub.chapter}: ${stub.name})`)}`;
  if (pointer.kind === 'stub') return [`${bold('Edit:')} ${at(pointer.stub)}`];
  if (pointer.kind === 'none') return [];
  return [
    `${bold('Check:')} this test exercised ${pointer.stubs.length} stubs you have written, and nothing tells which is wrong.`,
    dim(
      pointer.named
        ? `  Its failure names a step of ${pointer.named.name}: start there, then the others it calls.`
        : '  Compare each with what the failure says above (most suspicious first):',
    ),
    ...pointer.stubs.map((stub) => `  ${at(stub)}`),
  ];
}

/** An earlier chapter whose tests fail now. */
export interface Regression {
  chapter: number;
  failed: number;
  total: number;
  /** The chapter still has unwritten stubs (not a regression, just unfinished). */
  unfinished?: boolean;
}

export interface Extras {
  /** Type errors of the learner's project; undefined while the check runs (or when it was skipped). */
  typeErrors?: readonly TypeErrorInfo[];
  /** Earlier chapters with failing tests. */
  regressions?: readonly Regression[];
}

/** The lines that follow the test screen: type errors, earlier chapters that broke. Empty when all is well. */
export function renderExtras(extras: Extras): string {
  const out: string[] = [];
  if (extras.typeErrors?.length) {
    out.push(
      '',
      yellow(`Type errors in your code (${extras.typeErrors.length}; the tests strip types, tsc does not):`),
      indent(formatTypeErrors(extras.typeErrors), '  '),
    );
  }
  for (const r of extras.regressions ?? []) {
    const what = r.unfinished
      ? `${r.failed} of ${r.total} tests fail (it has stubs left to write).`
      : `${r.failed} of ${r.total} tests fail now.`;
    out.push(
      '',
      yellow(`! Chapter ${r.chapter} (${chapterTitle(r.chapter)}): ${what}`) +
        ` Press p to go back, or run "npm run watch -- chapter${r.chapter}".`,
    );
  }
  return out.join('\n');
}

/** The screen for one run of a chapter's tests. */
export function renderChapter(
  root: string,
  chapter: number,
  tests: readonly TestOutcome[],
  errors: readonly string[] = [],
  extras: Extras = {},
): string {
  const passed = tests.filter((t) => t.status === 'passed').length;
  // A file that could not load stands for tests that never ran: no count of them is known here, so no total is shown
  // (progress counts them from the solution's run).
  const unloaded = tests.filter((t) => t.name === `${t.file} could not load`).length;
  const tally = unloaded
    ? `${passed} passing · ${unloaded} test file${unloaded > 1 ? 's' : ''} could not load`
    : `${passed}/${tests.length} passing`;
  const out = [`${bold(`Chapter ${chapter} · ${chapterTitle(chapter)}`)}   ${bar(passed, tests.length)} ${tally}`, ''];
  const tail = renderExtras(extras);
  if (tests.length > 0 && passed === tests.length && errors.length === 0) {
    const next = chaptersWithTests(root).find((n) => n > chapter);
    // Code that does not type-check is not done: the tests strip types, so they can all pass above a type error.
    out.push(
      extras.typeErrors?.length
        ? yellow(`Every test of chapter ${chapter} passes, but your code does not type-check yet (below).`)
        : green(`✓ Every test of chapter ${chapter} passes.`) +
            (next ? ` Press n for chapter ${next}.` : ' That was the last chapter!'),
    );
    if (tail) out.push(tail);
    return out.join('\n');
  }
  const focused = focus(root, chapter, tests);
  let hintChapter = chapter;
  if (focused) {
    const { test } = focused;
    out.push(red(`✗ ${test.fullName}`), dim(`  ${test.file}${test.line ? `:${test.line}` : ''}`), '');
    const message = test.message.split('\n');
    out.push(indent(message.slice(0, 6).join('\n'), '  '));
    const note = stepNote(test.message, focused.pointer.kind === 'stub' ? focused.pointer.stub.chapter : chapter);
    if (note) out.push(dim(`  ${note}`));
    if (test.expected !== undefined && test.actual !== undefined) {
      const short = (s: string) => (s.split('\n').length > 15 ? `${s.split('\n').slice(0, 15).join('\n')}\n…` : s);
      out.push(
        '',
        `  ${green('Expected:')}`,
        indent(short(test.expected), '    '),
        `  ${red('Actual:')}`,
        indent(short(test.actual), '    '),
      );
    }
    // A TODO (or a bug) in an earlier chapter's stub points at that stub: fix it first.
    out.push('', ...pointerLines(focused.pointer));
    hintChapter = focusStub(root, chapter, tests)?.chapter ?? chapter;
  } else if (errors.length) {
    out.push(red('✗ A test file could not load:'), indent(errors[0]!, '  '));
  }
  out.push(
    `${bold('Hint:')} npm run hint -- chapter${hintChapter}  ${dim(hintChapter === chapter ? '(or press h)' : `(chapter ${hintChapter} comes first)`)}`,
  );
  if (tail) out.push(tail);
  return out.join('\n');
}
