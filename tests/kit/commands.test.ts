/** progress, list, grade, solution, reset and doctor, each run as a learner would, on a copy of the repository. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRepo, kit, KIT_RUN_MS, read, REPO, solveUpTo, write } from './helpers.js';

const listTestFiles = (root: string, chapter: number) => {
  const dir = `tests/chapter${String(chapter).padStart(2, '0')}`;
  return readdirSync(path.join(root, dir))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `${dir}/${name}`);
};

/** Marks the first test of chapter 1's first cached file failed, as a busy machine once made it (a timeout). */
const plantTimeout = (root: string) => {
  kit(root, ['progress']); // the cache exists and is up to date (read back when nothing changed)
  const cache = JSON.parse(read(root, '.kit/results.json')) as {
    targets: { starter: Record<string, { tests: Array<{ status: string; message: string }> }> };
  };
  const file = Object.keys(cache.targets.starter)
    .sort()
    .find((name) => name.startsWith('tests/chapter01/'))!;
  cache.targets.starter[file]!.tests[0]!.status = 'failed';
  cache.targets.starter[file]!.tests[0]!.message = 'Test timed out in 5000ms.';
  write(root, '.kit/results.json', JSON.stringify(cache));
};

describe('progress and list (scripts/kit/progress.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo({ chapters: 3 });
    solveUpTo(copy.root, 1);
  });
  afterAll(() => copy.cleanup());

  it('shows every chapter with passed/total and a bar, and points at the first unfinished one', () => {
    const { status, stdout } = kit(copy.root, ['progress']);
    expect(status, stdout).toBe(0);
    expect(stdout).toMatch(/^\s+1\s+Messages and the mock provider\s+█{20}\s+(\d+)\/\1 ✓$/m);
    expect(stdout).toMatch(/^▶\s+2\s+Your first tool\s+░{20}\s+0\/\d+$/m);
    expect(stdout).toMatch(/15\s+Capstone\s+not written yet/);
    expect(stdout).toContain('Next: chapter 2');
  });

  it('list is the same view, read back from .kit/results.json when nothing changed', () => {
    const { status, stdout } = kit(copy.root, ['list']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/▶\s+2\s+Your first tool/);
    expect(stdout, 'every chapter reused').toMatch(/\(\d+\.\ds, 3 chapters unchanged since the last run\)/);
  });

  it('--fresh runs every chapter again, ignoring the cache, and rewrites it', () => {
    plantTimeout(copy.root);
    expect(kit(copy.root, ['list']).stdout, 'the planted failure is read back: chapter 1 looks unfinished').toContain(
      'Next: chapter 1',
    );
    const fresh = kit(copy.root, ['progress', '--fresh']);
    expect(fresh.status, fresh.stdout + fresh.stderr).toBe(0);
    expect(fresh.stdout, '--fresh ran chapter 1 again').toContain('Next: chapter 2');
    expect(fresh.stdout, 'nothing was reused').not.toMatch(/unchanged since the last run/);
    expect(kit(copy.root, ['list']).stdout, 'and stored what it found').toContain('Next: chapter 2');
    expect(kit(copy.root, ['progress', '--frsh']).status, 'an unknown option is a usage error, not ignored').toBe(2);
  });

  it('runs again only the chapters whose tests or code changed, and shows their new results', () => {
    const file = 'starter/src/tool.ts';
    const before = read(copy.root, file);
    solveUpTo(copy.root, 2);
    try {
      const { stdout } = kit(copy.root, ['progress']);
      expect(stdout, 'chapter 1 does not import tool.ts: reused').toMatch(/one chapter unchanged since the last run/);
      expect(stdout).toMatch(/^\s+2\s+Your first tool\s+█{20}\s+(\d+)\/\1 ✓$/m);
      expect(stdout).toContain('Next: chapter 3');
      const cache = JSON.parse(read(copy.root, '.kit/results.json')) as {
        targets: { starter: Record<string, { tests: unknown[] }> };
      };
      expect(Object.keys(cache.targets.starter).sort(), 'one entry per test file of chapters 1-3').toEqual(
        [1, 2, 3].flatMap((n) => listTestFiles(copy.root, n)).sort(),
      );
    } finally {
      write(copy.root, file, before);
      solveUpTo(copy.root, 1);
    }
  });

  it('after an edit inside a stub, runs again only the test files whose last run reached it; a syntax error there still fails every file that loads it', () => {
    const file = 'starter/src/simple-agent.ts';
    solveUpTo(copy.root, 3);
    const solved = read(copy.root, file);
    const marker = '// #region chapter 3: SimpleAgent.chat\n';
    expect(solved).toContain(marker);
    const inChat = (line: string) => solved.replace(marker, `${marker}    ${line}\n`);
    const chapter3Done = /^\s+3\s+The agentic loop\s+█{20}\s+(\d+)\/\1 ✓$/m;
    try {
      expect(kit(copy.root, ['progress']).stdout).toMatch(chapter3Done);
      write(copy.root, file, inChat('// thinking'));
      let { stdout } = kit(copy.root, ['progress']);
      expect(stdout, 'chapters 1 and 2 never reached SimpleAgent.chat: reused').toMatch(
        /2 chapters unchanged since the last run/,
      );
      expect(stdout).toMatch(chapter3Done);
      write(copy.root, file, inChat('const pattern = /(/;'));
      ({ stdout } = kit(copy.root, ['progress']));
      expect(stdout, 'a bad regular expression inside SimpleAgent.chat fails chapter 3').not.toMatch(chapter3Done);
      const cache = JSON.parse(read(copy.root, '.kit/results.json')) as {
        targets: Record<string, Record<string, { tests: Array<{ status: string; message: string }> }>>;
      };
      expect(
        cache.targets.solution?.['tests/chapter03/single-turn.test.ts'],
        'the solution run that counts the tests of a file that did not load is kept for the next typo',
      ).toBeDefined();
      const singleTurn = cache.targets.starter!['tests/chapter03/single-turn.test.ts']!.tests;
      expect(singleTurn.length).toBeGreaterThan(3);
      expect(
        singleTurn.every((t) => t.status === 'failed' && t.message.startsWith('this test file could not load')),
        'single-turn.test.ts loads simple-agent.ts and never reached SimpleAgent.chat, yet it must run again and fail to load',
      ).toBe(true);
      write(copy.root, file, solved);
      ({ stdout } = kit(copy.root, ['progress']));
      expect(stdout, 'fixed: chapter 3 passes again').toMatch(chapter3Done);
    } finally {
      write(copy.root, file, solved);
      solveUpTo(copy.root, 1);
    }
  });
});

