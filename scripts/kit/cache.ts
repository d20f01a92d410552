/**
 * Results reused while their inputs have not changed (issue 19 item 7, issue 18): progress, hint, solution, doctor
 * and watch re-run only the test files whose tests or code changed since the last run and read the others from
 * .kit/results.json.
 *
 * A test file's key is a hash of every file it can load, found by following the imports from it (and from
 * tests/setup.ts) through the test helpers and, via the `kit` alias, the target's source files, plus the other files
 * of its chapter's folder (data a test may read without importing it), the files that decide how tests run
 * (vitest.config.ts, the kit's reporter and region trace, package-lock.json) and Node's version. Edit
 * starter/src/simple-agent.ts and only the test files that reach simple-agent.ts run again, in whichever chapter they are; the
 * others are read back. `npm run grade` never reads the cache: an instructor grades what runs now.
 *
 * Finer still, by region: a learner edits the inside of one stub at a time, and a test file's results cannot change
 * if its last run reached none of the regions whose inside changed, nothing outside the regions changed, and every
 * changed file still compiles. The region trace (trace.ts) records every region a run reached, in a test or outside
 * one, so a file's entry stores its fingerprint's shape (every input, with the inside of each region left out) and
 * a hash of each region it reached. A save to chapter 3's `SimpleAgent.run` then runs again the two test files that
 * reached it, not the 25 that import simple-agent.ts. A file whose run was not clean (an error outside a test, a file that
 * did not load) and a test that runs the tree in a child process, where no trace reaches, are reused only exactly.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chapterDir } from '../lib/chapters.js';
import { parseRegions, type Region } from '../lib/regions.js';
import type { TestOutcome } from './test-outcome.js';

/** Bump when the shape of a cached outcome changes. */
const VERSION = 4;
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[\s;])import\s+['"]([^'"]+)['"]/g;
/** Files that decide how every test runs, relative to the root. */
const GLOBAL = [
  'vitest.config.ts',
  'package-lock.json',
  'scripts/kit/reporter.ts',
  'scripts/kit/raw-report.js',
  'scripts/kit/trace.ts',
  'scripts/kit/trace-plugin.ts',
  'tests/setup.ts',
];

/** The stored results of one test file. */
export interface CachedChapter {
  key: string;
  tests: TestOutcome[];
  errors: string[];
  /** The fingerprint's shape, when the results may be reused after edits inside regions the run did not reach. */
  shape?: string;
  /** Every region the run reached (in a test or outside one), with the hash of its inside then. */
  regions?: Record<string, string>;
}

type CacheFile = {
  version: number;
  targets: Record<string, Record<string, CachedChapter>>;
  /** Source files (relative to the root) with the hash of the text last seen to compile (compiles.ts). */
  compiled?: Record<string, string>;
};

const cachePath = (root: string) => path.join(root, '.kit/results.json');

function listTests(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTests(full));
    else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out.sort();
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

/** The test files of a chapter, absolute. */
export const chapterTestFiles = (root: string, chapter: number) => listTests(path.join(root, chapterDir(chapter)));

