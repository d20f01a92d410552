/**
 * npm run verify: the kit's own check, for authors and CI. It proves that
 * - both workspaces and the tests type-check; the tree is formatted, lint-clean and free of import cycles (Biome);
 * - the committed starter is exactly what the solution generates (no drift);
 * - the solution passes every graded test, and every chapter has at least 15;
 * - the starter fails every graded test, each with a TODO message, and every test is still collected;
 * - progressive unlock: with chapters 1..k solved, the tests of 1..k pass and every chapter k+1 test fails with
 *   "TODO(chapter k+1)", so a learner is never blocked by a later chapter and every test can fail;
 * - every known-wrong solution fails at least one graded test, with a message that points at the mistake;
 * - the guide is whole: every SUMMARY.md entry has a page and every page an entry, the introduction's chapter table
 *   is the one the chapter headers make, quizzes parse and are balanced by position and length, every ```ts check
 *   block type-checks against the solution, and every `npm test -- ...` command quoted in it selects at least one test;
 *   the same over the Chinese edition (book/src/zh), whose pages and hints (tests/chapterNN/hints.zh-CN.md) must be
 *   in step with the English commit they record, or marked behind (scripts/lib/guide-locale.ts);
 * - the guide builds as a site; the kit's own tests (tests/kit: the learner and instructor commands, the agent) pass;
 * - the solution passes every graded test in one run beside CPU-bound processes (cores x 2; not with --quick): no
 *   outcome depends on speed;
 * - every chapter's mutation score is at least 85% with each survivor listed as equivalent (chapters whose code or
 *   tests changed since mutation-baseline.json are mutated again; the others are read from it);
 * and prints how long each part took. `--quick` skips the site, the kit's tests, the load beside the graded run and mutation testing.
 */
import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { editionProblems, starterDrift } from './build-starter.js';
import { dictation, dictationLines, repeatingHints } from './dictation.js';
import { chapterDir, parseTestArgs } from '../lib/chapters.js';
import { buildSite, checkGuide, guideTestCommands } from '../lib/guide.js';
import { parseScriptArgs } from '../kit/args.js';
import { chapterTestFiles, importClosure } from '../kit/cache.js';
import { MIN_MUTATION_SCORE } from './lib/mutation.js';
import { checkMutation } from './mutation.js';
import { pointerGateFromOutcomes } from './pointers.js';
import { ROOT } from '../lib/paths.js';
import { buildWorkspace, listRegions, listSources } from '../lib/regions.js';
import { runTsc } from '../lib/tsc.js';
import type { TestOutcome } from './lib/verify-reporter.js';
import { loadWrongSolutions, type WrongSolution } from './lib/wrong-solutions.js';
import {
  filesUnder,
  readWorkspaceBaseline,
  type Expected,
  recordedOutcomes,
  WORKSPACE_BASELINE,
  workspaceKey,
  writeWorkspaceBaseline,
} from './lib/workspace-baseline.js';

const MIN_TESTS_PER_CHAPTER = 15;
const USAGE = 'npm run verify [-- --quick] [--chapter=4[,5]]';
const { values } = parseScriptArgs(USAGE, {
  options: { quick: { type: 'boolean' }, chapter: { type: 'string', multiple: true } },
});
/** --quick: skip the slow parts (the site build, the kit's own tests, mutation testing) while writing a chapter. */
const quick = values.quick ?? false;
/**
 * --chapter=4 (or --chapter=4,5, or --chapter 4 --chapter 5): check only those chapters' workspaces (solution,
 * starter, the unlock workspace before each, its known-wrong solutions) in a work folder of their own, so authors of
 * different chapters can run verify side by side. Implies --quick. CI always runs the whole check.
 */
const only = (values.chapter ?? []).flatMap((list) => list.split(',')).map(Number);
if (only.some((n) => !(Number.isInteger(n) && n > 0))) {
  console.error(
    `--chapter wants chapter numbers, such as --chapter=4,5, not "${values.chapter!.join(',')}"\nUsage: ${USAGE}`,
  );
  process.exit(2);
}
const WORK = path.join(ROOT, only.length > 0 ? `.verify-${only.join('-')}` : '.verify');
const verifyStarted = performance.now();
const failures: string[] = [];
const timings: Array<[string, number]> = [];
/** Work that ran beside the steps (its own time, from when it started): listed, not part of the steps' sum. */
const beside: Array<[string, number]> = [];

