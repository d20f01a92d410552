/** Pure pieces of the kit: diff, hint files, stub matching, doctor's checks. */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseCommandArgs, UsageError } from '../../scripts/kit/args.js';
import { CHAPTERS } from '../../scripts/lib/chapters.js';
import { listRegions } from '../../scripts/lib/regions.js';
import { unifiedDiff } from '../../scripts/kit/diff.js';
import { installCheck, nodeCheck, staleCacheCheck, starterSyncCheck } from '../../scripts/kit/doctor.js';
import { hintLevels, nextHint, parseHints, readHintState, resetHintState } from '../../scripts/kit/hints.js';
import { firstUnfinished, messageNamesStep, suiteNamesStub, type LearnerStub } from '../../scripts/kit/stubs.js';
import { stripAnsi } from '../../scripts/kit/outcomes.js';
import { progressLine, progressText } from '../../scripts/kit/progress-line.js';
import { filesToRerun, mergeRerun, rerunNote, unfinishedRegions } from '../../scripts/kit/rerun.js';
import type { TestOutcome } from '../../scripts/kit/run-tests.js';
import { renderChapter } from '../../scripts/kit/watch/screen.js';
import {
  chapterKey,
  entryFor,
  fingerprints,
  importClosure,
  reuseOf,
  splitRegions,
  testFileKey,
} from '../../scripts/kit/cache.js';
import { compileErrors } from '../../scripts/kit/compiles.js';
import { sessionCostText } from '../../scripts/lib/agent-kit.js';
import { parseTestArgs } from '../../scripts/lib/chapters.js';
import { HOLD_MS, redactingWriter } from '../../scripts/lib/redacting-writer.js';
import { withoutRuntimeLeftovers } from '../../solution/src/sandbox/bash.js';
import { read, REPO } from './helpers.js';

describe('unifiedDiff (scripts/kit/diff.ts)', () => {
  it('is empty for equal inputs', () => {
    expect(unifiedDiff(['a', 'b'], ['a', 'b'], { a: 'x', b: 'y' })).toBe('');
  });
  it('marks removed and added lines, with hunk headers pointing at the real file lines', () => {
    const diff = unifiedDiff(['keep', 'old', 'keep2'], ['keep', 'new', 'keep2'], { a: 'mine', b: 'ref' }, 10, 20);
    expect(diff.split('\n')).toEqual(['--- mine', '+++ ref', '@@ -10,3 +20,3 @@', ' keep', '-old', '+new', ' keep2']);
  });
  it('splits distant changes into separate hunks', () => {
    const a = Array.from({ length: 20 }, (_, i) => `l${i}`);
    const b = [...a];
    b[1] = 'x';
    b[18] = 'y';
    const diff = unifiedDiff(a, b, { a: 'a', b: 'b' });
    expect(diff.match(/^@@/gm)).toHaveLength(2);
  });
});

