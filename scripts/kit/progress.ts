/** npm run progress (and npm run list): every chapter with passed/total and a bar, from one vitest run. */
import { CHAPTERS } from '../lib/chapters.js';
import { chaptersWithTests, hasTests, parseCommandArgs } from './args.js';
import { runTests, scoreByChapter, type ChapterScore, type TestOutcome } from './run-tests.js';
import { bar, bold, dim, green, table, yellow } from './ui.js';

/** The first chapter whose tests do not all pass, given results for every chapter. */
export function firstIncomplete(root: string, tests: readonly TestOutcome[]): number | undefined {
  const scores = scoreByChapter(tests);
  return chaptersWithTests(root).find((n) => {
    const score = scores.find((s) => s.chapter === n);
    return !score || score.passed < score.total || score.total === 0;
  });
}

/** Runs every chapter (reusing unchanged results) and returns the first that is not finished. */
export async function currentChapter(root: string): Promise<number | undefined> {
  const { tests } = await runTests({ root, progress: true });
  return firstIncomplete(root, tests);
}

export function progressTable(root: string, tests: readonly TestOutcome[], current?: number): string {
  const scores = new Map<number, ChapterScore>(scoreByChapter(tests).map((s) => [s.chapter, s]));
  const rows: string[][] = [];
  for (const { number, title } of CHAPTERS) {
    const score = scores.get(number);
    const marker = number === current ? '▶' : ' ';
    if (!hasTests(root, number)) {
      rows.push([marker, `${number}`, title, dim('not written yet'), '']);
      continue;
    }
    const passed = score?.passed ?? 0;
    const total = score?.total ?? 0;
    const done = total > 0 && passed === total;
    const paint = done ? green : passed > 0 ? yellow : (s: string) => s;
    rows.push([marker, `${number}`, title, paint(bar(passed, total)), `${passed}/${total}${done ? ' ✓' : ''}`]);
  }
  return table(rows, [false, true, false, false, false]);
}

export async function progressCommand(root: string, args: string[] = []): Promise<number> {
  const { values } = parseCommandArgs(
    'npm run progress [-- --fresh]  (--fresh: run every chapter again, ignoring and rewriting .kit/results.json)',
    { args, options: { fresh: { type: 'boolean' } } },
  );
  const fresh = values.fresh ?? false;
  const { tests, errors, duration, reused = [] } = await runTests({ root, progress: true, fresh });
  const current = firstIncomplete(root, tests);
  const passed = tests.filter((t) => t.status === 'passed').length;
  console.log(progressTable(root, tests, current));
  console.log('');
  const kept = reused.length
    ? `, ${reused.length === 1 ? 'one chapter' : `${reused.length} chapters`} unchanged since the last run`
    : '';
  console.log(`${bold(`${passed}/${tests.length}`)} tests pass ${dim(`(${(duration / 1000).toFixed(1)}s${kept})`)}`);
  if (errors.length) console.log(yellow(`${errors.length} test file(s) could not load; "npm run watch" shows why.`));
  if (current !== undefined)
    console.log(`Next: chapter ${current}. Run "npm run watch", or "npm test -- chapter${current}".`);
  else console.log(green('Every chapter passes. Well done!'));
  return 0;
}
