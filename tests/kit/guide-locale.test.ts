/**
 * The translated editions (scripts/lib/guide-locale.ts, run by verify's guide step through checkGuide): front matter,
 * staleness against the English commit a translation records, the stub of a page not yet translated, the edition's
 * SUMMARY.md, the structure of a translated page; and the Chinese forms of the other guide checks (header card,
 * authors' voice, stub table). On a throw-away git repository.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkStaleness,
  checkStructure,
  checkTranslations,
  frontMatter,
  headings,
  substance,
  translationHeader,
} from '../../scripts/lib/guide-locale.js';
import { authorVoice, checkStubTable, headerLabels, headerLength, stubTable } from '../../scripts/lib/guide.js';
import { ROOT } from '../../scripts/lib/paths.js';
import { cjkStrong } from '../../book/.vitepress/lib/markdown.js';

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'kit',
  GIT_AUTHOR_EMAIL: 'kit@example.com',
  GIT_COMMITTER_NAME: 'kit',
  GIT_COMMITTER_EMAIL: 'kit@example.com',
};

const ENGLISH = `# Chapter 1: Messages

> **What you build:** the message types.
> **Files to edit:** \`starter/src/messages.ts\`
> **Command:** \`npm test -- chapter1\`
> **Time:** about 45 minutes

## Why a loop

A model answers once; the loop asks again.

## \`singleTurn\`: one round

\`\`\`quiz
Q: What ends a run?
- [ ] A tool call, which asks the model for another round.
  > No: a tool call asks for another round.
- [x] A turn without tool calls.
  > Right: nothing is left to run.
\`\`\`
`;

const chinese = (sha: string, extra = '') => `---
english: ${sha}
${extra}---

# 第 1 章：消息 {#chapter-1-messages}

> **你要构建的：**消息类型。
> **要编辑的文件：**\`starter/src/messages.ts\`
> **命令：**\`npm test -- chapter1\`
> **用时：**约 45 分钟

## 为什么需要循环 {#why-a-loop}

模型只回答一次；循环会再问一次。

## \`singleTurn\`：一轮 {#singleturn-one-round}

\`\`\`quiz
Q: 什么会结束一次运行？
- [ ] 一次工具调用，它会要求模型再来一轮。
  > 不对：工具调用要求再来一轮。
- [x] 没有工具调用的轮次。
  > 对：已经没有要运行的了。
\`\`\`
`;

describe('translations in step with the English (scripts/lib/guide-locale.ts)', () => {
  let root: string;
  let first: string;
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  const commit = (message: string, ...files: string[]) => {
    git('add', ...files);
    git('commit', '-q', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  const problems = () => checkTranslations(root);

  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'kit-locale-'));
    git('init', '-q', '-b', 'main');
    write(
      'book/src/SUMMARY.md',
      '# Summary\n\n- [Chapter 1: Messages](chapter-01.md)\n- [Chapter 2: Tools](chapter-02.md)\n',
    );
    write('book/src/chapter-01.md', ENGLISH);
    write('book/src/chapter-02.md', '# Chapter 2: Tools\n\nA tool.\n');
    write('tests/chapter01/hints.md', '# Chapter 1 hints\n\n## singleTurn\n\n### Nudge\n\nOne call.\n');
    first = commit('English', 'book/src', 'tests');
    write(
      'book/src/zh/SUMMARY.md',
      '# 目录\n\n- [第 1 章：消息](chapter-01.md)\n- [第 2 章：工具](chapter-02.md)\n\n# 附录\n\n- [术语表](glossary.md)\n',
    );
    write('book/src/zh/chapter-01.md', chinese(first));
    write(
      'book/src/zh/chapter-02.md',
      '---\nenglish: none\n---\n\n# 第 2 章：工具 {#chapter-2-tools}\n\n::: warning 本页尚未翻译\n请先读[英文版](../chapter-02.md)。\n:::\n',
    );
    write('book/src/zh/glossary.md', '# 术语表\n\n| 英文 | 中文 |\n|---|---|\n| tool | 工具 |\n');
    write(
      'tests/chapter01/hints.zh-CN.md',
      `<!-- english: ${first} -->\n# 第 1 章提示\n\n## singleTurn\n\n### 提示\n\n调用一次。\n`,
    );
    commit('Chinese', 'book/src/zh', 'tests/chapter01/hints.zh-CN.md');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('accepts an edition in step: a translation of the latest English, a stub that says so, a page of its own', () => {
    expect(problems()).toEqual([]);
  });

  it('reads front matter and the hints header', () => {
    expect(frontMatter('---\nenglish: abc\nbehind: true\n---\n# x')).toEqual({ english: 'abc', behind: true });
    expect(frontMatter('# no front matter')).toBeUndefined();
    expect(translationHeader(`<!-- english: ${'a'.repeat(40)} behind -->\n## x`, 'hints')).toEqual({
      english: 'a'.repeat(40),
      behind: true,
      present: true,
    });
    expect(translationHeader('# 提示', 'hints')).toEqual({ behind: false, present: false });
    expect(substance('a  b\n\n  c ')).toBe('a b c');
  });

  it('does not count a change of whitespace or line breaks in the English as a change', () => {
    write(
      'book/src/chapter-01.md',
      ENGLISH.replace('A model answers once; the loop asks again.', 'A model answers once;\nthe   loop asks again.\n'),
    );
    try {
      expect(problems()).toEqual([]);
    } finally {
      write('book/src/chapter-01.md', ENGLISH);
    }
  });

  it('fails a translation whose English changed after its commit, naming the file, the change and both ways out', () => {
    write('book/src/chapter-01.md', ENGLISH.replace('the loop asks again', 'the loop asks the model again'));
    const latest = commit('English: clearer', 'book/src/chapter-01.md');
    try {
      const found = problems();
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(
        /^book\/src\/zh\/chapter-01\.md: behind the English: book\/src\/chapter-01\.md changed after [0-9a-f]{10}/,
      );
      expect(found[0]).toContain(`first change at book/src/chapter-01.md:10`);
      expect(found[0]).toContain(`gives ${latest}`);
      expect(found[0]).toContain('add behind: true to its front matter');

      // Marked behind: verify accepts it (the site shows the note).
      write('book/src/zh/chapter-01.md', chinese(first, 'behind: true\n'));
      expect(problems()).toEqual([]);
      // Brought up to date, but the mark left behind: verify says to remove it.
      write('book/src/zh/chapter-01.md', chinese(latest, 'behind: true\n'));
      expect(problems()).toEqual([
        expect.stringMatching(
          /^book\/src\/zh\/chapter-01\.md: marked behind, but book\/src\/chapter-01\.md has not changed in substance since .*: remove the mark$/,
        ),
      ]);
      write('book/src/zh/chapter-01.md', chinese(latest));
      expect(problems()).toEqual([]);
    } finally {
      write('book/src/zh/chapter-01.md', chinese(first));
      write('book/src/chapter-01.md', ENGLISH);
      commit('English: back', 'book/src/chapter-01.md');
    }
  });

  it('says when the recorded commit cannot be read: a shallow clone, or no such commit', () => {
    const shallow = mkdtempSync(path.join(tmpdir(), 'kit-shallow-'));
    try {
      // Add a commit on top so that a depth-1 clone lacks the one the translation records.
      write('README.md', 'later\n');
      commit('later', 'README.md');
      execFileSync('git', ['clone', '-q', '--depth', '1', `file://${root}`, shallow], { env: ENV, stdio: 'ignore' });
      const found = checkTranslations(shallow);
      expect(found).toContain(
        `book/src/zh/chapter-01.md: cannot read the English commit ${first} it records, so whether it is behind cannot be checked (this clone is shallow, so older commits are not here: fetch the history (git fetch --unshallow) and run verify again) (git log -1 --format=%H -- book/src/chapter-01.md gives ${execFileSync('git', ['rev-parse', 'HEAD'], { cwd: shallow, encoding: 'utf8' }).trim()})`,
      );
      expect(found.some((p) => p.startsWith('tests/chapter01/hints.zh-CN.md: cannot read the English commit'))).toBe(
        true,
      );
    } finally {
      rmSync(shallow, { recursive: true, force: true });
    }
    const made = 'f'.repeat(40);
    expect(
      checkStaleness(root, 'book/src/zh/chapter-01.md', 'book/src/chapter-01.md', {
        english: made,
        behind: false,
        present: true,
      }),
    ).toEqual([
      expect.stringMatching(/cannot read the English commit f{40} it records.*no such commit in this repository/),
    ]);
    expect(
      checkStaleness(root, 'book/src/zh/chapter-01.md', 'book/src/chapter-01.md', {
        english: 'abc123',
        behind: false,
        present: true,
      }),
    ).toEqual([
      expect.stringMatching(
        /^book\/src\/zh\/chapter-01\.md: english: <sha> must be a full 40-hex commit, not "abc123"/,
      ),
    ]);
  });

  it('fails a translated page without front matter, and a stub without its note', () => {
    write('book/src/zh/chapter-01.md', chinese(first).replace(/^---[\s\S]*?---\n\n/, ''));
    write('book/src/zh/chapter-02.md', '---\nenglish: none\n---\n\n# 第 2 章：工具 {#chapter-2-tools}\n');
    try {
      expect(problems()).toEqual([
        expect.stringMatching(
          /^book\/src\/zh\/chapter-01\.md: no front matter naming the English commit it was translated from: start the page with ---, english: <sha>, --- \(git log -1 --format=%H -- book\/src\/chapter-01\.md gives [0-9a-f]{40}\)$/,
        ),
        'book/src/zh/chapter-02.md: a stub (english: none) must show the note 本页尚未翻译 and link the English page as [英文版](../chapter-02.md)',
      ]);
    } finally {
      write('book/src/zh/chapter-01.md', chinese(first));
      write(
        'book/src/zh/chapter-02.md',
        '---\nenglish: none\n---\n\n# 第 2 章：工具 {#chapter-2-tools}\n\n::: warning 本页尚未翻译\n请先读[英文版](../chapter-02.md)。\n:::\n',
      );
    }
  });

  it('fails a hints translation that is behind, or has no header', () => {
    write('tests/chapter01/hints.md', '# Chapter 1 hints\n\n## singleTurn\n\n### Nudge\n\nOne call, then stop.\n');
    commit('hints', 'tests/chapter01/hints.md');
    try {
      expect(problems()).toEqual([
        expect.stringMatching(
          /^tests\/chapter01\/hints\.zh-CN\.md: behind the English: tests\/chapter01\/hints\.md changed after .* make its first line <!-- english: <sha> behind -->/,
        ),
      ]);
      write(
        'tests/chapter01/hints.zh-CN.md',
        `<!-- english: ${first} behind -->\n## singleTurn\n\n### Nudge\n\n调用一次。\n`,
      );
      expect(problems()).toEqual([]);
      write('tests/chapter01/hints.zh-CN.md', '## singleTurn\n\n### Nudge\n\n调用一次。\n');
      expect(problems()).toEqual([
        expect.stringMatching(
          /^tests\/chapter01\/hints\.zh-CN\.md:1: no header naming the English commit .*: its first line must be <!-- english: <sha> -->/,
        ),
      ]);
    } finally {
      write('tests/chapter01/hints.md', '# Chapter 1 hints\n\n## singleTurn\n\n### Nudge\n\nOne call.\n');
      commit('hints back', 'tests/chapter01/hints.md');
      write(
        'tests/chapter01/hints.zh-CN.md',
        `<!-- english: ${git('log', '-1', '--format=%H', '--', 'tests/chapter01/hints.md')} -->\n## singleTurn\n\n### Nudge\n\n调用一次。\n`,
      );
    }
  });

  it('fails a hints translation whose stubs or hints differ from the English', () => {
    const header = `<!-- english: ${git('log', '-1', '--format=%H', '--', 'tests/chapter01/hints.md')} -->\n`;
    write(
      'tests/chapter01/hints.zh-CN.md',
      `${header}## singleTurn\n\n### Nudge\n\n调用一次。\n\n### Approach\n\n多写的一条。\n`,
    );
    try {
      expect(problems()).toEqual([
        'tests/chapter01/hints.zh-CN.md: its ## stubs and ### hints are singleTurn (2); tests/chapter01/hints.md has singleTurn (1) (with its steps as the approach): keep the same sections, in the same order, as many hints each',
      ]);
    } finally {
      write('tests/chapter01/hints.zh-CN.md', `${header}## singleTurn\n\n### Nudge\n\n调用一次。\n`);
    }
  });

  it("checks the edition's SUMMARY.md against the English one and the pages", () => {
    write(
      'book/src/zh/SUMMARY.md',
      '# 目录\n\n- [第 2 章：工具](chapter-02.md)\n- [第 1 章：消息](chapter-01.md)\n- [第 3 章](chapter-03.md)\n',
    );
    try {
      expect(problems()).toEqual([
        'book/src/zh/SUMMARY.md:5: "第 3 章" links chapter-03.md, which does not exist',
        'book/src/zh/SUMMARY.md: lists the English pages in another order than book/src/SUMMARY.md (chapter-01.md, chapter-02.md): keep the same order, so prev/next agree',
        'book/src/zh/glossary.md is not in book/src/zh/SUMMARY.md (add it there, or delete the page)',
      ]);
      write('book/src/zh/SUMMARY.md', '# 目录\n\n- [第 1 章：消息](chapter-01.md)\n- [术语表](glossary.md)\n');
      rmSync(path.join(root, 'book/src/zh/chapter-02.md'));
      expect(problems()).toEqual([
        'book/src/zh/SUMMARY.md: leaves out chapter-02.md of book/src/SUMMARY.md: the Chinese contents list every English page, under the same file name',
      ]);
      write(
        'book/src/zh/SUMMARY.md',
        '# 目录\n\n- [第 1 章：消息](chapter-01.md)\n- [第 2 章：工具](chapter-02.md)\n- [术语表](glossary.md)\n',
      );
      expect(problems()).toEqual([
        'book/src/zh/SUMMARY.md:4: "第 2 章：工具" links chapter-02.md, and book/src/zh/chapter-02.md does not exist (translate book/src/chapter-02.md, or write a stub: front matter english: none and the note 本页尚未翻译 linking ../chapter-02.md)',
      ]);
    } finally {
      git('checkout', '-q', '--', 'book/src/zh');
    }
    expect(problems()).toEqual([]);
  });
});

describe('a translated page keeps the English structure (checkStructure)', () => {
  const zh = chinese('0'.repeat(40));
  it('accepts the same anchors, quizzes and right answers', () => {
    expect(headings(ENGLISH).map((h) => h.anchor)).toEqual([
      'chapter-1-messages',
      'why-a-loop',
      'singleturn-one-round',
    ]);
    expect(checkStructure('book/src/zh/chapter-01.md', ENGLISH, zh)).toEqual([]);
  });

  it('names a heading without its English anchor, a quiz moved or tipped by length, a block left out', () => {
    expect(checkStructure('book/src/zh/chapter-01.md', ENGLISH, zh.replace(' {#why-a-loop}', ''))).toEqual([
      'book/src/zh/chapter-01.md:12: this heading must be level 2 and end with {#why-a-loop}, the English heading\'s anchor ("## Why a loop"), so links and the language switcher land on it',
    ]);
    expect(
      checkStructure(
        'book/src/zh/chapter-01.md',
        ENGLISH,
        zh.replace('- [ ] 一次工具调用，', '- [x] 一次工具调用，').replace('- [x] 没有', '- [ ] 没有'),
      ),
    ).toEqual([
      "book/src/zh/chapter-01.md:18: this quiz has 2 choices with the right one at A; the English has 2 with the right one at B: keep the choices and the right answer's place",
    ]);
    expect(
      checkStructure(
        'book/src/zh/chapter-01.md',
        ENGLISH,
        zh.replace('一次工具调用，它会要求模型再来一轮。', '一次。'),
      ),
    ).toEqual([
      'book/src/zh/chapter-01.md:18: in this quiz the right answer is the longest choice, and in the English it is not: say it shorter, or give the wrong choices the same detail (a reader must not find it by its length)',
    ]);
    expect(checkStructure('book/src/zh/chapter-01.md', ENGLISH, zh.replace(/```quiz[\s\S]*```\n/, ''))).toEqual([
      'book/src/zh/chapter-01.md: 0 quizzes, the English page has 1: keep each one, in the same order',
    ]);
  });
});

describe('the guide checks in Chinese (scripts/lib/guide.ts)', () => {
  it('reads the Chinese header card: its labels, and the length of 你要构建的', () => {
    const zh = chinese('0'.repeat(40));
    expect(headerLabels(zh, 'zh')).toEqual([]);
    expect(headerLabels(ENGLISH, 'en')).toEqual([]);
    expect(headerLabels(zh.replace('> **命令：**', '> **Command:**'), 'zh')).toEqual([
      "9: the header card's label is in the other language: write it as > **命令：**",
    ]);
    expect(headerLabels(zh.replace(/> \*\*用时：\*\*.*\n/, ''), 'zh')).toEqual([
      '1: the header card has no > **用时：** line (it names what you build, the files, the command, the time)',
    ]);
    expect(headerLength(zh)).toEqual([]);
    expect(headerLength(zh.replace('消息类型。', '很长的说明'.repeat(40)))).toEqual([
      "7: the header's 你要构建的 has 200 characters (at most 160; a run of English letters counts one): say the gist, and leave the details to the page",
    ]);
  });

  it("finds the authors' voice in Chinese", () => {
    expect(authorVoice('这一章里，你会写一个循环。')).toEqual([]);
    expect(authorVoice('在这一章里我们来写一个循环。').map((p) => p.message)).toEqual([
      expect.stringMatching(/^"我们" is the authors' voice/),
    ]);
  });

  it("checks a Chinese stub table: its translated header row or the English one, the kit's rows unchanged", () => {
    const table = stubTable(ROOT, 3, undefined, 'zh');
    expect(table.split('\n')[0]).toBe('| # | 桩 | 文件 |');
    const page = (t: string) => `# 第 3 章\n\n${t}\n\n正文。\n`;
    expect(checkStubTable(ROOT, 'zh/chapter-03.md', page(table))).toEqual([]);
    expect(
      checkStubTable(ROOT, 'zh/chapter-03.md', page(table.replace('| # | 桩 | 文件 |', '| # | Stub | File |'))),
    ).toEqual([]);
    expect(checkStubTable(ROOT, 'zh/chapter-03.md', page('')).join()).toMatch(
      /^book\/src\/zh\/chapter-03\.md: no stub table .*--stub-table 3 --lang zh/,
    );
    const rows = table.split('\n');
    expect(
      checkStubTable(
        ROOT,
        'zh/chapter-03.md',
        page([...rows.slice(0, 2), rows[3], rows[2], ...rows.slice(4)].join('\n')),
      ).join(),
    ).toMatch(/^book\/src\/zh\/chapter-03\.md:3: the stub table names/);
  });
});

describe('bold next to Chinese punctuation (book/.vitepress/lib/markdown.ts cjkStrong)', () => {
  it('makes the pairs CommonMark would leave as asterisks <strong>, and leaves every other pair and code alone', () => {
    expect(cjkStrong('> **你要构建的：**一个循环')).toBe('> <strong>你要构建的：</strong>一个循环');
    expect(cjkStrong('由字母组成的**匹配器（matcher）**是一串')).toBe(
      '由字母组成的<strong>匹配器（matcher）</strong>是一串',
    );
    expect(cjkStrong('前文**“引用”**后文')).toBe('前文<strong>“引用”</strong>后文');
    expect(cjkStrong('> **命令：**`npm test -- chapter1`'), 'a backtick after it: CommonMark closes it').toBe(
      '> **命令：**`npm test -- chapter1`',
    );
    expect(cjkStrong('**恢复**就是；`**x：**y` 不变')).toBe('**恢复**就是；`**x：**y` 不变');
    expect(cjkStrong('A **bold.**word in English'), 'English is left to CommonMark').toBe('A **bold.**word in English');
  });
});
