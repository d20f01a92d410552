/**
 * Grading learners' repositories against the kit's pristine tests, one or a class at a time.
 *
 * Each learner: find the kit version they started from (base-version.ts), copy it clean with only their starter/src in
 * it and the kit's own node_modules linked in, run the graded tests there (run-tests.ts, fresh), and report every file
 * outside starter/src that differs from that version. A class runs `jobs` learners at a time; each learner's result
 * depends only on their files and the kit, never on who else ran beside them.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { chaptersWithTests, UsageError } from './args.js';
import { type GradeArgs, parseGradeArgs } from './grade-args.js';
import {
  POINTS_PER_CHAPTER,
  round1,
  findingLines,
  type ChapterGrade,
  type GradeEntry,
  type LearnerGrade,
} from './grade-formats.js';
import {
  compareToBase,
  findBase,
  learnerHead,
  lockDiffers,
  materializeBase,
  prepareCopy,
  type Base,
} from './base-version.js';
import { runTests, scoreByChapter, type TestOutcome } from './run-tests.js';
import { chapterTitle } from './ui.js';

export function gradeEntries(tests: readonly TestOutcome[]): GradeEntry[] {
  return tests.map((t) => ({
    chapter: t.chapter,
    name: t.fullName,
    status: t.status,
    message: t.message,
    file: t.file,
  }));
}

/** Points per chapter for the chapters that count (every chapter with tests unless `only`). */
export function chapterGrades(root: string, tests: readonly TestOutcome[], only?: readonly number[]): ChapterGrade[] {
  const scores = scoreByChapter(tests);
  return (only ?? chaptersWithTests(root)).map((chapter) => {
    const score = scores.find((s) => s.chapter === chapter) ?? { passed: 0, total: 0 };
    const points = score.total === 0 ? 0 : round1((score.passed / score.total) * POINTS_PER_CHAPTER);
    return { chapter, title: chapterTitle(chapter), passed: score.passed, total: score.total, points };
  });
}

/** How many learners run at once by default: one per two cores (each test run itself uses several threads). */
export const defaultJobs = (cores = availableParallelism()) => Math.max(1, Math.floor(cores / 2));

/** The repositories named by --repos DIR…, --repo DIR and --repos-file FILE (one per line, # comments, relative to the file). */
export function reposFromArgs(args: readonly string[], cwd = process.cwd()): string[] {
  return reposOf(parseGradeArgs(args), cwd);
}

/** reposFromArgs, from arguments already read. */
export function reposOf(
  { folders, repo, 'repos-file': file }: Pick<GradeArgs, 'folders' | 'repo' | 'repos-file'>,
  cwd = process.cwd(),
): string[] {
  const repos = folders.map((folder) => path.resolve(cwd, folder));
  if (repo === '') throw new UsageError('--repo needs a folder');
  if (file === '') throw new UsageError('--repos-file needs a file');
  if (repo !== undefined) repos.push(path.resolve(cwd, repo));
  if (file !== undefined) {
    const text = readFileSync(path.resolve(cwd, file), 'utf8');
    for (const line of text.split('\n').map((l) => l.trim()))
      if (line && !line.startsWith('#')) repos.push(path.resolve(path.dirname(path.resolve(cwd, file)), line));
  }
  return repos;
}

/** A name per repository: its folder's name, with its parent's added when two share one. */
export function learnerNames(repos: readonly string[]): string[] {
  const base = repos.map((r) => path.basename(r));
  const names = repos.map((r, i) =>
    base.filter((b) => b === base[i]).length > 1 ? `${path.basename(path.dirname(r))}-${base[i]}` : base[i]!,
  );
  return names.map((name, i) => (names.indexOf(name) === i ? name : `${name}-${i + 1}`));
}

// Environment variables a learner's code must not see while it runs in the test run (tokens in a CI job, keys).
const SECRET =
  /TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|API_?KEY|^AWS_|^GH_|^GITHUB_|^ACTIONS_|^NPM_CONFIG_|^NODE_AUTH/i;

/** Removes from process.env what a learner's code must not read (the test runs inherit it). Returns the names removed. */
export function scrubEnvironment(env: NodeJS.ProcessEnv = process.env): string[] {
  const removed = Object.keys(env).filter((name) => SECRET.test(name));
  for (const name of removed) delete env[name];
  return removed;
}

export interface ClassOptions {
  kitRoot: string;
  repos: string[];
  /** The chapters that count; all with tests by default. */
  chapters?: number[];
  jobs?: number;
  /** Folder for one log per learner; none when undefined. */
  logsDir?: string;
  /** A learner whose run has not finished after this long is stopped and reported (only a hang reaches it). */
  timeoutMs?: number;
  /** Called as each learner finishes (for a progress line). */
  onDone?: (grade: LearnerGrade, done: number, total: number) => void;
  /** Stops the class: running test runs are ended, no further learner starts, the temp copies are removed. */
  signal?: AbortSignal;
}

/**
 * Grades every repository, `jobs` at a time, and returns their grades in the order the repositories were given
 * (only those graded before `signal` stopped the class, if it did).
 */
