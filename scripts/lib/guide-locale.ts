/**
 * The guide's translations (the Chinese edition in book/src/zh, and tests/chapterNN/hints.zh-CN.md), for verify's
 * guide step (checkGuide in guide.ts calls checkTranslations):
 *
 * - every translated page names the English commit it was translated from, in its front matter:
 *
 *     ---
 *     english: <40-hex sha>      (git log -1 --format=%H -- book/src/<page>)
 *     ---
 *
 *   and a translated hints file on its first line: `<!-- english: <sha> -->` (the sha of tests/chapterNN/hints.md);
 * - a translation is *stale* when its English file changed in substance (anything but whitespace and line breaks)
 *   after that commit. A stale translation fails verify, unless its front matter also says `behind: true`: the site
 *   then shows "本页落后于英文版" with a link to the English page (book/.vitepress/lib/markdown.ts). A page marked
 *   behind that is not behind fails too, so the mark does not outlive the update;
 * - a page not yet translated may be a stub: `english: none` in its front matter, and the visible note 本页尚未翻译
 *   with a link to the English page (../<page>.md), so the language switcher never leads to a 404;
 * - the edition's SUMMARY.md lists every page of the English SUMMARY.md, in the same order and under the same file
 *   names, and every page of the edition is in it; a page of the edition's own (glossary.md) has no English page;
 * - a translated page keeps the English page's structure: its headings carry the English anchors (`{#why-a-loop}`),
 *   and it has as many quizzes, diagrams and ```ts check blocks, each quiz with its right answer in the same place;
 *   a translated hints file has the same `##` stubs, in order, with as many `###` hints each.
 *
 * Every problem is a sentence that starts with the file (and line) to fix.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseQuiz } from '../../book/.vitepress/lib/quiz.js';
import { parseSummary } from '../../book/.vitepress/lib/summary.js';
import { hintLevels, parseHints, type StubHints } from '../kit/hints.js';
import { fencedBlocks, frontMatter, headings, pageError } from './markdown.js';
import { ROOT } from './paths.js';

export { frontMatter, headings } from './markdown.js';

/** The editions: a folder under book/src, and the suffix of its hints files next to hints.md. */
export const EDITIONS = [{ dir: 'zh', hints: 'hints.zh-CN.md', name: 'Chinese' }] as const;

/** A page's (or hints file's) translation, as its header records it. */
export interface TranslationHeader {
  /** The English commit, `none` for a stub, or undefined when the header names none. */
  english?: string;
  behind: boolean;
  /** Whether the file has a front matter block (a hints file: its `<!-- english: … -->` line) at all. */
  present: boolean;
}

/** The translation header of a page (front matter) or of a hints file (`<!-- english: <sha> [behind] -->`). */
export function translationHeader(text: string, kind: 'page' | 'hints'): TranslationHeader {
  if (kind === 'hints') {
    const m = /^<!--\s*english:\s*(\S+)(\s+behind)?\s*-->/.exec(text.replace(/^\uFEFF/, ''));
    return m ? { english: m[1]!, behind: !!m[2], present: true } : { behind: false, present: false };
  }
  const data = frontMatter(text);
  if (!data) return { behind: false, present: false };
  const english = data.english == null ? undefined : String(data.english);
  return { ...(english ? { english } : {}), behind: data.behind === true, present: true };
}