async function step(name: string, run: () => Promise<string[]> | string[]): Promise<void> {
  const started = performance.now();
  process.stdout.write(`• ${name} … `);
  let problems: string[];
  try {
    problems = await run();
  } catch (error) {
    problems = [`${name} could not run: ${error instanceof Error ? error.stack : String(error)}`];
  }
  const seconds = (performance.now() - started) / 1000;
  timings.push([name, seconds]);
  console.log(`${problems.length === 0 ? 'ok' : 'FAILED'} (${seconds.toFixed(1)} s)`);
  for (const problem of problems.slice(0, 40)) console.log(`    ✗ ${problem}`);
  if (problems.length > 40) console.log(`    … and ${problems.length - 40} more`);
  failures.push(...problems);
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** The kit's test files and their times, slowest first, for the summary (filled by the kit tests' step). */
const kitFileTimes: Array<[string, number]> = [];

/** The test files of a vitest JSON report, slowest first: [path relative to the root, seconds]. */
function slowestFiles(report: string): Array<[string, number]> {
  if (!existsSync(report)) return [];
  const json = JSON.parse(readFileSync(report, 'utf8')) as {
    testResults: Array<{ name: string; startTime: number; endTime: number }>;
  };
  return json.testResults
    .map((file): [string, number] => [path.relative(ROOT, file.name), (file.endTime - file.startTime) / 1000])
    .sort((a, b) => b[1] - a[1]);
}

/**
 * The kit's own tests (tests/kit), as `npm run test:kit` runs them, with a JSON report for the summary's slowest files.
 * They need nothing verify builds (each works in a copy of the repository) and spend most of their time waiting on the
 * programs they start, as the graded runs do: a full verify starts them first, beside every step up to its own.
 */
async function kitTests(): Promise<{ problems: string[]; seconds: number; passed?: string }> {
  const started = performance.now();
  const report = path.join(WORK, 'kit-tests.json');
  const result = await run(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--config',
      'vitest.kit.config.ts',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
    ],
    { FORCE_COLOR: '0' },
  );
  const seconds = (performance.now() - started) / 1000;
  kitFileTimes.push(...slowestFiles(report));
  const passed = /Tests\s+(\d+) passed/.exec(result.output)?.[1];
  return result.code === 0
    ? { problems: [], seconds, passed }
    : { problems: [`npm run test:kit failed:\n${result.output.trim().split('\n').slice(-60).join('\n')}`], seconds };
}
// The work folder is made anew here, not by the workspaces' step, since the kit tests' report goes into it too.
rmSync(WORK, { recursive: true, force: true });
mkdirSync(WORK, { recursive: true });
const kitTestsRun = quick || only.length > 0 ? undefined : kitTests();

const allChapters = readdirSync(path.join(ROOT, 'tests'))
  .map((name) => /^chapter(\d\d)$/.exec(name))
  .filter((match): match is RegExpExecArray => match !== null)
  .map((match) => Number(match[1]))
  .sort((a, b) => a - b);
const chapters = only.length > 0 ? allChapters.filter((n) => only.includes(n)) : allChapters;
const include = (list: number[]) => list.map((n) => `${chapterDir(n)}**/*.test.ts`);
const upTo = (k: number) => chapters.filter((n) => n <= k);

// ---------------------------------------------------------------------------------------------------------------

await step('type-check solution, starter and tests', async () => {
  const configs = ['tsconfig.json', 'tsconfig.starter.json'];
  const results = await Promise.all(configs.map((config) => runTsc(ROOT, ['-p', config])));
  return results.flatMap((result, i) =>
    result?.code === 0 ? [] : [`tsc -p ${configs[i]}:\n${result?.output.trim() ?? 'typescript is not installed'}`],
  );
});

await step('format, lint and import cycles (Biome: npm run lint)', async () => {
  const result = await run(path.join(ROOT, 'node_modules/.bin/biome'), ['check', '--reporter=summary', '.']);
  return result.code === 0
    ? []
    : [`npx biome check . found problems (npm run format fixes the layout):\n${result.output.trim()}`];
});

await step('starter is generated from the solution (no drift)', () => starterDrift());

// The graded runs below use the contract edition; the guided one grades the same because it differs only in comments.
await step('the guided edition differs from the contract edition only in comments, and every stub has steps', () =>
  editionProblems(),
);

