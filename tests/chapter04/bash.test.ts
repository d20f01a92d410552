import { existsSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { BASH_OUTPUT_LIMIT, bashTool, capOutput } from 'kit/tools/bash';
import { rejection, settles } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

const bash = (cwd: string, input: Record<string, unknown>, signal?: AbortSignal) =>
  bashTool.execute(bashTool.input.parse(input), { cwd, signal });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Outcome<T> = { status: 'resolved'; value: T } | { status: 'rejected'; error: unknown } | { status: 'still running' };

/** How `promise` settled within `ms`, so that a command the tool fails to stop cannot hang the test. */
async function within<T>(ms: number, promise: Promise<T>): Promise<Outcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Outcome<T>>((resolve) => (timer = setTimeout(() => resolve({ status: 'still running' }), ms)));
  const settled = promise.then(
    (value): Outcome<T> => ({ status: 'resolved', value }),
    (error: unknown): Outcome<T> => ({ status: 'rejected', error }),
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error of an outcome that must be a rejection; fails with `message` otherwise. */
function errorOf(outcome: Outcome<unknown>, message: string): string {
  if (outcome.status === 'rejected') return String(outcome.error);
  if (outcome.status === 'resolved') expect.fail(`${message}; it resolved with ${JSON.stringify(outcome.value)?.slice(0, 120)}`);
  return expect.fail(
    `${message}; the tool was still waiting 1.5 s later. Kill the whole process group (spawn with detached: true, ` +
      'then process.kill(-pid)): killing the shell alone leaves its children holding the output pipes open',
  );
}

describe('bashTool (src/tools/bash.ts)', () => {
  test('returns the exit code, then stdout and stderr in labelled sections', async () => {
    const { root } = tempWorkspace();
    const result = await bash(root, { command: 'echo out; echo err >&2' });
    expect(result, 'the format: "exit code: N", "--- stdout ---", its text, "--- stderr ---", its text').toBe(
      'exit code: 0\n--- stdout ---\nout\n--- stderr ---\nerr',
    );
  });

  test('a non-zero exit code is a normal result the model reads, not a throw', async () => {
    const { root } = tempWorkspace();
    const result = await settles(
      bash(root, { command: 'echo "3 tests failed" >&2; exit 3' }),
      'a failing command is information for the model: resolve with its exit code instead of throwing',
    );
    expect(result).toBe('exit code: 3\n--- stdout ---\n(empty)\n--- stderr ---\n3 tests failed');
  });

  test('runs in the workspace root', async () => {
    const { root } = tempWorkspace({ 'hello.txt': 'hi from the workspace\n' });
    const result = await bash(root, { command: 'pwd; cat hello.txt' });
    expect(result, 'spawn bash with cwd: ctx.cwd').toContain(`${root}\nhi from the workspace`);
  });

  test('keeps stdout and stderr apart even when they interleave', async () => {
    const { root } = tempWorkspace();
    const result = await bash(root, { command: 'echo one; echo two >&2; echo three; echo four >&2' });
    expect(result).toBe('exit code: 0\n--- stdout ---\none\nthree\n--- stderr ---\ntwo\nfour');
  });

  test('reports a command killed by a signal', async () => {
    const { root } = tempWorkspace();
    const result = await bash(root, { command: 'kill -9 $$' });
    expect(result, 'with no exit code, say which signal ended it').toMatch(/^exit code: none \(killed by SIGKILL\)/);
  });

  test('a timeout throws an error that says so and shows what was printed so far', async () => {
    const { root } = tempWorkspace();
    const outcome = await within(1500, bash(root, { command: 'echo started; sleep 5', timeout_ms: 200 }));
    const error = errorOf(outcome, 'a command past its timeout must be stopped and end in an error');
    expect(error).toMatch(/timed out after 200 ms/);
    expect(error, 'the output printed before the timeout helps the model understand what hung').toContain('started');
  });

  test('a timeout stops everything the command started, not only the shell', async () => {
    const { root } = tempWorkspace();
    errorOf(await within(1500, bash(root, { command: '(sleep 0.6; touch late.txt) & sleep 5', timeout_ms: 100 })), 'the command must time out');
    await sleep(800);
    expect(
      existsSync(path.join(root, 'late.txt')),
      'a child of the shell kept running: spawn with detached: true and kill the group with process.kill(-pid)',
    ).toBe(false);
  });

  test('an abort signal stops the command and rejects', async () => {
    const { root } = tempWorkspace();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const outcome = await within(1500, bash(root, { command: 'echo begun; sleep 5' }, controller.signal));
    const error = errorOf(outcome, 'aborting ctx.signal must stop the command (listen for its abort event)');
    expect(error).toMatch(/abort/i);
    expect(error, 'show the output printed before the abort').toContain('begun');
  });

  test('does not start the command when the signal is already aborted', async () => {
    const { root } = tempWorkspace();
    const error = await rejection(bash(root, { command: 'touch ran.txt' }, AbortSignal.abort()), 'a cancelled run must not start new commands');
    expect(String(error)).toMatch(/cancel|abort/i);
    await sleep(50);
    expect(existsSync(path.join(root, 'ran.txt')), 'check ctx.signal.aborted before spawning').toBe(false);
  });

  test('a job left in the background does not keep the tool waiting', async () => {
    const { root } = tempWorkspace();
    const outcome = await within(1500, bash(root, { command: 'sleep 5 & echo done' }));
    expect(outcome.status, 'the shell exited but its background job holds the pipes open: when the shell exits, kill what is left of its process group').toBe(
      'resolved',
    );
    expect((outcome as { value: string }).value).toContain('done');
  });

  test('a timeout stops even a command that ignores SIGTERM', async () => {
    const { root } = tempWorkspace();
    const outcome = await within(1500, bash(root, { command: "trap '' TERM; echo started; sleep 3", timeout_ms: 100 }));
    expect(
      outcome.status,
      "the command ignores SIGTERM (trap '' TERM), so it was still running: kill the group with 'SIGKILL', which no process can ignore",
    ).toBe('rejected');
    expect(errorOf(outcome, 'the command must time out')).toMatch(/timed out after 100 ms/);
  });

  test('a command that reads stdin gets end of input at once instead of waiting', async () => {
    const { root } = tempWorkspace();
    const outcome = await within(1500, bash(root, { command: 'cat; echo "no input"', timeout_ms: 3000 }));
    expect(
      outcome.status,
      "nobody can type into the command: spawn with stdio: ['ignore', 'pipe', 'pipe'] so that reading stdin ends at once",
    ).toBe('resolved');
    expect((outcome as { value: string }).value).toBe('exit code: 0\n--- stdout ---\nno input\n--- stderr ---\n(empty)');
  });

  test('rejects with the error from spawn when bash cannot start', async () => {
    const { root } = tempWorkspace();
    const outcome = await within(1500, bash(path.join(root, 'no-such-folder'), { command: 'echo hi' }));
    const error = errorOf(
      outcome,
      "bash cannot start in a folder that does not exist: the child emits 'error' (then 'close' with code -2); reject with that error",
    );
    expect(error, 'pass on the spawn error itself').toMatch(/ENOENT/);
  });

  test('removes its abort listener once the command has ended', async () => {
    const { root } = tempWorkspace();
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) await bash(root, { command: 'true' }, controller.signal);
    expect(
      getEventListeners(controller.signal, 'abort'),
      "the run's signal outlives each command: on 'close' and on 'error', removeEventListener('abort', onAbort) and clear the timer",
    ).toHaveLength(0);
  });

  test('cuts long output in the middle and says how much was cut', async () => {
    const { root } = tempWorkspace();
    const result = await bash(root, { command: 'head -c 20000 /dev/zero | tr "\\0" a; head -c 20000 /dev/zero | tr "\\0" b' });
    expect(result.length, `stdout is capped at ${BASH_OUTPUT_LIMIT} characters plus a note`).toBeLessThan(BASH_OUTPUT_LIMIT + 200);
    expect(result, 'the note says how many characters were left out').toContain('[... 10000 characters cut ...]');
    expect(result, 'the start of the output is kept').toContain(`--- stdout ---\n${'a'.repeat(15000)}\n[...`);
    expect(result, 'the end of the output is kept too: errors are usually there').toContain(`...]\n${'b'.repeat(15000)}\n--- stderr ---`);
  });

  test('is named bash and is not read-only', async () => {
    const { root } = tempWorkspace();
    await bash(root, { command: 'true' });
    expect(bashTool.name).toBe('bash');
    expect(bashTool.readOnly, 'a command can change anything: bash is never read-only').toBe(false);
  });
});

describe('capOutput (src/tools/bash.ts)', () => {
  test('returns text within the limit unchanged', () => {
    expect(capOutput('short', 10)).toBe('short');
    expect(capOutput('x'.repeat(10), 10), 'exactly at the limit is still within it').toBe('x'.repeat(10));
  });

  test('keeps half the limit from the start and the rest from the end', () => {
    expect(capOutput('abcdefghij', 4), 'first floor(limit / 2) characters, the note, the last limit - that').toBe(
      'ab\n[... 6 characters cut ...]\nij',
    );
    expect(capOutput('abcdefghij', 5)).toBe('ab\n[... 5 characters cut ...]\nhij');
  });
});
