/**
 * npm run grade -- --repo/--repos: learners' repositories graded against the kit's pristine tests (scripts/kit/
 * class-grade.ts, pristine.ts), and the files classrooms read (grade-formats.ts), checked against their contracts.
 *
 * The batch is built in temp folders from this checkout: a kit repository with chapters 1-2, and learners cloned
 * from it (solved; half-done; one that edited a test and vitest.config.ts; one with a broken package.json; one made
 * from a template, so sharing files but no history with the kit).
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { learnerNames, reposFromArgs, scrubEnvironment } from '../../scripts/kit/class-grade.js';
import {
  classCsv,
  classroom50Context,
  classroom50Result,
  gradescopeResult,
  parseChapters,
  type LearnerGrade,
} from '../../scripts/kit/grade-formats.js';
import { compareToBase, findBase, ignoreMatcher, prepareCopy, reachesOutside } from '../../scripts/kit/base-version.js';
import { copyRepo, REPO, runToEnd, solveUpTo } from './helpers.js';

const TSX = path.join(REPO, 'node_modules/tsx/dist/cli.mjs');
const IDENTITY = {
  GIT_AUTHOR_NAME: 'k',
  GIT_AUTHOR_EMAIL: 'k@example.com',
  GIT_COMMITTER_NAME: 'k',
  GIT_COMMITTER_EMAIL: 'k@example.com',
};

function git(dir: string, ...args: string[]): string {
  const result = spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, ...IDENTITY } });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout.trim();
}
const commitAll = (dir: string, message: string) => {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--allow-empty', '-m', message);
};

/** Runs `scripts/kit.ts <args>` in `root` without blocking the worker (a class takes a while on a busy machine). */
function kit(
  root: string,
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...extraEnv };
  for (const name of ['KIT_ROOT', 'KIT_SRC', 'KIT_TARGET', 'VITEST_MAX_WORKERS']) delete env[name];
  // A limit as long as the tests' own: a class takes a while on a busy machine.
  return runToEnd(process.execPath, [TSX, path.join(root, 'scripts/kit.ts'), ...args], { cwd: root, env, ms: 600_000 });
}

// ---- The published contracts, written down as schemas of their documented fields ----

const isoUtc = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
/** foundation50/classroom50 wiki/Advanced-Autograding.md, "The result.json contract". */
const classroom50Schema = z
  .strictObject({
    schema: z.literal('classroom50/result/v1'),
    classroom: z.string().optional(),
    assignment: z.string().optional(),
    assignment_type: z.enum(['individual', 'group']).optional(),
    owner: z.string().optional(),
    submission: z.string().optional(),
    commit: z.string().optional(),
    release: z.string().optional(),
    review: z.string().optional(),
    datetime: isoUtc.optional(),
    graded_at: isoUtc.optional(),
    score: z.number().int().min(0),
    'max-score': z.number().int().min(0),
    // Extra diagnostic fields on a test are preserved verbatim: a loose object.
    tests: z.array(
      z.looseObject({
        'test-name': z.string().min(1),
        passed: z.boolean(),
        score: z.number().int().min(0),
        'max-score': z.number().int().min(0),
      }),
    ),
    submitted_by: z.object({ username: z.string(), id: z.unknown().optional() }).optional(),
  })
  .refine((r) => r.score === r.tests.reduce((s, t) => s + t.score, 0), 'score is the sum of the test scores')
  .refine(
    (r) => r['max-score'] === r.tests.reduce((s, t) => s + t['max-score'], 0),
    'max-score is the sum of the max-scores',
  );

