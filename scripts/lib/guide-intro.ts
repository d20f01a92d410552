/**
 * The introduction's chapter table, made from the chapter headers so that it cannot go stale: each chapter and part of
 * a chapter in SUMMARY.md's order (under its part title), with the time its header card gives (`> **Time:** about 2
 * hours`) and the number of stubs it has (the chapter's stubs; a part's, the rows of its stub table), and under the
 * table the sentence with the total: the hours, the sittings (a chapter, or each part of a chapter read in parts) and
 * the longest one (no sitting over SITTING_MAX_MINUTES). The last column, the idea, is the introduction's own text, kept as written (a new part starts with
 * the "what you build" cell of its chapter's table of parts).
 *
 * chapterTable writes the table and the sentence, checkIntroduction compares them with the introduction (each
 * edition's against its own headers), for checkGuide (guide.ts); `npx tsx scripts/lib/guide.ts --chapter-table
 * [--write]` prints them, or writes them into both introductions.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseSummary } from '../../book/.vitepress/lib/summary.js';
import { chapterStubs } from '../kit/stubs.js';
import { bookSrc, chapterPage } from './guide-pages.js';
import { STUB_TABLE_HEAD, STUB_TABLE_HEAD_ZH } from './guide-stub-tables.js';

type Lang = 'en' | 'zh';

/** The longest a sitting may take: a chapter longer than this is read in parts (chapter-NN-K.md), each a sitting. */
export const SITTING_MAX_MINUTES = 150;

/** What each language writes: the table's head, the header's time, the total's sentence. */
const WORDS = {
  en: {
    head: '| chapter | time | stubs | the idea |',
    time: /^> \*\*Time:\*\* about (\d+(?:\.\d+)?) (minutes?|hours?)/,
    chapter: /^Chapter (\d+): (.+)$/,
    inParts: (n: number) => `, in ${['', 'one', 'two', 'three', 'four', 'five', 'six'][n] ?? n} parts:`,
    short: (minutes: number) => (minutes % 30 ? `${minutes} min` : `${minutes / 60} h`),
    long: (minutes: number) =>
      minutes % 30 ? `${minutes} minutes` : `${minutes / 60} hour${minutes === 60 ? '' : 's'}`,
    total: (hours: number, sittings: number, longest: string) =>
      `In all, about ${hours} hours in ${sittings} sittings: one a chapter, or one a part for the chapters read in parts; the longest takes about ${longest}.`,
    totalLine: /^In all, /,
  },
  zh: {
    head: '| 章节 | 用时 | 桩 | 核心思想 |',
    time: /^> \*\*用时：\*\* 约 (\d+(?:\.\d+)?) ?(分钟|小时)/,
    chapter: /^第 (\d+) 章：(.+)$/,
    inParts: (n: number) => `，分${['', '一', '两', '三', '四', '五', '六'][n] ?? n}部分：`,
    short: (minutes: number) => (minutes % 30 ? `${minutes} 分钟` : `${minutes / 60} 小时`),
    long: (minutes: number) => (minutes % 30 ? `${minutes} 分钟` : `${minutes / 60} 小时`),
    total: (hours: number, sittings: number, longest: string) =>
      `总计约 ${hours} 小时，共 ${sittings} 次学习：每章一次，分成几部分的章每部分一次；最长的一次约 ${longest}。`,
    totalLine: /^总计/,
  },
} as const;

/** A page's time in minutes, as its header card gives it, or undefined without one. */
export function headerMinutes(markdown: string, lang: Lang): number | undefined {
  for (const line of markdown.split('\n')) {
    const m = WORDS[lang].time.exec(line);
    if (m) return Math.round(Number(m[1]) * (/^(minute|分钟)/.test(m[2]!) ? 1 : 60));
  }
  return undefined;
}

/** The rows of a page's stub table. */
function stubTableRows(markdown: string): number {
  const lines = markdown.split('\n');
  const head = lines.findIndex((l) => l.trim() === STUB_TABLE_HEAD || l.trim() === STUB_TABLE_HEAD_ZH);
  if (head < 0) return 0;
  let rows = 0;
  for (const line of lines.slice(head + 2)) {
    if (!line.trim().startsWith('|')) break;
    rows++;
  }
  return rows;
}

/** The cells of a table row (the outer pipes dropped). */
const cells = (row: string) =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

