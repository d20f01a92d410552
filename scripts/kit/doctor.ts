/** npm run doctor: checks the set-up and says how to fix each problem found. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildWorkspace, listSources, rewriteRegions, withoutLinterNotes } from '../lib/regions.js';
import { chaptersWithTests, parseCommandArgs } from './args.js';
import { filesToRerun, unfinishedRegions } from './rerun.js';
import { runTests, scoreByChapter, type TestOutcome } from './run-tests.js';
import { formatTypeErrors, typecheckStarter, type TypecheckResult } from './typecheck.js';
import { dim, green, indent, red, yellow } from './ui.js';

export interface Check {
  ok: boolean;
  what: string;
  /** How to fix it, when not ok. */
  fix?: string;
  /** Only a warning: the kit still works. */
  warn?: boolean;
}

const MIN_NODE = [20, 11, 0];

export function nodeCheck(version = process.versions.node): Check {
  const parts = version.split('.').map(Number);
  let ok = true;
  for (let i = 0; i < 3; i++) {
    if (parts[i]! !== MIN_NODE[i]!) {
      ok = parts[i]! > MIN_NODE[i]!;
      break;
    }
  }
  return ok
    ? { ok, what: `Node ${version} (>= ${MIN_NODE.join('.')})` }
    : {
        ok,
        what: `Node ${version} is too old: the kit needs ${MIN_NODE.join('.')} or newer`,
        fix: 'Install Node 20.11+ (22 or 24 are fine), e.g. with nvm: "nvm install 22"',
      };
}

/** node_modules exists and every package in package-lock.json is installed at the locked version. */
export function installCheck(root: string): Check[] {
  if (!existsSync(path.join(root, 'node_modules'))) {
    return [{ ok: false, what: 'node_modules is missing: dependencies are not installed', fix: 'Run "npm install"' }];
  }
  const lockFile = path.join(root, 'package-lock.json');
  if (!existsSync(lockFile))
    return [
      {
        ok: false,
        what: 'package-lock.json is missing',
        fix: 'Restore it with "git checkout package-lock.json", then run "npm install"',
        warn: true,
      },
    ];
  const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as {
    packages: Record<string, { version?: string; optional?: boolean; link?: boolean; dev?: boolean }>;
  };
  const missing: string[] = [];
  const wrong: string[] = [];
  let checked = 0;
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (!key.startsWith('node_modules/') || entry.link || !entry.version) continue;
    const manifest = path.join(root, key, 'package.json');
    if (!existsSync(manifest)) {
      if (!entry.optional) missing.push(key.slice('node_modules/'.length));
      continue;
    }
    checked++;
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
    if (version !== entry.version)
      wrong.push(`${key.slice('node_modules/'.length)} ${version} (locked ${entry.version})`);
  }
  const checks: Check[] = [];
  if (missing.length)
    checks.push({
      ok: false,
      what: `${missing.length} locked package(s) are not installed: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}`,
      fix: 'Run "npm install" (or "npm ci" for a clean install)',
    });
  if (wrong.length)
    checks.push({
      ok: false,
      what: `${wrong.length} package(s) differ from package-lock.json: ${wrong.slice(0, 5).join(', ')}${wrong.length > 5 ? ', …' : ''}`,
      fix: 'Run "npm ci" to install exactly the locked versions',
    });
  if (checks.length === 0)
    checks.push({ ok: true, what: `dependencies installed (${checked} packages match package-lock.json)` });
  return checks;
}