const visibility = z.enum(['hidden', 'after_due_date', 'after_published', 'visible']);
/** gradescope/autograder_samples docs/specs.md, "Output format". */
const gradescopeSchema = z.strictObject({
  score: z.number().optional(),
  execution_time: z.number().optional(),
  output: z.string().optional(),
  output_format: z.string().optional(),
  visibility: visibility.optional(),
  stdout_visibility: visibility.optional(),
  extra_data: z.record(z.string(), z.unknown()).optional(),
  tests: z.array(
    z.strictObject({
      score: z.number().optional(),
      max_score: z.number().optional(),
      status: z.enum(['passed', 'failed']).optional(),
      name: z.string().optional(),
      number: z.string().optional(),
      output: z.string().optional(),
      tags: z.array(z.string()).optional(),
      visibility: visibility.optional(),
      extra_data: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  leaderboard: z.array(z.unknown()).optional(),
});

const checkClassroom50 = (value: unknown) => {
  const parsed = classroom50Schema.safeParse(value);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  return parsed.data!;
};
const checkGradescope = (value: unknown) => {
  const parsed = gradescopeSchema.safeParse(value);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  return parsed.data!;
};

// ---- Units: no test run ----

const sampleGrade = (over: Partial<LearnerGrade> = {}): LearnerGrade => ({
  learner: 'ada',
  repo: '/tmp/ada',
  base: { commit: 'a'.repeat(40), how: 'history', note: 'kit aaaaaaaaaa' },
  head: { commit: 'b'.repeat(40), date: '2026-11-20T10:00:00Z' },
  findings: [],
  chapters: [
    { chapter: 1, title: 'One', passed: 20, total: 20, points: 10 },
    { chapter: 2, title: 'Two', passed: 19, total: 20, points: 9.5 },
  ],
  points: 19.5,
  maxPoints: 20,
  errors: [],
  tests: [
    {
      chapter: 2,
      name: 'reads > the file',
      status: 'failed',
      message: 'expected 1 to be 2',
      file: 'tests/chapter02/a.test.ts',
    },
  ],
  ...over,
});

describe('grade formats (scripts/kit/grade-formats.ts)', () => {
  it('Classroom 50: whole points per chapter, rounded down so a failed test never earns the full 10; the runner context when known', () => {
    const env = {
      CLASSROOM: 'cs',
      ASSIGNMENT: 'week2',
      SUBMISSION_TAG: 'submit/x',
      COMMIT_URL: 'https://example.com/c',
      RELEASE_URL: 'https://example.com/r',
    };
    const result = checkClassroom50(
      classroom50Result(sampleGrade(), classroom50Context(env), new Date('2026-11-21T00:00:00.123Z')),
    );
    expect(result.score).toBe(19);
    expect(result['max-score']).toBe(20);
    expect(result.tests[1]).toMatchObject({
      'test-name': 'chapter 2: Two',
      passed: false,
      score: 9,
      'max-score': 10,
      points: 9.5,
      'tests-passed': 19,
      'tests-total': 20,
    });
    expect(result).toMatchObject({
      classroom: 'cs',
      assignment: 'week2',
      datetime: '2026-11-20T10:00:00Z',
      graded_at: '2026-11-21T00:00:00Z',
    });
  });

  it('Classroom 50 and Gradescope: files that differ from the kit are a failed test worth nothing, never hidden', () => {
    const grade = sampleGrade({ findings: [{ file: 'tests/chapter02/a.test.ts', kind: 'changed' }] });
    const c50 = checkClassroom50(classroom50Result(grade, {}));
    expect(c50.tests.at(-1)).toMatchObject({
      passed: false,
      score: 0,
      'max-score': 0,
      findings: ['tests/chapter02/a.test.ts: changed'],
    });
    const gs = checkGradescope(gradescopeResult(grade));
    expect(gs.score).toBe(19.5);
    expect(gs.tests[1]).toMatchObject({
      name: 'chapter 2: Two',
      score: 9.5,
      max_score: 10,
      status: 'failed',
      visibility: 'visible',
    });
    expect(gs.tests[1]!.output).toContain('✗ reads > the file\n    expected 1 to be 2');
    expect(gs.tests.at(-1)).toMatchObject({
      status: 'failed',
      score: 0,
      max_score: 0,
      output: 'tests/chapter02/a.test.ts: changed',
    });
  });

  it('CSV: one row per learner, quoted where needed, and a learner name cannot become a spreadsheet formula', () => {
    const csv = classCsv(
      [
        sampleGrade({
          learner: '=HYPERLINK("x")',
          findings: [{ file: 'package.json', kind: 'changed', detail: 'not valid JSON' }],
        }),
      ],
      [1, 2],
    );
    const [header, row] = csv.trim().split('\n');
    expect(header).toBe('learner,chapter 1,chapter 2,total,max,findings,base,errors');
    expect(row).toBe(`"'=HYPERLINK(""x"")",10,9.5,19.5,20,package.json: changed (not valid JSON),kit aaaaaaaaaa,0`);
  });

  it('--chapters takes ranges and lists, and refuses what the kit does not have', () => {
    expect(parseChapters('1-4', [1, 2, 3, 4, 5])).toEqual([1, 2, 3, 4]);
    expect(parseChapters('chapter5,1-2,2', [1, 2, 3, 4, 5])).toEqual([1, 2, 5]);
    expect(() => parseChapters('3-1', [1, 2, 3])).toThrow(/empty range/);
    expect(() => parseChapters('1-9', [1, 2, 3])).toThrow(/chapter 4 has no tests/);
    expect(() => parseChapters('one', [1])).toThrow(/not a chapter/);
  });
});

describe('pristine copies (scripts/kit/pristine.ts)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'kit-pristine-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the kit's .gitignore patterns: names anywhere, folders only where marked, anchored paths", () => {
    const ignored = ignoreMatcher('node_modules/\n*.log\nbook/.vitepress/cache/\n.verify-*/\n');
    expect(ignored('starter/node_modules', true)).toBe(true);
    expect(ignored('a/b/x.log', false)).toBe(true);
    expect(ignored('book/.vitepress/cache', true)).toBe(true);
    expect(ignored('other/book/.vitepress/cache', true)).toBe(false);
    expect(ignored('.verify-3', true)).toBe(true);
    expect(ignored('.verify-3', false), 'a file of that name is not a folder').toBe(false);
  });

  it('reports symbolic links (in starter/src too) without following them, and copies none into the graded copy', () => {
    const base = path.join(dir, 'base');
    const learner = path.join(dir, 'learner');
    for (const root of [base, learner]) {
      mkdirSync(path.join(root, 'starter/src'), { recursive: true });
      mkdirSync(path.join(root, 'tests'), { recursive: true });
      writeFileSync(path.join(root, 'tests/a.test.ts'), 'test\n');
      writeFileSync(path.join(root, 'starter/src/index.ts'), 'export {};\n');
    }
    writeFileSync(path.join(dir, 'secret.txt'), 'secret');
    symlinkSync(path.join(dir, 'secret.txt'), path.join(learner, 'starter/src/leak.ts'));
    rmSync(path.join(learner, 'tests/a.test.ts'));
    symlinkSync(path.join(base, 'tests/a.test.ts'), path.join(learner, 'tests/a.test.ts'));
    writeFileSync(path.join(learner, 'tests/a.test.ts.orig'), 'x\r\n');
    expect(compareToBase(base, learner)).toEqual([
      { file: 'starter/src/leak.ts', kind: 'symlink', detail: 'not followed' },
      { file: 'tests/a.test.ts', kind: 'deleted' },
      { file: 'tests/a.test.ts', kind: 'symlink', detail: 'not followed' },
      { file: 'tests/a.test.ts.orig', kind: 'added' },
    ]);
    const kitRoot = path.join(dir, 'kit');
    mkdirSync(path.join(kitRoot, 'node_modules'), { recursive: true });
    prepareCopy(kitRoot, base, learner, path.join(dir, 'copy'));
    expect(readdirSync(path.join(dir, 'copy/starter/src'))).toEqual(['index.ts']);
    expect(readFileSync(path.join(dir, 'copy/tests/a.test.ts'), 'utf8'), "the kit's test").toBe('test\n');
  });

  it("imports in the learner's code that load files outside starter/src (the kit's solution/, an absolute path) are findings", () => {
    const src = path.join(dir, 'reach/starter/src');
    mkdirSync(path.join(src, 'tools'), { recursive: true });
    writeFileSync(
      path.join(src, 'simple-agent.ts'),
      "import { a } from './tools/read.js';\nimport z from 'zod';\nexport * from '../../solution/src/agent.js';\n",
    );
    writeFileSync(
      path.join(src, 'tools/read.ts'),
      "import { b } from '../simple-agent.js';\nconst m = await import('/etc/x.js');\nconst r = require(`../../../tests/helpers/h.js`);\n",
    );
    expect(reachesOutside(src)).toEqual([
      {
        file: 'starter/src/simple-agent.ts',
        kind: 'reaches outside',
        detail: 'line 3 imports ../../solution/src/agent.js',
      },
      { file: 'starter/src/tools/read.ts', kind: 'reaches outside', detail: 'line 2 imports /etc/x.js' },
      {
        file: 'starter/src/tools/read.ts',
        kind: 'reaches outside',
        detail: 'line 3 imports ../../../tests/helpers/h.js',
      },
    ]);
  });

  it('line endings alone are not a change; a package.json that does not parse says so', () => {
    const base = path.join(dir, 'eol-base');
    const learner = path.join(dir, 'eol-learner');
    for (const root of [base, learner]) mkdirSync(root, { recursive: true });
    writeFileSync(path.join(base, 'a.ts'), 'one\ntwo\n');
    writeFileSync(path.join(learner, 'a.ts'), 'one\r\ntwo\r\n');
    writeFileSync(path.join(base, 'package.json'), '{}\n');
    writeFileSync(path.join(learner, 'package.json'), '{ "scripts": ');
    expect(compareToBase(base, learner)).toEqual([
      { file: 'package.json', kind: 'changed', detail: 'not valid JSON' },
      { file: 'starter/src', kind: 'missing', detail: 'nothing of theirs to grade' },
    ]);
  });

  it("no shared history and no identical files: the grading kit's own version, said so; a plain folder too", () => {
    const kitRoot = path.join(dir, 'k');
    mkdirSync(kitRoot);
    writeFileSync(path.join(kitRoot, 'a'), '1');
    git(kitRoot, 'init', '-q');
    commitAll(kitRoot, 'kit');
    const head = git(kitRoot, 'rev-parse', 'HEAD');
    const stranger = path.join(dir, 'stranger');
    mkdirSync(stranger);
    writeFileSync(path.join(stranger, 'b'), '2');
    expect(findBase(kitRoot, stranger)).toEqual({
      commit: head,
      how: 'kit',
      note: `the grading kit's own version ${head.slice(0, 10)}: their folder is not a git repository`,
    });
    git(stranger, 'init', '-q');
    commitAll(stranger, 'mine');
    expect(findBase(kitRoot, stranger).note).toMatch(/own version .*: their history shares no commit with the kit/);
  });

  it("reading a learner's history runs nothing their .git/config names (a signature check would start gpg.program)", () => {
    const kitRoot = path.join(dir, 'k2');
    mkdirSync(kitRoot);
    git(kitRoot, 'init', '-q');
    commitAll(kitRoot, 'kit');
    const learner = path.join(dir, 'signed');
    git(dir, 'clone', '-q', kitRoot, learner);
    // A commit that carries a signature: `git log` with log.showSignature verifies it by running gpg.program.
    const tree = git(learner, 'rev-parse', 'HEAD^{tree}');
    const parent = git(learner, 'rev-parse', 'HEAD');
    const body = `tree ${tree}\nparent ${parent}\nauthor k <k@example.com> 1700000000 +0000\ncommitter k <k@example.com> 1700000000 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n x\n -----END PGP SIGNATURE-----\n\nsigned\n`;
    const made = spawnSync('git', ['-C', learner, 'hash-object', '-t', 'commit', '-w', '--stdin'], {
      input: body,
      encoding: 'utf8',
    });
    git(learner, 'update-ref', 'HEAD', made.stdout.trim());
    const marker = path.join(dir, 'ran');
    const program = path.join(dir, 'fake-gpg.sh');
    writeFileSync(program, `#!/bin/sh\ntouch '${marker}'\nexit 1\n`);
    chmodSync(program, 0o755);
    git(learner, 'config', 'log.showSignature', 'true');
    git(learner, 'config', 'gpg.program', program);
    git(learner, 'config', 'core.fsmonitor', program);
    spawnSync('git', ['-C', learner, 'log', '-1'], { encoding: 'utf8' });
    expect(existsSync(marker), 'the trap works: plain git log runs it').toBe(true);
    rmSync(marker);
    expect(findBase(kitRoot, learner)).toMatchObject({ commit: parent, how: 'history' });
    expect(existsSync(marker), "findBase must not run the learner's gpg.program").toBe(false);
  });
});