// Each project is a source tree plus the chapters whose tests run against it.
interface Project {
  name: string;
  src: string;
  chapters: number[];
  wrong?: WrongSolution;
  /** Only these test files (a known-wrong solution runs only the tests that import the file it changes). */
  files?: string[];
  /** Chapters <= solvedUpTo must pass; the chapter after must fail with its TODO. */
  solvedUpTo: number;
  /** An unlock workspace whose solved chapters' tests that reach no stubbed file are read from the solution run. */
  reused?: boolean;
  /** Runs in the one project of copied workspaces (ws/<name>/src and ws/<name>/tests): unlock and known-wrong. */
  shared?: boolean;
  /**
   * The workspace's own source files (relative to src/): those that differ from the solution's and those that import
   * one of them, directly or not. Every other file runs the solution's own module, loaded once for all workspaces.
   */
  own?: string[];
  /** A shared workspace's key: the hash of every input of its outcomes (lib/workspace-baseline.ts). */
  key?: string;
  /** Its outcomes were read back from workspaces-baseline.json (its inputs are those they were recorded with). */
  recorded?: boolean;
}
const projects: Project[] = [];
/** The workers of the workspaces' run (KIT_VERIFY_WORKERS overrides; the solution's run keeps the config's 4). */
const SHARED_WORKERS = 8;
/** The one vitest project every unlock and known-wrong workspace runs in. */
const WRONG_PROJECT = '(unlock and known-wrong workspaces)';
const solutionSrc = path.join(ROOT, 'solution/src');
let outcomes: TestOutcome[] = [];
/** Each shared workspace's key, set as it is written (build step). */
const keys = new Map<string, string>();
const workspaceBaseline = readWorkspaceBaseline();
/** Shared workspaces a check found a problem with: their outcomes are not recorded. */
const troubled = new Set<string>();
/** The tests a known-wrong workspace runs, by `<workspace>/<test file>` (the others of its files are skipped). */
const allow: Record<string, string[]> = {};
/** What a shared workspace's run gives when none of its tests fails: the solution's tests of its files. */
const expectedOf = (project: Project) =>
  solutionTests()
    .filter((o) => project.files!.includes(o.file))
    .map((o) => {
      const names = allow[`${project.name}/${o.file}`];
      return { file: o.file, name: o.name, state: !names || names.includes(o.name) ? 'passed' : 'skipped' };
    });

