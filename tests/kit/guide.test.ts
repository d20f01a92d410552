/** scripts/lib/guide.ts (used by verify) and the parsers the site shares with it, on fixture guides. */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagramKind } from '../../book/.vitepress/lib/markdown.js';
import { parseQuiz } from '../../book/.vitepress/lib/quiz.js';
import { pageLink, parseSummary } from '../../book/.vitepress/lib/summary.js';
import { diagramKey } from '../../book/.vitepress/lib/diagram-store.js';
import {
  chapterTable,
  checkIntroduction,
  checkDiagramDrawings,
  checkGuide,
  checkStubTable,
  checkStubTables,
  headerLength,
  lengthRank,
  quizBalance,
  fencedBlocks,
  guideDiagrams,
  guideTestCommands,
  shellWords,
  stubTable,
  writeIntroductions,
} from '../../scripts/lib/guide.js';
import { headings, pageError } from '../../scripts/lib/markdown.js';
import { ROOT } from '../../scripts/lib/paths.js';
import { copyRepo, GOOD_QUIZ } from './helpers.js';

describe('parseSummary (book/.vitepress/lib/summary.ts)', () => {
  it('reads prefix chapters, parts, nested entries and drafts', () => {
    const entries = parseSummary(
      '# Summary\n\n[Introduction](README.md)\n\n# Part I: The loop\n\n- [One](chapter01.md)\n  - [Deeper](one/more.md)\n- [Draft]()\n\n---\n\n# Part II\n- [Two](./chapter02.md)\n',
    );
    expect(entries).toEqual([
      { title: 'Introduction', file: 'README.md', depth: 0, line: 3 },
      { title: 'One', file: 'chapter01.md', part: 'Part I: The loop', depth: 0, line: 7 },
      { title: 'Deeper', file: 'one/more.md', part: 'Part I: The loop', depth: 1, line: 8 },
      { title: 'Draft', part: 'Part I: The loop', depth: 0, line: 9 },
      { title: 'Two', file: 'chapter02.md', part: 'Part II', depth: 0, line: 14 },
    ]);
    expect(pageLink('README.md')).toBe('/');
    expect(pageLink('part1/README.md')).toBe('/part1/');
    expect(pageLink('chapter01.md')).toBe('/chapter01');
  });
});

describe('diagramKind (book/.vitepress/lib/markdown.ts)', () => {
  it('names the kind of a mermaid source, past comments, blank lines and front matter fences', () => {
    expect(diagramKind('flowchart TD\n  A --> B')).toBe('flowchart');
    expect(diagramKind('\n%% a comment\n  sequenceDiagram\n  A->>B: hi')).toBe('sequenceDiagram');
    expect(diagramKind('---\ntitle: The loop\n---\nstateDiagram-v2\n[*] --> A')).toBe('stateDiagram-v2');
    expect(diagramKind('')).toBe('');
  });
});

describe('parseQuiz (book/.vitepress/lib/quiz.ts)', () => {
  it('parses one question with its choices and explanations', () => {
    const { quiz, problems } = parseQuiz(GOOD_QUIZ);
    expect(problems).toEqual([]);
    expect(quiz.question).toBe('Why must the assistant turn be appended before its tool results?');
    expect(quiz.choices.map((c) => c.correct)).toEqual([false, true]);
    expect(quiz.choices[1]!.explanation).toBe('Right: a result answers the `tool_call` before it.');
  });

  it('reports a missing explanation, no correct answer, two correct answers, two questions', () => {
    expect(parseQuiz('Q: a?\n- [ ] x\n- [x] y\n  > why').problems).toEqual([
      'choice 1 ("x") has no explanation (an indented "> ..." line)',
    ]);
    expect(parseQuiz('Q: a?\n- [ ] x\n  > n\n- [ ] y\n  > n').problems).toEqual([
      '0 correct answers; mark exactly one with [x]',
    ]);
    expect(parseQuiz('Q: a?\n- [x] x\n  > n\n- [x] y\n  > n').problems).toEqual([
      '2 correct answers; mark exactly one with [x]',
    ]);
    expect(parseQuiz(`${GOOD_QUIZ}\nQ: b?`).problems).toContain('2 questions in one block (one per block)');
  });
});