function resolveFile(base: string): string | undefined {
  const candidates = [base, base.replace(/\.(m|c)?js$/, '.$1ts'), `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((file) => existsSync(file) && statSync(file).isFile());
}

/** Every file reachable by imports from `entries` (bare package imports are covered by package-lock.json). */
export function importClosure(
  entries: readonly string[],
  src: string,
  read: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): string[] {
  const seen = new Set<string>();
  const stack = [...entries];
  while (stack.length) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.[cm]?[jt]s$/.test(file)) continue;
    const code = read(file);
    for (const match of code.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3]!;
      let base: string | undefined;
      if (spec === 'kit') base = path.join(src, 'index.ts');
      else if (spec.startsWith('kit/')) base = path.join(src, spec.slice(4));
      else if (spec.startsWith('.')) base = path.resolve(path.dirname(file), spec);
      const resolved = base && resolveFile(base);
      if (resolved && !seen.has(resolved)) stack.push(resolved);
    }
  }
  return [...seen].sort();
}

/** The cache key of one chapter's results against `src` (the directory the `kit` alias points at). */
export function chapterKey(root: string, src: string, chapter: number): string {
  return fingerprintOf(root, src, chapter, chapterTestFiles(root, chapter), reader()).key;
}

/** The cache key of one test file's results against `src` (the directory the `kit` alias points at). */
export function testFileKey(root: string, src: string, file: string): string {
  return testFileKeys(root, src, [file]).get(file)!;
}

/** The keys of several test files at once, each file they share read only once. */
export function testFileKeys(root: string, src: string, files: readonly string[]): Map<string, string> {
  return new Map([...fingerprints(root, src, files)].map(([file, print]) => [file, print.key]));
}

/** What one test file's results depend on (see the top of this file). */
export interface Fingerprint {
  /** Every byte of every input: equal means the stored results can be read back as they are. */
  key: string;
  /** The same inputs with the inside of every chapter region of the source tree left out (marker lines kept). */
  shape: string;
  /** The inside of each chapter region of the sources it can load, hashed, by label (`chapter N: name`). */
  regions: Map<string, string>;
  /** Those sources (absolute) with a hash of their text: each must still compile before results are reused by region. */
  sources: Map<string, string>;
  /** False when the tests run the tree in a child process (they read `KIT_SOURCE`), which the region trace cannot see. */
  traced: boolean;
}

/** The fingerprints of several test files at once, each file they share read and split only once. */
export function fingerprints(root: string, src: string, files: readonly string[]): Map<string, Fingerprint> {
  const read = reader();
  return new Map(
    files.map((file) => {
      const absolute = path.resolve(root, file);
      const chapter = Number(/chapter(\d+)[\\/]/.exec(path.relative(root, absolute))?.[1] ?? 0);
      return [file, fingerprintOf(root, src, chapter, [absolute], read)];
    }),
  );
}

const sha1 = (data: string | Buffer) => createHash('sha1').update(data).digest('hex');

/** One read, one hash and one region split per file, shared by every fingerprint taken with it. */
function reader() {
  const files = new Map<string, { content: Buffer | null; hash: string; split?: RegionSplit }>();
  return (file: string) => {
    let entry = files.get(file);
    if (!entry) {
      const content = existsSync(file) ? readFileSync(file) : null;
      entry = { content, hash: content ? sha1(content) : 'missing' };
      files.set(file, entry);
    }
    return entry as { content: Buffer | null; hash: string; split?: RegionSplit };
  };
}
type Reader = ReturnType<typeof reader>;

interface RegionSplit {
  /** The text with every region's inside taken out. */
  outside: string;
  /** Each region's inside, by label. */
  inside: Map<string, string>;
}

/**
 * A source file split at its chapter regions. A file whose markers do not pair up (a learner deleted one) is all
 * "outside": any edit to it then counts as a change of shape.
 */
export function splitRegions(text: string): RegionSplit {
  const lines = text.split('\n');
  let regions: Region[];
  try {
    regions = parseRegions(text);
  } catch {
    return { outside: text, inside: new Map() };
  }
  const outside: string[] = [];
  const inside = new Map<string, string>();
  let cursor = 0;
  for (const region of regions) {
    outside.push(...lines.slice(cursor, region.start + 1));
    const label = `chapter ${region.chapter}: ${region.name}`;
    const body = lines.slice(region.start + 1, region.end).join('\n');
    inside.set(label, inside.has(label) ? `${inside.get(label)}\0${body}` : body);
    cursor = region.end;
  }
  outside.push(...lines.slice(cursor));
  return { outside: outside.join('\n'), inside };
}

function fingerprintOf(
  root: string,
  src: string,
  chapter: number,
  tests: readonly string[],
  read: Reader,
): Fingerprint {
  const head = `v${VERSION} node ${process.version} ${path.relative(root, src)}\ntests ${tests.length}\n`;
  const key = createHash('sha1').update(head);
  const shape = createHash('sha1').update(head);
  const regions = new Map<string, string>();
  const sources = new Map<string, string>();
  let traced = true;
  const inSrc = (file: string) => !path.relative(src, file).startsWith('..');
  const add = (file: string) => {
    const entry = read(file);
    const name = `${path.relative(root, file)}\0`;
    key.update(name).update(entry.hash).update('\0');
    shape.update(name);
    if (!entry.content || !inSrc(file) || !/\.[cm]?ts$/.test(file)) {
      shape.update(entry.hash).update('\0');
      return;
    }
    entry.split ??= splitRegions(entry.content.toString('utf8'));
    shape.update(sha1(entry.split.outside)).update('\0');
    sources.set(file, entry.hash);
    for (const [label, body] of entry.split.inside) {
      const hash = sha1(`${path.relative(src, file)}\0${body}`);
      regions.set(label, regions.has(label) ? sha1(`${regions.get(label)}${hash}`) : hash);
    }
  };
  for (const rel of GLOBAL) add(path.join(root, rel));
  // Every file of the chapter's test folder (data a test reads without importing it too), then what the tests import.
  const own = listFiles(path.join(root, chapterDir(chapter))).filter((f) => !/[\\/]wrong[\\/]|\.md$/.test(f));
  const closure = importClosure(
    [...tests, path.join(root, 'tests/setup.ts')],
    src,
    (file) => read(file).content?.toString('utf8') ?? '',
  );
  let files = [...new Set([...own, ...closure])];
  // A test that runs the tree in a child process (it reads KIT_SOURCE, as chapter 14's stdio test does) can load any
  // file of the tree, and the kit's own scripts that serve it: all of them are its inputs.
  if (closure.some((file) => !inSrc(file) && read(file).content?.includes('KIT_SOURCE'))) {
    files = [...new Set([...files, ...listFiles(src), ...listFiles(path.join(root, 'scripts'))])];
    traced = false;
  }
  for (const file of files.sort()) add(file);
  return { key: key.digest('hex'), shape: shape.digest('hex'), regions, sources, traced };
}

/**
 * How stored results can be reused against a fingerprint: 'exact' when no input changed; 'regions' when only the
 * inside of regions changed and none of them was reached by the stored run (the caller must still check that every
 * changed source compiles: a syntax error anywhere in a file fails every test that loads it); undefined otherwise.
 */
export function reuseOf(entry: CachedChapter | undefined, print: Fingerprint): 'exact' | 'regions' | undefined {
  if (!entry) return undefined;
  if (entry.key === print.key) return 'exact';
  if (!entry.shape || !entry.regions || entry.shape !== print.shape || !print.traced) return undefined;
  return Object.entries(entry.regions).every(([label, hash]) => print.regions.get(label) === hash)
    ? 'regions'
    : undefined;
}

/**
 * The entry to store for a test file's fresh results. It can be reused by region only when the run was clean (no
 * error outside a test, every test file loaded) and every region it reached is one of the fingerprint's.
 */
export function entryFor(
  print: Fingerprint,
  tests: TestOutcome[],
  errors: string[],
  fileRegions: readonly string[] = [],
): CachedChapter {
  const entry: CachedChapter = { key: print.key, tests, errors };
  const reached = new Set([...fileRegions, ...tests.flatMap((test) => test.regions ?? [])]);
  const clean =
    print.traced &&
    errors.length === 0 &&
    tests.length > 0 &&
    !tests.some((test) => test.name.endsWith(' could not load'));
  if (!clean || [...reached].some((label) => !print.regions.has(label))) return entry;
  return {
    ...entry,
    shape: print.shape,
    regions: Object.fromEntries([...reached].sort().map((label) => [label, print.regions.get(label)!])),
  };
}

function load(root: string): CacheFile {
  try {
    const data = JSON.parse(readFileSync(cachePath(root), 'utf8')) as CacheFile;
    if (data.version === VERSION && data.targets && typeof data.targets === 'object') return data;
  } catch {
    // None yet, or unreadable: start afresh.
  }
  return { version: VERSION, targets: {} };
}

export function readCached(root: string, target: string): Record<string, CachedChapter> {
  return load(root).targets[target] ?? {};
}

/** Source files (relative to the root) with the hash of the text last seen to compile. */
export function readCompiled(root: string): Record<string, string> {
  return load(root).compiled ?? {};
}

/** Stores fresh results for some chapters of a target, keeping the rest. Never throws: a cache is an optimisation. */
export function writeCached(
  root: string,
  target: string,
  chapters: Record<string, CachedChapter>,
  compiled: Record<string, string> = {},
): void {
  try {
    const data = load(root);
    data.targets[target] = { ...(data.targets[target] ?? {}), ...chapters };
    data.compiled = { ...(data.compiled ?? {}), ...compiled };
    mkdirSync(path.dirname(cachePath(root)), { recursive: true });
    const temp = `${cachePath(root)}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(data));
    renameSync(temp, cachePath(root));
  } catch {
    // A read-only checkout or a full disk only costs the next run its speed.
  }
}