await step('build the workspaces (progressive unlock and known-wrong solutions)', () => {
  rmSync(path.join(WORK, 'ws'), { recursive: true, force: true });
  const texts = new Map<string, string>();
  const readText = (file: string) => texts.get(file) ?? texts.set(file, readFileSync(file, 'utf8')).get(file)!;
  /** Writes a workspace; a file identical to `same(rel)` (an existing file) is a hard link to it (no data to write). */
  const write = (
    name: string,
    files: Map<string, string>,
    same: (rel: string) => string | undefined = () => undefined,
  ) => {
    const dir = path.join(WORK, 'ws', name);
    const made = new Set<string>();
    for (const [rel, text] of files) {
      const target = path.join(dir, rel);
      if (!made.has(path.dirname(target))) mkdirSync(path.dirname(target), { recursive: true });
      made.add(path.dirname(target));
      const original = same(rel);
      try {
        if (original !== undefined && readText(original) === text) {
          linkSync(original, target);
          continue;
        }
      } catch {
        // No hard links here (another file system, say): write the copy.
      }
      writeFileSync(target, text);
    }
    return dir;
  };
  const problems: string[] = [];
  projects.push({ name: 'solution', src: solutionSrc, chapters, solvedUpTo: Infinity });
  projects.push({ name: 'starter', src: path.join(ROOT, 'starter/src'), chapters, solvedUpTo: 0 });
  const testsDir = path.join(ROOT, 'tests') + path.sep;
  const closures = new Map<string, { data: string[]; reaches: Set<string> }>();
  /** What a test file reaches through its imports (in the solution), and the files beside it it may read. */
  const closureOf = (file: string) => {
    if (!closures.has(file)) {
      const dir = path.dirname(file);
      // Files beside the test that it may read without importing them (fixtures, data).
      const data = readdirSync(dir)
        .map((f) => path.join(dir, f))
        .filter((f) => !/\.test\.ts$|\.md$/.test(f) && statSync(f).isFile());
      closures.set(file, { data, reaches: new Set(importClosure([file], solutionSrc)) });
    }
    return closures.get(file)!;
  };
  /**
   * Writes a workspace that runs in the shared project: its code in ws/<name>/src and a copy of the test files it
   * runs, with everything they import or read from the tests folder, in ws/<name>/tests.
   */
  const writeShared = (name: string, files: Map<string, string>, testFiles: string[]) => {
    const key = keyOf(files, testFiles);
    keys.set(name, key);
    // A workspace whose outcomes will be read back (its inputs are as recorded) is not run, so it is not written.
    if (workspaceBaseline.workspaces[name]?.key === key) return path.join(WORK, 'ws', name, 'src');
    const tests = new Map<string, string>();
    for (const test of testFiles) {
      const { data, reaches } = closureOf(test);
      for (const file of [...data, ...reaches].filter((f) => f.startsWith(testsDir)))
        tests.set(path.relative(ROOT, file), readText(file));
    }
    const srcDir = `src${path.sep}`;
    write(
      name,
      new Map([...[...files].map(([rel, text]) => [path.join('src', rel), text] as const), ...tests]),
      (rel) => (rel.startsWith(srcDir) ? path.join(solutionSrc, rel.slice(srcDir.length)) : path.join(ROOT, rel)),
    );
    return path.join(WORK, 'ws', name, 'src');
  };
  const setupReaches = importClosure([path.join(ROOT, 'tests/setup.ts')], solutionSrc);
  const srcDir = solutionSrc + path.sep;
  /**
   * The key of a workspace of `files` (its sources, relative to src/) running `testFiles`: what the tests import and
   * read, the workspace's version of each source among them, and the solution's version of every file the workspace
   * changed (the solution run's trace chooses which of a known-wrong workspace's tests run). A test that runs the
   * tree in a child process (it reads KIT_SOURCE) can load any source and the kit's scripts: all are inputs then.
   */
  const keyOf = (files: Map<string, string>, testFiles: string[]) => {
    const inputs = new Map<string, string>();
    const add = (file: string) => {
      if (!file.startsWith(srcDir)) return inputs.set(path.relative(ROOT, file), readText(file));
      const rel = path.relative(solutionSrc, file);
      return inputs.set(`src/${rel}`, files.get(rel) ?? readText(file));
    };
    for (const test of testFiles) {
      const { data, reaches } = closureOf(test);
      for (const file of [...data, ...reaches]) add(file);
    }
    for (const file of setupReaches) add(file);
    for (const [rel, text] of files) {
      const original = path.join(solutionSrc, rel);
      if (existsSync(original) && readText(original) !== text) inputs.set(`solution/src/${rel}`, readText(original));
    }
    if ([...inputs].some(([name, text]) => !name.startsWith('src/') && text.includes('KIT_SOURCE'))) {
      for (const [rel, text] of files) inputs.set(`src/${rel}`, text);
      for (const rel of filesUnder(path.join(ROOT, 'scripts')))
        inputs.set(`scripts/${rel}`, readText(path.join(ROOT, 'scripts', rel)));
    }
    return workspaceKey(inputs);
  };
  // What each source file reaches through its imports, and so the files a change to some files reaches back to.
  const sources = listSources(solutionSrc);
  const reachesOf = new Map(
    sources.map((rel) => [rel, new Set(importClosure([path.join(solutionSrc, rel)], solutionSrc))]),
  );
  const ownFiles = (changed: ReadonlySet<string>) =>
    sources.filter((rel) => [...reachesOf.get(rel)!].some((file) => changed.has(file)));
  for (const next of chapters.filter((n) => n > allChapters[0]!)) {
    const k = allChapters[allChapters.indexOf(next) - 1]!;
    const { files } = buildWorkspace(solutionSrc, (region) => region.chapter > k);
    const solved = only.length > 0 ? [] : upTo(k);
    // A chapter 1..k test whose imports reach no stubbed file runs the very code the solution run ran: its outcome
    // there is its outcome here, so only the tests that reach a stubbed file run again (and all of chapter k+1's).
    const stubbed = new Set(
      [...files]
        .filter(([rel, text]) => text !== readText(path.join(solutionSrc, rel)))
        .map(([rel]) => path.join(solutionSrc, rel)),
    );
    const reaching = solved.flatMap((n) =>
      chapterTestFiles(ROOT, n).filter((file) =>
        [...closureOf(file).reaches, ...setupReaches].some((reached) => stubbed.has(reached)),
      ),
    );
    const toRun = [...reaching, ...chapterTestFiles(ROOT, next)];
    const name = `unlock-${k}`;
    const src = writeShared(name, files, toRun);
    projects.push({
      name,
      src,
      chapters: [...solved, next],
      files: toRun.map((file) => path.relative(ROOT, file)),
      solvedUpTo: k,
      reused: solved.length > 0,
      shared: true,
      own: ownFiles(stubbed),
      key: keys.get(name),
    });
  }
  const regionFiles = new Map(
    listRegions(ROOT, 'solution').map((r) => [`chapter ${r.chapter}: ${r.name}`, path.join(ROOT, r.file)]),
  );
  for (const chapter of chapters) {
    // Which of the chapter's test files can reach each source file: a known-wrong solution changes one region, so
    // only the tests whose imports reach that region's file can catch it (this keeps verify's run small).
    const tests = chapterTestFiles(ROOT, chapter);
    for (const wrong of loadWrongSolutions(ROOT, chapter)) {
      const regionFile = regionFiles.get(wrong.region);
      if (!regionFile) {
        problems.push(
          `${path.relative(ROOT, wrong.file)} names the region "${wrong.region}", which the solution does not have`,
        );
        continue;
      }
      const { files } = buildWorkspace(solutionSrc, () => false, new Map([[wrong.region, wrong.body]]));
      const name = `wrong-${chapter}-${wrong.slug}`;
      const reaching = tests.filter((file) => closureOf(file).reaches.has(regionFile));
      const src = writeShared(name, files, reaching);
      projects.push({
        name,
        src,
        chapters: [chapter],
        wrong,
        files: reaching.map((file) => path.relative(ROOT, file)),
        solvedUpTo: Infinity,
        shared: true,
        own: ownFiles(new Set([regionFile])),
        key: keys.get(name),
      });
    }
  }
  return problems;
});