describe('class-grade helpers (scripts/kit/class-grade.ts)', () => {
  it('names learners by folder, telling apart two folders of the same name', () => {
    expect(learnerNames(['/c/a/ada', '/c/b/ada', '/c/bob'])).toEqual(['a-ada', 'b-ada', 'bob']);
  });

  it('--repos takes several folders, --repos-file one per line with comments, relative to the file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kit-list-'));
    writeFileSync(path.join(dir, 'class.txt'), '# week 2\nada\n\n  bob  \n');
    expect(
      reposFromArgs(['--repos', 'x', 'y', '--jobs', '2', '--repos-file', path.join(dir, 'class.txt')], '/w'),
    ).toEqual(['/w/x', '/w/y', path.join(dir, 'ada'), path.join(dir, 'bob')]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("removes tokens and keys from the environment the learner's code runs in", () => {
    const env: NodeJS.ProcessEnv = {
      PATH: '/bin',
      HOME: '/h',
      GITHUB_TOKEN: 't',
      GH_TOKEN: 't',
      NPM_CONFIG__AUTH: 'x',
      AWS_SECRET_ACCESS_KEY: 'k',
      MY_API_KEY: 'k',
      CLASSROOM: 'cs',
    };
    expect(scrubEnvironment(env).sort()).toEqual([
      'AWS_SECRET_ACCESS_KEY',
      'GH_TOKEN',
      'GITHUB_TOKEN',
      'MY_API_KEY',
      'NPM_CONFIG__AUTH',
    ]);
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', CLASSROOM: 'cs' });
  });
});

