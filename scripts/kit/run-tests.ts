/**
 * Runs the graded tests once, in a child vitest process with the kit's reporter, and returns one outcome per test.
 * Every command that needs results (watch, hint, progress, grade, solution, doctor) goes through here: one vitest
 * run for any number of chapters.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chapterDir } from '../lib/chapters.js';
import { chaptersWithTests, hasTests } from './args.js';
import {
  chapterTestFiles,
  entryFor,
  fingerprints,
  readCached,
  readCompiled,
  reuseOf,
  writeCached,
  type CachedChapter,
} from './cache.js';
import { compileErrors } from './compiles.js';
import { chapterOfFile, stripAnsi, toOutcomes, type RawReport } from './outcomes.js';
import { PROGRESS_MARK, progressLine, progressText } from './progress-line.js';
import { filesToRerun, mergeRerun, unfinishedRegions } from './rerun.js';
import type { RunResult, TestOutcome } from './test-outcome.js';

export type { RunResult, TestOutcome, TestStatus } from './test-outcome.js';

export interface RunOptions {
  root: string;
  /** Chapters to run; empty or undefined means every chapter with tests. */
  chapters?: number[];
  /** Which tree the `kit` alias points at: starter (default), solution, or a directory relative to the root. */
  target?: 'starter' | 'solution' | { src: string };
  signal?: AbortSignal;
  /** Run only these test files (relative to the root) instead of whole chapters. */
  files?: string[];
  /**
   * Run every chapter asked for, even those whose inputs have not changed since their results were stored in
   * .kit/results.json (see cache.ts). Grading always runs fresh; every other command reuses what it can.
   */
  fresh?: boolean;
  /**
   * Run each test file that failed for a reason other than a TODO a second time, alone, and keep that run
   * (rerunFailed). Only where a second run can change the outcome a person relies on: a grade, a class batch. A
   * learner's own runs (test, watch, progress, hint) show the first run as it is.
   */
  rerun?: boolean;
  /** Print a progress line on stderr when the run takes longer than a second (kept up to date on a terminal).
   *  Default: on when stderr is a terminal, so every command that runs tests shows one. */
  progress?: boolean;
}

/** Thrown when vitest itself could not run (not when tests fail). */
export class KitRunError extends Error {
  override name = 'KitRunError';
}

/**
 * Runs the chapters asked for (all with tests by default), or the test files asked for, and returns their outcomes in
 * chapter order. Test files whose inputs are unchanged since their last run are read from the cache (unless `fresh`,
 * or for a directory target); the others run together in one vitest process.
 */
