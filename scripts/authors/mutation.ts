/**
 * npm run mutation -- [chapters...] [--changed] [--check] [--isolate] [--verbose] [--concurrency=N]
 *
 * Mutation testing of the graded tests with Stryker: for each chapter (all chapters with tests and regions when none
 * is named), mutates only the code inside that chapter's regions of solution/src and runs only tests/chapterNN/.
 * Prints the score and time per chapter and the survivors, writes reports/mutation/ (summary.json, summary.md, and
 * Stryker's JSON and HTML report per chapter) and records scores and accepted survivors in mutation-baseline.json.
 *
 * --changed: run only the chapters whose inputs (tests, the solution code they import, helpers: see chapterInputs in
 * scripts/authors/lib/mutation-baseline.ts) changed since mutation-baseline.json; take the others from it. A full
 * run of every chapter takes tens of minutes on two cores, a changed chapter one to ten.
 * --isolate: reload every module for every mutant (slower; see scripts/mutation.vitest.config.ts).
 * --check: leave mutation-baseline.json alone and exit 1 when a chapter scores below 85% or has a survivor not
 * listed in tests/chapterNN/equivalent-mutants.md (what CI runs, with --changed).
 *
 * From another script: `await checkMutation()` (changed chapters only) returns the problems, an empty list when
 * every chapter meets the bar; `await runMutation([1, 2, 3])` runs chapters and returns their scores and survivors.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LogLevel, PartialStrykerOptions } from '@stryker-mutator/api/core';
import { parseScriptArgs } from '../kit/args.js';
import { CHAPTERS, parseChapter } from '../lib/chapters.js';
import {
  type ChapterMutation,
  equivalentLine,
  MIN_MUTATION_SCORE,
  mutateRanges,
  mutationChapters,
  mutationProblems,
  readReport,
  REPORT_DIR,
  summarize,
  writeReports,
} from './lib/mutation.js';
import {
  BASELINE_FILE,
  changeSinceBaseline,
  fromBaseline,
  readBaseline,
  updateBaseline,
} from './lib/mutation-baseline.js';
import { ROOT } from '../lib/paths.js';

export { mutationProblems, mutationChapters, MIN_MUTATION_SCORE };
export type { ChapterMutation };

export interface MutationOptions {
  /** Print Stryker's progress and log (default: false). */
  verbose?: boolean;
  /** Worker processes per chapter (default: Stryker's, one per core). */
  concurrency?: number;
}

function strykerOptions(
  chapter: number,
  reportDir: string,
  verbose: boolean,
  concurrency?: number,
): PartialStrykerOptions {
  return {
    testRunner: 'vitest',
    plugins: ['@stryker-mutator/vitest-runner'],
    // The config that makes `kit/*` the sandbox's (mutated) solution/src and runs this chapter's tests only.
    vitest: { configFile: 'scripts/mutation.vitest.config.ts', related: false },
    mutate: mutateRanges(chapter),
    coverageAnalysis: 'perTest',
    // A mutant whose run takes longer than this counts as detected and its worker is restarted (seconds of vitest
    // start-up). Stryker's default (5 s over the dry run's time) is often reached on a loaded machine by runs that
    // would pass, and each restart loads the machine more: workers were seen restarting every 20 s at load 14. A
    // test that waits forever is failed by vitest's own testTimeout first (scripts/mutation.vitest.config.ts); only a
    // mutant that blocks the event loop (an endless loop) waits this long.
    timeoutMS: 20_000,
    // TypeScript 7 has no JavaScript API: keep Stryker from rewriting tsconfig.json (nothing in it needs rewriting).
    tsconfigFile: 'stryker-has-no-tsconfig.json',
    // Files the chapter's tests never read stay out of the sandboxes.
    ignorePatterns: [
      '/book',
      '/starter',
      '/tests/kit',
      '/.verify*',
      '/.kit',
      '/reports',
      '/docs',
      '/coverage',
      '/.stryker-tmp',
    ],
    // One temp folder per chapter, so that two chapters can be mutated at the same time.
    tempDirName: `.stryker-tmp/chapter${String(chapter).padStart(2, '0')}`,
    cleanTempDir: true,
    incremental: false,
    thresholds: { high: 95, low: MIN_MUTATION_SCORE, break: null },
    reporters: verbose
      ? ['json', 'html', process.stdout.isTTY ? 'progress' : 'progress-append-only']
      : ['json', 'html'],
    jsonReporter: { fileName: path.join(reportDir, 'mutation.json') },
    htmlReporter: { fileName: path.join(reportDir, 'mutation.html') },
    logLevel: (verbose ? 'info' : 'error') as LogLevel,
    fileLogLevel: 'off' as LogLevel,
    ...(concurrency ? { concurrency } : {}),
  };
}

/** Runs Stryker on each chapter in turn; returns per chapter the score, the time and the survivors. */
export async function runMutation(chapters: number[], options: MutationOptions = {}): Promise<ChapterMutation[]> {
  const results: ChapterMutation[] = [];
  const saved = { chapter: process.env.KIT_MUTATION_CHAPTER, src: process.env.KIT_SRC, cwd: process.cwd() };
  process.chdir(ROOT);
  try {
    for (const chapter of chapters) {
      const reportDir = path.join(REPORT_DIR, `chapter${String(chapter).padStart(2, '0')}`);
      rmSync(path.join(ROOT, reportDir), { recursive: true, force: true });
      // Read by scripts/mutation.vitest.config.ts in every test runner process Stryker starts.
      process.env.KIT_MUTATION_CHAPTER = String(chapter);
      delete process.env.KIT_SRC;
      const started = performance.now();
      // Loaded here, so that importing this module (verify does) costs nothing when no chapter needs a run.
      const { Stryker } = await import('@stryker-mutator/core');
      await new Stryker(
        strykerOptions(chapter, reportDir, options.verbose ?? false, options.concurrency),
      ).runMutationTest();
      const seconds = (performance.now() - started) / 1000;
      results.push(summarize(chapter, readReport(path.join(ROOT, reportDir, 'mutation.json')), seconds));
    }
  } finally {
    if (saved.chapter === undefined) delete process.env.KIT_MUTATION_CHAPTER;
    else process.env.KIT_MUTATION_CHAPTER = saved.chapter;
    if (saved.src !== undefined) process.env.KIT_SRC = saved.src;
    process.chdir(saved.cwd);
  }
  return results;
}

