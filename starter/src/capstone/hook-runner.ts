/**
 * Chapter 15, given: running one hook command the way Claude Code runs it.
 *
 * A command hook is a shell command from a settings file. It reads a JSON object on stdin (what happened), and
 * answers with its exit code, its stdout and its stderr; command-hooks.ts reads that answer. This file only runs
 * it: `sh -c command` in the workspace, as the leader of a process group of its own (`detached`), so that a time
 * limit or an abort can stop the command and everything it started in one kill. The output is capped, because a
 * hook may print without end.
 *
 * Unlike the bash tool (chapter 4), a hook is the person's own command, not the model's, so it sees the person's
 * whole environment (plus CLAUDE_PROJECT_DIR, as in Claude Code), and whatever it leaves running in the background
 * after a normal exit is left alone. Only a time-out or an abort stops its leftovers too (stopLeftovers, chapter 4).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { RUN_MARKER, settlesWithin, stopLeftovers } from '../tools/processes.js';

/** Characters kept of stdout, and of stderr; the rest is dropped and counted. */
export const HOOK_OUTPUT_LIMIT = 64 * 1024;
/** How long to wait for the output pipes to close once the shell has exited. */
const CLOSE_WAIT_MS = 300;

export interface HookRunOptions {
  /** The folder the command runs in (the workspace). */
  cwd: string;
  /** Milliseconds before the command's whole process group is killed. */
  timeoutMs: number;
  /** Aborting kills the command's whole process group at once. */
  signal?: AbortSignal;
  /** Variables added to the environment (the person's own environment is kept). */
  env?: Record<string, string>;
}

/** How a hook command ended. */
export interface HookRun {
  /** The exit code; null when the command was killed by a signal or never started. */
  exitCode: number | null;
  /** What it printed, each cut at HOOK_OUTPUT_LIMIT characters. */
  stdout: string;
  stderr: string;
  /** True when the time limit stopped it. */
  timedOut: boolean;
}

/** The runner's shape, so tests and callers can pass another (commandHooks' `run` option). */
export type RunHookCommand = (command: string, input: object, options: HookRunOptions) => Promise<HookRun>;

/** Keeps the first `limit` characters of a stream and counts the rest. */
function capped(limit = HOOK_OUTPUT_LIMIT) {
  let text = '';
  let dropped = 0;
  return {
    add(chunk: string) {
      const room = limit - text.length;
      text += chunk.slice(0, Math.max(0, room));
      dropped += Math.max(0, chunk.length - room);
    },
    toString: () => (dropped === 0 ? text : `${text}\n[... ${dropped} characters cut ...]`),
  };
}

/**
 * Runs `sh -c command` in options.cwd with `input` as JSON on stdin. Never rejects: a command that cannot start
 * resolves with exitCode null and the reason on stderr. An already aborted signal runs nothing.
 */
export async function runHookCommand(command: string, input: object, options: HookRunOptions): Promise<HookRun> {
  if (options.signal?.aborted) return { exitCode: null, stdout: '', stderr: '', timedOut: false };
  const runId = randomUUID();
  const child = spawn('sh', ['-c', command], {
    cwd: options.cwd,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, CLAUDE_PROJECT_DIR: options.cwd, ...options.env, [RUN_MARKER]: runId },
  });
  const stdout = capped();
  const stderr = capped();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => stdout.add(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.add(chunk));
  // A hook that never reads its input closes the pipe early: EPIPE is not a failure of the hook.
  child.stdin.on('error', () => {});
  child.stdin.end(JSON.stringify(input));
  const closed = new Promise((resolve) => child.once('close', resolve));

  let timedOut = false;
  let stopped = false;
  const stop = () => {
    stopped = true;
    try {
      process.kill(-child.pid!, 'SIGKILL'); // the whole group: the shell and everything it started
    } catch {
      // The group has already ended.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    const exitCode = await new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.once('error', (error) => {
        stderr.add(`could not start the hook command: ${error.message}`);
        resolve(null);
      });
    });
    clearTimeout(timer); // it ended: a time limit passing now must not mark it as timed out
    if (stopped) {
      await stopLeftovers(runId);
      stop();
    }
    if (!(await settlesWithin(closed, CLOSE_WAIT_MS))) {
      child.stdout.destroy();
      child.stderr.destroy();
    }
    return { exitCode, stdout: stdout.toString(), stderr: stderr.toString(), timedOut };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}