describe('grade (scripts/kit/grade.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo({ chapters: 3 });
    solveUpTo(copy.root, 2);
  });
  afterAll(() => copy.cleanup());

  it('prints a table with passed/total and points per chapter, writes JSON and JUnit, and exits 0 on a partial score', () => {
    const { status, stdout } = kit(copy.root, ['grade', '--json', 'out/grade.json', '--junit', 'out/grade.xml']);
    expect(status, stdout).toBe(0);
    expect(stdout).toMatch(/^\s+1\s+Messages and the mock provider\s+(\d+)\/\1\s+10\/10$/m);
    expect(stdout).toMatch(/^\s+3\s+The agentic loop\s+0\/\d+\s+0\/10$/m);
    expect(stdout).toMatch(/Total\s+\d+\/\d+\s+20\/\d+/);
    const entries = JSON.parse(read(copy.root, 'out/grade.json')) as Array<{
      chapter: number;
      name: string;
      status: string;
      message: string;
    }>;
    expect(entries.length).toBeGreaterThan(40);
    for (const entry of entries)
      expect(Object.keys(entry)).toEqual(expect.arrayContaining(['chapter', 'name', 'status', 'message']));
    expect(entries.filter((e) => e.chapter === 1).every((e) => e.status === 'passed')).toBe(true);
    const ch3 = entries.filter((e) => e.chapter === 3);
    expect(ch3.length).toBeGreaterThan(0);
    expect(ch3.every((e) => e.status === 'failed' && e.message.includes('TODO(chapter 3)'))).toBe(true);
    const xml = read(copy.root, 'out/grade.xml');
    expect(xml).toMatch(/^<\?xml/);
    expect(xml).toContain(
      `<testsuites name="kit" tests="${entries.length}" failures="${entries.filter((e) => e.status === 'failed').length}"`,
    );
    expect((xml.match(/<testcase /g) ?? []).length).toBe(entries.length);
    expect(xml).toMatch(/<failure message="TodoError: TODO\(chapter 3\)/);
  });

  it('--solution grades solution/ (everything passes)', () => {
    const { status, stdout } = kit(copy.root, ['grade', '--solution', '--json', 'sol.json']);
    expect(status).toBe(0);
    const entries = JSON.parse(read(copy.root, 'sol.json')) as Array<{ status: string }>;
    expect(entries.every((e) => e.status === 'passed')).toBe(true);
    expect(stdout).toContain('solution/');
  });

  it('a learner file that does not parse fails every test of the files that load it, and they still count', () => {
    // The first test's graded run is of this same copy: reuse it rather than grade again (run alone, grade here).
    if (!existsSync(path.join(copy.root, 'out/grade.json'))) kit(copy.root, ['grade', '--json', 'out/grade.json']);
    const before = JSON.parse(read(copy.root, 'out/grade.json')) as unknown[];
    const agent = read(copy.root, 'starter/src/simple-agent.ts');
    write(copy.root, 'starter/src/simple-agent.ts', `${agent}\nexport const broken = ;\n`);
    try {
      const { status, stdout } = kit(copy.root, ['grade', '--json', 'out/broken.json']);
      expect(status, stdout).toBe(0);
      expect(stdout).toMatch(/problem\(s\) outside tests:\n {2}tests\/chapter03\/simple-agent\.test\.ts/);
      const entries = JSON.parse(read(copy.root, 'out/broken.json')) as Array<{
        chapter: number;
        status: string;
        message: string;
      }>;
      expect(entries.length, 'the same number of tests as before').toBe(before.length);
      const broken = entries.filter((e) => e.message.startsWith('this test file could not load'));
      expect(broken.length).toBeGreaterThan(5);
      expect(broken.every((e) => e.status === 'failed')).toBe(true);
      expect(
        broken.filter((e) => e.chapter === 3).length,
        'the chapter 3 tests that import simple-agent.ts',
      ).toBeGreaterThan(5);
    } finally {
      write(copy.root, 'starter/src/simple-agent.ts', agent);
    }
  });

  it('exits non-zero only when the kit itself cannot run', () => {
    const broken = copyRepo({ link: false });
    try {
      const { status, stderr, stdout } = kit(broken.root, ['grade']);
      expect(status, stdout + stderr).not.toBe(0);
      expect(stderr).toMatch(/could not run|not installed/);
    } finally {
      broken.cleanup();
    }
  });
});

