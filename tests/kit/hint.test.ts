/** npm run hint: progressive, per stub, remembered in .kit/, on a copy of the repository. */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkspace } from '../../scripts/lib/regions.js';
import { hintText } from '../../scripts/kit/hint.js';
import { hintLang, hintLevels, withoutLang, type StubHints } from '../../scripts/kit/hints.js';
import { runTests, type TestOutcome } from '../../scripts/kit/run-tests.js';
import { assignStubs, learnerStubs, type LearnerStub } from '../../scripts/kit/stubs.js';
import { renderChapter } from '../../scripts/kit/watch/screen.js';
import { copyRepo, kit, read, solveUpTo, write } from './helpers.js';

describe('hint (scripts/kit/hint.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    // Chapter 4 is the first with unwritten stubs once 1-3 are solved (the last test); no later chapter is needed.
    copy = copyRepo({ chapters: 4 });
    solveUpTo(copy.root, 2);
  });
  afterAll(() => copy.cleanup());

  it('gives the idea, then the approach, then the shape, for the first unfinished stub, and remembers it in .kit/', () => {
    const first = kit(copy.root, ['hint', 'chapter3']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Chapter 3 · executeToolCall {2}\(starter\/src\/safe-call\.ts:\d+\)$/m);
    expect(first.stdout).toContain('Hint 1 of 3: Idea');
    expect(first.stdout).toMatch(/Failing: executeToolCall \(src\/safe-call\.ts\) > /);
    expect(first.stdout).toContain('again for the approach');
    expect(existsSync(path.join(copy.root, '.kit/hints.json'))).toBe(true);
    expect(kit(copy.root, ['hint', '3']).stdout).toContain('Hint 2 of 3: Approach');
    const third = kit(copy.root, ['hint', 'ch3']).stdout;
    expect(third).toContain('Hint 3 of 3: Shape');
    expect(third).toContain('npm run solution -- chapter3');
    expect(kit(copy.root, ['hint', 'chapter3']).stdout, 'stays on the last hint').toContain('Hint 3 of 3');
  });

  it('--reset starts over', () => {
    expect(kit(copy.root, ['hint', 'chapter3', '--reset']).stdout).toContain('start over');
    expect(kit(copy.root, ['hint', 'chapter3']).stdout).toContain('Hint 1 of 3');
  });

  it('moves to the next stub once the first one is written and its tests pass', () => {
    // Solve executeToolCall only: the next stub in teaching order is singleTurn.
    const key = 'chapter 3: executeToolCall';
    const solved = buildWorkspace(
      path.join(copy.root, 'solution/src'),
      (r) => r.chapter > 2 && `chapter ${r.chapter}: ${r.name}` !== key,
    );
    write(copy.root, 'starter/src/safe-call.ts', solved.files.get('safe-call.ts')!);
    const out = kit(copy.root, ['hint', 'chapter3']).stdout;
    expect(out).toMatch(/Chapter 3 · singleTurn/);
    expect(out).toContain('Hint 1 of 3');
  });

  it('a stub with a body whose tests fail is still unfinished', () => {
    const broken = read(copy.root, 'starter/src/safe-call.ts').replace(
      'const tool = tools.get(call.name);',
      'const tool = tools.get(call.name.toLowerCase() + "x");',
    );
    write(copy.root, 'starter/src/safe-call.ts', broken);
    const out = kit(copy.root, ['hint', 'chapter3']).stdout;
    expect(out).toMatch(/Chapter 3 · executeToolCall/);
    expect(out).toMatch(/Failing: executeToolCall/);
  });

  it('says when the chapter is finished', () => {
    solveUpTo(copy.root, 3);
    expect(kit(copy.root, ['hint', 'chapter3']).stdout).toMatch(
      /Every stub of chapter 3 is written and its \d+ tests pass/,
    );
  });

  it('without a chapter, gives the hint for the first chapter with unwritten stubs (running only chapters up to it)', () => {
    solveUpTo(copy.root, 3);
    const { status, stdout } = kit(copy.root, ['hint']);
    expect(status, stdout).toBe(0);
    expect(stdout).toMatch(/^Chapter 4 · \S+ {2}\(starter\/src\/[\w/.-]+:\d+\)$/m);
    expect(stdout).toContain('Hint 1 of');
  });
});