describe('fencedBlocks, headings, pageError (scripts/lib/markdown.ts)', () => {
  it('finds blocks with their info string and opening line, and respects longer fences', () => {
    const blocks = fencedBlocks('text\n```ts check\nconst a = 1;\n```\n````md\n```quiz\nnot a quiz\n```\n````\n');
    expect(blocks).toEqual([
      { info: 'ts check', content: 'const a = 1;', line: 2 },
      { info: 'md', content: '```quiz\nnot a quiz\n```', line: 5 },
    ]);
  });

  it('reads the page as the site does: past its front matter, in list items, with the lines of the whole file', () => {
    const page = '---\nenglish: none\n---\n# Title\n\n1. Run it:\n\n   ```sh\n   npm test\n   ```\n';
    expect(fencedBlocks(page)).toEqual([{ info: 'sh', content: 'npm test', line: 8 }]);
    expect(headings(page)).toEqual([{ level: 1, line: 4, text: 'Title', anchor: 'title' }]);
  });

  it('says why the site cannot read a page: a front matter that is not YAML, an {#id} used twice', () => {
    expect(pageError('# Fine\n')).toBeUndefined();
    expect(pageError('---\nenglish: [\n---\n# x\n')).toMatch(/^the site cannot read this page: /);
    expect(pageError('## A {#same}\n\n## B {#same}\n')).toMatch(/`same` is not unique/);
  });
});

describe('shellWords (scripts/lib/guide-commands.ts)', () => {
  it('keeps quoted test names together', () => {
    expect(shellWords(`chapter3 -t "unknown tool becomes" --solution`)).toEqual([
      'chapter3',
      '-t',
      'unknown tool becomes',
      '--solution',
    ]);
    expect(shellWords(`ch2 -t 'a b'`)).toEqual(['ch2', '-t', 'a b']);
  });

  it('in prose, a command ends at an unquoted word that ends with "," or ")", not inside a quoted filter', () => {
    expect(shellWords('chapter4, npm run hint -- chapter4), or run', { inProse: true })).toEqual(['chapter4']);
    expect(shellWords('chapter8 -t "(ruleMatches, parseRule)")', { inProse: true })).toEqual([
      'chapter8',
      '-t',
      '(ruleMatches, parseRule)',
    ]);
    expect(shellWords('chapter4, npm run hint'), 'a command line as it is').toEqual([
      'chapter4,',
      'npm',
      'run',
      'hint',
    ]);
  });
});

