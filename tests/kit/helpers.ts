/**
 * Helpers for the kit's own tests: a throw-away copy of the repository (node_modules linked, not copied), a way to
 * solve chapters in its starter, and a runner for `scripts/kit.ts` inside it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { copyKit } from '../../scripts/authors/lib/kit-copy.js';
import { buildWorkspace } from '../../scripts/lib/regions.js';

/**
 * How long a kit test waits for one thing a program it started should do (a line, a prompt, an exit) before calling
 * it a hang: events, not durations, decide a test; this limit only ends a hang. Kept below the 60 s a fake API
 * holds a stream open, so "stopped at once" is still told apart from "waited for the stream".
 */
export const KIT_HANG_MS = 45_000;

/** How long one whole kit command (progress over several chapters, doctor, npm test) may take on a loaded machine. */
export const KIT_RUN_MS = 300_000;

export const REPO = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(REPO, 'node_modules/tsx/dist/cli.mjs');

/**
 * A copy of the repository in a temp dir (scripts/authors/lib/kit-copy.ts copyKit, the guide included).
 * `link: false` leaves node_modules out (a kit that cannot run). `chapters: n` copies the tests of chapters 1..n only
 * (the code stays whole), so a command that runs every chapter runs only those: the kit's tests exercise the commands
 * on as few chapters as they need, and stay as fast at sixteen chapters as at three.
 */
export function copyRepo(options: { link?: boolean; chapters?: number } = {}): { root: string; cleanup(): void } {
  const root = copyKit('kit-copy-', REPO, { ...options, book: true });
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Writes starter/src with chapters 1..n solved and the rest stubbed (n = 0: the plain starter). */
export function solveUpTo(root: string, n: number): void {
  const { files } = buildWorkspace(path.join(root, 'solution/src'), (region) => region.chapter > n);
  for (const [rel, text] of files) {
    mkdirSync(path.dirname(path.join(root, 'starter/src', rel)), { recursive: true });
    writeFileSync(path.join(root, 'starter/src', rel), text);
  }
}

export const read = (root: string, rel: string) => readFileSync(path.join(root, rel), 'utf8');
export const write = (root: string, rel: string, text: string) => writeFileSync(path.join(root, rel), text);

const env = () => {
  // The kit's own language is English whatever the machine's locale (npm run hint answers in Chinese in a zh_CN
  // shell): a test that wants another language says so.
  const e: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', LANG: 'C.UTF-8' };
  delete e.LC_ALL;
  delete e.LC_MESSAGES;
  delete e.KIT_ROOT;
  delete e.KIT_SRC;
  delete e.KIT_TARGET;
  return e;
};

/** Runs `scripts/kit.ts <args>` in the copy and waits for it (`extraEnv`: more environment, e.g. a locale). */
export function kit(
  root: string,
  args: string[],
  input = '',
  extraEnv: NodeJS.ProcessEnv = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [TSX, path.join(root, 'scripts/kit.ts'), ...args], {
    cwd: root,
    env: { ...env(), ...extraEnv },
    input,
    encoding: 'utf8',
    timeout: KIT_RUN_MS,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs `command <args>` to its end without blocking the worker, and resolves with its exit code and what it printed;
 * rejects when it cannot start, or when it is still running after `ms` (a hang: it is killed then).
 */
export function runToEnd(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; ms?: number },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { ms = KIT_RUN_MS } = options;
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${path.basename(command)} ${args.join(' ')} still running after ${ms / 1000} s (a hang); stderr:\n${stderr}`,
        ),
      );
    }, ms);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * Waits that end on events, not on a timer: `until(check, what)` resolves once `check()` holds, looked at again each
 * time `changed()` is called (by the handler that changes what `check` reads: a notification pushed, say), and fails
 * with `what` after `ms`, a hang.
 */
export function changes() {
  const waiters = new Set<() => void>();
  return {
    changed(): void {
      for (const waiter of waiters) waiter();
    },
    until(check: () => boolean, what: string, ms = KIT_HANG_MS): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(look);
          reject(new Error(`timed out after ${ms / 1000} s waiting for ${what}`));
        }, ms);
        const look = () => {
          if (!check()) return;
          clearTimeout(timer);
          waiters.delete(look);
          resolve();
        };
        waiters.add(look);
        look();
      });
    },
  };
}

/** Starts `scripts/kit.ts <args>` in the background, for watch. */
export function startKit(root: string, args: string[]) {
  const child = spawn(process.execPath, [TSX, path.join(root, 'scripts/kit.ts'), ...args], {
    cwd: root,
    env: env(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  /** Called on each chunk of output and once the program has ended: the waits below are ended by these events. */
  const listeners = new Set<() => void>();
  let closed = false;
  const heard = (chunk: Buffer) => {
    output += chunk;
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', heard);
  child.stderr.on('data', heard);
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      closed = true;
      resolve(code);
      for (const listener of listeners) listener();
    }),
  );
  return {
    child,
    output: () => output,
    exited,
    /**
     * Resolves once the output (from `from` on) matches `pattern`, with the index after the match; rejects when the
     * program ends first, or after `ms` (a hang).
     */
    waitFor(pattern: RegExp, from = 0, ms = KIT_HANG_MS): Promise<number> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output.slice(from));
          if (match) done(() => resolve(from + match.index + match[0].length));
          // Once closed, all it wrote is in `output`: the program ended without printing it.
          else if (closed)
            done(() => reject(new Error(`kit exited (${child.exitCode}) before ${pattern}; output:\n${output}`)));
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`timed out waiting for ${pattern}; output so far:\n${output}`))),
          ms,
        );
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    send(text: string) {
      child.stdin.write(text);
    },
  };
}

/** A well-formed quiz block body, for guide fixtures. */
export const GOOD_QUIZ = [
  'Q: Why must the assistant turn be appended before its tool results?',
  '- [ ] Because providers sort messages by time.',
  '  > No: nothing is re-sorted.',
  '- [x] Because every result has to follow the call it answers.',
  '  > Right: a result answers the `tool_call` before it.',
].join('\n');