describe('hint in Chinese (scripts/kit/hint.ts, tests/chapterNN/hints.zh-CN.md)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo({ chapters: 3 });
    solveUpTo(copy.root, 2);
  });
  afterAll(() => copy.cleanup());

  it('reads the language from --lang, else from LC_ALL, LC_MESSAGES or LANG', () => {
    expect(hintLang(['chapter3', '--lang', 'zh'], {})).toBe('zh');
    expect(hintLang(['--lang=zh-CN'], {})).toBe('zh');
    expect(hintLang(['--lang', 'en'], { LANG: 'zh_CN.UTF-8' }), 'the flag wins over the shell').toBe('en');
    expect(hintLang([], { LANG: 'zh_CN.UTF-8' })).toBe('zh');
    expect(hintLang([], { LC_ALL: 'zh_TW.UTF-8', LANG: 'en_US.UTF-8' })).toBe('zh');
    expect(hintLang([], { LC_ALL: 'C', LANG: 'zh_CN.UTF-8' }), 'LC_ALL overrides LANG').toBe('en');
    expect(hintLang([], { LC_MESSAGES: 'zh_CN', LANG: 'en_GB' })).toBe('zh');
    expect(hintLang([], {})).toBe('en');
    expect(withoutLang(['chapter3', '--lang', 'zh', '--reset'])).toEqual(['chapter3', '--reset']);
  });

  it('keeps the Chinese hints in the shape of the English ones: the same stubs, as many hints each', () => {
    for (const n of [1, 2, 3]) {
      const shape = (sections: StubHints[]) =>
        sections.map((s) => `${s.stub}: ${s.hints.map((h) => h.title).join(', ')}`);
      expect(shape(hintLevels(copy.root, n, 'zh')), `tests/chapter0${n}/hints.zh-CN.md`).toEqual(
        shape(hintLevels(copy.root, n)),
      );
    }
  });

  it('answers in Chinese with --lang zh, with the labels in Chinese and the code as it is', () => {
    const { status, stdout, stderr } = kit(copy.root, ['hint', 'chapter3', '--lang', 'zh']);
    expect(status, stderr).toBe(0);
    expect(stdout).toMatch(/^第 3 章 · executeToolCall {2}\(starter\/src\/safe-call\.ts:\d+\)$/m);
    expect(stdout).toContain('提示 1/3：要点');
    expect(stdout).toContain('有四样东西会让一次工具调用得不到正常结果');
    expect(stdout, 'test names and messages stay English').toMatch(/未通过：executeToolCall \(src\/safe-call\.ts\) > /);
    expect(stdout).toContain('再运行一次 "npm run hint -- chapter3"，可以看到步骤（一步一步）。');
  });

  it('answers in Chinese in a Chinese shell (LANG=zh_CN.UTF-8), and in English when asked (--lang en)', () => {
    const zh = kit(copy.root, ['hint', 'chapter3'], '', { LANG: 'zh_CN.UTF-8' });
    expect(zh.stdout).toContain('提示 2/3：步骤');
    expect(zh.stdout).toContain('按 call.name 查找工具。找不到时');
    const en = kit(copy.root, ['hint', 'chapter3', '--lang', 'en'], '', { LANG: 'zh_CN.UTF-8' });
    expect(en.stdout).toContain('Hint 3 of 3: Shape');
    expect(en.stdout).not.toMatch(/[\u4e00-\u9fff]/);
  });

  it('falls back to English, with a one-line note, for a chapter with no Chinese hints', () => {
    rmSync(path.join(copy.root, 'tests/chapter03/hints.zh-CN.md'));
    kit(copy.root, ['hint', 'chapter3', '--reset']);
    const { stdout } = kit(copy.root, ['hint', 'chapter3', '--lang', 'zh']);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('（第 3 章还没有中文提示，下面是英文原文。）');
    expect(lines[1]).toMatch(/^Chapter 3 · executeToolCall/);
    expect(stdout).toContain('Hint 1 of 3: Idea');
    expect(stdout).toContain('Four things can stop a tool call');
  });
});