describe('checkGuide and guideTestCommands (scripts/lib/guide.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  const page = (rel: string, text: string) => {
    const file = path.join(copy.root, 'book/src', rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };
  beforeAll(() => {
    copy = copyRepo();
    rmSync(path.join(copy.root, 'book/src'), { recursive: true, force: true });
    rmSync(path.join(copy.root, 'book/diagrams'), { recursive: true, force: true });
    // The translated hints record English commits; a copy has no git history to read them from (guide-locale.test.ts
    // checks them in a repository of its own).
    for (const chapter of readdirSync(path.join(copy.root, 'tests')).filter((name) => /^chapter\d+$/.test(name)))
      rmSync(path.join(copy.root, 'tests', chapter, 'hints.zh-CN.md'), { force: true });
    page('SUMMARY.md', '# Summary\n\n[Introduction](README.md)\n\n# Part I\n\n- [One](chapter01.md)\n- [Two]()\n');
    page('README.md', '# Intro\n\nRun `npm test -- chapter1` first.\n');
  });
  afterAll(() => copy.cleanup());

  it('is empty for a consistent guide with good code and quizzes', async () => {
    page(
      'chapter01.md',
      [
        '# One',
        '',
        '```ts check',
        "import { textOf, assistantText } from 'kit/messages';",
        "const text: string = textOf(assistantText('hi'));",
        '```',
        '',
        '```ts',
        'this is not checked',
        '```',
        '',
        '```quiz',
        GOOD_QUIZ,
        '```',
        '',
        '```bash',
        'npm test -- chapter1 --solution   # all pass',
        '```',
        '',
        '```mermaid',
        'stateDiagram-v2',
        '  [*] --> Idle',
        '  Idle --> Waiting: assistant turn with calls',
        '```',
        '',
        '```mermaid',
        'sequenceDiagram',
        '  A->>B: run, then wait (a comma, not a semicolon)',
        '```',
        '',
        'A random failure from a fixed seed is fine.',
      ].join('\n'),
    );
    const drawings = guideDiagrams(copy.root);
    expect(
      checkDiagramDrawings(copy.root),
      'a diagram without its drawing (npm run diagrams stores it in book/diagrams)',
    ).toEqual(
      drawings.map(
        (d) =>
          `book/src/chapter01.md:${d.line}: this diagram has no drawing (book/diagrams/${d.key}.svg): the site would draw it in the reader's browser, late and moving the page (npm run diagrams draws it)`,
      ),
    );
    // Their drawings (what npm run diagrams would store), and one no diagram uses.
    mkdirSync(path.join(copy.root, 'book/diagrams'), { recursive: true });
    for (const d of drawings)
      writeFileSync(path.join(copy.root, 'book/diagrams', `${d.key}.svg`), '<svg viewBox="0 0 10 10"></svg>\n');
    writeFileSync(path.join(copy.root, 'book/diagrams/0000000000000000.svg'), '<svg viewBox="0 0 10 10"></svg>\n');
    expect(checkDiagramDrawings(copy.root, { unused: true })).toEqual([
      'book/diagrams/0000000000000000.svg is the drawing of no diagram of the guide (npm run diagrams deletes it)',
    ]);
    expect(checkDiagramDrawings(copy.root), 'a drawing left over is no problem for verify').toEqual([]);
    rmSync(path.join(copy.root, 'book/diagrams/0000000000000000.svg'));
    expect(drawings.map((d) => d.key)).toEqual(drawings.map((d) => diagramKey(d.source)));
    expect(await checkGuide(copy.root)).toEqual([]);
    expect(guideTestCommands(copy.root)).toEqual([
      { file: 'book/src/README.md', line: 3, args: ['chapter1'] },
      { file: 'book/src/chapter01.md', line: 21, args: ['chapter1', '--solution'] },
    ]);
  });

  it('reports a missing page, a page outside SUMMARY.md, a block that does not type-check and a broken quiz', async () => {
    page('SUMMARY.md', '# Summary\n\n[Introduction](README.md)\n\n- [One](chapter01.md)\n- [Three](chapter03.md)\n');
    page('orphan.md', '# Orphan\n');
    page(
      'chapter01.md',
      [
        '# One',
        '',
        '```ts check',
        "import { textOf } from 'kit/messages';",
        'const n: number = textOf;',
        '```',
        '',
        '```quiz',
        'Q: ?',
        '- [ ] a',
        '  > x',
        '- [ ] b',
        '```',
        '',
        '```mermaid',
        'sequenceDiagram',
        '  S->>S: save_draft runs; show_form is pending',
        '  S-->>B: done',
        '```',
        '',
        'Seed 003 describes exactly this, and your learners will like it.',
      ].join('\n'),
    );
    const problems = await checkGuide(copy.root);
    expect(problems).toContain('book/src/SUMMARY.md:6: "Three" links chapter03.md, which does not exist');
    expect(problems).toContain('book/src/orphan.md is not in SUMMARY.md (add it there, or delete the page)');
    expect(
      problems.find((p) => p.startsWith('book/src/chapter01.md:5: ts check block does not type-check: error TS2322')),
    ).toBeDefined();
    expect(problems).toContain('book/src/chapter01.md:8: quiz: 0 correct answers; mark exactly one with [x]');
    expect(problems).toContain(
      'book/src/chapter01.md:8: quiz: choice 2 ("b") has no explanation (an indented "> ..." line)',
    );
    expect(
      problems.find((p) => p.startsWith('book/src/chapter01.md:17: mermaid cannot parse this diagram')),
      `a ';' in a sequence message ends the statement: ${problems.join('\n')}`,
    ).toBeDefined();
    expect(
      problems
        .filter((p) => /^book\/src\/chapter01\.md:21: ".*" is the authors' voice/.test(p))
        .map((p) => /"([^"]+)"/.exec(p)![1]),
    ).toEqual(['Seed 003', 'your learners']);
  });
});