export async function runTests(options: RunOptions): Promise<RunResult> {
  const { root } = options;
  const target = options.target ?? 'starter';
  if (typeof target !== 'string') return runVitest(options);
  const started = Date.now();
  const src = path.join(root, target, 'src');
  const asked = options.files?.map((file) => file.split(path.sep).join('/'));
  const wanted = asked
    ? [...new Set(asked.map(chapterOfFile))].sort((a, b) => a - b)
    : options.chapters?.length
      ? options.chapters.filter((n) => hasTests(root, n))
      : chaptersWithTests(root);
  // The cache is kept per test file: a save to one source file runs again only the test files that reach it.
  const filesOf = new Map(
    wanted.map((n) => [
      n,
      (asked
        ? asked.filter((file) => chapterOfFile(file) === n)
        : chapterTestFiles(root, n).map((f) => path.relative(root, f).split(path.sep).join('/'))
      ).sort((a, b) => a.localeCompare(b)),
    ]),
  );
  const all = [...filesOf.values()].flat();
  const prints = fingerprints(root, src, all);
  // A fresh run reads nothing from the cache but still stores what it found: `--fresh` is how a stale cache is mended.
  const cached = options.fresh ? {} : readCached(root, target);
  const reuse = new Map(all.map((file) => [file, reuseOf(cached[file], prints.get(file)!)]));
  // Reused by region: every source those files load must still compile, or vitest would fail them all. The check
  // runs beside the vitest run of the files that changed; the rare file it finds broken runs after it.
  const byRegion = all.filter((file) => reuse.get(file) === 'regions');
  const rel = (file: string) => path.relative(root, file).split(path.sep).join('/');
  const known = byRegion.length ? readCompiled(root) : {};
  const sources = new Map(byRegion.flatMap((file) => [...prints.get(file)!.sources]));
  const unchecked = [...sources.keys()].filter((file) => known[rel(file)] !== sources.get(file));
  const checking = compileErrors(unchecked);
  let stale = all.filter((file) => !reuse.get(file));
  const ofFile = (file: string) => (e: string) => e.startsWith(`${file}: `);
  const store: Record<string, CachedChapter> = {};
  const outcomes: RunResult[] = [];
  const reruns: Array<NonNullable<RunResult['rerun']>> = [];
  const run = async (files: string[]) => {
    if (!files.length) return;
    const reused = wanted.filter((n) => !filesOf.get(n)!.some((file) => stale.includes(file)));
    const fresh = await runVitest({ ...options, files, reusedChapters: reused });
    outcomes.push(fresh);
    if (fresh.rerun) reruns.push(fresh.rerun);
    // Results are stored only when nothing moved under the run and every error belongs to a test file.
    if (fresh.errors.some((e) => chapterOfFile(e.split(': ')[0] ?? '') === 0)) return;
    const after = fingerprints(root, src, files);
    for (const file of files) {
      const print = prints.get(file)!;
      if (after.get(file)!.key !== print.key) continue;
      store[file] = entryFor(
        print,
        fresh.tests.filter((t) => t.file === file),
        fresh.errors.filter(ofFile(file)),
        fresh.fileRegions?.[file],
      );
    }
  };
  const [broken] = await Promise.all([checking, run(stale)]);
  const compiled = Object.fromEntries(
    unchecked.filter((file) => !broken.has(file)).map((file) => [rel(file), sources.get(file)!]),
  );
  const late = byRegion.filter((file) => [...prints.get(file)!.sources.keys()].some((source) => broken.has(source)));
  for (const file of late) reuse.delete(file);
  stale = [...stale, ...late];
  await run(late);
  // Results reused by region are stored again under today's key: the next run reads them back exactly.
  for (const file of all)
    if (reuse.get(file) === 'regions') store[file] = { ...cached[file]!, key: prints.get(file)!.key };
  const reused = wanted.filter((n) => !filesOf.get(n)!.some((file) => stale.includes(file)));
  const fresh: RunResult = {
    tests: outcomes.flatMap((o) => o.tests),
    errors: outcomes.flatMap((o) => o.errors),
    duration: 0,
  };
  if (Object.keys(store).length || Object.keys(compiled).length) writeCached(root, target, store, compiled);
  const tests: TestOutcome[] = [];
  const errors: string[] = [];
  for (const file of all) {
    const from = stale.includes(file)
      ? { tests: fresh.tests.filter((t) => t.file === file), errors: fresh.errors.filter(ofFile(file)) }
      : cached[file]!;
    tests.push(...from.tests);
    errors.push(...from.errors);
  }
  errors.push(...fresh.errors.filter((e) => chapterOfFile(e.split(': ')[0] ?? '') === 0));
  const rerun = reruns.length
    ? { files: reruns.flatMap((r) => r.files), recovered: reruns.flatMap((r) => r.recovered) }
    : undefined;
  return { tests, errors, duration: Date.now() - started, reused, ...(rerun ? { rerun } : {}) };
}

/**
 * Runs each file of `first` that failed for a reason other than a TODO once more, alone in its own vitest run (no
 * other file beside it to compete for the machine), and keeps the second run's results for it: a failure is
 * recorded only when it comes back. Files that passed the second time are listed in `rerun.recovered`.
 */
async function rerunFailed(options: RunOptions, first: RunResult): Promise<RunResult> {
  if (!options.rerun) return first;
  const target = options.target ?? 'starter';
  const src =
    typeof target === 'string' ? path.join(options.root, target, 'src') : path.resolve(options.root, target.src);
  const files = filesToRerun(first.tests, unfinishedRegions(src));
  if (!files.length) return first;
  const again = new Map<string, RunResult>();
  for (const file of files)
    again.set(file, await runVitest({ ...options, files: [file], chapters: undefined, rerun: false, progress: false }));
  return mergeRerun(first, again);
}