describe('solution (scripts/kit/solution.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo({ chapters: 3 });
    solveUpTo(copy.root, 2);
  });
  afterAll(() => copy.cleanup());

  it('warns first when the chapter does not pass, then shows a unified diff per region from the stub to the reference', () => {
    const { status, stdout } = kit(copy.root, ['solution', 'chapter3']);
    expect(status).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^Warning: \d+ of chapter 3's \d+ tests do not pass yet/);
    expect(stdout).toContain('# singleTurn');
    expect(stdout).toMatch(/^--- starter\/src\/simple-agent\.ts \(singleTurn, yours\)$/m);
    expect(stdout).toMatch(/^\+\+\+ solution\/src\/simple-agent\.ts \(singleTurn, reference\)$/m);
    expect(stdout).toMatch(/^@@ -\d+,1 \+\d+,\d+ @@$/m);
    expect(stdout).toContain("-  throw new TodoError(3, 'singleTurn');");
    expect(stdout).toContain('+  const messages: Message[] = [userMessage(prompt)];');
    expect(stdout).toContain('# executeToolCall');
  });

  it('says so when a body already matches, without a warning once the chapter passes', () => {
    const { stdout } = kit(copy.root, ['solution', 'ch2']);
    expect(stdout).not.toContain('Warning');
    expect(stdout).toContain('(your body is the same as the reference)');
  });

  it('an unknown chapter prints the list and exits 2', () => {
    const { status, stderr } = kit(copy.root, ['solution', 'chapter42']);
    expect(status).toBe(2);
    expect(stderr).toContain('Unknown chapter: chapter42');
    expect(stderr).toContain('chapter3');
  });
});