describe('stub tables (scripts/lib/guide-stub-tables.ts stubTable, checkStubTable)', () => {
  const table = stubTable(ROOT, 3);
  it("lists a chapter's stubs in the order of its hints, with their files, and a -t filter where the stub's name is not one", () => {
    expect(
      table
        .split('\n')
        .slice(2)
        .map((row) => row.split('|')[2]!.trim()),
    ).toEqual([
      '`executeToolCall`',
      '`singleTurn`',
      '`SimpleAgent.run`',
      '`SimpleAgent.executeTools`',
      '`SimpleAgent.pushResults` (`-t "pushResults"`)',
      '`SimpleAgent.chat`',
    ]);
    expect(table.split('\n').slice(0, 2)).toEqual(['| # | Stub | File |', '|---|---|---|']);
    expect(table, 'a stub whose tests name it has no filter after it').toContain(
      '| 1 | `executeToolCall` | `starter/src/safe-call.ts` |',
    );
    expect(table).toContain('| 5 | `SimpleAgent.pushResults` (`-t "pushResults"`) | `starter/src/simple-agent.ts` |');
  });

  it('accepts the page that has it, and names a missing table, a missing stub and a wrong order', () => {
    const page = (t: string) => `# Chapter 3\n\n> **Command:** \`npm test -- chapter3\`\n\n${t}\n\n## Why a loop\n`;
    expect(checkStubTable(ROOT, 'chapter-03.md', page(table))).toEqual([]);
    expect(checkStubTable(ROOT, 'introduction.md', 'no table')).toEqual([]);
    expect(checkStubTable(ROOT, 'chapter-03.md', page('')).join()).toMatch(
      /^book\/src\/chapter-03\.md: no stub table .*--stub-table 3/,
    );
    const rows = table.split('\n');
    const missing = checkStubTable(ROOT, 'chapter-03.md', page([...rows.slice(0, 4), ...rows.slice(5)].join('\n')));
    expect(missing.join()).toMatch(
      /the stub table names executeToolCall, singleTurn, SimpleAgent.executeTools, .*chapter 3's stubs, in the order of its hints, are executeToolCall, singleTurn, SimpleAgent.run,/,
    );
    const swapped = checkStubTable(
      ROOT,
      'chapter-03.md',
      page([...rows.slice(0, 2), rows[3], rows[2], ...rows.slice(4)].join('\n')),
    );
    expect(swapped).toHaveLength(1);
    const filter = checkStubTable(ROOT, 'chapter-03.md', page(table.replace('-t "pushResults"', '-t "push"')));
    expect(filter).toEqual([
      expect.stringMatching(
        /^book\/src\/chapter-03\.md:11: the stub table's row for SimpleAgent.pushResults reads .*-t "push".*; the kit writes .*-t "pushResults"/,
      ),
    ]);
  });
});

