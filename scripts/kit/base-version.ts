/**
 * Grading a learner's repository against the kit's own tests: which kit version they started from, a clean copy of
 * that version with only the learner's starter/src in it, and every other file of theirs that differs from it.
 *
 * The learner's repository is untrusted. Nothing in it runs here: git reads its history with every setting that
 * could start a program overridden, files are read as bytes (symbolic links are reported, never followed), and the
 * learner's code runs only later, inside the test run of the temp copy made here.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

/** What the learner writes; everything else in their repository should be the kit's. */
export const LEARNER_DIR = 'starter/src';

/** How the base version was found. */
export type BaseHow = 'history' | 'tree' | 'kit';

export interface Base {
  /** The kit commit, or undefined when the kit itself is not a git checkout (its files as they are). */
  commit?: string;
  how: BaseHow;
  /** One sentence for the instructor: which version, and how it was found. */
  note: string;
}

export interface Finding {
  file: string;
  kind: 'changed' | 'deleted' | 'added' | 'symlink' | 'missing' | 'reaches outside';
  detail?: string;
}

// Settings a repository's own .git/config could use to run a program during `git log`; the command line wins.
const SAFE_GIT = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'log.showSignature=false',
  '-c',
  'gpg.program=false',
  '-c',
  'core.pager=cat',
  '--no-pager',
];

function git(dir: string, args: string[]): string | undefined {
  const result = spawnSync('git', [...SAFE_GIT, '-C', dir, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' },
  });
  return result.status === 0 ? result.stdout : undefined;
}

const isRepo = (dir: string) =>
  git(dir, ['rev-parse', '--is-inside-work-tree'])?.trim() === 'true' &&
  path.resolve(git(dir, ['rev-parse', '--show-toplevel'])!.trim()) === path.resolve(dir);

/** Commit and tree of every commit reachable from HEAD (newest first), or [] when dir is not its own git repository. */
function history(dir: string, all = false): Array<{ commit: string; tree: string }> {
  if (!isRepo(dir)) return [];
  const out = git(dir, ['log', '--no-show-signature', '--format=%H %T', ...(all ? ['--all'] : ['HEAD'])]) ?? '';
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [commit, tree] = line.split(' ');
      return { commit: commit!, tree: tree! };
    });
}

/** The learner's HEAD commit and its committer date (UTC ISO 8601), when their folder is a git repository. */
export function learnerHead(dir: string): { commit: string; date: string } | undefined {
  if (!isRepo(dir)) return undefined;
  const out = git(dir, ['log', '-1', '--no-show-signature', '--format=%H %ct', 'HEAD'])?.trim();
  if (!out) return undefined;
  const [commit, seconds] = out.split(' ');
  return { commit: commit!, date: new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

/**
 * The kit version a learner started from: the newest commit of their history that is also in the kit's history; else
 * the newest of their commits whose files are exactly a kit commit's (a repository made from a template starts with
 * such a commit); else the grading kit's own version, said so.
 */
export function findBase(kitRoot: string, learnerDir: string): Base {
  const kit = history(kitRoot, true);
  const own = isRepo(kitRoot) ? git(kitRoot, ['rev-parse', 'HEAD'])?.trim() : undefined;
  const short = (sha: string) => sha.slice(0, 10);
  if (kit.length) {
    const commits = new Set(kit.map((c) => c.commit));
    const trees = new Map<string, string>();
    for (const c of [...kit].reverse()) trees.set(c.tree, c.commit);
    const theirs = history(learnerDir);
    const shared = theirs.find((c) => commits.has(c.commit));
    if (shared)
      return {
        commit: shared.commit,
        how: 'history',
        note: `kit ${short(shared.commit)}, the newest commit their history shares with the kit`,
      };
    const same = theirs.find((c) => trees.has(c.tree));
    if (same) {
      const commit = trees.get(same.tree)!;
      return {
        commit,
        how: 'tree',
        note: `kit ${short(commit)}, whose files their commit ${short(same.commit)} has exactly (no shared history)`,
      };
    }
    const why = theirs.length ? 'their history shares no commit with the kit' : 'their folder is not a git repository';
    return { commit: own, how: 'kit', note: `the grading kit's own version ${short(own!)}: ${why}` };
  }
  return { how: 'kit', note: `the grading kit's files as they are in ${kitRoot}: the kit is not a git checkout` };
}

// Folders never read in a learner's repository or copied from the kit: installs, caches, git's own data.
const NEVER = new Set(['.git', 'node_modules', '.kit']);

/** A matcher for the simple .gitignore patterns the kit uses (`name/`, `*.log`, `a/b/`, `.verify-*`/). */
export function ignoreMatcher(text: string): (rel: string, isDir: boolean) => boolean {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#') && !line.startsWith('!'))
    .map((line) => {
      const dirOnly = line.endsWith('/');
      const body = line.replace(/^\/|\/$/g, '');
      const anchored = body.includes('/');
      const source = body
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*');
      return { dirOnly, re: new RegExp(anchored ? `^${source}$` : `(^|/)${source}$`) };
    });
  return (rel, isDir) => rules.some((rule) => (!rule.dirOnly || isDir) && rule.re.test(rel));
}

interface Walked {
  files: string[];
  symlinks: string[];
}

/** Every regular file under dir (relative, '/'-separated, sorted), skipping `skip(rel)` and what the kit ignores. */
function walk(dir: string, skip: (rel: string, isDir: boolean) => boolean): Walked {
  const files: string[] = [];
  const symlinks: string[] = [];
  const visit = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) {
        if (!NEVER.has(entry.name) && !skip(child, false)) symlinks.push(child);
      } else if (entry.isDirectory()) {
        if (!NEVER.has(entry.name) && !skip(child, true)) visit(child);
      } else if (entry.isFile() && !skip(child, false)) files.push(child);
    }
  };
  visit('');
  return { files: files.sort(), symlinks: symlinks.sort() };
}