describe('reset (scripts/kit/reset.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => (copy = copyRepo({ chapters: 3 })));
  afterAll(() => copy.cleanup());

  it('asks first and changes nothing on "n" or no answer', () => {
    solveUpTo(copy.root, 3);
    const before = read(copy.root, 'starter/src/simple-agent.ts');
    for (const input of ['n\n', '']) {
      const { status, stdout } = kit(copy.root, ['reset', 'chapter3'], input);
      expect(stdout).toContain('Reset them? [y/N]');
      expect(stdout).toContain('Nothing was changed.');
      expect(status).toBe(1);
      expect(read(copy.root, 'starter/src/simple-agent.ts')).toBe(before);
    }
  });

  it('on "y" puts back only that chapter\'s stubs and keeps everything else, edits outside regions included', () => {
    solveUpTo(copy.root, 3);
    const agent = `// my note\n${read(copy.root, 'starter/src/simple-agent.ts')}`;
    write(copy.root, 'starter/src/simple-agent.ts', agent);
    const tool = read(copy.root, 'starter/src/tool.ts');
    const { status, stdout } = kit(copy.root, ['reset', 'chapter3'], 'y\n');
    expect(status, stdout).toBe(0);
    expect(stdout).toMatch(/starter\/src\/simple-agent\.ts: singleTurn, SimpleAgent\.run/);
    const after = read(copy.root, 'starter/src/simple-agent.ts');
    expect(after.startsWith('// my note\n')).toBe(true);
    expect(after).toContain("throw new TodoError(3, 'singleTurn');");
    expect(after).toContain("throw new TodoError(3, 'SimpleAgent.chat');");
    expect(read(copy.root, 'starter/src/safe-call.ts')).toContain("throw new TodoError(3, 'executeToolCall');");
    expect(read(copy.root, 'starter/src/tool.ts'), 'chapter 2 is untouched').toBe(tool);
    // The stub bodies equal the generated starter's: the contract edition, its steps one command away.
    const generated = readFileSync(path.join(copy.root, 'starter/src/safe-call.ts'), 'utf8');
    expect(generated).toContain(
      '// Write it from the contract above. Step by step instead: npm run reset -- chapter3 --guided',
    );
    expect(generated, 'the contract stub shows no steps').not.toContain('// 1. Look the tool up by call.name.');
  });

  it('--yes skips the question; a chapter already reset is left alone', () => {
    solveUpTo(copy.root, 1);
    const { status, stdout } = kit(copy.root, ['reset', 'chapter1', '--yes']);
    expect(status).toBe(0);
    expect(stdout).toMatch(/Reset 4 stub\(s\) of chapter 1/);
    expect(read(copy.root, 'starter/src/messages.ts')).toContain("throw new TodoError(1, 'textOf');");
    const again = kit(copy.root, ['reset', 'chapter1', '--yes']);
    expect(again.stdout).toContain('already as they started');
  });
});

