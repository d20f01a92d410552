import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import type { CommandOutcome } from 'kit/tools/bash';
import { HANG_MS } from '../helpers/limits.js';
import { killLeftOver, processesRunning } from '../helpers/processes.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { bash, errorOf, run, runTag, sleep, within } from './fixtures.js';

const RUN = runTag(3);

/**
 * runCommand waits BASH_CLOSE_WAIT_MS (300 ms) for the pipes to close (settlesWithin, given). A test that expects them
 * to close in time sets `closeWait.ms` to a limit only a hang reaches, so a busy machine that is slow to deliver the
 * group's SIGKILL cannot turn a correct solution's quiet result into a note.
 */
const closeWait = vi.hoisted(() => ({ ms: undefined as number | undefined }));
vi.mock(import('kit/tools/processes'), async (importOriginal) => {
  const original = await importOriginal();
  return {
    ...original,
    settlesWithin: (promise: Promise<unknown>, ms: number) => original.settlesWithin(promise, closeWait.ms ?? ms),
  };
});

describe('runCommand (src/tools/bash.ts): what a command leaves running', () => {
  test('a job left in the background does not keep the tool waiting, and the result says it was stopped', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 300.${RUN}4`;
    // The kills runCommand makes, in order: a process of the run by its pid (stopLeftovers, given, kills what it finds
    // one by one) or the whole group (killGroup: a negative pid).
    const kills: string[] = [];
    const kill = process.kill.bind(process);
    const spy = vi.spyOn(process, 'kill').mockImplementation((pid, signal) => {
      if (signal === 'SIGKILL' || signal === 9) kills.push(pid < 0 ? 'the group' : 'one process');
      return kill(pid, signal);
    });
    try {
      const outcome = await within(run(root, `${marker} & echo done`));
      // Told by the order of the kills, not by whether the job had died yet: a kill of the group first usually leaves
      // nothing for stopLeftovers to find (and no note), but not always. The job is alive until someone kills it, so
      // stopLeftovers, asked first, always finds it.
      expect(
        kills[0],
        'runCommand: once the shell has exited, ask stopLeftovers(runId) first and only then killGroup(): killed first, a background job is gone before anyone can name it in a note (guided step 5)',
      ).toBe('one process');
      expect(kills, 'runCommand: killGroup() after stopLeftovers, for what it cannot find (guided step 5)').toContain(
        'the group',
      );
      expect(
        outcome.status,
        'runCommand: the shell exited but its background job holds the pipes open: stop what the command left running (guided step 5)',
      ).toBe('resolved');
      const { stdout, notes } = (outcome as { value: CommandOutcome }).value;
      expect(stdout, 'everything the command printed is kept').toBe('done\n');
      expect(notes.join('\n'), 'runCommand: a note names each process stopLeftovers stopped (guided step 5)').toContain(
        marker,
      );
    } finally {
      spy.mockRestore();
      killLeftOver(marker);
    }
  });

  test('a background job that hid its environment is still stopped with the group, quietly', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 300.${RUN}5`;
    // Half the hang limit: a solution that waits for the pipes before killGroup() still ends in time, with a note.
    closeWait.ms = HANG_MS / 2;
    try {
      const outcome = await within(run(root, `env -i /bin/${marker} & sleep 0.1; echo done`));
      expect(
        outcome.status,
        'runCommand: stopLeftovers cannot see a process without its environment; killGroup() after it must still end it (guided step 5)',
      ).toBe('resolved');
      const { stdout, notes } = (outcome as { value: CommandOutcome }).value;
      expect(stdout).toBe('done\n');
      expect(
        notes,
        'runCommand: killGroup() after stopLeftovers closes the pipes, so there is nothing to note (killGroup must come before the wait for close) (guided step 5 and 6)',
      ).toEqual([]);
      expect(processesRunning(marker), 'the background job must not outlive the tool').toEqual([]);
    } finally {
      closeWait.ms = undefined;
      killLeftOver(marker);
    }
  });

  test('a timeout stops even a command that ignores SIGTERM', async () => {
    const { root } = tempWorkspace();
    const outcome = await within(bash(root, { command: "trap '' TERM; echo started; sleep 300", timeout_ms: 100 }));
    expect(
      outcome.status,
      "the command ignores SIGTERM (trap '' TERM), so it was still running: kill the group with 'SIGKILL', which no process can ignore",
    ).toBe('rejected');
    expect(errorOf(outcome, 'the command must time out')).toMatch(/timed out after 100 ms/);
  });

  test('stops a process that left the process group, and says so, instead of waiting for it', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 300.${RUN}1`;
    try {
      const outcome = await within(run(root, `setsid ${marker} & sleep 0.2; echo started`));
      expect(
        outcome.status,
        'runCommand: `setsid` moved a child out of the group and it holds the pipes; after the shell exits, stopLeftovers(runId) must stop it (guided step 5)',
      ).toBe('resolved');
      const { exitCode, stdout, stopped, notes } = (outcome as { value: CommandOutcome }).value;
      expect(
        notes.join('\n'),
        'runCommand: a note names what stopLeftovers stopped, by its command line (guided step 5)',
      ).toContain(marker);
      expect([exitCode, stdout, stopped], 'the command itself ended normally, before its timeout').toEqual([
        0,
        'started\n',
        undefined,
      ]);
      expect(
        processesRunning(marker),
        'runCommand: the detached process must not outlive the tool (guided step 5)',
      ).toEqual([]);
    } finally {
      killLeftOver(marker);
    }
  });

  test('stops a detached child that redirected its output, too', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 300.${RUN}7`;
    try {
      const result = await bash(root, {
        command: `setsid sh -c '${marker}; touch late.txt' >/dev/null 2>&1 & echo ok`,
        timeout_ms: HANG_MS,
      });
      expect(result).toMatch(/^exit code: 0\n--- stdout ---\nok\n/);
      // The tool's clean-up stops it as the tool returns; looked for until it is gone (a killed process may take a
      // moment to disappear from /proc on a loaded machine), up to a limit only a hang reaches.
      let left = processesRunning(marker);
      for (let waited = 0; left.length > 0 && waited < HANG_MS; waited += 50) {
        await sleep(50);
        left = processesRunning(marker);
      }
      expect(
        left,
        'runCommand: a child outside the group, with no pipes to hold, kept running after the tool returned; call stopLeftovers(runId) after every exit (guided step 5)',
      ).toEqual([]);
      expect(existsSync(path.join(root, 'late.txt'))).toBe(false);
    } finally {
      killLeftOver(marker);
    }
  });

  test('a timeout ends the tool even when a detached child keeps running', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 300.${RUN}2`;
    try {
      const outcome = await within(run(root, `setsid ${marker} & echo begun; sleep 300`, 300));
      expect(
        outcome.status,
        'runCommand guided step 4 to 6: the command must time out, and the detached child must not keep it waiting',
      ).toBe('resolved');
      const { stopped, stdout, notes } = (outcome as { value: CommandOutcome }).value;
      expect([stopped, stdout], 'runCommand: stopped by the timeout, with what it printed (guided step 4)').toEqual([
        'timeout',
        'begun\n',
      ]);
      expect(notes.join('\n'), 'runCommand: the note names what stopLeftovers stopped (guided step 5)').toContain(
        marker,
      );
    } finally {
      killLeftOver(marker);
    }
  });

  test('waits only a short while for pipes held by a process it cannot find', async () => {
    const { root } = tempWorkspace();
    const marker = `sleep 300.${RUN}3`;
    try {
      // `env -i` clears the environment, marker included, so stopLeftovers cannot find this one. The command ends only
      // once the child runs with the cleared environment (it touches `hidden`), never after a fixed wait that a busy
      // machine can outlast, when stopLeftovers would still see the marker.
      const child = `setsid env -i /bin/sh -c '/usr/bin/touch hidden; exec /bin/${marker}'`;
      const outcome = await within(run(root, `${child} & while [ ! -e hidden ]; do sleep 0.01; done; echo done`));
      expect(
        outcome.status,
        'runCommand: a process outside the group that cleared its environment holds the pipes; wait for close at most BASH_CLOSE_WAIT_MS, then destroy the streams (guided step 6)',
      ).toBe('resolved');
      const { exitCode, stdout, notes } = (outcome as { value: CommandOutcome }).value;
      expect([exitCode, stdout], 'what was printed before is kept').toEqual([0, 'done\n']);
      const note = notes.at(-1) ?? '';
      expect(note, 'runCommand: a note that something still held the output open (guided step 6)').toMatch(/output/);
      expect(note, 'runCommand: the note says it may still be running (guided step 6)').toMatch(/may still be running/);
    } finally {
      killLeftOver(marker);
    }
  });
});
