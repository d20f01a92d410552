/**
 * workspaces-baseline.json: the last outcomes of each unlock and known-wrong workspace of verify, with a hash of
 * every input that decides them. A workspace's outcome is a function of its files (the solution with one region
 * replaced, or with later chapters stubbed), the tests it runs with what they import and read, and the files that
 * decide how vitest runs them. When none of these changed since the outcome was recorded, verify reads it back
 * instead of running the workspace again, as mutation testing reads mutation-baseline.json: a clean clone whose
 * baseline matches its tree runs only the solution's and the starter's suites. Every check (caught, pointed at,
 * unlocked) is still made on the outcomes, read back or fresh.
 *
 * Only outcomes whose checks passed are recorded, so a failure, flaky or not, is always run again.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../lib/paths.js';
import type { TestOutcome } from './verify-reporter.js';

export const WORKSPACE_BASELINE = 'workspaces-baseline.json';

/** Bump when what a key covers, or the shape of a record, changes. */
const VERSION = 2;

/** Files that decide how every workspace's tests run, relative to the root. */
const HOW_THEY_RUN = [
  'package-lock.json',
  'tsconfig.base.json',
  'tsconfig.json',
  'vitest.config.ts',
  'scripts/authors/verify.vitest.config.ts',
  'scripts/authors/lib/verify-allow.ts',
  'scripts/authors/lib/verify-reporter.ts',
  'scripts/authors/lib/workspace-baseline.ts',
];

/**
 * A test as the workspace's run gave it: [file, full name, state, messages], or [n, state, messages] for the n-th
 * of the expected tests in the order of their file and name (messages left out when there are none).
 */
type Recorded = [string, string, string, string[]?] | [number, string, string[]?];

interface Entry {
  key: string;
  /** The tests whose outcome is not the expected one (failed, mostly), with their messages. */
  differ?: Recorded[];
  /** Every outcome, when the run's tests were not the expected ones (a test named from the code, say). */
  all?: Recorded[];
}

interface Baseline {
  version: number;
  workspaces: Record<string, Entry>;
}

/** What a workspace's run gives when nothing in it fails: its tests, each passed or skipped. */
export type Expected = ReadonlyArray<Pick<TestOutcome, 'file' | 'name' | 'state'>>;

const id = (o: Pick<TestOutcome, 'file' | 'name'>) => `${o.file}\0${o.name}`;
/** The expected tests in a fixed order (by file and name), whatever order the run reported them in. */
const ordered = (expected: Expected) => [...expected].sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));

function encode(o: TestOutcome, index: ReadonlyMap<string, number>): Recorded {
  const n = index.get(id(o));
  if (n === undefined) return o.messages.length > 0 ? [o.file, o.name, o.state, o.messages] : [o.file, o.name, o.state];
  return o.messages.length > 0 ? [n, o.state, o.messages] : [n, o.state];
}

function decode(project: string, record: Recorded, expected: Expected): TestOutcome {
  if (typeof record[0] === 'number') {
    const [n, state, messages] = record as [number, string, string[]?];
    const { file, name } = expected[n]!;
    return { project, file, name, state, messages: messages ?? [] };
  }
  const [file, name, state, messages] = record as [string, string, string, string[]?];
  return { project, file, name, state, messages: messages ?? [] };
}

/** `expected` with the outcomes of `differ` in place of theirs, and those of `differ` it lacks after it. */
function rebuild(project: string, expected: Expected, differ: readonly TestOutcome[]): TestOutcome[] {
  const changed = new Map(differ.map((o) => [id(o), o]));
  const known = new Set(expected.map(id));
  return [
    ...expected.map((o) => changed.get(id(o)) ?? { project, file: o.file, name: o.name, state: o.state, messages: [] }),
    ...differ.filter((o) => !known.has(id(o))),
  ];
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Every file under `dir` (relative paths, sorted), for the inputs of a test that runs the tree in a child process. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => statSync(path.join(dir, file)).isFile())
    .map((file) => file.split(path.sep).join('/'))
    .sort();
}

/**
 * The key of a workspace: `inputs` maps a name (its path, `src/...` for the workspace's own sources) to its text;
 * the files of HOW_THEY_RUN and Node's major version are added here.
 */
export function workspaceKey(inputs: ReadonlyMap<string, string>, root = ROOT): string {
  const hash = createHash('sha256').update(`v${VERSION} node ${process.versions.node.split('.')[0]}\n`);
  const all = new Map(inputs);
  for (const rel of HOW_THEY_RUN) {
    const file = path.join(root, rel);
    all.set(rel, existsSync(file) ? readFileSync(file, 'utf8') : '(missing)');
  }
  for (const name of [...all.keys()].sort()) hash.update(`${name}\0${sha(all.get(name)!)}\n`);
  return hash.digest('hex').slice(0, 24);
}

export function readWorkspaceBaseline(root = ROOT): Baseline {
  const file = path.join(root, WORKSPACE_BASELINE);
  if (!existsSync(file)) return { version: VERSION, workspaces: {} };
  const baseline = JSON.parse(readFileSync(file, 'utf8')) as Baseline;
  return baseline.version === VERSION ? baseline : { version: VERSION, workspaces: {} };
}

/** The outcomes recorded for `name` under `key`, as the workspace's run would give them, or undefined. */
export function recordedOutcomes(
  baseline: Baseline,
  name: string,
  key: string,
  expected: Expected,
): TestOutcome[] | undefined {
  const entry = baseline.workspaces[name];
  if (entry?.key !== key) return undefined;
  const order = ordered(expected);
  if (entry.all) return entry.all.map((r) => decode(name, r, order));
  return rebuild(
    name,
    expected,
    (entry.differ ?? []).map((r) => decode(name, r, order)),
  );
}

/**
 * Writes the baseline: each workspace of `kept` with its key and outcomes, stored as the tests that differ from
 * `expected` (or whole, when rebuilding from them would not give the same outcomes back). A workspace not in `kept`
 * is dropped, so the file holds only what the last verify found good, unless `keepOthers` (a verify of some
 * chapters, which saw only theirs).
 */
export function writeWorkspaceBaseline(
  kept: ReadonlyMap<string, { key: string; outcomes: readonly TestOutcome[]; expected: Expected }>,
  keepOthers = false,
  root = ROOT,
): void {
  const entries = new Map<string, Entry>(keepOthers ? Object.entries(readWorkspaceBaseline(root).workspaces) : []);
  for (const [name, { key, outcomes, expected }] of kept) {
    const wanted = new Map(expected.map((o) => [id(o), o.state]));
    const differ = outcomes.filter((o) => wanted.get(id(o)) !== o.state || o.messages.length > 0);
    const back = rebuild(name, expected, differ);
    const got = new Set(outcomes.map((o) => `${id(o)}\0${o.state}`));
    const same =
      got.size === outcomes.length &&
      back.length === outcomes.length &&
      back.every((o) => got.has(`${id(o)}\0${o.state}`));
    const index = new Map(ordered(expected).map((o, n) => [id(o), n]));
    const code = (o: TestOutcome) => encode(o, index);
    entries.set(name, same ? { key, differ: differ.map(code) } : { key, all: outcomes.map(code) });
  }
  // One workspace per line: a change to one shows in a diff as a change to its line.
  const lines = [...entries.keys()]
    .sort()
    .map((name) => `    ${JSON.stringify(name)}: ${JSON.stringify(entries.get(name))}`);
  writeFileSync(
    path.join(root, WORKSPACE_BASELINE),
    `{\n  "version": ${VERSION},\n  "workspaces": {\n${lines.join(',\n')}\n  }\n}\n`,
  );
}