/** The page a row links (its first cell's link), without an anchor. */
const linkOf = (row: string) => /\]\(([^)#]+)/.exec(cells(row)[0] ?? '')?.[1];

/** The introduction's chapter table and the sentence under it: lines, where they are (0-based), or undefined. */
function introTable(markdown: string, lang: Lang): { start: number; end: number; lines: string[] } | undefined {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.trim() === WORDS[lang].head);
  if (start < 0) return undefined;
  let end = start;
  while (end < lines.length && lines[end]!.trim().startsWith('|')) end++;
  // The total: the first line after the table that is not blank.
  let total = end;
  while (total < lines.length && !lines[total]!.trim()) total++;
  if (total < lines.length && WORDS[lang].totalLine.test(lines[total]!)) end = total + 1;
  return { start, end, lines: lines.slice(start, end) };
}

/**
 * The chapter table and its total, for the introduction of `edition` ('' for English, 'zh'), from SUMMARY.md, the
 * chapter pages' headers and stub tables, and the idea cells of `introduction` (the current text).
 */
export function chapterTable(root: string, edition: string): { lines: string[]; problems: string[] } {
  const lang: Lang = edition ? 'zh' : 'en';
  const w = WORDS[lang];
  const dir = path.join(bookSrc(root), edition);
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  const problems: string[] = [];
  const where = `book/src/${edition ? `${edition}/` : ''}`;
  const intro = existsSync(path.join(dir, 'introduction.md')) ? read('introduction.md') : '';
  const ideas = new Map<string, string>();
  for (const row of introTable(intro, lang)?.lines ?? []) {
    const link = linkOf(row);
    if (link) ideas.set(link, cells(row)[3] ?? '');
  }
  const entries = parseSummary(read('SUMMARY.md')).filter((e) => e.file && chapterPage(e.file));
  const lines = [w.head, '|---|---|---|---|'];
  let part: string | undefined;
  let minutes = 0;
  const sittings: number[] = [];
  entries.forEach((entry, i) => {
    const file = entry.file!.replace(/#.*$/, '');
    const at = chapterPage(file)!;
    if (entry.part && entry.part !== part) {
      part = entry.part;
      lines.push(`| **${part}** | | | |`);
    }
    const text = existsSync(path.join(dir, file)) ? read(file) : '';
    const time = headerMinutes(text, lang);
    if (time === undefined)
      problems.push(
        `${where}${file}: its header card gives no time the introduction's table can read (${lang === 'zh' ? '> **用时：** 约 N 小时' : '> **Time:** about N hours'})`,
      );
    const parts = entries.slice(i + 1).filter((e) => {
      const p = chapterPage(e.file!);
      return p?.chapter === at.chapter && p.part !== undefined;
    }).length;
    const stubs = at.part === undefined ? chapterStubs(root, at.chapter, 'solution').length : stubTableRows(text);
    let idea = ideas.get(file);
    if (idea === undefined && at.part !== undefined) {
      // A new part: its row of the chapter's table of parts says what it builds.
      const overview = `chapter-${String(at.chapter).padStart(2, '0')}.md`;
      const row = existsSync(path.join(dir, overview))
        ? read(overview)
            .split('\n')
            .find((l) => linkOf(l) === file)
        : undefined;
      idea = row ? (cells(row)[1] ?? '') : '';
    }
    if (!idea)
      problems.push(
        `${where}introduction.md: the chapter table's row for ${file} has no idea (its last cell): write one`,
      );
    const named = w.chapter.exec(entry.title);
    const title =
      at.part !== undefined
        ? `&emsp;[${entry.title}](${file})`
        : `[${named ? `${named[1]}. ${named[2]}` : entry.title}](${file})${parts ? w.inParts(parts) : ''}`;
    lines.push(`| ${title} | ${time === undefined ? '?' : w.short(time)} | ${stubs} | ${idea ?? ''} |`);
    if (at.part === undefined) minutes += time ?? 0;
    if (at.part !== undefined || !parts) {
      sittings.push(time ?? 0);
      if ((time ?? 0) > SITTING_MAX_MINUTES)
        problems.push(
          `${where}${file}: its header gives ${w.long(time!)}, more than one sitting (${w.long(SITTING_MAX_MINUTES)} at most): read it in parts, as chapter 15 is (chapter-NN-K.md, each with its own stub table and questions)`,
        );
    }
  });
  lines.push('', w.total(Math.round(minutes / 60), sittings.length, w.long(Math.max(0, ...sittings))));
  return { lines, problems };
}

/** Whether each introduction's chapter table is the one the chapter headers make (empty = fine). */
export function checkIntroduction(root: string, editions: readonly string[]): string[] {
  const problems: string[] = [];
  for (const edition of editions) {
    const lang: Lang = edition ? 'zh' : 'en';
    const file = `book/src/${edition ? `${edition}/` : ''}introduction.md`;
    if (!existsSync(path.join(root, file))) continue;
    const text = readFileSync(path.join(root, file), 'utf8');
    const table = introTable(text, lang);
    const fix = '(npx tsx scripts/lib/guide.ts --chapter-table --write writes it from the headers)';
    if (!table) {
      problems.push(`${file}: no chapter table ("${WORDS[lang].head}") ${fix}`);
      continue;
    }
    const want = chapterTable(root, edition);
    problems.push(...want.problems);
    const have = table.lines;
    const first = want.lines.findIndex((l, i) => l !== have[i]);
    if (first >= 0 || have.length !== want.lines.length) {
      const at = first >= 0 ? first : Math.min(have.length, want.lines.length);
      problems.push(
        `${file}:${table.start + at + 1}: the chapter table disagrees with the chapter headers: it reads "${have[at] ?? '(nothing)'}", the headers make "${want.lines[at] ?? '(nothing)'}" ${fix}`,
      );
    }
  }
  return problems;
}

/** Writes each introduction's chapter table and total from the headers; returns the files changed. */
export function writeIntroductions(root: string, editions: readonly string[]): string[] {
  const changed: string[] = [];
  for (const edition of editions) {
    const lang: Lang = edition ? 'zh' : 'en';
    const file = path.join(bookSrc(root), edition, 'introduction.md');
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const table = introTable(text, lang);
    if (!table) continue;
    const lines = text.split('\n');
    const next = [...lines.slice(0, table.start), ...chapterTable(root, edition).lines, ...lines.slice(table.end)];
    if (next.join('\n') !== text) {
      writeFileSync(file, next.join('\n'));
      changed.push(path.relative(root, file));
    }
  }
  return changed;
}