const chapterOf = (outcome: TestOutcome) => Number(/chapter(\d\d)/.exec(outcome.file)?.[1]);
const byProject = (name: string) => outcomes.filter((o) => o.project === name);
const label = (o: TestOutcome) => `${o.file} > ${o.name}`;
const solutionTests = () => byProject('solution');

/** Runs vitest once on the planned projects (verify.vitest.config.ts) and adds their outcomes. */
async function runProjects(planned: object[], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const planFile = path.join(WORK, 'plan.json');
  const outFile = path.join(WORK, 'outcomes.json');
  rmSync(outFile, { force: true });
  writeFileSync(planFile, JSON.stringify({ projects: planned }));
  const result = await run(
    process.execPath,
    [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'scripts/authors/verify.vitest.config.ts'],
    {
      KIT_VERIFY_PLAN: planFile,
      KIT_VERIFY_OUT: outFile,
      KIT_TARGET: '',
      KIT_VERIFY_WORKSPACES_PROJECT: WRONG_PROJECT,
      ...env,
    },
  );
  if (!existsSync(outFile)) return [`vitest did not finish:\n${result.output.slice(-4000)}`];
  const report = JSON.parse(readFileSync(outFile, 'utf8')) as { outcomes: TestOutcome[]; unhandled: string[] };
  outcomes.push(...report.outcomes);
  return report.unhandled.map((message) => `unhandled error during the test run: ${message}`);
}

/**
 * Runs `work` beside `count` CPU-bound processes (none when `count` is 0), so that what it runs meets a busy machine.
 */
async function besideBusyProcesses<T>(count: number, work: () => Promise<T>): Promise<T> {
  const busy = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    return await work();
  } finally {
    for (const child of busy) child.kill('SIGKILL');
  }
}

// The determinism proof is this run itself (docs/authors.md, "A test's outcome depends on the code"): in a full
// verify the solution's graded tests run once, beside twice as many CPU-bound processes as the machine has cores,
// and every one must pass (next steps). --quick and --chapter run them on a quiet machine, for speed.
const loops = quick || only.length > 0 ? 0 : availableParallelism() * 2;
const own = projects.filter((p) => !p.shared);
await step(
  `run the solution's and the starter's tests (one vitest run, the solution traced${loops ? `, beside ${loops} CPU-bound processes` : ''})`,
  () =>
    besideBusyProcesses(loops, () =>
      runProjects(own.map((p) => ({ name: p.name, src: p.src, include: p.files ?? include(p.chapters) }))),
    ),
);

// The guide's checks read the book and the solution only: they run beside the workspaces' run, which mostly waits.
const guideChecked = checkGuide().catch((error: unknown) => [
  `the guide's checks could not run: ${error instanceof Error ? error.stack : String(error)}`,
]);

