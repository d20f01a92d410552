import { existsSync, writeFileSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { BASH_OUTPUT_LIMIT, OutputCap } from 'kit/tools/bash';
import { rejection } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { HANG_MS, waitUntil } from '../helpers/wait.js';
import { killLeftOver, processesRunning } from '../helpers/processes.js';
import { bash, errorOf, runTag, within } from './fixtures.js';

const savedEnv = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
});

describe('runCommand (src/tools/bash.ts), through the bash tool', () => {
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

  test('a timeout stops everything the command started, not only the shell', async () => {
    const { root } = tempWorkspace();
    // `env -i` clears the environment, so only the group kill can reach this child. Told by whether the child is
    // still running after the tool has ended, not by a file it would write after a fixed time.
    const marker = `sleep 30.${runTag(4)}`;
    const command = `env -i /bin/sh -c '/bin/${marker}; /usr/bin/touch late.txt' & sleep 300`;
    try {
      errorOf(await within(bash(root, { command, timeout_ms: 100 })), 'the command must time out');
      await waitUntil(
        () => processesRunning(marker).length === 0,
        'a child of the shell kept running: spawn with detached: true and kill the group with process.kill(-pid)',
      );
      expect(existsSync(path.join(root, 'late.txt'))).toBe(false);
    } finally {
      killLeftOver(marker);
    }
  });

  test('an abort signal stops the command and rejects', async () => {
    const { root } = tempWorkspace();
    const controller = new AbortController();
    // Aborted once the command has printed (it touches a file after), never after a fixed time a slow machine misses.
    const running = bash(root, { command: 'echo begun; touch printed; sleep 300' }, controller.signal);
    await waitUntil(
      () => existsSync(path.join(root, 'printed')),
      'runCommand: the command must start (spawn bash with the command) (guided step 1)',
      HANG_MS,
      running,
    );
    controller.abort();
    const outcome = await within(running);
    const error = errorOf(outcome, 'aborting ctx.signal must stop the command (listen for its abort event)');
    expect(error).toMatch(/abort/i);
    expect(error, 'show the output printed before the abort').toContain('begun');
  });

  test('a command that reads stdin gets end of input at once instead of waiting', async () => {
    const { root } = tempWorkspace();
    const outcome = await within(bash(root, { command: 'cat; echo "no input"', timeout_ms: 120_000 }));
    expect(
      outcome.status,
      "nobody can type into the command: spawn with stdio: ['ignore', 'pipe', 'pipe'] so that reading stdin ends at once",
    ).toBe('resolved');
    expect((outcome as { value: string }).value).toBe(
      'exit code: 0\n--- stdout ---\nno input\n--- stderr ---\n(empty)',
    );
  });

  test('rejects with the error from spawn when bash cannot start', async () => {
    const { root } = tempWorkspace();
    const outcome = await within(bash(path.join(root, 'no-such-folder'), { command: 'echo hi' }));
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
      "runCommand: the run's signal outlives each command: once it has ended, removeEventListener('abort', onAbort) and clear the timer (guided step 7)",
    ).toHaveLength(0);
    await rejection(
      bash(path.join(root, 'missing'), { command: 'true' }, controller.signal),
      'bash cannot start in a missing folder',
    );
    expect(
      getEventListeners(controller.signal, 'abort'),
      'runCommand: when bash cannot start, the listener must be removed too (clean up in a finally, on every path) (guided step 7)',
    ).toHaveLength(0);
  });

  test('keeps output that never ends capped while it arrives, and still times out', async () => {
    const { root } = tempWorkspace();
    const outcome = await within(bash(root, { command: 'yes', timeout_ms: 400 }));
    const error = errorOf(outcome, '`yes` prints without end: it must time out');
    expect(error, 'the timeout error says so').toMatch(/timed out after 400 ms/);
    expect(
      error.length,
      `runCommand: stdout goes through an OutputCap as it arrives, so at most ${BASH_OUTPUT_LIMIT} characters are kept (guided step 2)`,
    ).toBeLessThan(BASH_OUTPUT_LIMIT + 500);
    expect(error, 'the OutputCap note says how much was cut').toMatch(/\[\.\.\. \d+ characters cut \.\.\.\]/);
  });

  test('feeds the output to an OutputCap piece by piece as it arrives, not all at once at the end', async () => {
    const { root } = tempWorkspace();
    const add = vi.spyOn(OutputCap.prototype, 'add');
    const step =
      "runCommand: call add() on each stream's OutputCap in the data listener, chunk by chunk; a string of all the output may not fit in memory (guided step 2)";
    // The command prints a word, then waits until the test has seen add() called with it: the pieces arrive one by
    // one however slow the machine, and a tool that adds only at the end never sees the first word while it runs.
    const gate = (file: string) => `while [ ! -e ${file} ]; do sleep 0.01; done`;
    const seen = (word: string) => () => add.mock.calls.some(([chunk]) => String(chunk).includes(word));
    try {
      const running = bash(root, {
        command: `echo one; ${gate('go1')}; echo two; ${gate('go2')}; echo three`,
        timeout_ms: 120_000,
      });
      await waitUntil(
        seen('one'),
        `${step}: the command printed "one" and waits until add() has seen it`,
        HANG_MS,
        running,
      );
      writeFileSync(path.join(root, 'go1'), '');
      await waitUntil(
        seen('two'),
        `${step}: the command printed "two" and waits until add() has seen it`,
        HANG_MS,
        running,
      );
      writeFileSync(path.join(root, 'go2'), '');
      await within(running);
      const pieces = add.mock.calls.map(([chunk]) => String(chunk));
      expect(pieces.filter((chunk) => /one|two|three/.test(chunk)).length, step).toBeGreaterThanOrEqual(3);
    } finally {
      add.mockRestore();
      // Lets a command still waiting (when the test failed early) end.
      for (const file of ['go1', 'go2']) writeFileSync(path.join(root, file), '');
    }
  });

  test('keeps a character whole when its bytes arrive in two chunks, on stdout and on stderr', async () => {
    const { root } = tempWorkspace();
    const add = vi.spyOn(OutputCap.prototype, 'add');
    const step =
      "runCommand: read each stream as text with setEncoding('utf8'), which holds back the first bytes of a character until the rest arrive; chunk.toString() on each chunk alone turns a split character into two \ufffd (guided step 2)";
    // Each stream prints a word and the first byte of "€" (e2 82 ac), then waits until the tool has seen both words:
    // the rest of the character can only come in a later chunk, however fast or slow the machine.
    const seen = (word: string) => () => add.mock.calls.some(([chunk]) => String(chunk).includes(word));
    try {
      const running = bash(root, {
        command: `printf 'out\\342'; printf 'err\\342' >&2; while [ ! -e go ]; do sleep 0.01; done; printf '\\202\\254\\n'; printf '\\202\\254\\n' >&2`,
        timeout_ms: 120_000,
      });
      await waitUntil(
        () => seen('out')() && seen('err')(),
        `${step}: the command printed "out" and "err" and waits until add() has seen both`,
        HANG_MS,
        running,
      );
      writeFileSync(path.join(root, 'go'), '');
      expect(await running, step).toBe('exit code: 0\n--- stdout ---\nout€\n--- stderr ---\nerr€');
    } finally {
      add.mockRestore();
      writeFileSync(path.join(root, 'go'), '');
    }
  });

  test("does not pass the agent's API keys on to the command, but keeps the rest of the environment", async () => {
    const { root } = tempWorkspace();
    process.env.ANTHROPIC_API_KEY = 'sk-ant-test-secret';
    process.env.OPENAI_API_KEY = 'sk-openai-test-secret';
    process.env.KIT_TEST_SETTING = 'kept';
    const result = await bash(root, { command: 'env' });
    expect(
      result,
      'runCommand: spawn with env: commandEnvironment(runId), which leaves out ANTHROPIC_* and OPENAI_* (guided step 1)',
    ).not.toMatch(/test-secret/);
    expect(
      result,
      "runCommand: every other variable is still passed on (PATH, HOME, the user's own settings) (guided step 1)",
    ).toContain('KIT_TEST_SETTING=kept');
  });
});