/** starter/src equals the generated starter everywhere outside the chapter regions. */
export function starterSyncCheck(root: string): Check[] {
  const starterSrc = path.join(root, 'starter/src');
  const generated = buildWorkspace(path.join(root, 'solution/src'), () => true).files;
  // Region bodies emptied, the TodoError import dropped (a file whose stubs are all written may lose it), and the
  // solution's notes to the linter, which the starter never has.
  const outside = (text: string, rel: string) =>
    rewriteRegions(withoutLinterNotes(text), '', () => [], rel)
      .split('\n')
      .filter((line) => !/^import \{ TodoError \} from '[./]+todo\.js';$/.test(line));
  const problems: Check[] = [];
  for (const [rel, text] of generated) {
    const file = path.join(starterSrc, rel);
    if (!existsSync(file)) {
      problems.push({
        ok: false,
        what: `starter/src/${rel} is missing`,
        fix: `Restore it: "git checkout -- starter/src/${rel}" (or copy solution/src/${rel} and run "npm run reset -- <chapter>")`,
      });
      continue;
    }
    let mine: string[];
    try {
      mine = outside(readFileSync(file, 'utf8'), rel);
    } catch (error) {
      problems.push({
        ok: false,
        what: `starter/src/${rel}: ${(error as Error).message}`,
        fix: 'Put back the "// #region" / "// #endregion" marker lines as they are in solution/src',
      });
      continue;
    }
    const ref = outside(text, rel);
    const at = mine.findIndex((line, i) => line !== ref[i]);
    if (at >= 0 || mine.length !== ref.length) {
      const line = at >= 0 ? at : Math.min(mine.length, ref.length);
      problems.push({
        ok: false,
        what: `starter/src/${rel} was changed outside its #region blocks (near line ${line + 1} of the file without region bodies)`,
        fix: `Write your code only between the region markers. "git diff starter/src/${rel}" shows what changed; solution/src/${rel} has the original lines`,
        warn: true,
      });
    }
  }
  for (const rel of existsSync(starterSrc) ? listSources(starterSrc) : []) {
    if (!generated.has(rel))
      problems.push({
        ok: false,
        what: `starter/src/${rel} is not part of the kit`,
        fix: 'Fine if you added it on purpose; the graded tests never import it',
        warn: true,
      });
  }
  return problems.length ? problems : [{ ok: true, what: 'starter/src matches the kit outside your stubs' }];
}

/** The checks that need no test run: Node, the install, the starter's files. */
export function setupChecks(root: string): Check[] {
  const checks = [nodeCheck(), ...installCheck(root)];
  if (!existsSync(path.join(root, 'solution/src')))
    checks.push({ ok: false, what: 'solution/src is missing', fix: 'Restore it: "git checkout -- solution"' });
  else checks.push(...starterSyncCheck(root));
  return checks;
}

/** The learner's type errors (the tests strip types without checking them): a warning, with the first few. */
export function typeCheck(result: TypecheckResult): Check {
  if (result.skipped) return { ok: false, warn: true, what: `type check skipped: ${result.skipped}` };
  if (result.ok)
    return {
      ok: true,
      what: `no type errors in starter/src or the tests (tsc, ${(result.duration / 1000).toFixed(1)}s)`,
    };
  return {
    ok: false,
    warn: true,
    what: `${result.errors.length} type error(s); the tests strip types, so they can pass with these:\n${indent(formatTypeErrors(result.errors), '    ')}`,
    fix: 'Fix each at its file:line ("npm run typecheck" lists them all)',
  };
}

/**
 * Whether the results progress showed (`kept`, partly read from .kit/results.json) agree with a fresh run of the same
 * files (`fresh`): a test that failed there and passes now was a stale result. The fresh run has already stored
 * its results; the fix says how to rebuild the whole cache.
 */
export function staleCacheCheck(kept: readonly TestOutcome[], fresh: readonly TestOutcome[]): Check {
  const passesNow = new Set(fresh.filter((t) => t.status === 'passed').map((t) => `${t.file}\0${t.fullName}`));
  const stale = kept.filter((t) => t.status === 'failed' && passesNow.has(`${t.file}\0${t.fullName}`));
  if (!stale.length)
    return { ok: true, what: 'results cache (.kit/results.json): its failures come back when run again' };
  const chapters = [...new Set(stale.map((t) => t.chapter))].sort((a, b) => a - b);
  return {
    ok: false,
    what: `the results cache (.kit/results.json) was stale: ${stale.length} test(s) of chapter${chapters.length > 1 ? 's' : ''} ${chapters.join(', ')} failed there and pass when run again (e.g. "${stale[0]!.fullName}"); doctor stored the new results`,
    warn: true,
    fix: 'Run "npm run progress -- --fresh" to run every chapter again and rewrite .kit/results.json (deleting that file does the same)',
  };
}

/**
 * The checks that run the tests and the type checker (both at once). Both reuse what is stored (.kit/results.json,
 * .kit/typecheck.json): right after progress or npm test nothing runs again. With `fresh`, the failures read back
 * from the cache are run again to see whether they come back (staleCacheCheck): how a cache someone suspects is
 * checked, not something every doctor pays for.
 */
