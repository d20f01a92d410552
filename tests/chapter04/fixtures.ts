/** Helpers for the bash tool's tests (bash.test.ts, run-command.test.ts and leftovers.test.ts). */
import { randomInt } from 'node:crypto';
import { expect } from 'vitest';
import { bashTool, runCommand } from 'kit/tools/bash';
import { hung, outcomeWithin, type Outcome } from '../helpers/wait.js';

/**
 * Makes the sleep commands a test file leaves behind unique to its module instance: verify runs several workspaces'
 * copies of these tests at once in worker threads of one process (one process.pid), and one copy must never find or
 * kill another's leftover. Each test adds its own suffix; `file` keeps the two files' markers apart.
 */
export const runTag = (file: number) => `${randomInt(100_000, 1_000_000)}${file}`;

export const bash = (cwd: string, input: Record<string, unknown>, signal?: AbortSignal) =>
  bashTool.execute(bashTool.input.parse(input), { cwd, signal });
export const run = (cwd: string, command: string, timeoutMs = 120_000) => runCommand(command, { cwd, timeoutMs });
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type { Outcome } from '../helpers/wait.js';

/**
 * How `promise` settled, or 'still running' once it has waited HANG_MS (tests/helpers/wait.ts), a limit only a
 * hang reaches: a command the tool fails to stop cannot hang the test, and a slow machine cannot fail a correct tool.
 * The commands that a wrong tool would wait for run far longer than that limit (sleep 300).
 */
export const within = <T>(promise: Promise<T>) => outcomeWithin(promise);

/** The error of an outcome that must be a rejection; fails with `message` otherwise. */
export function errorOf(outcome: Outcome<unknown>, message: string): string {
  if (outcome.status === 'rejected') return String(outcome.error);
  if (outcome.status === 'resolved')
    expect.fail(`${message}; it resolved with ${JSON.stringify(outcome.value)?.slice(0, 120)}`);
  return expect.fail(
    `${message}; the tool was still waiting ${hung()}. Kill the whole process group (spawn with detached: true, ` +
      'then process.kill(-pid)): killing the shell alone leaves its children holding the output pipes open',
  );
}