const inLearnerDir = (rel: string) => rel === LEARNER_DIR || rel.startsWith(`${LEARNER_DIR}/`);

function kitSkip(baseDir: string) {
  const ignored = ignoreMatcher(
    existsSync(path.join(baseDir, '.gitignore')) ? readFileSync(path.join(baseDir, '.gitignore'), 'utf8') : '',
  );
  return (rel: string, isDir: boolean) => inLearnerDir(rel) || ignored(rel, isDir);
}

const sameText = (a: Buffer, b: Buffer) =>
  a.equals(b) || a.toString('latin1').replace(/\r\n/g, '\n') === b.toString('latin1').replace(/\r\n/g, '\n');

/**
 * Every file outside starter/src where the learner's folder differs from the base: changed, deleted, added, or a
 * symbolic link (anywhere, starter/src included: it is never followed). Line endings alone are not a change.
 */
export function compareToBase(baseDir: string, learnerDir: string): Finding[] {
  const skip = kitSkip(baseDir);
  const base = walk(baseDir, skip).files;
  const theirs = walk(learnerDir, skip);
  const src = path.join(learnerDir, LEARNER_DIR);
  const srcStat = existsSync(src) || isLink(src) ? lstatSync(src) : undefined;
  const own = srcStat?.isDirectory()
    ? walk(src, () => false).symlinks.map((rel) => `${LEARNER_DIR}/${rel}`)
    : srcStat?.isSymbolicLink()
      ? [LEARNER_DIR]
      : [];
  const findings: Finding[] = [];
  const have = new Set(theirs.files);
  for (const file of base) {
    if (!have.has(file)) findings.push({ file, kind: 'deleted' });
    else if (!sameText(readFileSync(path.join(baseDir, file)), readFileSync(path.join(learnerDir, file)))) {
      findings.push({
        file,
        kind: 'changed',
        ...(file.endsWith('.json') && !parses(path.join(learnerDir, file)) ? { detail: 'not valid JSON' } : {}),
      });
    }
  }
  const known = new Set(base);
  for (const file of theirs.files) if (!known.has(file)) findings.push({ file, kind: 'added' });
  for (const link of [...theirs.symlinks, ...own])
    findings.push({ file: link, kind: 'symlink', detail: 'not followed' });
  if (srcStat?.isDirectory()) findings.push(...reachesOutside(src));
  if (!srcStat) findings.push({ file: LEARNER_DIR, kind: 'missing', detail: 'nothing of theirs to grade' });
  return findings.sort((a, b) => a.file.localeCompare(b.file) || a.kind.localeCompare(b.kind));
}

