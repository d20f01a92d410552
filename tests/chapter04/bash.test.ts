import { randomInt } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { BASH_OUTPUT_LIMIT, OutputCap, bashTool, runCommand, type CommandOutcome } from 'kit/tools/bash';
import { rejection, settles } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

/**
 * Makes the sleep commands these tests leave behind unique to this module instance: verify runs several workspaces'
 * copies of these tests at once in worker threads of one process (one process.pid), and one copy must never find or
 * kill another's leftover.
 */
const RUN = randomInt(100_000, 1_000_000);

const bash = (cwd: string, input: Record<string, unknown>, signal?: AbortSignal) =>
  bashTool.execute(bashTool.input.parse(input), { cwd, signal });
const run = (cwd: string, command: string, timeoutMs = 5000) => runCommand(command, { cwd, timeoutMs });
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

/** The pids of running processes whose command line contains `text` (Linux: read from /proc). */
function processesRunning(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Kills, by pid, what a test started and a wrong implementation left running. */
function killLeftOver(text: string) {
  for (const pid of processesRunning(text)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

const savedEnv = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
});

describe('bashTool.execute (src/tools/bash.ts)', () => {
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

  test('does not start the command when the signal is already aborted', async () => {
    const { root } = tempWorkspace();
    const error = await rejection(bash(root, { command: 'touch ran.txt' }, AbortSignal.abort()), 'a cancelled run must not start new commands');
    expect(String(error)).toMatch(/cancel|abort/i);
    await sleep(50);
    expect(existsSync(path.join(root, 'ran.txt')), 'check ctx.signal.aborted before spawning').toBe(false);
  });

  test('cuts long output in the middle and says how much was cut', async () => {
    const { root } = tempWorkspace();
    const result = await bash(root, { command: 'head -c 20000 /dev/zero | tr "\\0" a; head -c 20000 /dev/zero | tr "\\0" b' });
    expect(result.length, `stdout is capped at ${BASH_OUTPUT_LIMIT} characters plus a note`).toBeLessThan(BASH_OUTPUT_LIMIT + 200);
    expect(result, 'the note says how many characters were left out').toContain('[... 10000 characters cut ...]');
    expect(result, 'the start of the output is kept').toContain(`--- stdout ---\n${'a'.repeat(15000)}\n[...`);
    expect(result, 'the end of the output is kept too: errors are usually there').toContain(`...]\n${'b'.repeat(15000)}\n--- stderr ---`);
  });

  test('prints the notes about what was stopped after the two sections', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 5.${RUN}6`;
    try {
      const result = await bash(root, { command: `${marker} & echo done` });
      expect(result, 'step 3: the sections come first, then each of outcome.notes on a line of its own').toMatch(
        new RegExp(`^exit code: 0\\n--- stdout ---\\ndone\\n--- stderr ---\\n\\(empty\\)\\n[^\\n]*${marker.replace('.', '\\.')}[^\\n]*$`),
      );
    } finally {
      killLeftOver(marker);
    }
  });

  test('is named bash and is not read-only', async () => {
    const { root } = tempWorkspace();
    await bash(root, { command: 'true' });
    expect(bashTool.name).toBe('bash');
    expect(bashTool.readOnly, 'a command can change anything: bash is never read-only').toBe(false);
  });
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
    // `env -i` clears the environment, so only the group kill can reach this child.
    const command = "env -i /bin/sh -c '/bin/sleep 0.4; /usr/bin/touch late.txt' & sleep 5";
    errorOf(await within(1500, bash(root, { command, timeout_ms: 100 })), 'the command must time out');
    await sleep(600);
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

  test('a job left in the background does not keep the tool waiting, and the result says it was stopped', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 5.${RUN}4`;
    try {
      const outcome = await within(1500, run(root, `${marker} & echo done`));
      expect(outcome.status, 'runCommand step 5: the shell exited but its background job holds the pipes open: stop what the command left running').toBe(
        'resolved',
      );
      const { stdout, notes } = (outcome as { value: CommandOutcome }).value;
      expect(stdout, 'everything the command printed is kept').toBe('done\n');
      expect(notes.join('\n'), 'runCommand step 5: a note names each process stopLeftovers stopped').toContain(marker);
    } finally {
      killLeftOver(marker);
    }
  });

  test('a background job that hid its environment is still stopped with the group, quietly', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 5.${RUN}5`;
    try {
      const outcome = await within(1500, run(root, `env -i /bin/${marker} & sleep 0.1; echo done`));
      expect(outcome.status, 'runCommand step 5: stopLeftovers cannot see a process without its environment; killGroup() after it must still end it').toBe(
        'resolved',
      );
      const { stdout, notes } = (outcome as { value: CommandOutcome }).value;
      expect(stdout).toBe('done\n');
      expect(notes, 'runCommand step 5 and 6: the group kill closed the pipes at once, so there is nothing to note').toEqual([]);
      expect(processesRunning(marker), 'the background job must not outlive the tool').toEqual([]);
    } finally {
      killLeftOver(marker);
    }
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
      "runCommand step 7: the run's signal outlives each command: once it has ended, removeEventListener('abort', onAbort) and clear the timer",
    ).toHaveLength(0);
    await rejection(bash(path.join(root, 'missing'), { command: 'true' }, controller.signal), 'bash cannot start in a missing folder');
    expect(
      getEventListeners(controller.signal, 'abort'),
      "runCommand step 7: when bash cannot start, the listener must be removed too (clean up in a finally, on every path)",
    ).toHaveLength(0);
  });

  test('keeps output that never ends capped while it arrives, and still times out', async () => {
    const { root } = tempWorkspace();
    const outcome = await within(2500, bash(root, { command: 'yes', timeout_ms: 400 }));
    const error = errorOf(outcome, '`yes` prints without end: it must time out');
    expect(error, 'the timeout error says so').toMatch(/timed out after 400 ms/);
    expect(error.length, `runCommand step 2: stdout goes through an OutputCap as it arrives, so at most ${BASH_OUTPUT_LIMIT} characters are kept`).toBeLessThan(
      BASH_OUTPUT_LIMIT + 500,
    );
    expect(error, 'the OutputCap note says how much was cut').toMatch(/\[\.\.\. \d+ characters cut \.\.\.\]/);
  });

  test('feeds the output to an OutputCap piece by piece as it arrives, not all at once at the end', async () => {
    const { root } = tempWorkspace();
    const add = vi.spyOn(OutputCap.prototype, 'add');
    try {
      await bash(root, { command: 'echo one; sleep 0.1; echo two; sleep 0.1; echo three' });
      const pieces = add.mock.calls.map(([chunk]) => chunk);
      expect(
        pieces.filter((chunk) => /one|two|three/.test(chunk)).length,
        'runCommand step 2: call add() on each stream\'s OutputCap in the data listener, chunk by chunk; a string of all the output may not fit in memory',
      ).toBeGreaterThanOrEqual(3);
    } finally {
      add.mockRestore();
    }
  });

  test('does not pass the agent\'s API keys on to the command, but keeps the rest of the environment', async () => {
    const { root } = tempWorkspace();
    process.env.ANTHROPIC_API_KEY = 'sk-ant-test-secret';
    process.env.OPENAI_API_KEY = 'sk-openai-test-secret';
    process.env.KIT_TEST_SETTING = 'kept';
    const result = await bash(root, { command: 'env' });
    expect(result, 'runCommand step 1: spawn with env: commandEnvironment(runId), which leaves out ANTHROPIC_* and OPENAI_*').not.toMatch(
      /test-secret/,
    );
    expect(result, 'runCommand step 1: every other variable is still passed on (PATH, HOME, the user\'s own settings)').toContain(
      'KIT_TEST_SETTING=kept',
    );
  });

  test('stops a process that left the process group, and says so, instead of waiting for it', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 30.${RUN}1`;
    try {
      const outcome = await within(2000, run(root, `setsid ${marker} & sleep 0.2; echo started`, 500));
      expect(
        outcome.status,
        'runCommand step 5: `setsid` moved a child out of the group and it holds the pipes; after the shell exits, stopLeftovers(runId) must stop it',
      ).toBe('resolved');
      const { exitCode, stdout, stopped, notes } = (outcome as { value: CommandOutcome }).value;
      expect(notes.join('\n'), 'runCommand step 5: a note names what stopLeftovers stopped, by its command line').toContain(marker);
      expect([exitCode, stdout, stopped], 'the command itself ended normally, before its timeout').toEqual([0, 'started\n', undefined]);
      expect(processesRunning(marker), 'runCommand step 5: the detached process must not outlive the tool').toEqual([]);
    } finally {
      killLeftOver(marker);
    }
  });

  test('stops a detached child that redirected its output, too', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 30.${RUN}7`;
    try {
      const result = await bash(root, { command: `setsid sh -c '${marker}; touch late.txt' >/dev/null 2>&1 & echo ok`, timeout_ms: 3000 });
      expect(result).toMatch(/^exit code: 0\n--- stdout ---\nok\n/);
      // The tool's clean-up stops it as the tool returns; looked for (up to 2 s, for a loaded machine) until it is gone.
      let left = processesRunning(marker);
      for (let waited = 0; left.length > 0 && waited < 2000; waited += 50) {
        await sleep(50);
        left = processesRunning(marker);
      }
      expect(
        left,
        'runCommand step 5: a child outside the group, with no pipes to hold, kept running after the tool returned; call stopLeftovers(runId) after every exit',
      ).toEqual([]);
      expect(existsSync(path.join(root, 'late.txt'))).toBe(false);
    } finally {
      killLeftOver(marker);
    }
  });

  test('a timeout ends the tool even when a detached child keeps running', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 30.${RUN}2`;
    try {
      const outcome = await within(2000, run(root, `setsid ${marker} & echo begun; sleep 5`, 300));
      expect(outcome.status, 'runCommand step 4 to 6: the command must time out, and the detached child must not keep it waiting').toBe('resolved');
      const { stopped, stdout, notes } = (outcome as { value: CommandOutcome }).value;
      expect([stopped, stdout], 'runCommand step 4: stopped by the timeout, with what it printed').toEqual(['timeout', 'begun\n']);
      expect(notes.join('\n'), 'runCommand step 5: the note names what stopLeftovers stopped').toContain(marker);
    } finally {
      killLeftOver(marker);
    }
  });

  test('waits only a short while for pipes held by a process it cannot find', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 30.${RUN}3`;
    try {
      // `env -i` clears the environment, marker included, so stopLeftovers cannot find this one.
      const outcome = await within(2000, run(root, `setsid env -i ${marker} & sleep 0.1; echo done`));
      expect(
        outcome.status,
        'runCommand step 6: a process outside the group that cleared its environment holds the pipes; wait for close at most BASH_CLOSE_WAIT_MS, then destroy the streams',
      ).toBe('resolved');
      const { exitCode, stdout, notes } = (outcome as { value: CommandOutcome }).value;
      expect([exitCode, stdout], 'what was printed before is kept').toEqual([0, 'done\n']);
      const note = notes.at(-1) ?? '';
      expect(note, 'runCommand step 6: a note that something still held the output open').toMatch(/output/);
      expect(note, 'runCommand step 6: the note says it may still be running').toMatch(/may still be running/);
    } finally {
      killLeftOver(marker);
    }
  });
});

describe('OutputCap (src/tools/bash.ts)', () => {
  const fed = (limit: number, chunks: string[]) => {
    const cap = new OutputCap(limit);
    for (const chunk of chunks) cap.add(chunk);
    return cap;
  };

  test('gives back text within the limit unchanged, however it was cut into chunks', () => {
    expect(fed(10, ['short']).toString(), 'nothing cut: head and tail together are the whole text').toBe('short');
    expect(fed(10, ['xxx', 'xxxx', 'xxx']).toString(), 'exactly at the limit is still within it').toBe('x'.repeat(10));
    expect(fed(4, ['ab', 'cd']).cut, 'nothing was dropped, so cut stays 0').toBe(0);
  });

  test('keeps half the limit from the start and the rest from the end, and counts what it dropped', () => {
    expect(fed(4, ['abcdefghij']).toString(), 'step 1 and 3: the first floor(limit / 2), the note, the last limit - that').toBe(
      'ab\n[... 6 characters cut ...]\nij',
    );
    expect(fed(5, ['abc', 'defg', 'hij']).toString(), 'odd limit: the head gets floor(5 / 2) = 2, the tail 3').toBe(
      'ab\n[... 5 characters cut ...]\nhij',
    );
  });

  test('never holds more than the limit while output keeps arriving', () => {
    const cap = new OutputCap(100);
    for (let i = 0; i < 1000; i++) {
      cap.add(`${String(i).padStart(9, '0')}\n`);
      expect(cap.head.length + cap.tail.length, `step 3: after chunk ${i} the cap holds more than its limit; trim the tail on every add`).toBeLessThanOrEqual(
        100,
      );
    }
    expect(cap.head, 'step 1: the head is the first 50 characters seen').toBe('000000000\n000000001\n000000002\n000000003\n000000004\n');
    expect(cap.tail, 'step 2: the tail is the last 50 characters seen').toBe('000000995\n000000996\n000000997\n000000998\n000000999\n');
    expect(cap.cut, 'step 3: cut counts every character dropped between them').toBe(10_000 - 100);
  });

  test('a chunk that fills the head goes on into the tail', () => {
    const cap = fed(6, ['ab', 'cdefg']);
    expect([cap.head, cap.tail, cap.cut], 'step 1 and 2: "ab" + "c" fill the head of 3; "defg" goes to the tail of 3, dropping "d"').toEqual([
      'abc',
      'efg',
      1,
    ]);
  });
});
