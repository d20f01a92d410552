/**
 * Mutation testing of the graded tests: Stryker changes the solution's chapter code one small edit at a time (a `<`
 * becomes `<=`, a string becomes empty, a block is emptied) and runs that chapter's graded tests against each edit,
 * a "mutant". A mutant the tests fail on is killed; one they still pass on survived, and shows behaviour no graded
 * test pins down. Only the code inside the chapter's regions (what the learner writes) is mutated, and only the
 * chapter's own tests (tests/chapterNN/) run.
 *
 * A survivor is either killed by a better test or, if no behaviour can tell it apart from the solution, listed in
 * tests/chapterNN/equivalent-mutants.md with its id and a reason:
 *
 *   - `1a2b3c4d` MockProvider.complete, StringLiteral, line 55: `'…'` → `""` — only the wording of a hint changes
 *
 * The id is a hash of the region, the mutator and the original and mutated code (whitespace collapsed), so it stays
 * the same when other code moves, and changes when the mutated code itself changes (the reason must be re-judged).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chapterDir } from '../../lib/chapters.js';
import { ROOT } from '../../lib/paths.js';
import { listRegions } from '../../lib/regions.js';

/** The bar every chapter must reach. */
export const MIN_MUTATION_SCORE = 85;
export const REPORT_DIR = 'reports/mutation';

export interface RegionRange {
  chapter: number;
  name: string;
  /** Path relative to the root, e.g. solution/src/simple-agent.ts. */
  file: string;
  /** 1-based lines of the region's code (after the numbered steps, before #endregion). */
  first: number;
  last: number;
}

export interface Survivor {
  id: string;
  /** Survived, or NoCoverage when no graded test even runs the mutated code. */
  status: string;
  region: string;
  mutator: string;
  file: string;
  line: number;
  original: string;
  replacement: string;
  /** The reason from equivalent-mutants.md, when the survivor is listed there. */
  reason?: string;
}

export interface ChapterMutation {
  chapter: number;
  /** Killed (and timed-out) mutants as a percentage of all valid mutants, NoCoverage included. */
  score: number;
  mutants: number;
  killed: number;
  seconds: number;
  survivors: Survivor[];
  /** Entries of equivalent-mutants.md that match no survivor any more (safe to delete). */
  staleEntries: string[];
  /** Lines of equivalent-mutants.md that could not be read. */
  badEntries: string[];
  /** True when taken from mutation-baseline.json because nothing the chapter depends on changed. */
  fromBaseline?: boolean;
}

/** The code of every region of a chapter, as line ranges of solution/src. */
export function chapterRanges(chapter: number, root = ROOT): RegionRange[] {
  return listRegions(root, 'solution')
    .filter((region) => region.chapter === chapter)
    .map((region) => {
      const first = region.line + region.steps.length + 1;
      return { chapter, name: region.name, file: region.file, first, last: first + region.body.length - 1 };
    })
    .filter((range) => range.last >= range.first);
}

/** Stryker `mutate` entries for a chapter: `solution/src/simple-agent.ts:31-58`. */
export function mutateRanges(chapter: number, root = ROOT): string[] {
  return chapterRanges(chapter, root).map((range) => `${range.file}:${range.first}-${range.last}`);
}

/** Chapters that have both graded tests and regions in the solution, in order. */
export function mutationChapters(root = ROOT): number[] {
  const withRegions = new Set(listRegions(root, 'solution').map((region) => region.chapter));
  return readdirSync(path.join(root, 'tests'))
    .map((name) => /^chapter(\d\d)$/.exec(name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Number(match[1]))
    .filter(
      (n) =>
        withRegions.has(n) &&
        readdirSync(path.join(root, chapterDir(n)), { recursive: true }).some((f) => String(f).endsWith('.test.ts')),
    )
    .sort((a, b) => a - b);
}

export const collapse = (code: string) => code.replace(/\s+/g, ' ').trim();

export function mutantId(region: string, mutator: string, original: string, replacement: string): string {
  return createHash('sha256')
    .update([region, mutator, collapse(original), collapse(replacement)].join('\n'))
    .digest('hex')
    .slice(0, 8);
}

/** `code` on one line, cut to `max` characters. */
export const shortCode = (code: string, max = 70) => {
  const text = collapse(code).replace(/`/g, "'");
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

/** The line to paste into equivalent-mutants.md (the reason still to write). */
export function equivalentLine(survivor: Survivor, reason = '<why no behaviour can tell it apart>'): string {
  return `- \`${survivor.id}\` ${survivor.region}, ${survivor.mutator}, line ${survivor.line}: \`${shortCode(survivor.original)}\` → \`${shortCode(survivor.replacement)}\` — ${reason}`;
}

export function equivalentsFile(chapter: number, root = ROOT): string {
  return path.join(root, chapterDir(chapter), 'equivalent-mutants.md');
}

/** The entries of tests/chapterNN/equivalent-mutants.md: id -> reason, plus lines that look like entries but are not. */
export function loadEquivalents(chapter: number, root = ROOT): { reasons: Map<string, string>; bad: string[] } {
  const reasons = new Map<string, string>();
  const bad: string[] = [];
  const file = equivalentsFile(chapter, root);
  if (!existsSync(file)) return { reasons, bad };
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (!/^- `[0-9a-f]{8}`/.test(line)) return;
      const match = /^- `([0-9a-f]{8})`.* — (.*\S.*)$/.exec(line);
      if (!match || match[2]!.includes('<why'))
        bad.push(`${path.relative(root, file)}:${index + 1}: an entry needs " — <reason>" at the end`);
      else reasons.set(match[1]!, match[2]!.trim());
    });
  return { reasons, bad };
}