describe('hints.md files (tests/chapterNN/hints.md)', () => {
  const solution = listRegions(REPO, 'solution');
  const chapters = [...new Set(solution.map((s) => s.chapter))];
  it.each(chapters)(
    'chapter %i has three hints (idea, approach, shape) for every stub, in both languages',
    (chapter) => {
      const sections = hintLevels(REPO, chapter);
      const stubs = solution.filter((s) => s.chapter === chapter).map((s) => s.name);
      expect(sections.map((s) => s.stub).sort()).toEqual([...stubs].sort());
      for (const section of sections) {
        expect(
          section.hints.map((h) => h.title),
          `${section.stub}: the idea, the approach (its steps in solution/src) and the shape`,
        ).toEqual(['Idea', 'Approach', 'Shape']);
        for (const hint of section.hints)
          expect(hint.text.length, `${section.stub}: ${hint.title}`).toBeGreaterThan(20);
      }
      expect(
        read(REPO, `tests/chapter${String(chapter).padStart(2, '0')}/hints.md`),
        'the approach is the steps of the stub, not written in hints.md',
      ).not.toMatch(/^### Approach/m);
      for (const section of hintLevels(REPO, chapter, 'zh'))
        expect(
          section.hints.map((h) => h.title),
          `${section.stub} in hints.zh-CN.md`,
        ).toEqual(['Idea', 'Approach', 'Shape']);
    },
  );

  it('parses headings, and ignores headings inside fenced code', () => {
    const parsed = parseHints(
      '# T\nintro\n## a\n### One\ntext 1\n```md\n## not a stub\n```\n### Two\ntext 2\n## B.c\n### x\ny\n',
    );
    expect(parsed).toEqual([
      {
        stub: 'a',
        hints: [
          { title: 'One', text: 'text 1\n```md\n## not a stub\n```' },
          { title: 'Two', text: 'text 2' },
        ],
      },
      { stub: 'B.c', hints: [{ title: 'x', text: 'y' }] },
    ]);
  });

  it('gives the next level each time, stays on the last, and starts over after a reset', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'kit-hints-'));
    try {
      const hints = [1, 2, 3].map((n) => ({ title: `h${n}`, text: `t${n}` }));
      expect([1, 2, 3, 4].map(() => nextHint(root, 3, 'singleTurn', hints)!.level)).toEqual([1, 2, 3, 3]);
      expect(nextHint(root, 2, 'ToolSet.add', hints)!.level).toBe(1);
      expect(readHintState(root)).toEqual({ 'chapter 3: singleTurn': 3, 'chapter 2: ToolSet.add': 1 });
      resetHintState(root, 3);
      expect(readHintState(root)).toEqual({ 'chapter 2: ToolSet.add': 1 });
      resetHintState(root);
      expect(readHintState(root)).toEqual({});
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('stub matching (scripts/kit/stubs.ts)', () => {
  it('maps describe titles to stubs', () => {
    expect(suiteNamesStub('singleTurn (src/simple-agent.ts)', 'singleTurn')).toBe(true);
    expect(suiteNamesStub('SimpleAgent.run and chat (src/simple-agent.ts)', 'SimpleAgent.chat')).toBe(true);
    expect(suiteNamesStub('SimpleAgent.run and chat (src/simple-agent.ts)', 'SimpleAgent.pushResults')).toBe(false);
    expect(suiteNamesStub('ToolSet (src/tool.ts)', 'ToolSet.get')).toBe(true);
    expect(suiteNamesStub('readTool (src/tools/read.ts)', 'readTool.execute')).toBe(true);
    expect(suiteNamesStub('textOf (src/messages.ts)', 'toolCallsOf')).toBe(false);
  });

  it('maps a failure message to the stub whose step it names', () => {
    expect(messageNamesStep('runToolCall step 5: run the tool with runTool', 'runToolCall')).toBe(true);
    expect(
      messageNamesStep('executeTools step 1: check the signal before each call', 'StreamingAgent.executeTools'),
    ).toBe(true);
    expect(messageNamesStep('Agent.run step 3b/3c: stream the request', 'Agent.run')).toBe(true);
    expect(messageNamesStep('StreamingAgent.chat step 2: the text', 'Agent.chat')).toBe(false);
    expect(messageNamesStep('StreamingAgent.chat step 2: the text', 'SimpleAgent.chat')).toBe(false);
    expect(messageNamesStep('the run sent a done event twice', 'finishRun')).toBe(false);
    expect(messageNamesStep('runToolCall: run the tool with runTool (guided step 5)', 'runToolCall')).toBe(true);
    expect(messageNamesStep('Agent.run guided step 3b: stream the request', 'Agent.run')).toBe(true);
    expect(
      messageNamesStep('composeHooks guided step 3 and Agent.streamTurn guided step 2: x', 'Agent.streamTurn'),
    ).toBe(true);
    expect(messageNamesStep('executeTools: the results keep the order of the calls', 'SimpleAgent.executeTools')).toBe(
      true,
    );
    expect(messageNamesStep('the tool did not run: x', 'SimpleAgent.run'), 'a member named mid-sentence, no step').toBe(
      false,
    );
  });

  it('the first unfinished stub is the first still throwing TodoError or with a failing test', () => {
    const stub = (name: string, todo: boolean): LearnerStub => ({
      chapter: 3,
      name,
      file: 'f',
      line: 1,
      steps: [],
      body: [],
      todo,
    });
    const stubs = [stub('executeToolCall', false), stub('singleTurn', false), stub('SimpleAgent.run', true)];
    const test = (suite: string, status: 'passed' | 'failed'): TestOutcome => ({
      chapter: 3,
      file: 't',
      suites: [suite],
      name: 'n',
      fullName: 'n',
      status,
      message: status === 'failed' ? 'AssertionError: x' : '',
    });
    expect(
      firstUnfinished(stubs, [test('executeToolCall (x)', 'passed'), test('singleTurn (x)', 'failed')])!.stub.name,
    ).toBe('singleTurn');
    expect(firstUnfinished(stubs, [test('singleTurn (x)', 'passed')])!.stub.name).toBe('SimpleAgent.run');
  });
});

describe('doctor checks (scripts/kit/doctor.ts)', () => {
  it('needs Node 20.11 or newer', () => {
    expect(nodeCheck('20.10.9').ok).toBe(false);
    expect(nodeCheck('20.10.9').fix).toMatch(/Install Node/);
    expect(nodeCheck('20.11.0').ok).toBe(true);
    expect(nodeCheck('22.1.0').ok).toBe(true);
    expect(nodeCheck('18.20.0').ok).toBe(false);
  });

  it('compares installed versions with the lock', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'kit-doctor-'));
    try {
      const pkg = (name: string, version: string) => {
        mkdirSync(path.join(root, 'node_modules', name), { recursive: true });
        writeFileSync(path.join(root, 'node_modules', name, 'package.json'), JSON.stringify({ name, version }));
      };
      pkg('a', '1.0.0');
      pkg('b', '2.0.0');
      const lock = {
        packages: {
          '': {},
          'node_modules/a': { version: '1.0.0' },
          'node_modules/b': { version: '2.1.0' },
          'node_modules/c': { version: '1.0.0' },
          'node_modules/d': { version: '1.0.0', optional: true },
        },
      };
      writeFileSync(path.join(root, 'package-lock.json'), JSON.stringify(lock));
      const checks = installCheck(root);
      expect(checks.map((c) => c.what)).toEqual([
        '1 locked package(s) are not installed: c',
        '1 package(s) differ from package-lock.json: b 2.0.0 (locked 2.1.0)',
      ]);
      expect(checks.every((c) => !c.ok && c.fix)).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

it('the chapter list has sixteen chapters', () => expect(CHAPTERS).toHaveLength(16));

it("chapter 16's tool drops chapter 4's note about leftovers only when they are all the sandbox's own processes", () => {
  const note = (names: string) => `Stopped 2 process(es) the command left running in the background: ${names}`;
  const own = note(
    '12 socat TCP6-LISTEN:1080,fork UNIX-CONNECT:/tmp/claude-http-1.sock; 13 bwrap --new-session --die-with-parent',
  );
  expect(withoutRuntimeLeftovers(`exit code: 0\n${own}`)).toBe('exit code: 0');
  const mine = note('12 socat TCP6-LISTEN:1080,fork UNIX-CONNECT:/tmp/x.sock; 14 sleep 100');
  expect(withoutRuntimeLeftovers(`exit code: 0\n${mine}`), "the command's own sleep is still named").toBe(
    `exit code: 0\n${mine}`,
  );
});

it("doctor finds the kit's own starter in step with the solution (the solution's notes to the linter are not a change)", () =>
  expect(starterSyncCheck(REPO)).toEqual([{ ok: true, what: 'starter/src matches the kit outside your stubs' }]));

describe('parseTestArgs (scripts/lib/chapters.js, what npm test reads)', () => {
  it('splits chapters, target and vitest flags', () => {
    const has = (n: number) => n <= 6;
    expect(parseTestArgs(['ch3', 'chapter01', '--solution', '-t', 'x'], has)).toEqual({
      chapters: [1, 3],
      unknown: [],
      target: 'solution',
      passThrough: ['-t', 'x'],
    });
    expect(parseTestArgs(['chapter9', 'chapterx'], has).unknown).toEqual(['9', 'chapterx']);
  });
});

describe('the results cache (scripts/kit/cache.ts)', () => {
  it("follows a chapter's imports through the helpers and the kit alias, and its key changes only with them", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kit-cache-'));
    try {
      const put = (rel: string, text: string) => {
        mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        writeFileSync(path.join(dir, rel), text);
      };
      put('tests/setup.ts', "import 'kit/todo';\n");
      put('tests/helpers/h.ts', 'export const h = 1;\n');
      put(
        'tests/chapter01/a.test.ts',
        "import { h } from '../helpers/h.js';\nimport { a } from 'kit/a';\nimport { z } from 'zod';\n",
      );
      put('tests/chapter02/b.test.ts', "import type { B } from 'kit';\n");
      put('starter/src/todo.ts', 'export {};\n');
      put('starter/src/a.ts', "export { x } from './x.js';\n");
      put('starter/src/x.ts', 'export const x = 1;\n');
      put('starter/src/index.ts', "export * from './a.js';\nexport * from './b.js';\n");
      put('starter/src/b.ts', 'export const b = 1;\n');
      const src = path.join(dir, 'starter/src');
      const rel = (files: string[]) => files.map((f) => path.relative(dir, f));
      expect(rel(importClosure([path.join(dir, 'tests/chapter01/a.test.ts')], src))).toEqual([
        'starter/src/a.ts',
        'starter/src/x.ts',
        'tests/chapter01/a.test.ts',
        'tests/helpers/h.ts',
      ]);
      const one = chapterKey(dir, src, 1);
      const two = chapterKey(dir, src, 2);
      put('starter/src/b.ts', 'export const b = 2;\n');
      expect(chapterKey(dir, src, 1), 'b.ts is not reached from chapter 1').toBe(one);
      expect(chapterKey(dir, src, 2), 'b.ts is reached from chapter 2 through kit/index.ts').not.toBe(two);
      put('starter/src/x.ts', 'export const x = 2;\n');
      expect(chapterKey(dir, src, 1), 'x.ts is reached through a.ts').not.toBe(one);
      const fileA = testFileKey(dir, src, 'tests/chapter01/a.test.ts');
      const fileB = testFileKey(dir, src, 'tests/chapter02/b.test.ts');
      put('starter/src/x.ts', 'export const x = 3;\n');
      expect(testFileKey(dir, src, 'tests/chapter01/a.test.ts'), 'a test file reaching x.ts runs again').not.toBe(
        fileA,
      );
      expect(
        testFileKey(dir, src, 'tests/chapter02/b.test.ts'),
        'b.test.ts reaches x.ts through kit/index.ts',
      ).not.toBe(fileB);
      const fileB2 = testFileKey(dir, src, 'tests/chapter02/b.test.ts');
      put('tests/helpers/h.ts', 'export const h = 2;\n');
      expect(testFileKey(dir, src, 'tests/chapter02/b.test.ts'), 'b.test.ts does not import the helper').toBe(fileB2);
      put('tests/chapter01/c.test.ts', '\n');
      const three = chapterKey(dir, src, 1);
      put('tests/setup.ts', "import 'kit/todo';\n// changed\n");
      expect(chapterKey(dir, src, 1), 'the setup file runs before every test').not.toBe(three);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('results reused by region (scripts/kit/cache.ts, compiles.ts)', () => {
  const region = (name: string, body: string) =>
    `  // #region chapter 3: ${name}\n  // 1. A step.\n  ${body}\n  // #endregion\n`;
  const agent = (run: string, chat: string, outside = '') =>
    `import { helper } from './helper.js';\n${outside}export function run() {\n${region('run', run)}}\nexport function chat() {\n${region('chat', chat)}}\n`;
  let dir: string;
  let src: string;
  const put = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  const print = (file = 'tests/chapter03/a.test.ts') => fingerprints(dir, src, [file]).get(file)!;
  const passed = (regions: string[]): TestOutcome => ({
    chapter: 3,
    file: 'tests/chapter03/a.test.ts',
    suites: [],
    name: 't',
    fullName: 't',
    status: 'passed',
    message: '',
    regions,
  });
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'kit-regions-'));
    src = path.join(dir, 'starter/src');
    put('tests/setup.ts', '\n');
    put('tests/chapter03/a.test.ts', "import { run } from 'kit/simple-agent';\n");
    put('starter/src/helper.ts', 'export const helper = 1;\n');
    put('starter/src/simple-agent.ts', agent('return 1;', 'return 2;'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('splits a file at its regions, and keeps a file whose markers do not pair up whole', () => {
    const { outside, inside } = splitRegions(agent('return 1;', 'return 2;'));
    expect([...inside.keys()]).toEqual(['chapter 3: run', 'chapter 3: chat']);
    expect(inside.get('chapter 3: run')).toContain('return 1;');
    expect(outside, 'the marker lines stay outside').toContain('// #region chapter 3: run');
    expect(outside).not.toContain('return 1;');
    const broken = agent('return 1;', 'return 2;').replace(
      /\n {2}\/\/ #endregion\n\}\nexport function chat/,
      '\n}\nexport function chat',
    );
    expect(splitRegions(broken), 'a missing #endregion: the whole file is outside').toEqual({
      outside: broken,
      inside: new Map(),
    });
  });

  it('reuses a run after an edit inside a region it did not reach, and not after one it reached or one outside', () => {
    const entry = entryFor(print(), [passed(['chapter 3: run'])], []);
    expect(entry.regions, 'the entry stores the reached regions').toEqual({ 'chapter 3: run': expect.any(String) });
    expect(reuseOf(entry, print())).toBe('exact');
    put('starter/src/simple-agent.ts', agent('return 1;', 'return 3;'));
    expect(reuseOf(entry, print()), 'chat changed: the run never reached it').toBe('regions');
    put('starter/src/simple-agent.ts', agent('return 4;', 'return 2;'));
    expect(reuseOf(entry, print()), 'run changed: the run reached it').toBeUndefined();
    put('starter/src/simple-agent.ts', agent('return 1;', 'return 2;', 'const extra = 1;\n'));
    expect(reuseOf(entry, print()), 'a change outside every region').toBeUndefined();
    put('starter/src/simple-agent.ts', agent('return 1;', 'return 2;'));
    put('starter/src/helper.ts', 'export const helper = 2;\n');
    expect(reuseOf(entry, print()), 'a file without regions changed').toBeUndefined();
  });

  it('counts a region reached outside any test, and never reuses by region a run that was not clean', () => {
    const outsideTests = entryFor(print(), [passed([])], [], ['chapter 3: chat']);
    put('starter/src/simple-agent.ts', agent('return 1;', 'return 3;'));
    expect(reuseOf(outsideTests, print()), 'chat was reached while the file loaded').toBeUndefined();
    put('starter/src/simple-agent.ts', agent('return 1;', 'return 2;'));
    const failedToLoad = entryFor(
      print(),
      [{ ...passed([]), name: 'tests/chapter03/a.test.ts could not load', status: 'failed' }],
      ['tests/chapter03/a.test.ts: SyntaxError'],
    );
    expect(failedToLoad.shape, 'a file that did not load').toBeUndefined();
    expect(
      entryFor(print(), [passed([])], ['tests/chapter03/a.test.ts: unhandled: boom']).shape,
      'an error outside a test',
    ).toBeUndefined();
    expect(
      entryFor(print(), [passed(['chapter 9: elsewhere'])], []).shape,
      'a region the fingerprint does not know',
    ).toBeUndefined();
  });

  it('never reuses by region a test that runs the tree in a child process, and makes every file of the tree its input', () => {
    put('tests/chapter03/child.test.ts', "import { KIT_SOURCE } from '../helpers/source.js';\n");
    put('tests/helpers/source.ts', 'export const KIT_SOURCE = process.env.KIT_SRC;\n');
    const file = 'tests/chapter03/child.test.ts';
    const before = print(file);
    expect(before.traced).toBe(false);
    expect(entryFor(before, [passed([])], []).shape).toBeUndefined();
    put('starter/src/unimported.ts', 'export const y = 1;\n');
    expect(print(file).key, 'a file it does not import').not.toBe(before.key);
    put('scripts/acp.ts', '// the program it runs\n');
    expect(print(file).traced).toBe(false);
    expect(print().traced, 'a test file that only has it as a neighbour').toBe(true);
  });

  it("finds what would stop vitest loading a file: a parse error, V8's own early errors, strict mode", async () => {
    const file = (name: string, text: string) => (put(`starter/src/${name}.ts`, text), path.join(src, `${name}.ts`));
    const good = file('good', 'export async function f(x: number): Promise<number> { const r = /a(b)/; return x; }\n');
    const parse = file('parse', 'export function f() { const x = ; }\n');
    const regex = file('regex', 'export function f() { return /(/; }\n');
    const twice = file('twice', 'export function f() { let a = 1; let a = 2; }\n');
    const strict = file('strict', 'export function f() { with (Math) { return 1; } }\n');
    const errors = await compileErrors([good, parse, regex, twice, strict]);
    expect([...errors.keys()].map((f) => path.basename(f))).toEqual(['parse.ts', 'regex.ts', 'twice.ts', 'strict.ts']);
    expect(errors.get(regex), 'V8 reports the regular expression').toMatch(/regular expression/i);
  });
});

describe('sessionCostText (scripts/lib/agent-kit.ts)', () => {
  it('says "cost unknown" for a session on an unpriced model that used nothing yet, and the dollars otherwise', async () => {
    const kit = await import('../../solution/src/index.js');
    expect(sessionCostText(kit, { cost: 0, model: 'offline' })).toBe('cost unknown');
    expect(sessionCostText(kit, { cost: undefined, model: 'claude-sonnet-4-5' })).toBe('cost unknown');
    expect(sessionCostText(kit, { cost: 0, model: 'claude-sonnet-4-5' })).toBe('$0.0000');
    expect(sessionCostText(kit, { cost: 0.5, model: 'offline' }), 'a cost some turns were priced at stays').toBe(
      '$0.5000',
    );
  });
});

describe('the progress line (scripts/kit/run-tests.ts)', () => {
  const stream = (isTTY: boolean) => {
    const out: string[] = [];
    return { out, stream: { isTTY, write: (text: string) => out.push(text) } as unknown as NodeJS.WriteStream };
  };

  it('says which chapters run and which were reused', () => {
    expect(progressText([4, 5, 6], [1, 2, 3])).toBe(
      'Running the tests of chapters 4-6 (chapters 1-3 unchanged: results reused)…',
    );
    expect(progressText([2], [], 1, 3)).toBe('Running the tests of chapter 2… 1/3 test files');
  });

  it('appears only after a second, is kept up to date on a terminal and cleared at the end', () => {
    vi.useFakeTimers();
    try {
      let n = 0;
      const quick = stream(true);
      progressLine(() => 'x', quick.stream).stop();
      vi.advanceTimersByTime(2000);
      expect(quick.out, 'work under a second prints nothing').toEqual([]);
      const tty = stream(true);
      const line = progressLine(() => `n=${n}`, tty.stream);
      vi.advanceTimersByTime(1000);
      n = 1;
      line.update();
      line.stop();
      expect(tty.out).toEqual(['\r\u001b[2Kn=0', '\r\u001b[2Kn=1', '\r\u001b[2K']);
      const plain = stream(false);
      const once = progressLine(() => 'slow', plain.stream);
      vi.advanceTimersByTime(1500);
      once.update();
      once.stop();
      expect(plain.out, 'one line in a log').toEqual(['slow\n']);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("watch's screen (scripts/kit/watch.ts)", () => {
  const outcome = (name: string, status: 'passed' | 'failed', message = ''): TestOutcome => ({
    chapter: 3,
    file: 'tests/chapter03/simple-agent.test.ts',
    suites: [],
    name,
    fullName: name,
    status,
    message,
  });
  it('shows passed/total when every file loaded', () => {
    const screen = stripAnsi(renderChapter(REPO, 3, [outcome('a', 'passed'), outcome('b', 'failed', 'expected 1')]));
    expect(screen.split('\n')[0]).toMatch(/ 1\/2 passing$/);
  });
  it('shows no total when a file could not load: its tests never ran, so the count would be wrong', () => {
    const broken = {
      ...outcome('tests/chapter03/single-turn.test.ts could not load', 'failed', 'SyntaxError: Unexpected token'),
      file: 'tests/chapter03/single-turn.test.ts',
    };
    const screen = stripAnsi(renderChapter(REPO, 3, [outcome('a', 'passed'), broken]));
    expect(screen.split('\n')[0]).toMatch(/ 1 passing · 1 test file could not load$/);
    expect(screen).toContain('SyntaxError: Unexpected token');
  });
  it('every test passing above a type error is not "done": the screen says the code does not type-check', () => {
    const typeErrors = [
      {
        file: 'starter/src/simple-agent.ts',
        line: 3,
        column: 7,
        code: 'TS2322',
        message: "Type 'string' is not assignable",
        text: "starter/src/simple-agent.ts:3:7 TS2322 Type 'string' is not assignable",
      },
    ];
    const green = stripAnsi(renderChapter(REPO, 3, [outcome('a', 'passed')]));
    expect(green, 'without type errors, the chapter is done').toContain('✓ Every test of chapter 3 passes.');
    const typed = stripAnsi(renderChapter(REPO, 3, [outcome('a', 'passed')], [], { typeErrors }));
    expect(typed, 'no tick and no "press n" above a type error').not.toContain('✓');
    expect(typed).toMatch(/does not type-check/);
    expect(typed).toContain('TS2322');
  });
});

describe('a failure is kept only when it comes back (scripts/kit/run-tests.ts, watch.ts, doctor.ts)', () => {
  const outcome = (file: string, name: string, status: TestOutcome['status'], message = ''): TestOutcome => ({
    chapter: Number(/chapter(\d+)/.exec(file)?.[1] ?? 0),
    file,
    suites: [],
    name,
    fullName: name,
    status,
    message,
  });
  const a = 'tests/chapter04/a.test.ts';
  const b = 'tests/chapter04/b.test.ts';
  const c = 'tests/chapter05/c.test.ts';

  it('runs again the files with a failure that is not a TODO, once each', () => {
    const tests = [
      outcome(a, 'slow', 'failed', 'Test timed out in 5000ms.'),
      outcome(a, 'other', 'failed', 'expected 1 to be 2'),
      outcome(b, 'todo', 'failed', 'TODO(chapter 4): runCommand — run "npm run hint -- chapter4"'),
      outcome(c, `${c} could not load`, 'failed', 'SyntaxError'),
      outcome(c, 'fine', 'passed'),
    ];
    expect(
      filesToRerun(tests),
      "a stub's TODO and a file that did not load fail the same way every time: not run again",
    ).toEqual([a]);
  });

  it('does not run again a failure whose test reached a stub not written yet, nor one of a file that did not load', () => {
    const reached = (test: TestOutcome, ...regions: string[]) => ({ ...test, regions });
    const tests = [
      // The ACP server caught the TODO and answered in its own words.
      reached(outcome(a, 'caught', 'failed', 'RequestError: Internal error'), 'chapter 14: AcpAgent.prompt'),
      reached(outcome(b, 'written', 'failed', 'expected 1 to be 2'), 'chapter 4: runCommand'),
      outcome(c, 'substituted', 'failed', 'this test file could not load: SyntaxError'),
    ];
    expect(filesToRerun(tests, new Set(['chapter 14: AcpAgent.prompt'])), 'only the failure in written code').toEqual([
      b,
    ]);
    const src = mkdtempSync(path.join(tmpdir(), 'kit-unfinished-'));
    writeFileSync(
      path.join(src, 'x.ts'),
      [
        'export function done() {',
        '  // #region chapter 2: done',
        '  return 1;',
        '  // #endregion',
        '}',
        'export function open() {',
        '  // #region chapter 3: open',
        "  throw new TodoError(3, 'open');",
        '  // #endregion',
        '}',
        '',
      ].join('\n'),
    );
    try {
      expect([...unfinishedRegions(src)], 'the region whose body still throws its TodoError').toEqual([
        'chapter 3: open',
      ]);
    } finally {
      rmSync(src, { recursive: true, force: true });
    }
  });

  it("keeps the second run's results for a file run again, and says which passed then", () => {
    const first = {
      tests: [
        outcome(a, 'slow', 'failed', 'Test timed out'),
        outcome(a, 'quick', 'passed'),
        outcome(b, 'real', 'failed', 'wrong'),
      ],
      errors: [`${a}: unhandled: boom`],
      duration: 1,
    };
    const again = new Map([
      [a, { tests: [outcome(a, 'slow', 'passed'), outcome(a, 'quick', 'passed')], errors: [], duration: 1 }],
      [b, { tests: [outcome(b, 'real', 'failed', 'wrong')], errors: [], duration: 1 }],
    ]);
    const merged = mergeRerun(first, again);
    expect(
      merged.tests.map((t) => `${t.name} ${t.status}`),
      'in the same order, each file once',
    ).toEqual(['slow passed', 'quick passed', 'real failed']);
    expect(merged.errors, "the first run's error of a file run again is gone with it").toEqual([]);
    expect(merged.rerun).toEqual({ files: [a, b], recovered: [a] });
    expect(rerunNote(merged.rerun)).toBe(
      'A grade runs each failed test file a second time, alone: 2 files were; 1 passed the second time (that run is kept), 1 failed again.',
    );
    expect(rerunNote({ files: [b], recovered: [] })).toMatch(
      /^A grade runs each failed test file.*the failures came back\.$/,
    );
    expect(
      rerunNote({ files: [b], recovered: [] }),
      'the note never blames the machine or doubts the tests',
    ).not.toMatch(/busy|machine|flak/);
    expect(rerunNote(undefined)).toBe('');
  });

  it('doctor calls the cache stale when a failure it kept passes in a fresh run, and says how to rebuild it', () => {
    const kept = [outcome(a, 'slow', 'failed', 'Test timed out in 5000ms.'), outcome(b, 'real', 'failed', 'wrong')];
    const stale = staleCacheCheck(kept, [outcome(a, 'slow', 'passed'), outcome(b, 'real', 'failed', 'wrong')]);
    expect(stale.ok).toBe(false);
    expect(stale.what).toMatch(/results cache \(\.kit\/results\.json\) was stale: 1 test\(s\) of chapter 4 .*"slow"/);
    expect(stale.fix).toContain('npm run progress -- --fresh');
    expect(staleCacheCheck(kept, kept).ok, 'failures that come back are real').toBe(true);
  });
});

describe("redactingWriter (scripts/lib/redacting-writer.ts): npm run agent's stdout", () => {
  const SECRET = 'sk-test-0123456789abcdefSPLIT';
  const setup = () => {
    const written: string[] = [];
    const writer = redactingWriter(
      (text) => written.push(text),
      () => (text) => text.split(SECRET).join('[REDACTED]'),
    );
    return { written, writer, shown: () => written.join('') };
  };
  afterEach(() => vi.useRealTimers());

  it('a credential split over two chunks is still taken out', () => {
    const { writer, shown } = setup();
    writer.write(`the key is ${SECRET.slice(0, 10)}`);
    writer.write(`${SECRET.slice(10)} and more\n`);
    writer.flush();
    expect(shown()).toBe('the key is [REDACTED] and more\n');
    expect(shown()).not.toContain(SECRET.slice(0, 10));
  });

  it('whole words are written at once; the last word waits for a pause in the stream, then shows', () => {
    vi.useFakeTimers();
    const { writer, shown } = setup();
    writer.write('Thinking very slowly');
    expect(shown(), 'everything up to the last white space is written at once').toBe('Thinking very ');
    vi.advanceTimersByTime(HOLD_MS - 1);
    expect(shown()).toBe('Thinking very ');
    writer.write('');
    vi.advanceTimersByTime(1);
    expect(shown(), 'after a pause the held word shows too').toBe('Thinking very slowly');
  });

  it('order is kept, and flush writes what is held before anything else is printed', () => {
    const { writer, written } = setup();
    writer.write('a b');
    writer.write('c\nd');
    writer.flush();
    writer.flush();
    expect(written).toEqual(['a ', 'bc\n', 'd']);
  });
});

describe('parseCommandArgs: --help is an answer, not a mistake', () => {
  const parse = (args: string[]) =>
    parseCommandArgs('npm run hint -- [chapterN]', {
      args,
      allowPositionals: true,
      options: { reset: { type: 'boolean' } },
    });
  it.each([['--help'], ['chapter3', '-h'], ['--reset', '--help']])(
    '%j asks for the usage: it exits 0 and does nothing else',
    (...args) => {
      let thrown: unknown;
      try {
        parse(args);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, 'parseCommandArgs throws a UsageError for --help, before any other work').toBeInstanceOf(
        UsageError,
      );
      expect((thrown as UsageError).asked, 'marked asked, so kit.ts prints it to stdout and exits 0').toBe(true);
      expect((thrown as UsageError).message).toContain('Usage: npm run hint');
    },
  );

  it('a mistake is not asked for, and a --help after -- is a word', () => {
    expect(() => parse(['--bogus']), 'an unknown option is a UsageError').toThrow(UsageError);
    try {
      parse(['--bogus']);
    } catch (error) {
      expect((error as UsageError).asked, 'an unknown option is a mistake: exit 2').toBe(false);
    }
    expect(parse(['--', '--help']).positionals, 'after -- it is a positional').toEqual(['--help']);
  });
});
