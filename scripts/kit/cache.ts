/**
 * Results reused while their inputs have not changed (issue 19 item 7, issue 18): progress, hint, solution, doctor
 * and watch re-run only the test files whose tests or code changed since the last run and read the others from
 * .kit/results.json.
 *
 * A test file's key is a hash of every file it can load, found by following the imports from it (and from
 * tests/setup.ts) through the test helpers and, via the `kit` alias, the target's source files, plus the other files
 * of its chapter's folder (data a test may read without importing it), the files that decide how tests run
 * (vitest.config.ts, the kit's reporter and region trace, package-lock.json) and Node's version. Edit
 * starter/src/agent.ts and only the test files that reach agent.ts run again, in whichever chapter they are; the
 * others are read back. `npm run grade` never reads the cache: an instructor grades what runs now.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chapterDir } from '../lib/chapters.js';
import type { TestOutcome } from './run-tests.js';

/** Bump when the shape of a cached outcome changes. */
const VERSION = 3;
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|[\s;])import\s+['"]([^'"]+)['"]/g;
/** Files that decide how every test runs, relative to the root. */
const GLOBAL = ['vitest.config.ts', 'package-lock.json', 'scripts/kit/reporter.ts', 'scripts/kit/trace.ts', 'scripts/kit/trace-plugin.ts', 'tests/setup.ts'];

/** The stored results of one test file. */
export interface CachedChapter {
  key: string;
  tests: TestOutcome[];
  errors: string[];
}

type CacheFile = { version: number; targets: Record<string, Record<string, CachedChapter>> };

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
export function importClosure(entries: readonly string[], src: string, read: (file: string) => string = (file) => readFileSync(file, 'utf8')): string[] {
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
  return keyOf(root, src, chapter, chapterTestFiles(root, chapter));
}

/** The cache key of one test file's results against `src` (the directory the `kit` alias points at). */
export function testFileKey(root: string, src: string, file: string): string {
  return testFileKeys(root, src, [file]).get(file)!;
}

/** The keys of several test files at once, each file they share read only once. */
export function testFileKeys(root: string, src: string, files: readonly string[]): Map<string, string> {
  const contents = new Map<string, Buffer | null>();
  const read = (file: string) => {
    if (!contents.has(file)) contents.set(file, existsSync(file) ? readFileSync(file) : null);
    return contents.get(file);
  };
  return new Map(
    files.map((file) => {
      const absolute = path.resolve(root, file);
      const chapter = Number(/chapter(\d+)[\\/]/.exec(path.relative(root, absolute))?.[1] ?? 0);
      return [file, keyOf(root, src, chapter, [absolute], read)];
    }),
  );
}

function keyOf(root: string, src: string, chapter: number, tests: readonly string[], read?: (file: string) => Buffer | null | undefined): string {
  const hash = createHash('sha1').update(`v${VERSION} node ${process.version} ${path.relative(root, src)}\n`);
  const add = (file: string) => {
    const rel = path.relative(root, file);
    hash.update(`${rel}\0`);
    const content = read ? read(file) : existsSync(file) ? readFileSync(file) : null;
    hash.update(content ?? 'missing');
    hash.update('\0');
  };
  for (const rel of GLOBAL) add(path.join(root, rel));
  hash.update(`tests ${tests.length}\n`);
  // Every file of the chapter's test folder (data a test reads without importing it too), then what the tests import.
  const own = listFiles(path.join(root, chapterDir(chapter))).filter((f) => !/[\\/]wrong[\\/]|\.md$/.test(f));
  const closure = importClosure([...tests, path.join(root, 'tests/setup.ts')], src, read ? (file) => read(file)?.toString('utf8') ?? '' : undefined);
  for (const file of [...new Set([...own, ...closure])].sort()) add(file);
  return hash.digest('hex');
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

/** Stores fresh results for some chapters of a target, keeping the rest. Never throws: a cache is an optimisation. */
export function writeCached(root: string, target: string, chapters: Record<string, CachedChapter>): void {
  try {
    const data = load(root);
    data.targets[target] = { ...(data.targets[target] ?? {}), ...chapters };
    mkdirSync(path.dirname(cachePath(root)), { recursive: true });
    const temp = `${cachePath(root)}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(data));
    renameSync(temp, cachePath(root));
  } catch {
    // A read-only checkout or a full disk only costs the next run its speed.
  }
}