/**
 * What CI and verify call: runs the chapters whose inputs changed since mutation-baseline.json (all of them with
 * `changedOnly: false`), takes the others from the baseline, and returns what keeps a chapter below the bar
 * (an empty list when every chapter passes). Never writes mutation-baseline.json.
 */
export async function checkMutation(
  options: MutationOptions & { changedOnly?: boolean; chapters?: number[] } = {},
): Promise<string[]> {
  const chapters = options.chapters ?? mutationChapters();
  const baseline = readBaseline();
  const run =
    options.changedOnly === false ? chapters : chapters.filter((n) => changeSinceBaseline(n, baseline) !== undefined);
  const results = [
    ...chapters.filter((n) => !run.includes(n)).map((n) => fromBaseline(n, baseline)),
    ...(await runMutation(run, options)),
  ].sort((a, b) => a.chapter - b.chapter);
  writeReports(results);
  return mutationProblems(results);
}

function printResult(result: ChapterMutation): void {
  const open = result.survivors.filter((s) => !s.reason);
  const listed = result.survivors.length - open.length;
  const counts = `${result.killed} of ${result.mutants} killed, ${listed} listed as equivalent, ${open.length} unlisted`;
  console.log(
    `${result.score}% (${counts}) ${result.fromBaseline ? 'from mutation-baseline.json' : `in ${result.seconds} s`}`,
  );
  for (const survivor of open)
    console.log(`    ${survivor.file}:${survivor.line} ${survivor.status}\n      ${equivalentLine(survivor)}`);
  if (result.staleEntries.length)
    console.log(
      `    equivalent-mutants.md lists ids that no longer survive (delete them): ${result.staleEntries.join(', ')}`,
    );
}

async function main(): Promise<number> {
  const { values, positionals } = parseScriptArgs(
    'npm run mutation -- [chapters...] [--changed] [--check] [--isolate] [--verbose] [--concurrency=N]',
    {
      allowPositionals: true,
      options: {
        changed: { type: 'boolean' },
        check: { type: 'boolean' },
        isolate: { type: 'boolean' },
        verbose: { type: 'boolean' },
        concurrency: { type: 'string' },
      },
    },
  );
  const check = values.check ?? false;
  if (values.isolate) process.env.KIT_MUTATION_ISOLATE = '1';
  const changedOnly = values.changed ?? false;
  const workers = values.concurrency;
  const concurrency = workers === undefined ? undefined : Number(workers);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency > 0)) {
    console.error(`--concurrency wants a whole number of worker processes, got "${workers}"`);
    return 2;
  }
  const available = mutationChapters();
  const chapters: number[] = [];
  for (const arg of positionals) {
    const chapter = parseChapter(arg);
    if (chapter === undefined || !available.includes(chapter)) {
      console.error(
        `No chapter "${arg}" with graded tests and regions. Chapters: ${available.map((n) => `chapter${n}`).join(', ')}`,
      );
      return 2;
    }
    chapters.push(chapter);
  }
  const list = chapters.length > 0 ? [...new Set(chapters)].sort((a, b) => a - b) : available;
  const baseline = readBaseline();

  const started = performance.now();
  const results: ChapterMutation[] = [];
  for (const chapter of list) {
    const title = CHAPTERS.find((c) => c.number === chapter)?.title ?? '';
    process.stdout.write(`• chapter ${chapter} (${title}): ${mutateRanges(chapter).length} regions … `);
    const change = changedOnly ? changeSinceBaseline(chapter, baseline) : 'run';
    const result =
      change === undefined
        ? fromBaseline(chapter, baseline)
        : (await runMutation([chapter], { verbose: values.verbose, concurrency }))[0]!;
    if (changedOnly && change !== undefined) process.stdout.write(`(${change}) `);
    results.push(result);
    printResult(result);
    // Recorded at once: a long run stopped later (a killed process, a session's end) keeps the chapters it finished.
    if (!check && !result.fromBaseline) updateBaseline([result]);
  }
  const seconds = (performance.now() - started) / 1000;
  writeReports(results);
  const ran = results.filter((r) => !r.fromBaseline);
  if (!check && ran.length > 0) updateBaseline(ran);
  console.log(
    `\nMutation testing took ${seconds.toFixed(0)} s (${ran.length} chapter(s) run${results.length > ran.length ? `, ${results.length - ran.length} unchanged` : ''}). Reports: ${REPORT_DIR}/summary.md` +
      (!check && ran.length > 0 ? `; ${BASELINE_FILE} updated` : ''),
  );

  const problems = mutationProblems(results);
  if (problems.length === 0) {
    console.log(`mutation: every chapter reaches ${MIN_MUTATION_SCORE}% and every survivor is listed as equivalent`);
    return 0;
  }
  console.log(`\nmutation: ${problems.length} problem(s)`);
  for (const problem of problems) console.log(`  ✗ ${problem}`);
  return check ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  process.exitCode = await main();
}