// The parts of Stryker's JSON report (mutation-testing-report-schema) read here.
interface ReportMutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}
interface Report {
  files: Record<string, { source: string; mutants: ReportMutant[] }>;
}

/** Original code of a mutant, from the report's copy of the source (lines and columns 1-based). */
function originalCode(source: string, location: ReportMutant['location']): string {
  const lines = source.split('\n');
  const { start, end } = location;
  if (start.line === end.line) return lines[start.line - 1]!.slice(start.column - 1, end.column - 1);
  return [
    lines[start.line - 1]!.slice(start.column - 1),
    ...lines.slice(start.line, end.line - 1),
    lines[end.line - 1]!.slice(0, end.column - 1),
  ].join('\n');
}

/** Reads a chapter's Stryker JSON report into a score and its survivors, matched against equivalent-mutants.md. */
export function summarize(chapter: number, report: Report, seconds: number, root = ROOT): ChapterMutation {
  const ranges = chapterRanges(chapter, root);
  const { reasons, bad } = loadEquivalents(chapter, root);
  let killed = 0;
  let valid = 0;
  const survivors: Survivor[] = [];
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    const rel = path.isAbsolute(file) ? path.relative(root, file) : file;
    for (const mutant of mutants) {
      if (mutant.status === 'Killed' || mutant.status === 'Timeout') killed++;
      if (['Killed', 'Timeout', 'Survived', 'NoCoverage'].includes(mutant.status)) valid++;
      if (mutant.status !== 'Survived' && mutant.status !== 'NoCoverage') continue;
      const line = mutant.location.start.line;
      const range = ranges.find((r) => r.file === rel && r.first <= line && line <= r.last);
      const region = range?.name ?? '(outside the regions)';
      const original = originalCode(source, mutant.location);
      const replacement = mutant.replacement ?? '';
      const id = mutantId(region, mutant.mutatorName, original, replacement);
      survivors.push({
        id,
        status: mutant.status,
        region,
        mutator: mutant.mutatorName,
        file: rel,
        line,
        original,
        replacement,
        reason: reasons.get(id),
      });
    }
  }
  survivors.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  const seen = new Set(survivors.map((s) => s.id));
  return {
    chapter,
    score: valid === 0 ? 0 : Math.floor((killed / valid) * 10000) / 100,
    mutants: valid,
    killed,
    seconds: Math.round(seconds),
    survivors,
    staleEntries: [...reasons.keys()].filter((id) => !seen.has(id)),
    badEntries: bad,
  };
}

/** What keeps a chapter below the bar: a low score, a survivor not listed as equivalent, a malformed entry. */
export function mutationProblems(results: ChapterMutation[]): string[] {
  const problems: string[] = [];
  for (const result of results) {
    const where = path.relative(ROOT, equivalentsFile(result.chapter));
    if (result.mutants === 0)
      problems.push(`chapter ${result.chapter}: Stryker made no mutants (are the regions empty?)`);
    else if (result.killed === 0)
      problems.push(
        `chapter ${result.chapter}: no mutant was killed: the tests do not see the mutated code (check the kit alias in scripts/mutation.vitest.config.ts)`,
      );
    if (result.score < MIN_MUTATION_SCORE) {
      problems.push(
        `chapter ${result.chapter}: mutation score ${result.score}% is below ${MIN_MUTATION_SCORE}% (${result.killed} of ${result.mutants} mutants killed)`,
      );
    }
    for (const survivor of result.survivors.filter((s) => !s.reason)) {
      problems.push(
        `chapter ${result.chapter}: mutant ${survivor.status === 'NoCoverage' ? 'not reached by any test' : 'survived'} at ${survivor.file}:${survivor.line} (${survivor.region}, ${survivor.mutator}): \`${shortCode(survivor.original)}\` → \`${shortCode(survivor.replacement)}\`; kill it with a graded test or list it in ${where} as:\n      ${equivalentLine(survivor)}`,
      );
    }
    problems.push(...result.badEntries);
  }
  return problems;
}

export function writeReports(results: ChapterMutation[], root = ROOT): void {
  const dir = path.join(root, REPORT_DIR);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'summary.json'),
    `${JSON.stringify({ minScore: MIN_MUTATION_SCORE, chapters: results }, null, 2)}\n`,
  );
  const lines = [
    '# Mutation testing',
    '',
    `Bar: ${MIN_MUTATION_SCORE}% per chapter, every survivor killed or listed in tests/chapterNN/equivalent-mutants.md.`,
    '',
    '| Chapter | Score | Killed / mutants | Survivors (listed) | Time |',
    '|---|---|---|---|---|',
    ...results.map((r) => {
      const listed = r.survivors.filter((s) => s.reason).length;
      return `| ${r.chapter} | ${r.score}% | ${r.killed} / ${r.mutants} | ${r.survivors.length} (${listed}) | ${r.fromBaseline ? 'unchanged, from the baseline' : `${r.seconds} s`} |`;
    }),
    '',
    `Total time: ${results.reduce((sum, r) => sum + r.seconds, 0)} s. Full reports: ${REPORT_DIR}/chapterNN/mutation.html`,
  ];
  for (const r of results) {
    const open = r.survivors.filter((s) => !s.reason);
    if (open.length === 0) continue;
    lines.push(
      '',
      `## Chapter ${r.chapter}: survivors not listed as equivalent`,
      '',
      ...open.map((s) => `${equivalentLine(s)} (${s.file}:${s.line}, ${s.status})`),
    );
  }
  writeFileSync(path.join(dir, 'summary.md'), `${lines.join('\n')}\n`);
}

export function readReport(file: string): Report {
  return JSON.parse(readFileSync(file, 'utf8')) as Report;
}
