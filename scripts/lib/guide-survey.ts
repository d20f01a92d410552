/**
 * The browser survey of the built guide (tests/kit/browser-check.ts surveyPages): every page at 1280 and 390 px, in
 * both languages, checked for what issue 46 asks of it (pageProblems: no diagram read only with a click at 1280 px,
 * no label under 12 px, no table cut without a sign, no code scrolling sideways at 1280 px, layout shift under 0.05,
 * one language's search index) and timed (the first click answered, target 1.5 s).
 *
 * Surveying every page of both languages takes minutes, so verify surveys only what changed (site.test.ts): the pages whose source
 * differs from the one the last full survey saw, or every page when the guide's build (book/.vitepress, the versions
 * of VitePress, Vue and mermaid) differs. The full survey is an author's command, run on a quiet machine, whose
 * timings are therefore figures worth recording:
 *
 *   npm run survey    builds the site, surveys every page, prints the figures, and when every page keeps its
 *                     promises writes book/survey.json: the build's and each page's hash, with the figures
 *                     (the first click within 1.5 s is judged only when the machine is quiet: its load average
 *                     under its cores; the record says which)
 *
 * An author runs it after changing the theme or the build (CI then surveys every page, since the build's hash moved)
 * and now and then after editing pages, so that verify's share stays small.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bookSrc, guidePages } from './guide-pages.js';
import { ROOT } from './paths.js';

/** Where the last full survey is recorded, relative to the root. */
export const SURVEY_RECORD = 'book/survey.json';

export interface SurveyRecord {
  /** When it ran (ISO date). */
  surveyed: string;
  /** How busy the machine was (load average over 1 minute, at the start and the end, and its cores): the click
   * times mean something only on a quiet machine. */
  machine: { loadAtStart: number; loadAtEnd: number; cores: number };
  /** Whether every first click was answered within INTERACTIVE_TARGET_MS, or why that was not judged. */
  clickTarget: string;
  /** The hash of what builds the site (buildHash). */
  build: string;
  /** Each page's source hash (book/src path → hash). */
  pages: Record<string, string>;
  /** Per built page and width: layout shift (top, at the middle heading), smallest diagram label read in the
   * column, diagrams that open, tables that scroll, and the first click answered (ms, 1280 px only). */
  figures: Record<string, Record<string, unknown>>;
}

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex').slice(0, 16);

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => !/^(cache|dist)([\\/]|$)/.test(f) && statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join('/'))
    .sort();
}

/** A hash of what turns the pages into the site: book/.vitepress (not its cache or output) and the versions used. */
export function buildHash(root = ROOT): string {
  const dir = path.join(root, 'book/.vitepress');
  const lock = existsSync(path.join(root, 'package-lock.json'))
    ? (JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
        packages?: Record<string, { version?: string }>;
      })
    : {};
  const versions = ['vitepress', 'vue', 'mermaid'].map((p) => `${p}@${lock.packages?.[`node_modules/${p}`]?.version}`);
  const files = filesUnder(dir).map((f) => `${f}:${sha(readFileSync(path.join(dir, f)))}`);
  return sha([...versions, ...files].join('\n'));
}

/** Each page's source hash (its text; its diagrams' drawings are keyed by their source, so they are in it). */
export function pageHashes(root = ROOT): Record<string, string> {
  return Object.fromEntries(
    guidePages(root).map((page) => [page, sha(readFileSync(path.join(bookSrc(root), page), 'utf8'))]),
  );
}

export function readSurveyRecord(root = ROOT): SurveyRecord | undefined {
  const file = path.join(root, SURVEY_RECORD);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SurveyRecord) : undefined;
}

/**
 * What verify's survey covers: every page (`all`, with the reason) when there is no record or the build changed since
 * it; else the pages whose source changed, or that are new (book/src paths).
 */
export function pagesToSurvey(root = ROOT): { all: boolean; why: string; pages: string[] } {
  const record = readSurveyRecord(root);
  const now = pageHashes(root);
  if (!record) return { all: true, why: `no ${SURVEY_RECORD} (npm run survey writes it)`, pages: Object.keys(now) };
  if (record.build !== buildHash(root))
    return {
      all: true,
      why: `the guide's build changed since the last full survey (${record.surveyed})`,
      pages: Object.keys(now),
    };
  const changed = Object.keys(now).filter((p) => record.pages[p] !== now[p]);
  return {
    all: false,
    why: `${changed.length} of ${Object.keys(now).length} pages changed since the last full survey (${record.surveyed})`,
    pages: changed,
  };
}

/**
 * The built pages (browser-check's names: `chapter-03`, `zh/chapter-03`, `` and `zh/` for the home pages) that show
 * the given book/src pages. A page served as its folder's index (introduction.md, the first page of SUMMARY.md) is
 * found by its title's anchor-free name in the built list.
 */
export function builtPagesFor(built: string[], pages: string[]): string[] {
  const names = new Set(built);
  return [
    ...new Set(
      pages.flatMap((p) => {
        const name = p.replace(/\.md$/, '').replace(/(^|\/)(README|index)$/, '$1');
        if (names.has(name)) return [name];
        // The home page: the folder's index.
        const dir = name.includes('/') ? `${name.slice(0, name.lastIndexOf('/'))}/` : '';
        return names.has(dir) && /(^|\/)introduction$/.test(name) ? [dir] : [];
      }),
    ),
  ].sort();
}

