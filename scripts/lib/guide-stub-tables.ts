/**
 * The stub table a chapter page opens with: which stubs the chapter has, in the order of its hints, each with its file;
 * a stub whose tests go by another name than its own has that name's `-t` filter after it (`readTool.execute`
 * (`-t "readTool"`)): for every other stub, `-t` and its name select its tests. stubTable writes it (npx tsx scripts/lib/guide.ts --stub-table N), and
 * checkStubTable and checkStubTables check the pages' tables against it, for checkGuide (guide.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chapterStubs } from '../kit/stubs.js';
import { chapterDir } from './chapters.js';
import { chapterPage, editionOf } from './guide-pages.js';

/** The header row of a chapter page's stub table (stubTable writes it, checkStubTable reads it). */
export const STUB_TABLE_HEAD = '| # | Stub | File |';

/**
 * The same row on a Chinese page (`--stub-table N --lang zh` writes it). The rows under it are what the kit checks,
 * and they are the English rows, unchanged.
 */
export const STUB_TABLE_HEAD_ZH = '| # | 桩 | 文件 |';

/** Whether a line is the header row of a stub table, on a page of that language. */
function isStubTableHead(line: string, _chapter: number, lang: 'en' | 'zh'): boolean {
  return line.trim() === STUB_TABLE_HEAD || (lang === 'zh' && line.trim() === STUB_TABLE_HEAD_ZH);
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
    (row, i) =>
      `| ${i + 1} | \`${row.name}\`${row.filter === row.name ? '' : ` (\`-t "${row.filter}"\`)`} | \`${row.file}\` |`,
  );
  const chosen = rows ? all.slice(rows.from - 1, rows.to) : all;
  return [lang === 'zh' ? STUB_TABLE_HEAD_ZH : STUB_TABLE_HEAD, '|---|---|---|', ...chosen].join('\n');
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

/** The stub a row names: the first code span of its second cell. */
const stubOf = (row: string) => /`([^`]+)`/.exec(row.split('|')[2] ?? '')?.[1] ?? '';

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
  // Same stubs in the same order: each row's file (and -t filter, where it is not the stub's name) as the kit writes them.
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