export async function runChecks(root: string, fresh = false): Promise<Check[]> {
  const checks: Check[] = [];
  if (!existsSync(path.join(root, 'node_modules/vitest'))) return checks;
  const [tests, types] = await Promise.all([
    runTests({ root, progress: false }).then(
      (r) => ({ ok: true as const, ...r }),
      (error: Error) => ({ ok: false as const, error }),
    ),
    typecheckStarter(root).catch(() => undefined),
  ]);
  if (tests.ok) {
    const scores = scoreByChapter(tests.tests);
    const done = chaptersWithTests(root).filter((n) => {
      const s = scores.find((x) => x.chapter === n);
      return s && s.total > 0 && s.passed === s.total;
    });
    checks.push({
      ok: true,
      what: `chapters done: ${done.length ? done.join(', ') : 'none yet'} (of ${chaptersWithTests(root).length})`,
    });
    // Asked for (--fresh): failures that are not a stub's TODO may have been read back from .kit/results.json; run
    // those files again to see whether they come back.
    const suspect = fresh ? filesToRerun(tests.tests, unfinishedRegions(path.join(root, 'starter/src'))) : [];
    if (suspect.length) {
      const again = await runTests({ root, files: suspect, fresh: true, progress: false }).catch(() => undefined);
      if (again) checks.push(staleCacheCheck(tests.tests, again.tests));
    }
    if (tests.errors.length)
      checks.push({
        ok: false,
        warn: true,
        what: `${tests.errors.length} test file(s) could not load: ${tests.errors[0]!.split('\n')[0]}`,
        fix: 'Run "npm run watch" (or "npm run typecheck") to see type or syntax errors in starter/src',
      });
  } else {
    checks.push({
      ok: false,
      what: `the tests could not run: ${tests.error.message.split('\n')[0]}`,
      fix: 'Run "npm install", then "npm test" to see the full error',
    });
  }
  if (types) checks.push(typeCheck(types));
  return checks;
}

/**
 * Chapter 16's sandbox: whether it can run on this machine (Anthropic's sandbox runtime checks its own programs).
 * Only a warning: the chapter's graded tests that need it are skipped where it cannot, and say why.
 */
export async function sandboxCheck(root: string): Promise<Check | undefined> {
  // Without the dependencies there is nothing to ask (the install check above says so).
  if (!existsSync(path.join(root, 'node_modules/@anthropic-ai/sandbox-runtime'))) return undefined;
  const { sandboxMissing } = await import('../../solution/src/sandbox/runtime.js');
  const missing = await sandboxMissing();
  if (missing.length === 0)
    return { ok: true, what: 'the sandbox can run here (chapter 16: bubblewrap, socat, ripgrep)' };
  const linux = process.platform === 'linux';
  return {
    ok: false,
    warn: true,
    what: `the sandbox cannot run here (${missing.join('; ')}): chapter 16's real-boundary tests are skipped, and the agent asks about every command as without a sandbox`,
    fix: linux
      ? missing.some((reason) => reason.includes('namespaces'))
        ? 'bubblewrap needs user namespaces: outside a container they are on by default; in Docker, run with --security-opt seccomp=unconfined (or use the host)'
        : 'Install its programs: "sudo apt-get install bubblewrap socat ripgrep" (Debian, Ubuntu), "sudo dnf install bubblewrap socat ripgrep" (Fedora)'
      : process.platform === 'darwin'
        ? 'On macOS the runtime uses sandbox-exec, which comes with the system: the reason above says what it could not use'
        : 'The sandbox runs on Linux and macOS (on Windows, inside WSL 2)',
  };
}

export async function doctorChecks(root: string): Promise<Check[]> {
  const sandbox = await sandboxCheck(root);
  return [...setupChecks(root), ...(sandbox ? [sandbox] : []), ...(await runChecks(root))];
}

function printCheck(check: Check): void {
  const mark = check.ok ? green('✓') : check.warn ? yellow('!') : red('✗');
  console.log(`${mark} ${check.what}`);
  if (!check.ok && check.fix) console.log(dim(`  fix: ${check.fix}`));
}

export async function doctorCommand(root: string, args: string[] = []): Promise<number> {
  const { values } = parseCommandArgs(
    'npm run doctor [-- --fresh]  (--fresh: run the failures read back from .kit/results.json again, to check the cache)',
    { args, options: { fresh: { type: 'boolean' } } },
  );
  const sandbox = await sandboxCheck(root);
  const checks = [...setupChecks(root), ...(sandbox ? [sandbox] : [])];
  checks.forEach(printCheck);
  // The test run takes a few seconds when little is cached: say so if it takes more than one.
  const timer = setTimeout(() => console.log(dim("… running every chapter's tests and the type check")), 1000);
  const slow = await runChecks(root, values.fresh ?? false).finally(() => clearTimeout(timer));
  slow.forEach(printCheck);
  checks.push(...slow);
  const errors = checks.filter((c) => !c.ok && !c.warn).length;
  console.log('');
  console.log(errors ? red(`${errors} problem(s) to fix.`) : green('All good.'));
  return errors ? 1 : 0;
}