// A module specifier in an import, export … from, import() or require(): the string the code names.
const SPECIFIER = /\b(?:from|import|require)\s*\(?\s*(['"`])([^'"`\n]+)\1/g;

/**
 * Imports in the learner's code that name a file outside starter/src (the kit's solution/, another folder, an
 * absolute path): in the graded copy they would load code that is not theirs. Packages and node: modules are fine.
 * Only specifiers written as strings are seen; a path built at run time is not (the log says what was read).
 */
export function reachesOutside(srcDir: string): Finding[] {
  const findings: Finding[] = [];
  for (const file of walk(srcDir, () => false).files) {
    if (!/\.(ts|tsx|mts|cts|js|mjs|cjs|json)$/.test(file)) continue;
    const text = readFileSync(path.join(srcDir, file), 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const spec = match[2]!;
      const absolute = path.isAbsolute(spec) || /^file:/i.test(spec);
      const escapes =
        spec.startsWith('.') &&
        path.relative(srcDir, path.resolve(path.dirname(path.join(srcDir, file)), spec)).startsWith('..');
      if (!absolute && !escapes) continue;
      const line = text.slice(0, match.index).split('\n').length;
      findings.push({
        file: `${LEARNER_DIR}/${file}`,
        kind: 'reaches outside',
        detail: `line ${line} imports ${spec}`,
      });
    }
  }
  return findings;
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

function parses(file: string): boolean {
  try {
    JSON.parse(readFileSync(file, 'utf8'));
    return true;
  } catch {
    return false;
  }
}

/** Extracts the base version's files into dir (once per version per class run). */
export async function materializeBase(kitRoot: string, base: Base, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  if (!base.commit) {
    const skip = kitSkip(kitRoot);
    for (const file of walk(kitRoot, (rel, isDir) => !inLearnerDir(rel) && skip(rel, isDir)).files) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      cpSync(path.join(kitRoot, file), path.join(dir, file));
    }
    return;
  }
  const archive = spawn('git', [...SAFE_GIT, '-C', kitRoot, 'archive', '--format=tar', base.commit], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tar = spawn('tar', ['-x', '-f', '-', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] });
  let errors = '';
  archive.stderr.on('data', (chunk) => (errors += chunk));
  tar.stderr.on('data', (chunk) => (errors += chunk));
  archive.stdout.pipe(tar.stdin);
  // Both must end well, in whichever order they close.
  const exit = (child: ChildProcess) =>
    new Promise<number | null>((resolve) => {
      child.on('error', (error) => {
        errors += `${error.message}\n`;
        resolve(-1);
      });
      child.on('close', resolve);
    });
  const [archived, extracted] = await Promise.all([exit(archive), exit(tar)]);
  if (archived !== 0 || extracted !== 0)
    throw new Error(
      `could not extract kit ${base.commit} (git archive ${archived}, tar ${extracted}): ${errors.trim()}`,
    );
}

/**
 * A clean copy of the base with the learner's starter/src (regular files only) in place of the kit's, and the
 * grading kit's installed node_modules linked in: nothing of the learner's is installed or run to make it.
 */
export function prepareCopy(kitRoot: string, baseDir: string, learnerDir: string, copyDir: string): void {
  rmSync(copyDir, { recursive: true, force: true });
  cpSync(baseDir, copyDir, {
    recursive: true,
    filter: (source) => !inLearnerDir(path.relative(baseDir, source).split(path.sep).join('/')),
  });
  const from = path.join(learnerDir, LEARNER_DIR);
  const to = path.join(copyDir, LEARNER_DIR);
  mkdirSync(to, { recursive: true });
  if (existsSync(from) && lstatSync(from).isDirectory()) {
    for (const file of walk(from, () => false).files) {
      mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
      writeFileSync(path.join(to, file), readFileSync(path.join(from, file)));
    }
  }
  symlinkSync(path.join(kitRoot, 'node_modules'), path.join(copyDir, 'node_modules'), 'dir');
}

/** Whether the base's package-lock.json differs from the grading kit's (its tests then run on the kit's installs). */
export function lockDiffers(kitRoot: string, baseDir: string): boolean {
  const read = (dir: string) =>
    existsSync(path.join(dir, 'package-lock.json'))
      ? readFileSync(path.join(dir, 'package-lock.json'))
      : Buffer.alloc(0);
  return !read(kitRoot).equals(read(baseDir));
}