const wrongs = projects.filter((p) => p.shared);
await step(
  `run the ${wrongs.length} unlock and known-wrong workspaces' tests (one vitest run; a known-wrong one runs the tests that reached its region)`,
  async () => {
    // A known-wrong solution changes the inside of one region: a test that did not reach it in the solution run (in
    // the test, or outside any test in its file) runs the same code and passes as it did there, so only the tests that
    // reached it run (scripts/authors/lib/verify-allow.ts skips the others).
    for (const project of wrongs.filter((p) => p.wrong)) {
      const reached = solutionTests().filter(
        (o) => project.files!.includes(o.file) && o.regions?.includes(project.wrong!.region),
      );
      project.files = project.files!.filter((file) => reached.some((o) => o.file === file));
      for (const file of project.files)
        allow[`${project.name}/${file}`] = reached.filter((o) => o.file === file).map((o) => o.name);
    }
    // A workspace whose inputs are those its recorded outcomes were found with is not run: they are read back.
    for (const project of wrongs) {
      const recorded = recordedOutcomes(workspaceBaseline, project.name, project.key!, expectedOf(project));
      if (!recorded) continue;
      project.recorded = true;
      outcomes.push(...recorded);
    }
    const toRun = wrongs.filter((p) => !p.recorded);
    const readBack = wrongs.length - toRun.length;
    if (readBack > 0) process.stdout.write(`${readBack} read back from ${WORKSPACE_BASELINE}, ${toRun.length} run … `);
    const allowFile = path.join(WORK, 'allow.json');
    writeFileSync(allowFile, JSON.stringify({ workspaces: path.join(WORK, 'ws'), tests: allow }));
    const shared = {
      name: WRONG_PROJECT,
      src: solutionSrc,
      workspaces: path.join(WORK, 'ws'),
      own: Object.fromEntries(toRun.map((p) => [p.name, p.own ?? []])),
      include: toRun.flatMap((p) => p.files!.map((file) => `${p.name}/${file}`)),
    };
    // Eight workers: a known-wrong solution that hangs holds its worker until a test's limit (HANG_MS), so more of
    // them side by side keep the two cores busy (measured 2026-12-01 on a quiet machine: 346 s with 8, 448 s with 4).
    return toRun.length > 0
      ? runProjects([shared], {
          KIT_VERIFY_ALLOW: allowFile,
          KIT_VERIFY_WORKERS: process.env.KIT_VERIFY_WORKERS ?? String(SHARED_WORKERS),
        })
      : [];
  },
);

await step('the solution passes every graded test', () => {
  const problems = solutionTests()
    .filter((o) => o.state !== 'passed')
    .map((o) => `${label(o)}: ${o.state} ${o.messages[0] ?? ''}`.trim());
  for (const chapter of chapters) {
    const count = solutionTests().filter((o) => chapterOf(o) === chapter).length;
    if (count < MIN_TESTS_PER_CHAPTER)
      problems.push(`chapter ${chapter} has ${count} graded tests; at least ${MIN_TESTS_PER_CHAPTER} are needed`);
  }
  return problems;
});

await step('the starter fails every graded test with a TODO message', () => {
  const problems: string[] = [];
  const starter = byProject('starter');
  for (const o of starter) {
    if (o.state === 'passed') problems.push(`${label(o)} passes on the starter: it cannot fail, so it grades nothing`);
    else if (!o.messages.some((m) => m.includes('TODO(chapter')))
      problems.push(`${label(o)} fails on the starter without a TODO message: ${o.messages[0] ?? o.state}`);
  }
  if (starter.length !== solutionTests().length) {
    problems.push(
      `the starter run collected ${starter.length} tests but the solution run ${solutionTests().length}: a test file fails to load on the starter`,
    );
  }
  return problems;
});

await step(
  'progressive unlock: chapters 1..k solved pass 1..k, and every chapter k+1 test fails on its own TODO',
  () => {
    const problems: string[] = [];
    let reusedCount = 0;
    for (const project of projects.filter((p) => p.name.startsWith('unlock-'))) {
      const before = problems.length;
      const k = project.solvedUpTo;
      const next = project.chapters.at(-1)!;
      const ran = byProject(project.name);
      const ranFiles = new Set(ran.map((o) => o.file));
      // The solved chapters' test files that reach no stubbed file ran on byte-identical code in the solution run.
      const reused = project.reused
        ? solutionTests().filter(
            (o) => chapterOf(o) <= k && project.chapters.includes(chapterOf(o)) && !ranFiles.has(o.file),
          )
        : [];
      reusedCount += reused.length;
      const results = [...ran, ...reused];
      const expected = solutionTests().filter((o) => project.chapters.includes(chapterOf(o))).length;
      if (results.length !== expected)
        problems.push(
          `${project.name}: collected ${results.length} tests, expected ${expected} (a test file fails to load)`,
        );
      for (const o of results) {
        if (chapterOf(o) <= k && o.state !== 'passed') {
          problems.push(
            `with chapters 1-${k} solved, ${label(o)} should pass but ${o.state}: ${o.messages[0] ?? ''} (does it depend on a later chapter?)`,
          );
        }
        if (
          chapterOf(o) === next &&
          (o.state === 'passed' || !o.messages.some((m) => m.includes(`TODO(chapter ${next})`)))
        ) {
          problems.push(
            `with chapters 1-${k} solved and ${next} stubbed, ${label(o)} should fail with TODO(chapter ${next}) but ${o.state}: ${o.messages[0] ?? ''}`,
          );
        }
      }
      if (problems.length > before) troubled.add(project.name);
    }
    if (reusedCount > 0) process.stdout.write(`${reusedCount} solved-chapter results read from the solution run … `);
    return problems;
  },
);