/** A figure per built page and width, small enough to read in a diff of book/survey.json. */
export function recordFigures(
  figures: ReadonlyArray<import('../../tests/kit/browser-check.js').PageFigure>,
): SurveyRecord['figures'] {
  const out: SurveyRecord['figures'] = {};
  for (const f of figures) {
    const labels = f.diagrams.filter((d) => !d.opens).map((d) => d.minFontPx ?? 0);
    (out[f.page || 'index'] ??= {})[String(f.width)] = {
      layoutShift: Math.max(f.layoutShift, f.layoutShiftAtHeading ?? 0),
      ...(f.diagrams.length
        ? {
            diagrams: f.diagrams.length,
            opens: f.diagrams.filter((d) => d.opens).length,
            ...(labels.length ? { smallestLabelPx: Math.min(...labels) } : {}),
          }
        : {}),
      ...(f.tables ? { tables: f.tables, scrolling: f.scrollingTables } : {}),
      ...(f.clickMs !== null ? { clickMs: f.clickMs } : {}),
    };
  }
  return out;
}

// npm run survey: build, survey every page (with clicks), print, and record when every page keeps its promises.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { CHROMIUM, guidePagesBuilt, INTERACTIVE_TARGET_MS, pageProblems, serveDir, surveyPages } = await import(
    '../../tests/kit/browser-check.js'
  );
  const { buildSite } = await import('./guide-build.js');
  if (!CHROMIUM) {
    console.error('the survey needs Chromium (apt-get install chromium fonts-wqy-microhei)');
    process.exit(1);
  }
  const started = Date.now();
  const loadAtStart = Math.round(loadavg()[0]! * 10) / 10;
  const cores = availableParallelism();
  const build = buildHash(ROOT);
  const pages = pageHashes(ROOT);
  process.stdout.write('building the site … ');
  await buildSite(ROOT);
  const dist = path.join(ROOT, 'book/.vitepress/dist');
  const built = guidePagesBuilt(dist);
  console.log(`surveying ${built.length} pages at 1280 and 390 px …`);
  const server = await serveDir(dist);
  let figures: Awaited<ReturnType<typeof surveyPages>>;
  try {
    figures = await surveyPages(server.url, built, [1280, 390], { clicks: true, timeoutMs: 60_000 });
  } finally {
    await server.close();
  }
  for (const f of figures)
    console.log(
      `${String(f.width).padStart(4)} ${(f.page || 'index').padEnd(24)} shift ${Math.max(f.layoutShift, f.layoutShiftAtHeading ?? 0).toFixed(3)}` +
        `  diagrams ${f.diagrams.length} (opens ${f.diagrams.filter((d) => d.opens).length})` +
        `  tables ${f.tables} (scroll ${f.scrollingTables}, cut ${f.cutTables})  code scrolling ${f.scrollingCode}` +
        `  index ${f.searchIndexes.join(',') || '-'}${f.clickMs !== null ? `  click ${f.clickMs} ms` : ''}`,
    );
  const problems = figures.flatMap(pageProblems);
  const slow = figures.filter((f) => f.clickMs !== null && f.clickMs > INTERACTIVE_TARGET_MS);
  const loadAtEnd = Math.round(loadavg()[0]! * 10) / 10;
  // The click times are judged only on a quiet machine: on a busy one any target is crossed by a correct page.
  const busy = Math.max(loadAtStart, loadAtEnd) > cores;
  const slowLines = slow.map(
    (f) => `${f.page || 'index'}: answered its first click at ${f.clickMs} ms (target ${INTERACTIVE_TARGET_MS})`,
  );
  if (!busy) problems.push(...slowLines);
  else if (slowLines.length)
    console.log(
      `\nnot judged, the machine was busy (load ${loadAtStart} to ${loadAtEnd} on ${cores} cores):\n${slowLines.join('\n')}`,
    );
  const clickTarget = busy
    ? `not judged: the machine was busy (load ${loadAtStart} to ${loadAtEnd} on ${cores} cores); ${slow.length} page(s) over ${INTERACTIVE_TARGET_MS} ms`
    : `every page within ${INTERACTIVE_TARGET_MS} ms`;
  const clicks = figures.filter((f) => f.clickMs !== null).map((f) => f.clickMs!);
  console.log(
    `\nfirst click answered: median ${clicks.sort((a, b) => a - b)[Math.floor(clicks.length / 2)] ?? '-'} ms, slowest ${Math.max(...clicks)} ms (target ${INTERACTIVE_TARGET_MS}); ${Math.round((Date.now() - started) / 1000)} s in all`,
  );
  if (problems.length) {
    console.log(`\n${problems.length} problem(s); ${SURVEY_RECORD} is left as it was:\n${problems.join('\n')}`);
    process.exit(1);
  }
  const record: SurveyRecord = {
    surveyed: new Date().toISOString().slice(0, 10),
    machine: { loadAtStart, loadAtEnd, cores },
    clickTarget,
    build,
    pages,
    figures: recordFigures(figures),
  };
  writeFileSync(path.join(ROOT, SURVEY_RECORD), `${JSON.stringify(record, null, 2)}\n`);
  console.log(`every page keeps its promises; recorded in ${SURVEY_RECORD}`);
}
