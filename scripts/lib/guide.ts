/**
 * The guide's own checks, for verify:
 * - checkGuide(): SUMMARY.md and the pages agree; every ```ts check block type-checks against solution/src; every
 *   ```quiz block parses; every ```mermaid block parses with mermaid's own parser; no page speaks in the authors'
 *   voice (AUTHOR_VOICE). The same over each translated edition (book/src/zh: its own SUMMARY.md, its quizzes'
 *   balance counted apart, its header labels and authors' voice in Chinese), and the translations are in step with
 *   the English (guide-locale.ts: front matter, staleness, structure). Returns problems as sentences (empty = fine),
 *   each naming its file.
 * - guideTestCommands(): every `npm test -- ...` command quoted in the guide, so verify can check each selects tests.
 * - buildSite(): the VitePress build (offline).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseQuiz, type Quiz } from '../../book/.vitepress/lib/quiz.js';
import { parseSummary } from '../../book/.vitepress/lib/summary.js';
import { chapterStubs } from '../kit/stubs.js';
import { chapterDir } from './chapters.js';
import { checkTranslations, EDITIONS, isStub } from './guide-locale.js';
import { type FencedBlock, fencedBlocks, pageError } from './markdown.js';
import { ROOT } from './paths.js';

export { fencedBlocks, type FencedBlock } from './markdown.js';

function bookSrc(root: string): string {
  return path.join(root, 'book/src');
}

/** Every markdown page under book/src (relative paths, forward slashes), SUMMARY.md excluded. */
export function guidePages(root = ROOT): string[] {
  const dir = bookSrc(root);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.md') && f !== 'SUMMARY.md')
    .sort();
}

/** The edition a page belongs to: '' for English, else its folder (`zh`). */
export function editionOf(page: string): string {
  return EDITIONS.find((e) => page.startsWith(`${e.dir}/`))?.dir ?? '';
}

/** The language of a block's info string and whether it asks to be type-checked (```ts check). */
const isCheckedTs = (info: string) => /^(ts|typescript)\b/.test(info) && /\bcheck\b/.test(info);

