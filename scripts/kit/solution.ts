/** npm run solution -- chapter3: per region, a unified diff from the learner's body to the reference body. */
import { listRegions, type StubInfo } from '../lib/regions.js';
import { chapterArg, parseCommandArgs } from './args.js';
import { unifiedDiff } from './diff.js';
import { runTests } from './run-tests.js';
import { chapterStubs } from './stubs.js';
import { bold, cyan, green, red, yellow } from './ui.js';

const key = (stub: Pick<StubInfo, 'chapter' | 'name'>) => `chapter ${stub.chapter}: ${stub.name}`;

/** The diffs, one per region of the chapter, in teaching order. */
export function solutionDiffs(root: string, chapter: number): Array<{ name: string; diff: string; missing?: boolean }> {
  const solution = new Map(listRegions(root, 'solution').map((s) => [key(s), s]));
  const learner = new Map(chapterStubs(root, chapter).map((s) => [key(s), s]));
  const order = [
    ...learner.values(),
    ...[...solution.values()].filter((s) => s.chapter === chapter && !learner.has(key(s))),
  ];
  return order
    .filter((s) => s.chapter === chapter)
    .map((stub) => {
      const mine = learner.get(key(stub));
      const ref = solution.get(key(stub));
      if (!ref) return { name: stub.name, diff: '', missing: true };
      if (!mine) {
        return {
          name: stub.name,
          diff: unifiedDiff(
            [],
            ref.body,
            { a: '(region missing from starter/src)', b: `${ref.file} (${stub.name}, reference)` },
            1,
            ref.line + ref.steps.length + 1,
          ),
          missing: true,
        };
      }
      return {
        name: stub.name,
        diff: unifiedDiff(
          mine.body,
          ref.body,
          { a: `${mine.file} (${stub.name}, yours)`, b: `${ref.file} (${stub.name}, reference)` },
          mine.line + mine.steps.length + 1,
          ref.line + ref.steps.length + 1,
        ),
      };
    });
}

const colorDiff = (diff: string) =>
  diff
    .split('\n')
    .map((line) =>
      line.startsWith('@@') ? cyan(line) : line.startsWith('+') ? green(line) : line.startsWith('-') ? red(line) : line,
    )
    .join('\n');

export async function solutionCommand(root: string, args: string[]): Promise<number> {
  const { positionals } = parseCommandArgs('npm run solution -- chapterN', { args, allowPositionals: true });
  const chapter = chapterArg(root, positionals, true)!;
  const { tests } = await runTests({ root, chapters: [chapter] });
  const failing = tests.filter((t) => t.status !== 'passed').length;
  if (failing > 0) {
    console.log(
      yellow(
        `Warning: ${failing} of chapter ${chapter}'s ${tests.length} tests do not pass yet. What follows is the reference solution;`,
      ),
    );
    console.log(
      yellow(`"npm run hint -- chapter${chapter}" gives a smaller push if you would rather finish it yourself.`),
    );
    console.log('');
  }
  for (const { name, diff } of solutionDiffs(root, chapter)) {
    console.log(bold(`# ${name}`));
    console.log(diff ? colorDiff(diff) : '  (your body is the same as the reference)');
    console.log('');
  }
  return 0;
}