describe('a chapter read in parts (scripts/lib/guide-stub-tables.ts checkStubTables)', () => {
  const part = (from: number, to: number) =>
    `# Chapter 15, part\n\n${stubTable(ROOT, 15, { from, to })}\n\n## The flags\n`;
  const overview = { page: 'chapter-15.md', markdown: '# Chapter 15: Capstone\n\nFour parts.\n' };
  const pages = (...ranges: Array<[number, number] | string>) => [
    overview,
    ...ranges.map((r, i) => ({
      page: `chapter-15-${i + 1}.md`,
      markdown: typeof r === 'string' ? r : part(r[0], r[1]),
    })),
  ];
  const all = stubTable(ROOT, 15)
    .split('\n')
    .slice(2)
    .map((row) => /`([^`]+)`/.exec(row.split('|')[2]!)![1]!);

  it("accepts parts whose tables, in order, name each of the chapter's stubs once, numbered as in the whole table", () => {
    expect(all.length).toBeGreaterThan(30);
    expect(
      stubTable(ROOT, 15, { from: 9, to: 10 })
        .split('\n')
        .slice(2)
        .map((r) => r.split('|')[1]!.trim()),
    ).toEqual(['9', '10']);
    expect(checkStubTables(ROOT, pages([1, 8], [9, 19], [20, 31], [32, all.length]))).toEqual([]);
    // A chapter on one page is still checked as before.
    expect(checkStubTables(ROOT, [{ page: 'chapter-03.md', markdown: 'no table' }]).join()).toMatch(
      /chapter-03\.md: no stub table/,
    );
  });

  it('names a part without a table, a stub in two parts, a stub in none, and a row the kit would write otherwise', () => {
    expect(checkStubTables(ROOT, pages([1, 8], 'no table here', [9, all.length])).join()).toMatch(
      /chapter-15-2\.md: no stub table .*each part of chapter 15 opens with the table of its own stubs/,
    );
    const twice = checkStubTables(ROOT, pages([1, 8], [8, all.length]));
    expect(twice.join()).toMatch(
      new RegExp(
        `chapter-15-2\\.md:3: .*${all[7]} is already in an earlier part's table; after the parts before it, chapter 15's hints go on with ${all[8]},`,
      ),
    );
    const gap = checkStubTables(ROOT, pages([1, 8], [10, all.length]));
    expect(gap.join()).toMatch(new RegExp(`chapter-15-2\\.md:3: .*hints go on with ${all[8]}, `));
    expect(gap.join()).toMatch(new RegExp(`chapter-15\\.md: chapter 15's parts leave out ${all[8]}:`));
    const short = checkStubTables(ROOT, pages([1, 8], [9, 30]));
    expect(short).toEqual([
      expect.stringMatching(
        new RegExp(`^book/src/chapter-15\\.md: chapter 15's parts leave out ${all.slice(30).join(', ')}:`),
      ),
    ]);
    const filter = checkStubTables(
      ROOT,
      pages([1, 8], part(9, all.length).replace(`\`${all[8]}\` |`, `\`${all[8]}\` (\`-t "nothing"\`) |`)),
    );
    expect(filter).toEqual([
      expect.stringMatching(
        new RegExp(
          `^book/src/chapter-15-2\\.md:5: the stub table's row for ${all[8]} reads .*-t "nothing".*; the kit writes .*--stub-table 15 9-${all.length}`,
        ),
      ),
    ]);
  });
});

describe('quizBalance (scripts/lib/guide-prose.ts)', () => {
  const quiz = (right: number, lengths: number[]) => ({
    question: 'Q?',
    choices: lengths.map((n, i) => ({ text: 'x'.repeat(n), correct: i === right, explanation: 'because' })),
  });
  it('accepts right answers spread over the positions and over the ranks by length', () => {
    // Right at A, B, C in turn, so the longest, the middle and the shortest in turn.
    const quizzes = Array.from({ length: 30 }, (_, i) => quiz(i % 3, [60, 50, 40]));
    expect(quizBalance(quizzes)).toEqual([]);
    expect(quizBalance(quizzes.slice(0, 11).map(() => quiz(1, [10, 90, 10]))), 'too few quizzes to judge').toEqual([]);
  });
  it('names a position that holds too many right answers, and a right answer that is too often the longest', () => {
    const quizzes = Array.from({ length: 30 }, (_, i) => quiz(i < 20 ? 1 : 0, [50, 90, 60]));
    expect(quizBalance(quizzes)).toEqual([
      'quizzes: 20 of 30 right answers are choice B (at most 12): move some right answers to other positions, so a guess by position does not pay',
      'quizzes: in 20 of 30 the right answer is the longest choice (at most 12): give wrong choices the same care and detail, or say the right one shorter',
      'quizzes: the right answer is the longest of the three choices in 20 (longest 20, middle 0, shortest 10 of 30; at most 12), so a guess by length pays: say some right answers shorter, or give their wrong choices the detail of a real misconception',
      'quizzes: the right answer is the middle of the three choices in only 0 (longest 20, middle 0, shortest 10 of 30; at least 6), so a guess by length pays: make some right answers the middle',
    ]);
  });
  it('names "take the middle-length choice" when it pays, ties counted as the middle', () => {
    // Positions balanced; the right answer always between the two others' lengths, or tied with one.
    const lengths = (right: number, tie: boolean) =>
      [0, 1, 2].map((c) => (c === right ? 50 : c === (right + 1) % 3 ? (tie ? 50 : 40) : 60));
    const quizzes = Array.from({ length: 30 }, (_, i) => quiz(i % 3, lengths(i % 3, i < 3)));
    expect(quizzes.map(lengthRank).every((r) => r === 'middle')).toBe(true);
    expect(quizBalance(quizzes)).toEqual([
      'quizzes: the right answer is the longest of the three choices in only 0 (longest 0, middle 30, shortest 0 of 30; at least 6), so a guess by length pays: make some right answers the longest',
      'quizzes: the right answer is the middle of the three choices in 30 (longest 0, middle 30, shortest 0 of 30; at most 12), so a guess by length pays: make some right answers the shortest choice (a wrong choice that states a misconception and its reasoning is rarely short) or the longest',
      'quizzes: the right answer is the shortest of the three choices in only 0 (longest 0, middle 30, shortest 0 of 30; at least 6), so a guess by length pays: make some right answers the shortest',
    ]);
    expect(lengthRank(quiz(0, [10, 20, 30, 40])), 'four choices have no middle').toBeUndefined();
  });
});