await step('every known-wrong solution is caught by a graded test that points at the mistake', () => {
  const problems: string[] = [];
  const caught: string[] = [];
  for (const project of projects.filter((p) => p.wrong)) {
    const wrong = project.wrong!;
    const failed = byProject(project.name).filter((o) => o.state === 'failed');
    const where = path.relative(ROOT, wrong.file);
    if (project.files!.length === 0)
      problems.push(
        `${where} (${wrong.why}): no chapter ${wrong.chapter} test reached "${wrong.region}" in the solution run, so none can catch it`,
      );
    else if (failed.length === 0)
      problems.push(`${where} (${wrong.why}) passes every chapter ${wrong.chapter} test: no test catches this mistake`);
    else if (!failed.some((o) => o.messages.some((m) => wrong.expect.test(m)))) {
      // Every failing test's every message was tried, so the verdict does not depend on the order files finished in;
      // each failure is listed, since the one printed first says nothing about which test should have caught it.
      const seen = failed.map((o) => `\n      ${label(o)}: ${o.messages[0] ?? o.state}`).join('');
      problems.push(
        `${where} (${wrong.why}) is caught, but no failure message matches ${wrong.expect}; it failed:${seen}`,
      );
    } else {
      caught.push(where);
      continue;
    }
    troubled.add(project.name);
  }
  for (const chapter of chapters) {
    if (loadWrongSolutions(ROOT, chapter).length < 3)
      problems.push(`chapter ${chapter} has fewer than 3 known-wrong solutions in ${chapterDir(chapter)}wrong/`);
  }
  process.stdout.write(`${caught.length} caught … `);
  return problems;
});

// What watch and hint would say for each known-wrong solution, from the outcomes above (no second run): the stub
// they name must be the broken one ("Edit:"), or the list of stubs the failing test exercised must hold it ("Check:").
await step('every known-wrong solution is pointed at rightly or honestly by watch and hint (no wrong "Edit:")', () => {
  // The workspaces' run is not traced: a test's regions are those the same test reached in the solution run.
  const traced = new Map(solutionTests().map((o) => [`${o.file} > ${o.name}`, o.regions]));
  const withRegions = (o: TestOutcome) => ({ ...o, regions: o.regions ?? traced.get(`${o.file} > ${o.name}`) });
  const judged = projects.filter((p) => p.wrong);
  const gate = pointerGateFromOutcomes(
    ROOT,
    judged.map((p) => ({ wrong: p.wrong!, outcomes: byProject(p.name).map(withRegions) })),
  );
  for (const project of judged)
    if (gate.misses.some((miss) => miss.startsWith(`${path.relative(ROOT, project.wrong!.file)}:`)))
      troubled.add(project.name);
  process.stdout.write(`${gate.summary.at(-1) ?? ''} … `);
  // What the checks found good is recorded, to be read back while its inputs stay the same. A run of some chapters
  // (--chapter) records its known-wrong workspaces beside the others; its unlock workspaces run fewer tests than a
  // whole verify's, so they are left out.
  const kept = new Map<string, { key: string; outcomes: TestOutcome[]; expected: Expected }>();
  for (const project of projects.filter((p) => p.shared && p.key && !troubled.has(p.name))) {
    if (only.length > 0 && !project.wrong) continue;
    const expected = expectedOf(project);
    kept.set(project.name, { key: project.key!, outcomes: byProject(project.name), expected });
  }
  writeWorkspaceBaseline(kept, only.length > 0);
  return gate.misses;
});

await step(
  "the guide, English and Chinese: SUMMARY.md and the pages agree, the introduction's chapter table is the headers', quizzes parse and are balanced by position and by length, diagrams parse, no authors' voice, every ```ts check block type-checks, every translation in step with its English commit or marked behind (beside the workspaces' run: the time here is what was left to wait)",
  () => guideChecked,
);

