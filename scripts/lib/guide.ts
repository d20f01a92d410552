/**
 * The guide's own checks, for verify:
 * - checkGuide(): SUMMARY.md and the pages agree; every ```ts check block type-checks against solution/src; every
 *   ```quiz block parses; every ```mermaid block parses with mermaid's own parser and has its drawing stored
 *   (guide-diagrams.ts, `npm run diagrams`); no page speaks in the authors'
 *   voice (AUTHOR_VOICE). The same over each translated edition (book/src/zh: its own SUMMARY.md, its quizzes'
 *   balance counted apart, its header labels and authors' voice in Chinese), and the translations are in step with
 *   the English (guide-locale.ts: front matter, staleness, structure). Returns problems as sentences (empty = fine),
 *   each naming its file.
 *   The introduction's chapter table and its total agree with the chapter headers (guide-intro.ts), in each language.
 * - guideTestCommands(): every `npm test -- ...` command quoted in the guide, so verify can check each selects tests.
 * - buildSite(): the VitePress build (offline).
 *
 * checkGuide is here; the checks it runs live beside it, and what they export is exported here too:
 * guide-pages.ts (the guide's files), guide-prose.ts (quizzes' balance, the header card, the authors' voice),
 * guide-stub-tables.ts (the stub tables), guide-build.ts (tsc, mermaid, the VitePress build), guide-commands.ts
 * (the `npm test` commands), markdown.ts (pages read as the site reads them).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseQuiz, type Quiz } from '../../book/.vitepress/lib/quiz.js';
import { parseSummary } from '../../book/.vitepress/lib/summary.js';
import { diagramError, typeCheckBlocks } from './guide-build.js';
import { checkDiagramDrawings } from './guide-diagrams.js';
import { chapterTable, checkIntroduction, writeIntroductions } from './guide-intro.js';
import { checkTranslations, EDITIONS, isStub } from './guide-locale.js';
import { bookSrc, chapterPage, editionOf, guidePages } from './guide-pages.js';
import { authorVoice, headerLabels, headerLength, quizBalance } from './guide-prose.js';
import { checkStubTables, stubTable } from './guide-stub-tables.js';
import { type FencedBlock, fencedBlocks, pageError } from './markdown.js';
import { ROOT } from './paths.js';

export { buildSite, diagramError } from './guide-build.js';
export { checkDiagramDrawings, diagramDrawings, drawAndStore, guideDiagrams } from './guide-diagrams.js';
export { type GuideTestCommand, guideTestCommands, shellWords } from './guide-commands.js';
export { chapterTable, checkIntroduction, headerMinutes, writeIntroductions } from './guide-intro.js';
export { chapterPage, editionOf, guidePages } from './guide-pages.js';
export {
  AUTHOR_VOICE,
  authorVoice,
  HEADER_LABELS,
  HEADER_MAX_WORDS,
  HEADER_MAX_ZH,
  headerLabels,
  headerLength,
  lengthRank,
  QUIZ_LENGTH_FLOOR,
  QUIZ_SHARE,
  quizBalance,
} from './guide-prose.js';
export {
  checkStubTable,
  checkStubTables,
  STUB_TABLE_HEAD,
  STUB_TABLE_HEAD_ZH,
  stubRows,
  stubTable,
} from './guide-stub-tables.js';
export { type FencedBlock, fencedBlocks } from './markdown.js';

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
  // The introduction's chapter table is the one the chapter headers make (guide-intro.ts), in each language.
  problems.push(...checkIntroduction(root, ['', ...EDITIONS.map((e) => e.dir)]));

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
  // Every diagram arrives in the page drawn (lib/diagram-store.ts): its drawing is stored, and no drawing is left over.
  problems.push(...checkDiagramDrawings(root));
  // Each edition's quizzes are balanced on their own (a Chinese choice's length compares with Chinese choices).
  for (const [edition, list] of quizzes)
    problems.push(...quizBalance(list).map((p) => (edition ? `book/src/${edition}/: ${p}` : p)));
  problems.push(...checkStubTables(root, tables));
  if (checked.length) problems.push(...(await typeCheckBlocks(root, checked)));
  return problems;
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

// npx tsx scripts/lib/guide.ts --chapter-table [--write]: the introduction's chapter table and total as the chapter
// headers make them, in English and in Chinese; with --write, written into both introductions.
if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href &&
  process.argv[2] === '--chapter-table'
) {
  const editions = ['', ...EDITIONS.map((e) => e.dir)];
  if (process.argv.includes('--write')) {
    const changed = writeIntroductions(ROOT, editions);
    console.log(changed.length ? `wrote ${changed.join(', ')}` : 'both introductions already agree with the headers');
  } else for (const edition of editions) console.log(`${chapterTable(ROOT, edition).lines.join('\n')}\n`);
}

// npx tsx scripts/lib/guide.ts --help: what this file does from the command line.
if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href &&
  !['--stub-table', '--chapter-table'].includes(process.argv[2] ?? '')
) {
  console.log(`npx tsx scripts/lib/guide.ts --stub-table N [FROM-TO] [--lang zh]
    the stub table for chapter N's page (rows FROM to TO of it, for a part of the chapter)
npx tsx scripts/lib/guide.ts --chapter-table [--write]
    the introduction's chapter table and total, as the chapter headers make them, both languages
    (--write puts them into book/src/introduction.md and book/src/zh/introduction.md)
The guide's checks themselves (checkGuide, exported here) are verify's guide step (npm run verify)`);
}