describe('headerLength (scripts/lib/guide-prose.ts)', () => {
  it('counts the words of "What you build", over several lines, up to the next field', () => {
    const header = (words: number) =>
      `# Ch\n\n> **What you build:** ${'word '.repeat(words - 3)}\n> three more words\n> **Files to edit:** \`a.ts\` b c d e f g h i j k l m n o p q r s t u v w x y z\n`;
    expect(headerLength(header(80))).toEqual([]);
    expect(headerLength(header(81))).toEqual([
      '3: the header\'s "What you build" has 81 words (at most 80): say the gist, and leave the details to the page',
    ]);
    expect(headerLength('# No header\n')).toEqual([]);
  });
});

describe('checkIntroduction (scripts/lib/guide-intro.ts)', () => {
  let copy: ReturnType<typeof copyRepo>;
  beforeAll(() => {
    copy = copyRepo({ link: false });
  });
  afterAll(() => copy.cleanup());
  it("accepts the guide's introductions, then names a row and the total a header's new time leaves stale, which --write mends, and a page longer than a sitting", () => {
    expect(checkIntroduction(copy.root, ['', 'zh'])).toEqual([]);
    const page = path.join(copy.root, 'book/src/chapter-09.md');
    writeFileSync(page, readFileSync(page, 'utf8').replace(/^> \*\*Time:\*\* .*$/m, '> **Time:** about 2.5 hours'));
    expect(checkIntroduction(copy.root, ['', 'zh'])).toEqual([
      expect.stringMatching(
        /^book\/src\/introduction\.md:\d+: the chapter table disagrees with the chapter headers: it reads "\| \[9\. Tool execution\]\(chapter-09\.md\) \| 2 h \|.*", the headers make "\| \[9\. Tool execution\]\(chapter-09\.md\) \| 2\.5 h \|/,
      ),
    ]);
    expect(writeIntroductions(copy.root, ['', 'zh'])).toEqual(['book/src/introduction.md']);
    expect(checkIntroduction(copy.root, ['', 'zh'])).toEqual([]);
    const total = chapterTable(copy.root, '').lines.at(-1);
    expect(total).toMatch(/^In all, about \d+ hours in \d+ sittings: .* the longest takes about [\d.]+ hours?\.$/);
    writeFileSync(page, readFileSync(page, 'utf8').replace(/^> \*\*Time:\*\* .*$/m, '> **Time:** about 3 hours'));
    expect(chapterTable(copy.root, '').problems).toEqual([
      'book/src/chapter-09.md: its header gives 3 hours, more than one sitting (2.5 hours at most): read it in parts, as chapter 15 is (chapter-NN-K.md, each with its own stub table and questions)',
    ]);
  });
});