describe('hint and watch point at the stub the failing tests exercised (issue 19 item 1)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo({ chapters: 3 });
    solveUpTo(copy.root, 3);
  });
  afterAll(() => copy.cleanup());

  /** Chapter 3 solved except one stub, whose body is `body`: a plausible mistake, not a TODO. */
  const withWrong = (stub: string, body: string[]) => {
    const files = buildWorkspace(
      path.join(copy.root, 'solution/src'),
      (r) => r.chapter > 3,
      new Map([[`chapter 3: ${stub}`, body]]),
    ).files;
    write(copy.root, 'starter/src/simple-agent.ts', files.get('simple-agent.ts')!);
  };

  // The describe block of these tests is "SimpleAgent.run and chat": its title names run first.
  const cases: Array<[string, string, string[]]> = [
    // chat forgets to keep the final answer in the history; run is right.
    [
      'SimpleAgent.chat',
      'SimpleAgent.run',
      [
        '    for (let i = 0; i < this.maxTurns; i++) {',
        '      const turn = await this.provider.complete({ system: this.system, messages: history, tools: this.tools.definitions() });',
        "      if (turn.stopReason !== 'tool_use') return textOf(turn);",
        '      this.pushResults(history, turn, await this.executeTools(toolCallsOf(turn)));',
        '    }',
        '    throw new TurnLimitError(this.maxTurns);',
      ],
    ],
    // run forgets to return chat's answer; chat is right.
    ['SimpleAgent.run', 'SimpleAgent.chat', ['    await this.chat([userMessage(prompt)]);', "    return '';"]],
  ];
  for (const [wrong, right, body] of cases) {
    it(`with ${wrong} wrong and ${right} right, every failing test, the hint and watch's screen point at ${wrong}`, async () => {
      withWrong(wrong, body);
      const { tests } = await runTests({ root: copy.root, chapters: [3] });
      const failing = tests.filter((t) => t.status === 'failed');
      expect(failing.length, 'the wrong stub fails some tests').toBeGreaterThan(0);
      expect(
        failing.every((t) => t.regions?.includes(`chapter 3: ${wrong}`)),
        'each failing test recorded the regions it reached',
      ).toBe(true);
      const stubs = learnerStubs(copy.root);
      const assigned = assignStubs(tests, stubs);
      expect(failing.map((t) => assigned.get(t)?.name)).toEqual(failing.map(() => wrong));
      const hint = await hintText(copy.root, 3, tests);
      expect(hint).toMatch(new RegExp(`^Chapter 3 · ${wrong.replace('.', '\\.')} `, 'm'));
      // One stub to edit, or (where the failing test reached several written stubs) a list with the wrong one first.
      const at = `starter/src/simple-agent\\.ts:\\d+ {2}\\(#region chapter 3: ${wrong.replace('.', '\\.')}\\)`;
      expect(renderChapter(copy.root, 3, tests)).toMatch(
        new RegExp(`Edit: ${at}|Check: this test exercised \\d+ stubs[^\\n]*\\n[^\\n]*\\n {2}${at}`),
      );
    });
  }

  it('without a trace, falls back to the describe title; the trace outranks a title that names another stub', () => {
    const stub = (name: string, chapter = 3): LearnerStub => ({
      chapter,
      name,
      file: 'starter/src/simple-agent.ts',
      line: 1,
      steps: [],
      body: [],
      todo: false,
    });
    const stubs = [stub('SimpleAgent.run'), stub('SimpleAgent.chat'), stub('ToolSet.add', 2)];
    const test = (name: string, status: 'passed' | 'failed', regions?: string[]): TestOutcome => ({
      chapter: 3,
      file: 'tests/chapter03/simple-agent.test.ts',
      suites: ['SimpleAgent.run and chat (src/simple-agent.ts)'],
      name,
      fullName: name,
      status,
      message: status === 'failed' ? 'expected' : '',
      ...(regions ? { regions } : {}),
    });
    const untraced = test('a', 'failed');
    expect(assignStubs([untraced], stubs).get(untraced)?.name).toBe('SimpleAgent.run');
    const viaRun = test('b', 'failed', [
      'chapter 2: ToolSet.add',
      'chapter 3: SimpleAgent.run',
      'chapter 3: SimpleAgent.chat',
    ]);
    const viaChat = test('c', 'failed', ['chapter 2: ToolSet.add', 'chapter 3: SimpleAgent.chat']);
    const passing = test('d', 'passed', [
      'chapter 2: ToolSet.add',
      'chapter 3: SimpleAgent.run',
      'chapter 3: SimpleAgent.chat',
    ]);
    const assigned = assignStubs([viaRun, viaChat, passing], stubs);
    expect(assigned.get(viaRun)?.name).toBe('SimpleAgent.chat');
    expect(assigned.get(viaChat)?.name).toBe('SimpleAgent.chat');
    const todo = { ...viaChat, message: 'TodoError: TODO(chapter 2): ToolSet.add' };
    expect(assignStubs([todo], stubs).get(todo)?.name, 'a TODO message names its stub').toBe('ToolSet.add');
  });
});