/** The text with every run of whitespace (line breaks included) made one space: what "in substance" compares. */
export function substance(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function git(root: string, args: string[]): { ok: true; out: string } | { ok: false; err: string } {
  try {
    return {
      ok: true,
      out: execFileSync('git', args, {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 64 << 20,
      }),
    };
  } catch (error) {
    return {
      ok: false,
      err:
        String((error as { stderr?: string }).stderr ?? error)
          .trim()
          .split('\n')[0] ?? '',
    };
  }
}

/** The commit that last changed a file (what a translator records), or undefined outside git. */
export function lastCommit(root: string, file: string): string | undefined {
  const r = git(root, ['log', '-1', '--format=%H', '--', file]);
  return r.ok && r.out.trim() ? r.out.trim() : undefined;
}

/** The first line (1-based, of `now`) where two texts differ in substance, with a few words of the new text. */
function firstDifference(then: string, now: string): { line: number; words: string } {
  const a = substance(then);
  const b = substance(now);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  // Map the offset in the normalized text back to a line of `now`.
  let seen = 0;
  const lines = now.split('\n');
  let line = lines.length;
  for (let n = 0; n < lines.length; n++) {
    seen += substance(lines[n]!).length + (substance(lines[n]!) ? 1 : 0);
    if (seen > i) {
      line = n + 1;
      break;
    }
  }
  return { line, words: b.slice(Math.max(0, i - 20), i + 40) };
}

/**
 * Whether one translation is up to date with its English file: problems, each naming `file`. `english` is the
 * English file and `file` the translation, both relative to the repository root.
 */
export function checkStaleness(
  root: string,
  file: string,
  english: string,
  header: TranslationHeader,
  kind: 'page' | 'hints' = 'page',
): string[] {
  const hints = kind === 'hints';
  const record = hints ? '<!-- english: <sha> -->' : 'english: <sha>';
  const current = lastCommit(root, english);
  const fix = current
    ? `(git log -1 --format=%H -- ${english} gives ${current})`
    : `(git log -1 --format=%H -- ${english})`;
  if (!header.present || !header.english) {
    return [
      hints
        ? `${file}:1: no header naming the English commit it was translated from: its first line must be <!-- english: <sha> --> ${fix}`
        : `${file}: no front matter naming the English commit it was translated from: start the page with ---, english: <sha>, --- ${fix}`,
    ];
  }
  if (header.english === 'none') return [];
  const sha = header.english;
  if (!/^[0-9a-f]{40}$/.test(sha)) return [`${file}: ${record} must be a full 40-hex commit, not "${sha}" ${fix}`];
  if (!git(root, ['cat-file', '-e', `${sha}^{commit}`]).ok) {
    const shallow = git(root, ['rev-parse', '--is-shallow-repository']);
    const why =
      shallow.ok && shallow.out.trim() === 'true'
        ? 'this clone is shallow, so older commits are not here: fetch the history (git fetch --unshallow) and run verify again'
        : 'no such commit in this repository: was it a commit of a branch not merged, or mistyped?';
    return [
      `${file}: cannot read the English commit ${sha} it records, so whether it is behind cannot be checked (${why}) ${fix}`,
    ];
  }
  const then = git(root, ['show', `${sha}:${english}`]);
  if (!then.ok)
    return [
      `${file}: the English commit ${sha.slice(0, 10)} it records has no ${english}: record a commit where the English file exists ${fix}`,
    ];
  const now = existsSync(path.join(root, english)) ? readFileSync(path.join(root, english), 'utf8') : '';
  const stale = substance(then.out) !== substance(now);
  if (stale && !header.behind) {
    const at = firstDifference(then.out, now);
    return [
      `${file}: behind the English: ${english} changed after ${sha.slice(0, 10)}, the commit this translation records ` +
        `(first change at ${english}:${at.line}, "…${at.words}…"; git diff ${sha.slice(0, 10)} -- ${english} shows it all). ` +
        `Bring the translation up to date and record the new commit ${fix}, or ${hints ? 'make its first line <!-- english: <sha> behind -->' : 'add behind: true to its front matter'} (the site then says the page is behind)`,
    ];
  }
  if (!stale && header.behind) {
    return [
      `${file}: marked behind, but ${english} has not changed in substance since ${sha.slice(0, 10)}: remove the mark`,
    ];
  }
  return [];
}

/** The fenced blocks of a page by kind, in order (quiz, mermaid, ts check). */
function blocksOf(markdown: string): Array<{ kind: string; line: number; content: string }> {
  return fencedBlocks(markdown).map(({ info, line, content }) => {
    const first = info.split(/\s+/)[0] ?? '';
    return { kind: /^(ts|typescript)$/.test(first) && /\bcheck\b/.test(info) ? 'ts check' : first, line, content };
  });
}

const BLOCK_NAMES: Record<string, string> = { quiz: 'quizzes', mermaid: 'diagrams', 'ts check': '```ts check blocks' };

/** A translated page against its English page: the anchors, the quizzes, diagrams and checked blocks. */
export function checkStructure(file: string, english: string, translated: string): string[] {
  const problems: string[] = [];
  const en = headings(english);
  const zh = headings(translated);
  if (en.length !== zh.length) {
    problems.push(
      `${file}: ${zh.length} headings, the English page has ${en.length}: keep every heading, in the same order (the English anchors: ${en.map((h) => h.anchor).join(', ')})`,
    );
  } else {
    en.forEach((h, i) => {
      const t = zh[i]!;
      if (t.anchor !== h.anchor || t.level !== h.level) {
        problems.push(
          `${file}:${t.line}: this heading must be level ${h.level} and end with {#${h.anchor}}, the English heading's anchor ("${'#'.repeat(h.level)} ${h.text}"), so links and the language switcher land on it`,
        );
      }
    });
  }
  const enBlocks = blocksOf(english);
  const zhBlocks = blocksOf(translated);
  for (const kind of Object.keys(BLOCK_NAMES)) {
    const a = enBlocks.filter((b) => b.kind === kind);
    const b = zhBlocks.filter((x) => x.kind === kind);
    if (a.length !== b.length) {
      problems.push(
        `${file}: ${b.length} ${BLOCK_NAMES[kind]}, the English page has ${a.length}: keep each one, in the same order`,
      );
      continue;
    }
    if (kind !== 'quiz') continue;
    a.forEach((enQuiz, i) => {
      const q = parseQuiz(enQuiz.content).quiz;
      const t = parseQuiz(b[i]!.content).quiz;
      if (!q.choices.length || !t.choices.length) return;
      const right = (quiz: typeof q) => quiz.choices.findIndex((c) => c.correct);
      const longest = (quiz: typeof q) =>
        quiz.choices.every((c, n) => n === right(quiz) || c.text.length < quiz.choices[right(quiz)]!.text.length);
      if (q.choices.length !== t.choices.length || right(q) !== right(t)) {
        problems.push(
          `${file}:${b[i]!.line}: this quiz has ${t.choices.length} choices with the right one at ${String.fromCharCode(65 + right(t))}; the English has ${q.choices.length} with the right one at ${String.fromCharCode(65 + right(q))}: keep the choices and the right answer's place`,
        );
      } else if (longest(t) && !longest(q)) {
        problems.push(
          `${file}:${b[i]!.line}: in this quiz the right answer is the longest choice, and in the English it is not: say it shorter, or give the wrong choices the same detail (a reader must not find it by its length)`,
        );
      }
    });
  }
  return problems;
}

/** Every file of an edition's folder (relative to it, forward slashes), markdown only. */
function editionPages(root: string, dir: string): string[] {
  const at = path.join(root, 'book/src', dir);
  if (!existsSync(at)) return [];
  return readdirSync(at, { recursive: true })
    .map((f) => String(f).split(path.sep).join('/'))
    .filter((f) => f.endsWith('.md'))
    .sort();
}

/** The translated hints files: tests/chapterNN/<hints>, each with its English hints.md. */
export function hintTranslations(root: string, hints: string): Array<{ file: string; english: string }> {
  const tests = path.join(root, 'tests');
  if (!existsSync(tests)) return [];
  return readdirSync(tests)
    .filter((d) => /^chapter\d+$/.test(d) && existsSync(path.join(tests, d, hints)))
    .sort()
    .map((d) => ({ file: `tests/${d}/${hints}`, english: `tests/${d}/hints.md` }));
}

/** The pages of an edition: whether each is a stub (english: none), for the other guide checks to skip. */
export function isStub(markdown: string): boolean {
  return translationHeader(markdown, 'page').english === 'none';
}

/** Every check of this file over every edition (empty = fine). */
export function checkTranslations(root: string): string[] {
  const problems: string[] = [];
  const src = path.join(root, 'book/src');
  const englishEntries = existsSync(path.join(src, 'SUMMARY.md'))
    ? parseSummary(readFileSync(path.join(src, 'SUMMARY.md'), 'utf8'))
    : [];
  const englishFiles = englishEntries.flatMap((e) => (e.file ? [e.file.replace(/#.*$/, '')] : []));
  for (const edition of EDITIONS) {
    const pages = editionPages(root, edition.dir).filter((p) => p !== 'SUMMARY.md');
    const summaryPath = `book/src/${edition.dir}/SUMMARY.md`;
    if (existsSync(path.join(root, summaryPath))) {
      const entries = parseSummary(readFileSync(path.join(root, summaryPath), 'utf8'));
      const files = entries.flatMap((e) =>
        e.file ? [{ file: e.file.replace(/#.*$/, ''), line: e.line, title: e.title }] : [],
      );
      for (const { file, line, title } of files) {
        const stubNote = `translate book/src/${file}, or write a stub: front matter english: none and the note 本页尚未翻译 linking ../${file}`;
        if (!existsSync(path.join(src, edition.dir, file))) {
          problems.push(
            englishFiles.includes(file)
              ? `${summaryPath}:${line}: "${title}" links ${file}, and book/src/${edition.dir}/${file} does not exist (${stubNote})`
              : `${summaryPath}:${line}: "${title}" links ${file}, which does not exist`,
          );
        }
      }
      const listed = files.map((f) => f.file);
      const missing = englishFiles.filter((f) => !listed.includes(f));
      if (missing.length)
        problems.push(
          `${summaryPath}: leaves out ${missing.join(', ')} of book/src/SUMMARY.md: the ${edition.name} contents list every English page, under the same file name`,
        );
      const order = listed.filter((f) => englishFiles.includes(f));
      const englishOrder = englishFiles.filter((f) => listed.includes(f));
      if (order.join('\n') !== englishOrder.join('\n'))
        problems.push(
          `${summaryPath}: lists the English pages in another order than book/src/SUMMARY.md (${englishOrder.join(', ')}): keep the same order, so prev/next agree`,
        );
      for (const page of pages) {
        if (!listed.includes(page))
          problems.push(`book/src/${edition.dir}/${page} is not in ${summaryPath} (add it there, or delete the page)`);
      }
    } else if (pages.length) {
      problems.push(
        `${summaryPath} is missing: the ${edition.name} edition's contents (the English SUMMARY.md with the titles translated, the same files)`,
      );
    }
    for (const page of pages) {
      const file = `book/src/${edition.dir}/${page}`;
      const english = `book/src/${page}`;
      const text = readFileSync(path.join(root, file), 'utf8');
      const unreadable = pageError(text);
      if (unreadable) {
        problems.push(`${file}: ${unreadable}`);
        continue;
      }
      const header = translationHeader(text, 'page');
      if (!existsSync(path.join(root, english))) {
        // A page of the edition's own (the glossary): nothing to be in step with.
        if (header.english && header.english !== 'none')
          problems.push(
            `${file}: records english: ${header.english}, but there is no ${english} to translate: remove it (a page of the ${edition.name} edition's own has no English commit)`,
          );
        continue;
      }
      if (header.english === 'none') {
        if (
          !text.includes('本页尚未翻译') ||
          !new RegExp(`\\]\\(\\.\\./${page.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(#[^)]*)?\\)`).test(text)
        ) {
          problems.push(
            `${file}: a stub (english: none) must show the note 本页尚未翻译 and link the English page as [英文版](../${page})`,
          );
        }
        continue;
      }
      problems.push(...checkStaleness(root, file, english, header));
      const englishText = readFileSync(path.join(root, english), 'utf8');
      // An English page the site cannot read is checkGuide's to report; its structure cannot be compared.
      if (!pageError(englishText)) problems.push(...checkStructure(file, englishText, text));
    }
    for (const { file, english } of hintTranslations(root, edition.hints)) {
      const text = readFileSync(path.join(root, file), 'utf8');
      problems.push(...checkStaleness(root, file, english, translationHeader(text, 'hints'), 'hints'));
      // The same `##` stubs in the same order, each with as many `###` hints: npm run hint shows them level by level.
      // The English approach is the stub's steps in solution/src (hintLevels); the translation writes it out.
      const shape = (sections: StubHints[]) => sections.map((h) => `${h.stub} (${h.hints.length})`).join(', ');
      const chapter = Number(/chapter(\d+)/.exec(english)?.[1]);
      const want = existsSync(path.join(root, english)) ? shape(hintLevels(root, chapter)) : '';
      if (shape(parseHints(text)) !== want)
        problems.push(
          `${file}: its ## stubs and ### hints are ${shape(parseHints(text)) || 'none'}; ${english} has ${want || 'none'} (with its steps as the approach): keep the same sections, in the same order, as many hints each`,
        );
    }
  }
  return problems;
}

// npx tsx scripts/lib/guide-locale.ts --anchors chapter-03.md: the English page's headings with the anchor each
// must carry in a translation (`## 为什么需要循环 {#why-a-loop}`), from the page as it is now.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--anchors') {
  const page = process.argv[3] ?? '';
  const file = path.join(ROOT, 'book/src', page.replace(/^book\/src\//, ''));
  for (const h of headings(readFileSync(file, 'utf8'))) console.log(`${'#'.repeat(h.level)} ${h.text} {#${h.anchor}}`);
}