export async function gradeClass(options: ClassOptions): Promise<LearnerGrade[]> {
  const { kitRoot, repos } = options;
  const jobs = Math.max(1, Math.min(options.jobs ?? defaultJobs(), repos.length));
  const chapters = options.chapters ?? chaptersWithTests(kitRoot);
  const names = learnerNames(repos);
  const work = mkdtempSync(path.join(tmpdir(), 'kit-class-'));
  const bases = new Map<string, Promise<string>>();
  const baseDir = (base: Base) => {
    const key = base.commit ?? 'kit';
    if (!bases.has(key)) {
      const dir = path.join(work, `base-${key.slice(0, 12)}`);
      bases.set(
        key,
        materializeBase(kitRoot, base, dir).then(() => dir),
      );
    }
    return bases.get(key)!;
  };
  if (options.logsDir) mkdirSync(options.logsDir, { recursive: true });
  const results: LearnerGrade[] = new Array(repos.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < repos.length && !options.signal?.aborted) {
      const i = next++;
      const grade = await gradeOne({
        kitRoot,
        repo: repos[i]!,
        learner: names[i]!,
        chapters,
        baseDir,
        copyDir: path.join(work, `learner-${i}`),
        timeoutMs: options.timeoutMs,
        signal: options.signal,
      });
      if (options.signal?.aborted) break;
      if (options.logsDir) {
        grade.log = path.join(options.logsDir, `${grade.learner}.log`);
        writeFileSync(grade.log, learnerLog(grade));
      }
      results[i] = grade;
      options.onDone?.(grade, ++done, repos.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: jobs }, worker));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return results.filter(Boolean);
}

async function gradeOne(input: {
  kitRoot: string;
  repo: string;
  learner: string;
  chapters: number[];
  baseDir: (base: Base) => Promise<string>;
  copyDir: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}): Promise<LearnerGrade> {
  const { kitRoot, repo, learner, chapters } = input;
  const base = findBase(kitRoot, repo);
  const head = learnerHead(repo);
  const grade: LearnerGrade = {
    learner,
    repo,
    base,
    ...(head ? { head } : {}),
    findings: [],
    chapters: chapterGrades(kitRoot, [], chapters),
    points: 0,
    maxPoints: chapters.length * POINTS_PER_CHAPTER,
    errors: [],
    tests: [],
  };
  const stop = new AbortController();
  const timer = input.timeoutMs ? setTimeout(() => stop.abort(), input.timeoutMs) : undefined;
  try {
    const dir = await input.baseDir(base);
    grade.findings = compareToBase(dir, repo);
    if (lockDiffers(kitRoot, dir))
      grade.base = {
        ...base,
        note: `${base.note}; its package-lock.json differs from the grading kit's, and its tests ran on the grading kit's install`,
      };
    prepareCopy(kitRoot, dir, repo, input.copyDir);
    const signal = input.signal ? AbortSignal.any([stop.signal, input.signal]) : stop.signal;
    const { tests, errors } = await runTests({
      root: input.copyDir,
      target: 'starter',
      chapters,
      fresh: true,
      rerun: true,
      progress: false,
      signal,
    });
    const counted = tests.filter((t) => chapters.includes(t.chapter));
    grade.tests = gradeEntries(counted);
    grade.chapters = chapterGrades(input.copyDir, counted, chapters);
    grade.points = round1(grade.chapters.reduce((sum, g) => sum + g.points, 0));
    grade.errors.push(...errors.map((e) => e.split('\n')[0]!));
  } catch (error) {
    grade.errors.push(
      stop.signal.aborted
        ? `stopped after ${Math.round(input.timeoutMs! / 60000)} min: the test run did not finish (a stub that never returns?)`
        : `could not grade: ${(error as Error).message.split('\n')[0]}`,
    );
  } finally {
    clearTimeout(timer);
    rmSync(input.copyDir, { recursive: true, force: true });
  }
  return grade;
}

/** One learner's log: what was graded against, the findings, points per chapter, and every test that did not pass. */
export function learnerLog(grade: LearnerGrade): string {
  const lines = [
    `learner: ${grade.learner}`,
    `repository: ${grade.repo}${grade.head ? ` at ${grade.head.commit} (${grade.head.date})` : ''}`,
    `graded against: ${grade.base.note}`,
    `points: ${grade.points}/${grade.maxPoints}`,
    '',
    'files outside starter/src that differ from that version:',
    ...(grade.findings.length ? findingLines(grade.findings).map((l) => `  ${l}`) : ['  none']),
    '',
    ...grade.chapters.map(
      (c) =>
        `chapter ${c.chapter} (${c.title}): ${c.passed}/${c.total} tests, ${c.points}/${POINTS_PER_CHAPTER} points`,
    ),
  ];
  if (grade.errors.length) lines.push('', 'problems outside tests:', ...grade.errors.map((e) => `  ${e}`));
  const failed = grade.tests.filter((t) => t.status !== 'passed');
  if (failed.length)
    lines.push(
      '',
      'tests that did not pass:',
      ...failed.flatMap((t) => [
        `  ✗ chapter ${t.chapter} ${t.name}`,
        ...t.message
          .split('\n')
          .slice(0, 6)
          .map((l) => `      ${l}`),
      ]),
    );
  return `${lines.join('\n')}\n`;
}
