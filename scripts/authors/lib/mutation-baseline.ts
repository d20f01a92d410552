/**
 * mutation-baseline.json: each chapter's last mutation result (score, survivors, the hashes of the files its run
 * depends on), so that `npm run mutation` runs again only the chapters whose inputs changed since.
 */
import { createHash } from 'node:crypto';
import { transformSync } from 'esbuild';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chapterDir } from '../../lib/chapters.js';
import { ROOT } from '../../lib/paths.js';
import {
  type ChapterMutation,
  chapterRanges,
  loadEquivalents,
  MIN_MUTATION_SCORE,
  shortCode,
  type Survivor,
} from './mutation.js';

export const BASELINE_FILE = 'mutation-baseline.json';

type StoredSurvivor = Omit<Survivor, 'reason' | 'original' | 'replacement'> & {
  original: string;
  replacement: string;
  reason?: string;
};

export interface BaselineChapter extends Pick<ChapterMutation, 'score' | 'mutants' | 'killed' | 'seconds'> {
  /** Survivors listed in equivalent-mutants.md when the baseline was made, with their reasons. */
  accepted: StoredSurvivor[];
  /** Survivors not listed (a chapter below the bar). */
  unlisted: StoredSurvivor[];
  /** sha256 (first 16 hex digits) of every file the chapter's mutation run depends on: see chapterInputs(). */
  inputs: Record<string, string>;
}

export interface Baseline {
  minScore: number;
  chapters: Record<string, BaselineChapter>;
}

export function readBaseline(root = ROOT): Baseline {
  const file = path.join(root, BASELINE_FILE);
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Baseline)
    : { minScore: MIN_MUTATION_SCORE, chapters: {} };
}

const stored = (s: Survivor): StoredSurvivor => ({
  id: s.id,
  status: s.status,
  region: s.region,
  mutator: s.mutator,
  file: s.file,
  line: s.line,
  original: shortCode(s.original, 200),
  replacement: shortCode(s.replacement, 200),
  ...(s.reason ? { reason: s.reason } : {}),
});

/** Records the chapters' scores, survivors and input hashes in mutation-baseline.json (other chapters are kept). */
export function updateBaseline(results: ChapterMutation[], root = ROOT): void {
  const baseline = readBaseline(root);
  baseline.minScore = MIN_MUTATION_SCORE;
  for (const r of results) {
    baseline.chapters[String(r.chapter)] = {
      score: r.score,
      mutants: r.mutants,
      killed: r.killed,
      seconds: r.seconds,
      accepted: r.survivors.filter((s) => s.reason).map(stored),
      unlisted: r.survivors.filter((s) => !s.reason).map(stored),
      inputs: chapterInputs(r.chapter, root),
    };
  }
  const sorted = Object.fromEntries(Object.entries(baseline.chapters).sort(([a], [b]) => Number(a) - Number(b)));
  writeFileSync(path.join(root, BASELINE_FILE), `${JSON.stringify({ ...baseline, chapters: sorted }, null, 2)}\n`);
}

// ---------------------------------------------------------------------------------------------------------------
// Incremental runs: a chapter needs a new mutation run only when a file its run depends on has changed since the
// baseline. Those files are the chapter's test files, everything they import (followed through `kit/*` into
// solution/src and through relative imports, so shared helpers and earlier chapters' code count), tests/setup.ts
// and the mutation vitest config. equivalent-mutants.md, hints and wrong solutions are not inputs: a changed list of
// equivalent mutants is matched against the survivors stored in the baseline without running Stryker.

const IMPORT = /(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g;

function resolveImport(fromFile: string, specifier: string, root: string): string | undefined {
  let target: string;
  const kit = /^kit(?:\/(.*))?$/.exec(specifier);
  if (kit) target = path.join(root, 'solution/src', kit[1] ?? 'index');
  else if (specifier.startsWith('.')) target = path.resolve(path.dirname(fromFile), specifier);
  else return undefined;
  for (const candidate of [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, path.join(target, 'index.ts')]) {
    if (existsSync(candidate) && candidate.endsWith('.ts')) return candidate;
  }
  return undefined;
}

/**
 * What a file runs as: TypeScript with its types and comments stripped (esbuild, as vitest loads it) and its layout
 * removed (esbuild keeps some of the source's line breaks otherwise), so a comment, a step's wording, a type-only
 * change (a type-only import included) or the formatter's line breaks do not make a chapter's mutation result stale;
 * other files as they are.
 */
function codeOf(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (!file.endsWith('.ts')) return text;
  return transformSync(text, { loader: 'ts', format: 'esm', legalComments: 'none', minifyWhitespace: true }).code;
}

/** Every file a chapter's mutation run depends on, relative to the root, with a short sha256 of its content. */
export function chapterInputs(chapter: number, root = ROOT): Record<string, string> {
  const testDir = path.join(root, chapterDir(chapter));
  const queue = readdirSync(testDir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(testDir, f));
  queue.push(path.join(root, 'tests/setup.ts'), path.join(root, 'scripts/mutation.vitest.config.ts'));
  for (const range of chapterRanges(chapter, root)) queue.push(path.join(root, range.file));
  const seen = new Set<string>();
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const match of codeOf(file).matchAll(IMPORT)) {
      const target = resolveImport(file, match[1]!, root);
      if (target && !seen.has(target)) queue.push(target);
    }
  }
  const hash = (file: string) => createHash('sha256').update(codeOf(file)).digest('hex').slice(0, 16);
  return Object.fromEntries(
    [...seen]
      .map((file) => path.relative(root, file).split(path.sep).join('/'))
      .sort()
      .map((rel) => [rel, hash(path.join(root, rel))]),
  );
}

/** Why a chapter must run again (its inputs changed since the baseline), or undefined when it need not. */
export function changeSinceBaseline(chapter: number, baseline: Baseline, root = ROOT): string | undefined {
  const entry = baseline.chapters[String(chapter)];
  if (!entry?.inputs) return 'not in mutation-baseline.json';
  const now = chapterInputs(chapter, root);
  const changed = [...new Set([...Object.keys(now), ...Object.keys(entry.inputs)])].filter(
    (file) => now[file] !== entry.inputs[file],
  );
  if (changed.length === 0) return undefined;
  return `changed: ${changed.slice(0, 4).join(', ')}${changed.length > 4 ? ` and ${changed.length - 4} more` : ''}`;
}

/** A chapter's result as recorded in the baseline, with its survivors matched against today's equivalent-mutants.md. */
export function fromBaseline(chapter: number, baseline: Baseline, root = ROOT): ChapterMutation {
  const entry = baseline.chapters[String(chapter)]!;
  const { reasons, bad } = loadEquivalents(chapter, root);
  const survivors = [...entry.accepted, ...entry.unlisted].map(({ reason: _old, ...s }) => ({
    ...s,
    reason: reasons.get(s.id),
  }));
  const seen = new Set(survivors.map((s) => s.id));
  return {
    chapter,
    score: entry.score,
    mutants: entry.mutants,
    killed: entry.killed,
    seconds: 0,
    survivors: survivors.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line),
    staleEntries: [...reasons.keys()].filter((id) => !seen.has(id)),
    badEntries: bad,
    fromBaseline: true,
  };
}