export async function checkGuide(root = ROOT): Promise<string[]> {
  const problems: string[] = [];
  const dir = bookSrc(root);
  const summaryFile = path.join(dir, 'SUMMARY.md');
  if (!existsSync(summaryFile)) return ['book/src/SUMMARY.md is missing'];
  const entries = parseSummary(readFileSync(summaryFile, 'utf8'));
  const linked = new Set<string>();
  for (const entry of entries) {
    if (!entry.file) continue;
    const file = entry.file.replace(/#.*$/, '');
    linked.add(file);
    if (!existsSync(path.join(dir, file)))
      problems.push(`book/src/SUMMARY.md:${entry.line}: "${entry.title}" links ${file}, which does not exist`);
  }
  const pages = guidePages(root);
  for (const page of pages) {
    // A translated edition has its own SUMMARY.md (checkTranslations).
    if (!linked.has(page) && !editionOf(page))
      problems.push(`book/src/${page} is not in SUMMARY.md (add it there, or delete the page)`);
  }
  problems.push(...checkTranslations(root));

  const checked: Array<{ page: string; block: FencedBlock }> = [];
  const diagrams: Array<{ page: string; block: FencedBlock }> = [];
  const quizzes = new Map<string, Quiz[]>();
  const tables: Array<{ page: string; markdown: string }> = [];
  for (const page of pages) {
    const text = readFileSync(path.join(dir, page), 'utf8');
    const edition = editionOf(page);
    // A page the site cannot read has nothing else to check (a translated page's is checkTranslations' to report).
    const unreadable = pageError(text);
    if (unreadable) {
      if (!edition) problems.push(`book/src/${page}: ${unreadable}`);
      continue;
    }
    // A stub of a page not yet translated (english: none) holds only its note: nothing else to check.
    if (edition && isStub(text)) continue;
    tables.push({ page, markdown: text });
    problems.push(...authorVoice(text).map((p) => `book/src/${page}:${p.line}: ${p.message}`));
    problems.push(...headerLength(text).map((p) => `book/src/${page}:${p}`));
    if (chapterPage(page))
      problems.push(...headerLabels(text, edition ? 'zh' : 'en').map((p) => `book/src/${page}:${p}`));
    for (const block of fencedBlocks(text)) {
      const kind = block.info.split(/\s+/)[0];
      if (kind === 'quiz') {
        const parsed = parseQuiz(block.content);
        for (const problem of parsed.problems) problems.push(`book/src/${page}:${block.line}: quiz: ${problem}`);
        if (!parsed.problems.length) quizzes.set(edition, [...(quizzes.get(edition) ?? []), parsed.quiz]);
      } else if (kind === 'mermaid') diagrams.push({ page, block });
      else if (isCheckedTs(block.info)) checked.push({ page, block });
    }
  }
  for (const { page, block } of diagrams) {
    const error = await diagramError(block.content);
    // mermaid counts lines from the diagram's first line, the one after the fence.
    const at = block.line + Number(/on line (\d+)/.exec(error ?? '')?.[1] ?? 0);
    if (error)
      problems.push(
        `book/src/${page}:${at}: mermaid cannot parse this diagram (the reader would see its source): ${error}`,
      );
  }
  // Each edition's quizzes are balanced on their own (a Chinese choice's length compares with Chinese choices).
  for (const [edition, list] of quizzes)
    problems.push(...quizBalance(list).map((p) => (edition ? `book/src/${edition}/: ${p}` : p)));
  problems.push(...checkStubTables(root, tables));
  if (checked.length) problems.push(...(await typeCheckBlocks(root, checked)));
  return problems;
}

/** The most of the guide's quizzes whose right answer may sit in one position, or be the longest choice. */
export const QUIZ_SHARE = 0.4;

/**
 * Quizzes a reader can pass without understanding: when most right answers are B, or the longest choice, guessing
 * works. Across the guide (from 12 quizzes on), no position and no "the longest" may hold more than QUIZ_SHARE.
 */
export function quizBalance(quizzes: readonly Quiz[]): string[] {
  if (quizzes.length < 12) return [];
  const problems: string[] = [];
  const limit = Math.floor(quizzes.length * QUIZ_SHARE);
  const at = new Map<number, number>();
  let longest = 0;
  for (const quiz of quizzes) {
    const right = quiz.choices.findIndex((c) => c.correct);
    at.set(right, (at.get(right) ?? 0) + 1);
    const length = quiz.choices[right]!.text.length;
    if (quiz.choices.every((c, i) => i === right || c.text.length < length)) longest++;
  }
  for (const [index, count] of [...at].sort((a, b) => a[0] - b[0])) {
    if (count > limit)
      problems.push(
        `quizzes: ${count} of ${quizzes.length} right answers are choice ${String.fromCharCode(65 + index)} (at most ${limit}): move some right answers to other positions, so a guess by position does not pay`,
      );
  }
  if (longest > limit)
    problems.push(
      `quizzes: in ${longest} of ${quizzes.length} the right answer is the longest choice (at most ${limit}): give wrong choices the same care and detail, or say the right one shorter`,
    );
  return problems;
}

/** The most words a chapter header's "What you build" may have: the header is a card to read at a glance. */
export const HEADER_MAX_WORDS = 80;

/**
 * The most characters a Chinese header's 你要构建的 may have (each Chinese character counts one, each run of other
 * letters or digits one): about what HEADER_MAX_WORDS English words say.
 */
export const HEADER_MAX_ZH = 160;

/** The header card's labels, as the English and the Chinese pages write them (`> **What you build:**`). */
export const HEADER_LABELS = {
  en: {
    build: /^> \*\*What you (will )?build:\*\*/,
    files: /^> \*\*Files?( to edit)?:\*\*/,
    command: /^> \*\*Command:\*\*/,
    time: /^> \*\*Time:\*\*/,
  },
  zh: {
    build: /^> \*\*你要构建的：\*\*/,
    files: /^> \*\*要编辑的文件：\*\*/,
    command: /^> \*\*命令：\*\*/,
    time: /^> \*\*用时：\*\*/,
  },
} as const;

const HEADER_LABEL_TEXT = {
  en: { build: '> **What you build:**', files: '> **Files to edit:**', command: '> **Command:**', time: '> **Time:**' },
  zh: { build: '> **你要构建的：**', files: '> **要编辑的文件：**', command: '> **命令：**', time: '> **用时：**' },
} as const;

/** A "What you build" (你要构建的) longer than HEADER_MAX_WORDS (HEADER_MAX_ZH), as `line: message`. */
export function headerLength(markdown: string): string[] {
  const lines = markdown.split('\n');
  for (const lang of ['en', 'zh'] as const) {
    const label = HEADER_LABELS[lang].build;
    const at = lines.findIndex((l) => label.test(l));
    if (at < 0) continue;
    let text = lines[at]!;
    for (let i = at + 1; i < lines.length && /^> (?!\*\*)\S/.test(lines[i]!); i++) text += ` ${lines[i]!.slice(2)}`;
    text = text.replace(label, '');
    if (lang === 'en') {
      const words = text.split(/\s+/).filter(Boolean).length;
      return words > HEADER_MAX_WORDS
        ? [
            `${at + 1}: the header's "What you build" has ${words} words (at most ${HEADER_MAX_WORDS}): say the gist, and leave the details to the page`,
          ]
        : [];
    }
    const size = (text.match(/\p{Script=Han}|[\p{L}\p{N}_`.\-]+/gu) ?? []).length;
    return size > HEADER_MAX_ZH
      ? [
          `${at + 1}: the header's 你要构建的 has ${size} characters (at most ${HEADER_MAX_ZH}; a run of English letters counts one): say the gist, and leave the details to the page`,
        ]
      : [];
  }
  return [];
}

/**
 * A chapter page's header card, when the page has one: all four labelled lines, with the labels of the page's
 * language (a Chinese page: 你要构建的：, 要编辑的文件：, 命令：, 用时：), as `line: message`.
 */
export function headerLabels(markdown: string, lang: 'en' | 'zh'): string[] {
  const lines = markdown.split('\n');
  const card = lines.filter((l) => /^> \*\*[^*]+\*\*/.test(l));
  if (!card.length) return [];
  const other = lang === 'zh' ? 'en' : 'zh';
  const problems: string[] = [];
  for (const [field, label] of Object.entries(HEADER_LABELS[lang])) {
    const wrong = (HEADER_LABELS[other] as Record<string, RegExp>)[field]!;
    const at = lines.findIndex((l) => wrong.test(l));
    const want = HEADER_LABEL_TEXT[lang][field as keyof (typeof HEADER_LABEL_TEXT)['en']];
    if (at >= 0) problems.push(`${at + 1}: the header card's label is in the other language: write it as ${want}`);
    else if (!card.some((l) => label.test(l)))
      problems.push(
        `1: the header card has no ${want} line (it names what you build, the files, the command, the time)`,
      );
  }
  return problems;
}

/** The header row of a chapter page's stub table (stubTable writes it, checkStubTable reads it). */
export const STUB_TABLE_HEAD = '| # | Stub | File | Its tests: `npm test -- chapterN` and |';

/**
 * The same row on a Chinese page (`--stub-table N --lang zh` writes it). checkStubTable accepts any translation of
 * the header whose cells are `#`, two words and one naming `npm test -- chapterN`: the rows under it are what the kit
 * checks, and they are the English rows, unchanged.
 */
export const STUB_TABLE_HEAD_ZH = '| # | 桩 | 文件 | 它的测试：`npm test -- chapterN` 加上 |';

/** Whether a line is the header row of chapter N's stub table, on a page of that language. */
function isStubTableHead(line: string, chapter: number, lang: 'en' | 'zh'): boolean {
  if (line.trim() === STUB_TABLE_HEAD.replace('chapterN', `chapter${chapter}`)) return true;
  if (lang !== 'zh') return false;
  const cells = line
    .trim()
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
  return cells.length === 4 && cells[0] === '#' && cells[3]!.includes(`\`npm test -- chapter${chapter}\``);
}

/** A chapter's stubs in the order its hints.md teaches them, each with its file and a `-t` filter that selects its tests. */
export function stubRows(root: string, chapter: number): Array<{ name: string; file: string; filter: string }> {
  const titles = testTitles(root, chapter);
  const stubs = chapterStubs(root, chapter, 'solution');
  const owners = stubs.map((s) => s.name.split('.')[0]);
  const named = (word: string) =>
    titles.some((t) => new RegExp(`(^|[^\\w.])${word.replace(/\./g, '\\.')}($|[^\\w])`).test(t));
  return stubs.map((stub) => {
    const src = stub.file.replace(/^solution\//, '');
    const [owner, member] = stub.name.split('.') as [string, string | undefined];
    // The stub's own name when a test title names it; else its class or object (when no other stub of the chapter
    // shares it), its method, its file.
    const single = owners.filter((o) => o === owner).length === 1;
    const candidates = [stub.name, single ? owner : undefined, member];
    const filter =
      candidates.find((c): c is string => !!c && named(c)) ?? (titles.some((t) => t.includes(src)) ? src : stub.name);
    return { name: stub.name, file: `starter/${src}`, filter };
  });
}

/** The describe/it titles written in a chapter's test files (as written in the source, not as vitest lists them). */
function testTitles(root: string, chapter: number): string[] {
  const dir = path.join(root, chapterDir(chapter));
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.test.ts'))
    .flatMap((f) =>
      [
        ...readFileSync(path.join(dir, f), 'utf8').matchAll(
          /\b(?:describe|it|test)(?:\.\w+)*\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g,
        ),
      ].map((m) => m[2]!),
    );
}

/**
 * The stub table a chapter page opens with (npx tsx scripts/lib/guide.ts --stub-table N prints it). With `rows`
 * (1-based, inclusive), only those rows, numbered as in the whole table: the table a part of a chapter opens with
 * (`--stub-table 15 9-19`).
 */
export function stubTable(
  root: string,
  chapter: number,
  rows?: { from: number; to: number },
  lang: 'en' | 'zh' = 'en',
): string {
  const all = stubRows(root, chapter).map(
    (row, i) => `| ${i + 1} | \`${row.name}\` | \`${row.file}\` | \`-t "${row.filter}"\` |`,
  );
  const chosen = rows ? all.slice(rows.from - 1, rows.to) : all;
  return [
    (lang === 'zh' ? STUB_TABLE_HEAD_ZH : STUB_TABLE_HEAD).replace('chapterN', `chapter${chapter}`),
    '|---|---|---|---|',
    ...chosen,
  ].join('\n');
}

/**
 * A chapter's pages: chapter-NN.md, and chapter-NN-K.md for part K of a chapter too long for one sitting (in an
 * edition's folder too: zh/chapter-NN.md).
 */
export function chapterPage(page: string): { chapter: number; part?: number } | undefined {
  const m = /^(?:zh\/)?chapter-(\d+)(?:-(\d+))?\.md$/.exec(page);
  return m ? { chapter: Number(m[1]), ...(m[2] ? { part: Number(m[2]) } : {}) } : undefined;
}

/** The stub table of a page: the line of its head (0-based) and the rows under it, or undefined without one. */
function readStubTable(
  chapter: number,
  markdown: string,
  lang: 'en' | 'zh' = 'en',
): { head: number; rows: string[] } | undefined {
  const lines = markdown.split('\n');
  const head = lines.findIndex((l) => isStubTableHead(l, chapter, lang));
  if (head < 0) return undefined;
  const rows: string[] = [];
  for (const line of lines.slice(head + 2)) {
    if (!line.trim().startsWith('|')) break;
    rows.push(line.trim());
  }
  return { head, rows };
}

const stubOf = (row: string) => row.split('|')[2]!.trim().replace(/`/g, '');

/** A chapter page (chapter-NN.md) has a stub table naming exactly its chapter's stubs, in the order of its hints. */
export function checkStubTable(root: string, page: string, markdown: string): string[] {
  const chapter = Number(/^(?:zh\/)?chapter-(\d+)\.md$/.exec(page)?.[1] ?? NaN);
  if (!Number.isInteger(chapter)) return [];
  const expected = chapterStubs(root, chapter, 'solution').map((s) => s.name);
  if (!expected.length) return [];
  const lang = editionOf(page) ? 'zh' : 'en';
  const table = readStubTable(chapter, markdown, lang);
  const flag = lang === 'zh' ? ' --lang zh' : '';
  const fix = `(npx tsx scripts/lib/guide.ts --stub-table ${chapter}${flag} prints the table)`;
  if (!table)
    return [`book/src/${page}: no stub table ("${lang === 'zh' ? STUB_TABLE_HEAD_ZH : STUB_TABLE_HEAD}") ${fix}`];
  const { head, rows } = table;
  const named = rows.map(stubOf);
  if (named.join('\n') !== expected.join('\n')) {
    return [
      `book/src/${page}:${head + 1}: the stub table names ${named.join(', ') || 'nothing'}; chapter ${chapter}'s stubs, in the order of its hints, are ${expected.join(', ')} ${fix}`,
    ];
  }
  // Same stubs in the same order: each row's file and -t filter as the kit would write them.
  const want = stubTable(root, chapter).split('\n').slice(2);
  return rows.flatMap((row, i) =>
    row === want[i]
      ? []
      : [
          `book/src/${page}:${head + 3 + i}: the stub table's row for ${named[i]} reads ${row}; the kit writes ${want[i]} ${fix}`,
        ],
  );
}

/**
 * Every chapter's stub tables. A chapter on one page: checkStubTable. A chapter split into parts (chapter-NN-K.md,
 * each one sitting): every part opens with a table of its own stubs, a run of the chapter's table in the order of its
 * hints, rows numbered and written as in the whole table; the parts in order (after the overview, chapter-NN.md,
 * which may hold a table of its own or none) name every stub of the chapter exactly once.
 */
export function checkStubTables(root: string, pages: ReadonlyArray<{ page: string; markdown: string }>): string[] {
  // By edition and chapter: the Chinese parts of chapter 15 are checked among themselves.
  const byChapter = new Map<string, Array<{ page: string; part?: number; markdown: string }>>();
  for (const { page, markdown } of pages) {
    const at = chapterPage(page);
    const key = `${editionOf(page)}:${at?.chapter}`;
    if (at)
      byChapter.set(key, [
        ...(byChapter.get(key) ?? []),
        { page, markdown, ...(at.part !== undefined ? { part: at.part } : {}) },
      ]);
  }
  const problems: string[] = [];
  for (const [key, list] of byChapter) {
    const chapter = Number(key.split(':')[1]);
    const lang = key.startsWith(':') ? 'en' : 'zh';
    if (!list.some((p) => p.part !== undefined)) {
      for (const p of list) problems.push(...checkStubTable(root, p.page, p.markdown));
      continue;
    }
    const want = stubTable(root, chapter).split('\n').slice(2);
    if (!want.length) continue;
    const expected = want.map(stubOf);
    list.sort((a, b) => (a.part ?? 0) - (b.part ?? 0));
    const seen: string[] = [];
    for (const { page, part, markdown } of list) {
      const table = readStubTable(chapter, markdown, lang);
      const from = seen.length + 1;
      const fix = `(npx tsx scripts/lib/guide.ts --stub-table ${chapter} FROM-TO${lang === 'zh' ? ' --lang zh' : ''} prints rows FROM to TO)`;
      if (!table) {
        if (part !== undefined)
          problems.push(
            `book/src/${page}: no stub table ("${lang === 'zh' ? STUB_TABLE_HEAD_ZH : STUB_TABLE_HEAD}"): each part of chapter ${chapter} opens with the table of its own stubs ${fix}`,
          );
        continue;
      }
      const named = table.rows.map(stubOf);
      const next = expected.slice(seen.length, seen.length + named.length);
      if (!named.length || named.join('\n') !== next.join('\n')) {
        const twice = named.filter((n) => seen.includes(n));
        problems.push(
          `book/src/${page}:${table.head + 1}: the stub table names ${named.join(', ') || 'nothing'}; ` +
            (twice.length
              ? `${twice.join(', ')} ${twice.length === 1 ? 'is' : 'are'} already in an earlier part's table; `
              : '') +
            `after the parts before it, chapter ${chapter}'s hints go on with ${expected.slice(seen.length).join(', ') || 'nothing (every stub has its part)'} ${fix.replace('FROM-TO', `${from}-N`)}`,
        );
        seen.push(...named.filter((n) => expected.includes(n) && !seen.includes(n)));
        continue;
      }
      table.rows.forEach((row, i) => {
        const kit = want[seen.length + i]!;
        if (row !== kit)
          problems.push(
            `book/src/${page}:${table.head + 3 + i}: the stub table's row for ${named[i]} reads ${row}; the kit writes ${kit} ${fix.replace('FROM-TO', `${from}-${from + named.length - 1}`)}`,
          );
      });
      seen.push(...named);
    }
    const missing = expected.filter((n) => !seen.includes(n));
    if (missing.length)
      problems.push(
        `book/src/${list[0]!.page}: chapter ${chapter}'s parts leave out ${missing.join(', ')}: every stub belongs in the table of exactly one part (npx tsx scripts/lib/guide.ts --stub-table ${chapter} prints them all)`,
      );
  }
  return problems;
}

/**
 * Words from the authors' notes that a learner's guide must not contain: the reader has no seeds, no issues and no
 * learners of their own. Each entry: the pattern and why it is wrong on a reader's page.
 */
export const AUTHOR_VOICE: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  { pattern: /\bseed \d+|\bseeds\b/i, why: "a seed is an authors' note; say what it describes" },
  {
    pattern: /\b(your|our|the) learners\b|\blearners'/i,
    why: 'the reader is the learner; speak to them, not about them',
  },
  { pattern: /\b(issue|ticket) #?\d+/i, why: 'an issue number means nothing to a reader' },
  {
    pattern: /\b(the|this) (editor|reviewer)'s note\b|\bnote to (self|authors)\b/i,
    why: "an authors' note left in the text",
  },
  // The Chinese edition (zh-common): the guide addresses the learner as 你, and never speaks as the authors.
  { pattern: /我们/, why: '中文版不以作者口吻说“我们”：直接对学习者说“你”，或者不用主语' },
  { pattern: /学习者们|(我们|你们)的学习者/, why: '读者就是学习者：对他说话，而不是谈论他' },
  { pattern: /(编者|审稿人|译者)(注|按)/, why: '作者或译者的备注留在了正文里' },
];

/** The lines of a page (code blocks included: comments are read too) that use AUTHOR_VOICE words. */
export function authorVoice(markdown: string): Array<{ line: number; message: string }> {
  const found: Array<{ line: number; message: string }> = [];
  markdown.split('\n').forEach((text, i) => {
    for (const { pattern, why } of AUTHOR_VOICE) {
      const m = pattern.exec(text);
      if (m)
        found.push({
          line: i + 1,
          message: `"${m[0]}" is the authors' voice, not the guide's (${why}; scripts/lib/guide.ts AUTHOR_VOICE)`,
        });
    }
  });
  return found;
}

let mermaidApi: Promise<{ parse(text: string): Promise<unknown> }> | undefined;

/**
 * mermaid's own parser, in Node. mermaid.parse needs no DOM for parsing, but some diagram kinds (state diagrams)
 * register DOMPurify hooks while they load, and DOMPurify without a window has no hooks: give it inert ones (nothing is
 * sanitised or drawn here, only parsed).
 */
function loadMermaid(): Promise<{ parse(text: string): Promise<unknown> }> {
  mermaidApi ??= (async () => {
    const purify = (await import('dompurify')).default as unknown as Record<string, unknown>;
    purify.addHook ??= () => {};
    purify.removeHook ??= () => {};
    purify.removeHooks ??= () => {};
    purify.sanitize ??= (dirty: unknown) => String(dirty);
    const mermaid = (await import('mermaid')).default;
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
    return mermaid;
  })();
  return mermaidApi;
}

/** Why mermaid cannot parse a diagram's source (its first lines), or undefined when it parses. */
export async function diagramError(source: string): Promise<string | undefined> {
  const mermaid = await loadMermaid();
  try {
    await mermaid.parse(source);
    return undefined;
  } catch (error) {
    return String((error as Error)?.message ?? error)
      .split('\n')
      .slice(0, 4)
      .join(' | ')
      .slice(0, 400);
  }
}

/** Writes each block to its own module in a temp dir under the repo and runs tsc with `kit` mapped to solution/src. */
async function typeCheckBlocks(root: string, blocks: Array<{ page: string; block: FencedBlock }>): Promise<string[]> {
  mkdirSync(path.join(root, '.kit'), { recursive: true });
  const dir = mkdtempSync(path.join(root, '.kit', 'guide-ts-'));
  try {
    const where = new Map<string, { page: string; line: number }>();
    blocks.forEach(({ page, block }, i) => {
      const name = `${String(i).padStart(3, '0')}-${page.replace(/[^a-z0-9]+/gi, '-')}-L${block.line}.ts`;
      // The block's first line is line 1 of the file; `export {}` makes every block its own module.
      writeFileSync(path.join(dir, name), `${block.content}\nexport {};\n`);
      where.set(name, { page, line: block.line });
    });
    const rel = path.relative(dir, root).split(path.sep).join('/');
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: `${rel}/tsconfig.base.json`,
        compilerOptions: {
          noUnusedLocals: false,
          paths: { kit: [`${rel}/solution/src/index.ts`], 'kit/*': [`${rel}/solution/src/*`] },
        },
        include: ['*.ts'],
      }),
    );
    const tsc = path.join(root, 'node_modules/.bin/tsc');
    const { code, output } = await run(tsc, ['-p', path.join(dir, 'tsconfig.json'), '--pretty', 'false'], root);
    if (code === 0) return [];
    const problems: string[] = [];
    for (const line of output.split('\n')) {
      const m = /^(?:.*[\\/])?([^\\/()]+\.ts)\((\d+),(\d+)\): (error .*)$/.exec(line.trim());
      const at = m && where.get(m[1]!);
      if (m && at)
        problems.push(`book/src/${at.page}:${at.line + Number(m[2])}: ts check block does not type-check: ${m[4]}`);
      else if (m) problems.push(`${m[1]}(${m[2]},${m[3]}): ${m[4]}`);
    }
    return problems.length ? problems : [`tsc failed on the guide's ts check blocks:\n${output.trim()}`];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface GuideTestCommand {
  /** The page, relative to the repository root. */
  file: string;
  /** 1-based line. */
  line: number;
  /** What follows `npm test --`, split on spaces. */
  args: string[];
}

/** Every `npm test -- ...` command in the guide (prose or code), in file and line order. */
export function guideTestCommands(root = ROOT): GuideTestCommand[] {
  const dir = bookSrc(root);
  if (!existsSync(dir)) return [];
  const commands: GuideTestCommand[] = [];
  const files = readdirSync(dir, { recursive: true })
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.md'))
    .sort();
  for (const file of files) {
    readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .forEach((text, index) => {
        for (const match of text.matchAll(/npm test -- ([^`\n]*)/g)) {
          const command = match[1]!.replace(/\s#.*$/, '').replace(/\s*(&&|\||;).*$/, '');
          commands.push({ file: `book/src/${file}`, line: index + 1, args: shellWords(command) });
        }
      });
  }
  return commands;
}

/** Splits a command line as a shell would for plain words and '...' or "..." quoting. */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  for (const match of command.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3]!));
  }
  return words;
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Builds the site into book/.vitepress/dist. Rejects with VitePress's output if the build fails. Needs no network. */
export async function buildSite(root = ROOT, bookDir = 'book'): Promise<void> {
  const vitepress = path.join(root, 'node_modules/vitepress/bin/vitepress.js');
  const { code, output } = await run(process.execPath, [vitepress, 'build', bookDir], root);
  if (code !== 0)
    throw new Error(`the VitePress build failed (exit ${code}):\n${output.trim().split('\n').slice(-30).join('\n')}`);
}

// npx tsx scripts/lib/guide.ts --stub-table N [FROM-TO] [--lang zh]: the stub table for chapter N's page, or rows FROM
// to TO of it (for a part of the chapter); with --lang zh, under the Chinese header row.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--stub-table') {
  const range = /^(\d+)-(\d+)$/.exec(process.argv[4] ?? '');
  const lang = process.argv.includes('zh') && process.argv.includes('--lang') ? 'zh' : 'en';
  console.log(
    stubTable(
      ROOT,
      Number(process.argv[3]),
      range ? { from: Number(range[1]), to: Number(range[2]) } : undefined,
      lang,
    ),
  );
}
