/**
 * The learner's type check, as `npm test`, watch and doctor run it: the native compiler over the starter and the
 * tests (tsconfig.starter.json), or, for some chapters, over those chapters' tests and every file they load (the
 * starter files they reach through `kit`, the helpers, tests/setup.ts). A chapter's check reads about a sixth of the
 * files the whole one does (chapter 1: 223 of 1414) and, after a save, takes a few tenths of a second where the
 * whole one took one to three seconds on a loaded 2-core machine. Code no test of those chapters loads cannot change
 * their results, so it is left to the chapters that load it (and to `npm test` with no chapter, watch's later
 * chapters, doctor, npm run typecheck).
 *
 * Each scope keeps its own incremental state (.kit/tsc-<scope>.tsbuildinfo) and its last result in
 * .kit/typecheck.json under a hash of every file tsc can read from the project (the starter, the tests, the configs,
 * the installed versions): when none changed, the result is read back and no compiler starts, whichever command
 * checked last.
 *
 * Plain JavaScript (types in starter-types.d.ts) so that `npm test` loads it with no TypeScript loader.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chapterDir } from './chapters.js';
import { runTsc } from './tsc.js';

/** Bump when what a stored result means changes. */
const VERSION = 1;

/** The scope's name: `all`, or the chapters' numbers (`ch1`, `ch1-3-7`). */
export function typecheckScope(chapters) {
  const list = [...new Set(chapters ?? [])].sort((a, b) => a - b);
  return list.length ? `ch${list.join('-')}` : 'all';
}

/**
 * Type-checks the starter for `chapters` (none or empty: everything tsconfig.starter.json includes). Resolves to
 * { code, output, cached, ms, scope }: tsc's exit code (null when it was stopped) and what it printed; cached when
 * the result was read back; undefined when typescript is not installed. Rejects when tsc cannot start or `signal`
 * aborts it.
 */
export async function checkStarterTypes(root, options = {}) {
  const started = Date.now();
  const scope = typecheckScope(options.chapters);
  const kitDir = path.join(root, '.kit');
  const cacheFile = path.join(kitDir, 'typecheck.json');
  const key = typecheckKey(root);
  const stored = readStored(cacheFile);
  const hit = stored[scope];
  if (hit?.key === key) return { code: hit.code, output: hit.output, cached: true, ms: Date.now() - started, scope };
  mkdirSync(kitDir, { recursive: true });
  let project = 'tsconfig.starter.json';
  if (scope !== 'all') {
    project = `.kit/tsconfig.${scope}.json`;
    const include = [...new Set(options.chapters)]
      .sort((a, b) => a - b)
      .map((n) => `../${chapterDir(n).replace(/\/$/, '')}`);
    const config = { extends: '../tsconfig.starter.json', include: [...include, '../tests/setup.ts'] };
    writeIfChanged(path.join(root, project), `${JSON.stringify(config, null, 2)}\n`);
  }
  const args = [
    '-p',
    project,
    '--noEmit',
    '--pretty',
    'false',
    // One checker thread: the other core runs vitest.
    '--singleThreaded',
    '--incremental',
    '--tsBuildInfoFile',
    `.kit/tsc-${scope === 'all' ? 'starter' : scope}.tsbuildinfo`,
  ];
  const ran = await runTsc(root, args, { signal: options.signal });
  if (!ran) return undefined;
  // Stored only when nothing changed while tsc ran (else the result may be of neither version).
  if (ran.code !== null && typecheckKey(root) === key) {
    const now = readStored(cacheFile);
    now[scope] = { key, code: ran.code, output: ran.output };
    try {
      const temp = `${cacheFile}.${process.pid}`;
      writeFileSync(temp, JSON.stringify({ version: VERSION, scopes: now }));
      renameSync(temp, cacheFile);
    } catch {
      // A result that cannot be stored only costs the next run a compile.
    }
  }
  return { code: ran.code, output: ran.output, cached: false, ms: Date.now() - started, scope };
}

function readStored(file) {
  try {
    const data = JSON.parse(readFileSync(file, 'utf8'));
    if (data?.version === VERSION && data.scopes && typeof data.scopes === 'object') return data.scopes;
  } catch {
    // No results yet, or an unreadable file: check.
  }
  return {};
}

function writeIfChanged(file, text) {
  try {
    if (readFileSync(file, 'utf8') === text) return;
  } catch {
    // not there yet
  }
  writeFileSync(file, text);
}

/** A hash of the files tsc can read for tsconfig.starter.json (the starter, the tests, the configs, the installed versions). */
export function typecheckKey(root) {
  const hash = createHash('sha1');
  const add = (rel) => {
    const file = path.join(root, rel);
    let stat;
    try {
      stat = statSync(file);
    } catch {
      hash.update(`${rel}\0missing\0`);
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(file).sort()) if (name !== 'node_modules') add(`${rel}/${name}`);
    } else if (/\.(ts|json|mts|cts)$/.test(rel)) hash.update(`${rel}\0`).update(readFileSync(file)).update('\0');
  };
  for (const rel of ['starter/src', 'tests', 'tsconfig.starter.json', 'tsconfig.base.json', 'package-lock.json'])
    add(rel);
  return hash.digest('hex');
}
