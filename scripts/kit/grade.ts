/**
 * npm run grade [-- --solution] [--chapters 1-4] [--json F] [--junit F] [--classroom50 F] [--gradescope F]:
 * the instructor's view of the copy it runs in.
 *
 * npm run grade -- --repo DIR | --repos DIR… | --repos-file FILE [--jobs N] [--logs DIR] [--csv F] [--markdown F] …:
 * learners' repositories graded against this kit's pristine tests (class-grade.ts), each in a clean temp copy.
 *
 * Exits 0 whatever the score; non-zero only when the kit itself could not run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { chaptersWithTests, UsageError } from './args.js';
import { type GradeArgs, parseGradeArgs, positiveInt } from './grade-args.js';
import { chapterGrades, defaultJobs, gradeClass, gradeEntries, reposOf, scrubEnvironment } from './class-grade.js';
import {
  classCsv,
  classMarkdown,
  classroom50Context,
  classroom50Result,
  classTable,
  gradescopeResult,
  parseChapters,
  POINTS_PER_CHAPTER,
  round1,
  type LearnerGrade,
} from './grade-formats.js';
import { rerunNote } from './rerun.js';
import { runTests, type TestOutcome } from './run-tests.js';
import { bold, dim, table } from './ui.js';

export { POINTS_PER_CHAPTER, type ChapterGrade, type GradeEntry } from './grade-formats.js';
import type { GradeEntry } from './grade-formats.js';
export { chapterGrades, gradeEntries } from './class-grade.js';

const xml = (text: string) =>
  text
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** A graded entry back in the shape junitXml reads (its describe blocks are part of its name). */
const toOutcome = (t: GradeEntry): TestOutcome => ({
  chapter: t.chapter,
  file: t.file,
  suites: [],
  name: t.name,
  fullName: t.name,
  status: t.status,
  message: t.message,
});