await step('every `npm test -- …` command in the guide (both languages) selects at least one test', () => {
  const problems: string[] = [];
  const commands = guideTestCommands();
  if (commands.length === 0) return ['the guide quotes no `npm test -- …` command at all'];
  for (const command of commands) {
    const parsed = parseTestArgs(command.args, (n) => allChapters.includes(n));
    if (only.length > 0 && !parsed.chapters.some((n) => chapters.includes(n))) continue;
    const where = `${command.file}:${command.line}: "npm test -- ${command.args.join(' ')}"`;
    if (parsed.unknown.length) problems.push(`${where} names a chapter with no tests: ${parsed.unknown.join(', ')}`);
    const t = parsed.passThrough.findIndex((a) => a === '-t' || a === '--testNamePattern');
    const pattern = t >= 0 ? new RegExp(parsed.passThrough[t + 1] ?? '') : undefined;
    const selected = solutionTests().filter(
      (o) =>
        (parsed.chapters.length === 0 || parsed.chapters.includes(chapterOf(o))) &&
        (!pattern || pattern.test(o.name.split(' > ').join(' '))),
    );
    if (selected.length === 0) problems.push(`${where} selects no test`);
  }
  return problems;
});

if (quick || only.length > 0) {
  console.log(
    `• the site, the kit's own tests, the load beside the graded run and mutation testing … skipped (${quick ? '--quick' : '--chapter'})`,
  );
} else {
  await step('the guide builds as a site (VitePress, offline)', async () => {
    await buildSite();
    return [];
  });

  await step(
    "the kit's own tests: commands, watch, hints, grading, the guide tools and npm run agent (started with verify, beside the steps above; the time here is what was left to wait)",
    async () => {
      const result = await kitTestsRun!;
      beside.push(["the kit's own tests, from verify's start (beside the steps up to theirs)", result.seconds]);
      process.stdout.write(
        `${result.passed ? `${result.passed} passed, ` : ''}${result.seconds.toFixed(1)} s in all … `,
      );
      return result.problems;
    },
  );

  await step(
    `mutation testing: every chapter at least ${MIN_MUTATION_SCORE}%, every survivor killed or listed (chapters changed since mutation-baseline.json are re-run)`,
    () => checkMutation(),
  );
}

// ---------------------------------------------------------------------------------------------------------------

const total = (performance.now() - verifyStarted) / 1000;
console.log('\nTimings:');
for (const [name, seconds] of timings) console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${name}`);
for (const [name, seconds] of beside) console.log(`  (${seconds.toFixed(1)} s  ${name})`);
console.log(`  ${total.toFixed(1).padStart(6)} s  in all`);
if (kitFileTimes.length > 0) {
  console.log("\nThe kit's slowest test files (each file's own time; files run side by side):");
  for (const [file, seconds] of kitFileTimes.slice(0, 8)) console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${file}`);
}
// Where the workspaces' run waits: a known-wrong solution that hangs holds a worker until a test's limit.
const workspaceSeconds = new Map<string, number>();
for (const o of outcomes)
  if (/^(wrong|unlock)-/.test(o.project))
    workspaceSeconds.set(o.project, (workspaceSeconds.get(o.project) ?? 0) + (o.ms ?? 0) / 1000);
const slowWorkspaces = [...workspaceSeconds].sort((a, b) => b[1] - a[1]);
if (slowWorkspaces.length > 0) {
  console.log("\nThe slowest unlock and known-wrong workspaces (their tests' times added up; 8 run side by side):");
  for (const [name, seconds] of slowWorkspaces.slice(0, 8))
    console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${name}`);
}
const perChapter = chapters
  .map((n) => `chapter ${n}: ${solutionTests().filter((o) => chapterOf(o) === n).length}`)
  .join(', ');
console.log(`\nGraded tests: ${solutionTests().length} (${perChapter})`);
// A report, not a gate (npm run dictation): how much of each reference body the stubs' comments spell out.
console.log('\nHow much the stubs dictate (identifiers and literals of the reference body their comments spell out):');
for (const line of dictationLines(dictation())) console.log(`  ${line}`);
const repeats = repeatingHints();
console.log(`  hints that repeat their stub's contract or steps (npm run dictation -- --hints): ${repeats.length}`);

if (failures.length > 0) {
  console.log(`\nverify: ${failures.length} problem(s) found`);
  process.exit(1);
}
console.log(`\nverify: ${timings.length} passed, 0 failed`);