describe('doctor (scripts/kit/doctor.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo({ chapters: 3 });
    solveUpTo(copy.root, 1);
  });
  afterAll(() => copy.cleanup());

  it('reports Node, the install, the starter and the chapters done', () => {
    const { status, stdout } = kit(copy.root, ['doctor']);
    expect(status, stdout).toBe(0);
    expect(stdout).toMatch(/✓ Node \d+\.\d+\.\d+ \(>= 20\.11\.0\)/);
    expect(stdout).toMatch(/✓ dependencies installed \(\d+ packages match package-lock\.json\)/);
    expect(stdout).toContain('✓ starter/src matches the kit outside your stubs');
    expect(stdout).toContain('✓ chapters done: 1 (of');
    expect(stdout).toContain('All good.');
  });

  it('reuses every stored result (nothing runs again after progress); with --fresh, notices a results cache that kept a failure a fresh run does not give', () => {
    plantTimeout(copy.root);
    const reused = kit(copy.root, ['doctor']).stdout;
    expect(reused, 'the planted failure is read back, not run again').toContain('✓ chapters done: none yet');
    expect(reused).not.toContain('was stale');
    const { stdout } = kit(copy.root, ['doctor', '--fresh']);
    expect(stdout).toMatch(
      /! the results cache \(\.kit\/results\.json\) was stale: 1 test\(s\) of chapter 1 failed there and pass when run again/,
    );
    expect(stdout).toContain('fix: Run "npm run progress -- --fresh"');
    expect(kit(copy.root, ['list']).stdout, 'doctor stored the fresh results').toContain('Next: chapter 2');
  });

  it('flags an edit outside the regions and a missing install, each with a fix', () => {
    const text = read(copy.root, 'starter/src/tool.ts').replace('const TOOL_NAME', 'const TOOL_NAMES');
    write(copy.root, 'starter/src/tool.ts', text);
    const { stdout } = kit(copy.root, ['doctor']);
    expect(stdout).toMatch(/! starter\/src\/tool\.ts was changed outside its #region blocks/);
    expect(stdout).toMatch(/fix: .*git diff starter\/src\/tool\.ts/);
    rmSync(path.join(copy.root, 'node_modules'));
    // Without node_modules, tsx itself lives in the real repo: run it from there with the copy's script.
    const bare = kit(copy.root, ['doctor']);
    expect(bare.stdout).toContain('✗ node_modules is missing');
    expect(bare.stdout).toContain('fix: Run "npm install"');
    expect(bare.status).toBe(1);
    expect(existsSync(path.join(copy.root, 'node_modules'))).toBe(false);
  });
});

describe('npm test (scripts/test.mjs)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo({ chapters: 1 });
  });
  afterAll(() => copy.cleanup());
  const npmTest = (...args: string[]) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
    delete env.KIT_TARGET;
    delete env.KIT_SRC;
    const result = spawnSync(process.execPath, [path.join(copy.root, 'scripts/test.mjs'), ...args], {
      cwd: copy.root,
      env,
      encoding: 'utf8',
      timeout: KIT_RUN_MS,
    });
    return { status: result.status, output: result.stdout + result.stderr };
  };

  it("runs the chapter's tests and shows the type errors of the learner's code after them, reusing an unchanged check", () => {
    expect(existsSync(path.join(REPO, 'scripts/test.mjs'))).toBe(true);
    const clean = npmTest('chapter1');
    expect(clean.status, clean.output).toBe(1);
    expect(clean.output).toMatch(/Tests\s+\d+ failed/);
    expect(clean.output).toMatch(/Types\s+no errors in starter\/src \(tsc, \d+\.\ds\)/);
    expect(npmTest('chapter1').output).toContain(
      'no errors in starter/src (tsc, nothing changed since the last check)',
    );
    const file = 'starter/src/messages.ts';
    const before = read(copy.root, file);
    write(copy.root, file, `${before}\nexport const notANumber: number = 'one';\n`);
    try {
      const typed = npmTest('chapter1');
      expect(typed.status, 'a type error fails the run').toBe(1);
      expect(typed.output, 'and the screen says so plainly').toMatch(/Type errors: 1 in your code .*so this run fails/);
      const lines = before.split('\n').length + 1;
      expect(typed.output.indexOf('Type errors: 1'), 'after the results').toBeGreaterThan(
        typed.output.search(/Tests\s+\d+ failed/),
      );
      expect(typed.output).toContain(`starter/src/messages.ts:${lines}:`);
      expect(typed.output).toContain('TS2322');
      expect(npmTest('chapter1', '--solution').output, 'no type check against the solution').not.toMatch(
        /Types|Type errors/,
      );
    } finally {
      write(copy.root, file, before);
    }
  });

  it('an unknown chapter lists the chapters and exits 2', () => {
    const { status, output } = npmTest('chapter42');
    expect(status).toBe(2);
    expect(output).toContain('Unknown chapter: 42');
    expect(output).toMatch(/chapter2\s+Your first tool\s+\(not written yet\)/);
  });
});