export function junitXml(root: string, tests: readonly TestOutcome[], chapters?: readonly number[]): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = tests.filter((t) => t.status === 'failed').length;
  const skipped = tests.filter((t) => t.status === 'skipped').length;
  out.push(`<testsuites name="kit" tests="${tests.length}" failures="${failures}" skipped="${skipped}">`);
  for (const { chapter, title } of chapterGrades(root, tests, chapters)) {
    const own = tests.filter((t) => t.chapter === chapter);
    const name = `chapter${String(chapter).padStart(2, '0')}`;
    out.push(
      `  <testsuite name="${name}: ${xml(title)}" tests="${own.length}" failures="${own.filter((t) => t.status === 'failed').length}" skipped="${own.filter((t) => t.status === 'skipped').length}">`,
    );
    for (const test of own) {
      const classname = `${name}.${test.suites[0] ?? path.basename(test.file)}`;
      const open = `    <testcase classname="${xml(classname)}" name="${xml([...test.suites.slice(1), test.name].join(' > '))}" file="${xml(test.file)}"`;
      if (test.status === 'passed') out.push(`${open}/>`);
      else if (test.status === 'skipped') out.push(`${open}><skipped/></testcase>`);
      else {
        out.push(`${open}>`);
        out.push(`      <failure message="${xml(test.message.split('\n')[0] ?? '')}">${xml(test.message)}</failure>`);
        out.push('    </testcase>');
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, text);
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export async function gradeCommand(root: string, argv: string[]): Promise<number> {
  const args = parseGradeArgs(argv);
  const offered = chaptersWithTests(root);
  const spec = args.chapters;
  const chapters = spec ? parseChapters(spec, offered) : offered;
  const repos = reposOf(args);
  if (repos.length || args.repos) return gradeRepos(root, args, repos, chapters);
  const target = args.solution ? 'solution' : 'starter';
  const jsonFile = args.json;
  const junitFile = args.junit;
  const {
    tests: ran,
    errors,
    duration,
    rerun,
  } = await runTests({ root, target, fresh: true, rerun: true, progress: true, ...(spec ? { chapters } : {}) });
  const tests = ran.filter((t) => chapters.includes(t.chapter));
  const grades = chapterGrades(root, tests, chapters);
  const rows = [['Chapter', 'Title', 'Passed', 'Points']];
  for (const g of grades)
    rows.push([`${g.chapter}`, g.title, `${g.passed}/${g.total}`, `${g.points}/${POINTS_PER_CHAPTER}`]);
  const points = round1(grades.reduce((sum, g) => sum + g.points, 0));
  const passed = grades.reduce((sum, g) => sum + g.passed, 0);
  const total = grades.reduce((sum, g) => sum + g.total, 0);
  rows.push(['', bold('Total'), `${passed}/${total}`, bold(`${points}/${grades.length * POINTS_PER_CHAPTER}`)]);
  console.log(bold(`Grade of ${target}/ in ${root}`));
  console.log('');
  console.log(table(rows, [true, false, true, true]));
  if (errors.length)
    console.log(`\n${errors.length} problem(s) outside tests:\n  ${errors.map((e) => e.split('\n')[0]).join('\n  ')}`);
  console.log(dim(`\n${tests.length} tests in ${(duration / 1000).toFixed(1)}s`));
  if (rerun?.files.length) console.log(dim(rerunNote(rerun)));
  if (jsonFile) {
    write(jsonFile, json(gradeEntries(tests)));
    console.log(`wrote ${jsonFile}`);
  }
  if (junitFile) {
    write(junitFile, junitXml(root, tests, chapters));
    console.log(`wrote ${junitFile}`);
  }
  // This copy's own files are graded as they are: no base version, no findings (use --repo . for that).
  const own: LearnerGrade = {
    learner: path.basename(root),
    repo: root,
    base: { how: 'kit', note: `the tests in ${root} as they are` },
    findings: [],
    chapters: grades,
    points,
    maxPoints: grades.length * POINTS_PER_CHAPTER,
    errors: errors.map((e) => e.split('\n')[0]!),
    tests: gradeEntries(tests),
  };
  writePlatformFiles(args, [own], classroom50Context());
  return 0;
}

/** --classroom50 and --gradescope: a file for one learner (--repo, or this copy), a folder of <learner>.json with --repos. */
function writePlatformFiles(args: GradeArgs, grades: readonly LearnerGrade[], context: Record<string, string>): void {
  const folder = args.repos || args['repos-file'] !== undefined;
  const formats: Array<[string | undefined, (g: LearnerGrade) => unknown]> = [
    [args.classroom50, (g) => classroom50Result(g, context)],
    [args.gradescope, gradescopeResult],
  ];
  for (const [target, make] of formats) {
    if (!target) continue;
    if (!folder) write(target, json(make(grades[0]!)));
    else for (const g of grades) write(path.join(target, `${g.learner}.json`), json(make(g)));
    console.log(`wrote ${target}${folder ? '/ (one file per learner)' : ''}`);
  }
}

async function gradeRepos(root: string, args: GradeArgs, repos: string[], chapters: number[]): Promise<number> {
  if (!repos.length) throw new UsageError('--repos needs one or more folders (learner repositories)');
  if (args.solution) throw new UsageError("--solution grades this kit's reference; it does not go with --repo/--repos");
  const jobs = positiveInt(args.jobs, '--jobs') ?? defaultJobs();
  const timeoutMinutes = positiveInt(args.timeout, '--timeout') ?? 15;
  const logsDir = args.logs ?? path.join(root, 'reports', 'grade');
  // Read the platform's context before the environment is scrubbed of anything a learner's code must not see.
  const files = { json: args.json, csv: args.csv, junit: args.junit, markdown: args.markdown };
  if (args.repo !== undefined && repos.length > 1)
    throw new UsageError('--repo grades one repository; name several with --repos or --repos-file');
  if (files.junit && repos.length > 1)
    throw new UsageError(
      "--junit writes one learner's tests; with several repositories use --json, --csv or a folder for --classroom50/--gradescope",
    );
  const context = classroom50Context();
  scrubEnvironment();
  // Learners running side by side share the cores: each test run gets its share of vitest workers.
  if (jobs > 1 && !process.env.VITEST_MAX_WORKERS)
    process.env.VITEST_MAX_WORKERS = String(Math.max(1, Math.ceil((availableParallelism() + 1) / jobs)));
  const started = Date.now();
  // Ctrl-C (or a CI job cancelled): end the running test runs and remove the temp copies before exiting.
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const grades = await gradeClass({
    signal: stop.signal,
    kitRoot: root,
    repos,
    chapters,
    jobs,
    logsDir,
    timeoutMs: timeoutMinutes * 60_000,
    onDone: (g, done, total) =>
      process.stderr.write(
        `${done}/${total} ${g.learner}: ${g.points}/${g.maxPoints}${g.findings.length ? `, ${g.findings.length} finding(s)` : ''}\n`,
      ),
  });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (stop.signal.aborted) {
    console.error(
      `Stopped: ${grades.length} of ${repos.length} graded (logs in ${logsDir}); no summary files written.`,
    );
    return 130;
  }
  console.log(
    bold(
      `Grades of ${grades.length} repositor${grades.length === 1 ? 'y' : 'ies'} against this kit's tests (chapters ${chapters.join(', ')})`,
    ),
  );
  console.log('');
  console.log(classTable(grades, chapters));
  console.log(
    dim(
      `\n${grades.length} graded in ${((Date.now() - started) / 1000).toFixed(1)}s, ${Math.min(jobs, grades.length)} at a time; one log per learner in ${logsDir}`,
    ),
  );
  const classJson = { kit: root, chapters, pointsPerChapter: POINTS_PER_CHAPTER, learners: grades };
  if (files.json) write(files.json, json(classJson));
  if (files.csv) write(files.csv, classCsv(grades, chapters));
  if (files.markdown) write(files.markdown, classMarkdown(grades, chapters));
  if (files.junit) write(files.junit, junitXml(root, grades[0]!.tests.map(toOutcome), chapters));
  for (const [flag, file] of Object.entries(files)) if (file) console.log(`wrote ${file} (--${flag})`);
  writePlatformFiles(args, grades, context);
  return 0;
}