// ---- A class, graded end to end ----

describe('npm run grade -- --repos: a class against the pristine kit', () => {
  let top: string;
  let kitRoot: string;
  let cleanupKit: () => void;
  const learners = ['solved', 'half', 'edited', 'broken', 'template'] as const;
  const repo = (name: string) => path.join(top, 'class', name);
  let editedTest: string;

  beforeAll(() => {
    top = mkdtempSync(path.join(tmpdir(), 'kit-class-test-'));
    const kitCopy = copyRepo({ chapters: 2 });
    kitRoot = kitCopy.root;
    cleanupKit = kitCopy.cleanup;
    writeFileSync(
      path.join(kitRoot, '.gitignore'),
      `${readFileSync(path.join(REPO, '.gitignore'), 'utf8')}node_modules\n`,
    );
    git(kitRoot, 'init', '-q');
    commitAll(kitRoot, 'the kit');
    const clone = (name: string) => git(top, 'clone', '-q', kitRoot, repo(name));
    clone('solved');
    solveUpTo(repo('solved'), 2);
    commitAll(repo('solved'), 'chapters 1 and 2');
    clone('half');
    solveUpTo(repo('half'), 1);
    commitAll(repo('half'), 'chapter 1');
    // Chapter 1 done; chapter 2 "passed" by editing a test to expect nothing and pointing vitest at the solution.
    clone('edited');
    solveUpTo(repo('edited'), 1);
    editedTest = readdirSync(path.join(repo('edited'), 'tests/chapter02'))
      .filter((f) => f.endsWith('.test.ts'))
      .sort()[0]!;
    writeFileSync(
      path.join(repo('edited'), 'tests/chapter02', editedTest),
      "import { it } from 'vitest';\nit('passes', () => {});\n",
    );
    const config = path.join(repo('edited'), 'vitest.config.ts');
    writeFileSync(config, readFileSync(config, 'utf8').replace("'starter/src'", "'solution/src'"));
    commitAll(repo('edited'), 'all green');
    clone('broken');
    solveUpTo(repo('broken'), 2);
    writeFileSync(path.join(repo('broken'), 'package.json'), '{ "scripts": { "test": "echo all passed" ');
    commitAll(repo('broken'), 'oops');
    // From a template: the kit's files in a fresh history, then the learner's work.
    mkdirSync(repo('template'), { recursive: true });
    cpSync(kitRoot, repo('template'), { recursive: true, filter: (src) => !/[\\/](\.git|node_modules)$/.test(src) });
    git(repo('template'), 'init', '-q');
    commitAll(repo('template'), 'Initial commit');
    solveUpTo(repo('template'), 1);
    commitAll(repo('template'), 'chapter 1');
  }, 120_000);
  afterAll(() => {
    cleanupKit?.();
    if (top) rmSync(top, { recursive: true, force: true });
  });

  type ClassJson = { chapters: number[]; learners: LearnerGrade[] };
  let graded: ClassJson;

  it("grades every repository with one command into a table, a CSV, a JSON, one log each and the platforms' files", async () => {
    const out = path.join(top, 'out');
    const { status, stdout, stderr } = await kit(
      kitRoot,
      [
        'grade',
        '--repos',
        ...learners.map(repo),
        '--jobs',
        '2',
        '--logs',
        path.join(out, 'logs'),
        '--json',
        path.join(out, 'class.json'),
        '--csv',
        path.join(out, 'class.csv'),
        '--markdown',
        path.join(out, 'class.md'),
        '--classroom50',
        path.join(out, 'c50'),
        '--gradescope',
        path.join(out, 'gs'),
      ],
      { GITHUB_TOKEN: 'must-not-reach-learner-code' },
    );
    expect(status, `${stdout}\n${stderr}`).toBe(0);
    // The table: learner, points per chapter, total, findings.
    expect(stdout).toMatch(/^Learner\s+1\s+2\s+Total\s+Findings$/m);
    expect(stdout).toMatch(/^solved\s+10\s+10\s+20\/20\s+-$/m);
    expect(stdout).toMatch(/^half\s+10\s+0\s+10\/20\s+-$/m);
    expect(stdout, "an edited test earns nothing: the kit's own test ran").toMatch(
      /^edited\s+10\s+0\s+10\/20\s+2 changed$/m,
    );
    expect(stdout, 'nothing of their package.json ran').toMatch(/^broken\s+10\s+10\s+20\/20\s+1 changed$/m);
    expect(stdout).toMatch(/^template\s+10\s+0\s+10\/20\s+-$/m);
    expect(stdout).toContain(`tests/chapter02/${editedTest}: changed`);
    expect(stdout).toContain('vitest.config.ts: changed');
    expect(stdout).toContain('package.json: changed (not valid JSON)');
    expect(stdout).toMatch(
      /template[^\n]*\n {2}graded against kit [0-9a-f]{10}, whose files their commit [0-9a-f]{10} has exactly \(no shared history\)/,
    );

    graded = JSON.parse(readFileSync(path.join(out, 'class.json'), 'utf8')) as ClassJson;
    expect(graded.chapters).toEqual([1, 2]);
    for (const l of graded.learners) expect(l.errors, l.learner).toEqual([]);
    expect(graded.learners.map((l) => [l.learner, l.points, l.base.how])).toEqual([
      ['solved', 20, 'history'],
      ['half', 10, 'history'],
      ['edited', 10, 'history'],
      ['broken', 20, 'history'],
      ['template', 10, 'tree'],
    ]);
    const kitHead = git(kitRoot, 'rev-parse', 'HEAD');
    expect(new Set(graded.learners.map((l) => l.base.commit))).toEqual(new Set([kitHead]));
    for (const l of graded.learners)
      expect(l.tests.length, `${l.learner}: every test of chapters 1-2, today's entries`).toBe(
        graded.learners[0]!.tests.length,
      );
    expect(graded.learners[2]!.findings).toEqual([
      { file: `tests/chapter02/${editedTest}`, kind: 'changed' },
      { file: 'vitest.config.ts', kind: 'changed' },
    ]);

    const csv = readFileSync(path.join(out, 'class.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe('learner,chapter 1,chapter 2,total,max,findings,base,errors');
    expect(csv[1]).toMatch(
      /^solved,10,10,20,20,,"kit [0-9a-f]{10}, the newest commit their history shares with the kit",0$/,
    );
    expect(csv[3]).toMatch(
      new RegExp(
        `^edited,10,0,10,20,tests/chapter02/${editedTest.replace('.', '\\.')}: changed; vitest\\.config\\.ts: changed,`,
      ),
    );
    expect(readFileSync(path.join(out, 'class.md'), 'utf8')).toMatch(
      /^\| broken \| 10 \| 10 \| 20\/20 \| package\.json: changed \(not valid JSON\) \|$/m,
    );

    for (const name of learners) {
      const log = readFileSync(path.join(out, 'logs', `${name}.log`), 'utf8');
      expect(log).toContain(`learner: ${name}`);
      checkClassroom50(JSON.parse(readFileSync(path.join(out, 'c50', `${name}.json`), 'utf8')));
      checkGradescope(JSON.parse(readFileSync(path.join(out, 'gs', `${name}.json`), 'utf8')));
    }
    expect(readFileSync(path.join(out, 'logs', 'half.log'), 'utf8')).toMatch(
      /tests that did not pass:\n {2}✗ chapter 2 /,
    );
  }, 600_000);

  it('each learner graded alone gets exactly what the class run gave them, test by test', async () => {
    expect(graded, 'the class run above').toBeDefined();
    for (const [i, name] of learners.entries()) {
      const file = path.join(top, 'alone', `${name}.json`);
      const { status, stdout } = await kit(kitRoot, [
        'grade',
        '--repo',
        repo(name),
        '--logs',
        path.join(top, 'alone'),
        '--json',
        file,
      ]);
      expect(status, stdout).toBe(0);
      const alone = (JSON.parse(readFileSync(file, 'utf8')) as ClassJson).learners[0]!;
      const inClass = graded.learners[i]!;
      expect(alone.errors, `${name} alone`).toEqual(inClass.errors);
      expect(alone.chapters, name).toEqual(inClass.chapters);
      expect(alone.points, name).toBe(inClass.points);
      expect(alone.findings, name).toEqual(inClass.findings);
      expect(
        alone.tests.map((t) => [t.name, t.status]),
        name,
      ).toEqual(inClass.tests.map((t) => [t.name, t.status]));
    }
  }, 600_000);

  it("one learner: --classroom50 and --gradescope write the files the platforms read, with the runner's context", async () => {
    const out = path.join(top, 'one');
    const { status, stdout } = await kit(
      kitRoot,
      [
        'grade',
        '--repo',
        repo('edited'),
        '--chapters',
        '1',
        '--logs',
        out,
        '--classroom50',
        path.join(out, 'result.json'),
        '--gradescope',
        path.join(out, 'results.json'),
      ],
      {
        CLASSROOM: 'cs',
        ASSIGNMENT: 'week2',
        SUBMISSION_TAG: 'submit/2026-11-26',
        COMMIT_URL: 'https://example.com/c',
        RELEASE_URL: 'https://example.com/r',
      },
    );
    expect(status, stdout).toBe(0);
    expect(stdout).toMatch(/^edited\s+10\s+10\/10\s+2 changed$/m);
    const c50 = checkClassroom50(JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')));
    expect(c50).toMatchObject({
      classroom: 'cs',
      assignment: 'week2',
      submission: 'submit/2026-11-26',
      commit: 'https://example.com/c',
      review: 'https://example.com/c',
      score: 10,
      'max-score': 10,
    });
    expect(c50.datetime, "the graded commit's date").toBe(
      new Date(Number(git(repo('edited'), 'log', '-1', '--format=%ct')) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    );
    expect(c50.tests.map((t) => [t['test-name'], t.passed])).toEqual([
      ['chapter 1: Messages and the mock provider', true],
      ['kit files unchanged (everything outside starter/src)', false],
    ]);
    const gs = checkGradescope(JSON.parse(readFileSync(path.join(out, 'results.json'), 'utf8')));
    expect(gs.score).toBe(10);
    expect(gs.tests.at(-1)!.output).toContain('vitest.config.ts: changed');
  }, 300_000);
});

describe('.devcontainer/devcontainer.json', () => {
  it('is plain JSON with a Node LTS image and installs the kit with npm ci on create', () => {
    const config = JSON.parse(readFileSync(path.join(REPO, '.devcontainer/devcontainer.json'), 'utf8')) as {
      image: string;
      postCreateCommand: string;
    };
    expect(config.image).toMatch(
      /^mcr\.microsoft\.com\/devcontainers\/(javascript|typescript)-node:[\w.-]*\b(20|22|24)\b[\w.-]*$/,
    );
    expect(config.postCreateCommand).toBe('npm ci');
  });
});