async function runVitest(options: RunOptions & { reusedChapters?: number[] }): Promise<RunResult> {
  const { root } = options;
  const started = Date.now();
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-run-'));
  const reportFile = path.join(dir, 'report.json');
  const env: NodeJS.ProcessEnv = { ...process.env, KIT_REPORT_FILE: reportFile, FORCE_COLOR: '0' };
  delete env.KIT_SRC;
  const target = options.target ?? 'starter';
  if (typeof target === 'object') env.KIT_SRC = path.resolve(root, target.src);
  else env.KIT_TARGET = target;
  const filters =
    options.files ?? (options.chapters ?? []).map(chapterDir).filter((d) => existsSync(path.join(root, d)));
  if (options.chapters?.length && filters.length === 0) {
    rmSync(dir, { recursive: true, force: true });
    return { tests: [], errors: [], duration: 0 };
  }
  const vitest = path.join(root, 'node_modules/vitest/vitest.mjs');
  if (!existsSync(vitest)) throw new KitRunError('vitest is not installed: run "npm install" first');
  const args = [
    vitest,
    'run',
    `--reporter=${path.join(root, 'scripts/kit/reporter.ts')}`,
    '--passWithNoTests',
    '--includeTaskLocation',
    ...filters,
  ];
  const running = [...new Set((options.files ?? filters).map(chapterOfFile))]
    .filter((n) => n > 0)
    .sort((a, b) => a - b);
  const totalFiles = options.files?.length ?? running.reduce((sum, n) => sum + chapterTestFiles(root, n).length, 0);
  const line =
    (options.progress ?? Boolean(process.stderr.isTTY))
      ? progressLine(() => progressText(running, options.reusedChapters ?? [], doneFiles, totalFiles))
      : undefined;
  let doneFiles = 0;
  if (line) env.KIT_PROGRESS_LINES = '1';
  try {
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        signal: options.signal,
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        const text = String(chunk);
        output += text;
        if (line) {
          doneFiles += text.split(PROGRESS_MARK).length - 1;
          line.update();
        }
      });
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, output }));
    });
    line?.stop();
    if (!existsSync(reportFile)) {
      throw new KitRunError(`vitest did not run (exit ${code}):\n${stripAnsi(output).trim().slice(0, 4000)}`);
    }
    const raw = JSON.parse(readFileSync(reportFile, 'utf8')) as RawReport;
    const outcomes = toOutcomes(root, raw);
    const unloaded = outcomes.tests.filter((t) => t.name === `${t.file} could not load`);
    if (unloaded.length && target !== 'solution') {
      // A file that fails to load hides how many tests it has: take its tests from the solution and fail each one.
      // Read from the cache like any run (the solution rarely changes), unless this run is fresh (grading).
      const reference = await runTests({
        root,
        target: 'solution',
        files: unloaded.map((t) => t.file),
        signal: options.signal,
        fresh: options.fresh,
      }).catch(() => undefined);
      outcomes.tests = outcomes.tests.flatMap((test) => {
        const own = unloaded.includes(test) ? (reference?.tests ?? []).filter((r) => r.file === test.file) : [];
        return own.length
          ? own.map((r) => ({
              ...r,
              status: 'failed' as const,
              message: `this test file could not load: ${test.message}`,
            }))
          : [test];
      });
    }
    const result = { ...outcomes, duration: Date.now() - started };
    line?.stop();
    return await rerunFailed(options, result);
  } finally {
    line?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ChapterScore {
  chapter: number;
  passed: number;
  total: number;
}

/** passed/total per chapter, for every chapter that has results, in chapter order. */
export function scoreByChapter(tests: readonly TestOutcome[]): ChapterScore[] {
  const byChapter = new Map<number, ChapterScore>();
  for (const test of tests) {
    const score = byChapter.get(test.chapter) ?? { chapter: test.chapter, passed: 0, total: 0 };
    score.total++;
    if (test.status === 'passed') score.passed++;
    byChapter.set(test.chapter, score);
  }
  return [...byChapter.values()].sort((a, b) => a.chapter - b.chapter);
}
