import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { BACKGROUND_DEFAULT_TIMEOUT_MS, BackgroundCommands, backgroundTools } from 'kit/tools/background';
import { builtinTools } from 'kit/tools/index';
import type { Tool } from 'kit/tool';
import { rejection } from '../helpers/assert.js';
import { killLeftOver, processesRunning } from '../helpers/processes.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { hung, waitUntil } from '../helpers/wait.js';
import { runTag, within } from './fixtures.js';

const RUN = runTag(5);
let serial = 0;
/**
 * A marker unique to one test: every command the test starts carries it (a `sleep 300.<marker>`, or a comment at
 * the end of the command, which bash's command line shows), so that killLeftOver(marker) ends whatever a wrong
 * solution left running, and processesRunning(marker) finds it.
 */
const newMarker = () => `${RUN}${++serial}`;

/** A shell loop that waits until the file `name` exists in the workspace (the test creates it). */
const gate = (name: string) => `while [ ! -e ${name} ]; do sleep 0.01; done`;
const open = (root: string, name: string) => writeFileSync(path.join(root, name), '');
const exists = (root: string, name: string) => () => existsSync(path.join(root, name));

/** The task's `done`, or a failure that says the task never ended. */
async function ended(commands: BackgroundCommands, id: string, message: string): Promise<void> {
  const outcome = await within(commands.task(id).done);
  if (outcome.status === 'still running') expect.fail(`${message} ${hung()}`);
  if (outcome.status === 'rejected') {
    expect.fail(`${message}: task.done rejected with ${String(outcome.error)}; it must never reject (guided step 5)`);
  }
}

/** Reads the task until `done(text so far)`, adding up what each read gave; fails after HANG_MS. */
async function readUntil(
  commands: BackgroundCommands,
  id: string,
  done: (read: { stdout: string; stderr: string }) => boolean,
  message: string,
) {
  const seen = { stdout: '', stderr: '' };
  await waitUntil(() => {
    const read = commands.read(id);
    seen.stdout += read.stdout;
    seen.stderr += read.stderr;
    return done(seen);
  }, message);
  return seen;
}

const tool = (tools: Tool[], name: string) => {
  const found = tools.find((t) => t.name === name);
  if (!found) return expect.fail(`backgroundTools: no tool named ${name}`);
  return found;
};
const call = (t: Tool, root: string, input: Record<string, unknown>) => t.execute(t.input.parse(input), { cwd: root });

describe('BackgroundCommands.start (src/tools/background.ts)', () => {
  test('answers at once with ids b1, b2, … while the commands run, and never reuses one', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    try {
      const first = commands.start(`touch started; ${gate('go')} # ${marker}`, { cwd: root });
      expect(first, 'BackgroundCommands.start: the first id is b1 (guided step 2)').toBe('b1');
      expect(
        commands.read(first).status,
        'BackgroundCommands.start: start returns without waiting for the command, which is still running (guided step 6)',
      ).toEqual({ state: 'running' });
      await waitUntil(
        exists(root, 'started'),
        'BackgroundCommands.start: the command must run, in options.cwd (guided step 4)',
      );
      open(root, 'go');
      await ended(commands, first, 'BackgroundCommands.start: the command ended by itself, so its task must end');
      const second = commands.start(`true # ${marker}`, { cwd: root });
      expect(
        second,
        'BackgroundCommands.start: the second task is b2, even when the first has ended: an id is never reused (guided step 2)',
      ).toBe('b2');
      expect(commands.ids()).toEqual(['b1', 'b2']);
    } finally {
      open(root, 'go');
      killLeftOver(marker);
    }
  });

  test("a finished task's status has its exit code, its output, and runCommand's notes", async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    try {
      const id = commands.start(`sleep 300.${marker} & echo out; echo err >&2; exit 3`, { cwd: root });
      await ended(commands, id, 'BackgroundCommands.start: the command exits with 3; its task must end');
      const read = commands.read(id);
      expect(
        read.status,
        'BackgroundCommands.start: a command that ended by itself is exited, with its exitCode and signal (guided step 5)',
      ).toEqual({ state: 'exited', exitCode: 3, signal: null });
      expect([read.stdout, read.stderr], 'what it printed, stdout and stderr apart').toEqual(['out\n', 'err\n']);
      expect(
        read.notes.join('\n'),
        "BackgroundCommands.start: keep runCommand's notes (here: the `sleep` it left running was stopped) (guided step 5)",
      ).toContain(`sleep 300.${marker}`);
      expect(processesRunning(`sleep 300.${marker}`), 'runCommand stops what the command left running').toEqual([]);
    } finally {
      killLeftOver(marker);
    }
  });

  test('a command killed by a signal is exited with that signal, not stopped', async () => {
    const { root } = tempWorkspace();
    const commands = new BackgroundCommands();
    const id = commands.start('kill -9 $$', { cwd: root });
    await ended(commands, id, 'BackgroundCommands.start: the shell killed itself; its task must end');
    expect(
      commands.read(id).status,
      'BackgroundCommands.start: only stopped "abort" is stopped; a command that a signal ended by itself is exited, with the signal (guided step 5)',
    ).toEqual({ state: 'exited', exitCode: null, signal: 'SIGKILL' });
  });

  test('a task whose shell cannot start is failed, and its done never rejects', async () => {
    const { root } = tempWorkspace();
    const commands = new BackgroundCommands();
    const id = commands.start('echo hi', { cwd: path.join(root, 'no-such-folder') });
    await ended(commands, id, 'BackgroundCommands.start: bash cannot start in a missing folder; the task must end');
    const { status } = commands.read(id);
    expect(
      status.state,
      "BackgroundCommands.start: runCommand rejected (spawn's ENOENT): the task is failed (guided step 5)",
    ).toBe('failed');
    expect(
      (status as { error: string }).error,
      "BackgroundCommands.start: a failed task keeps the error's message (guided step 5)",
    ).toMatch(/ENOENT/);
    expect(
      (status as { error: string }).error,
      "BackgroundCommands.start: a failed task keeps the error's message, not the error turned into text (no `Error: ` in front) (guided step 5)",
    ).not.toMatch(/^Error/);
  });

  test('what a task prints before anyone reads it stays within outputLimit, on stdout and on stderr', async () => {
    const { root } = tempWorkspace();
    const commands = new BackgroundCommands({ outputLimit: 100 });
    const id = commands.start("head -c 5000 /dev/zero | tr '\\0' a; head -c 5000 /dev/zero | tr '\\0' b >&2", {
      cwd: root,
    });
    await ended(commands, id, 'BackgroundCommands.start: the command prints and exits; its task must end');
    const { stdout, stderr } = commands.read(id);
    const step =
      'BackgroundCommands.start: the unread caps start makes are OutputCaps of this.outputLimit (here 100), one per stream, so the output stays bounded until the first read (guided step 3)';
    expect([stdout.length < 200, stderr.length < 200], step).toEqual([true, true]);
    expect(stdout, step).toMatch(/^a+\n\[\.\.\. \d+ characters cut \.\.\.\]\na+$/);
    expect(stderr, step).toMatch(/^b+\n\[\.\.\. \d+ characters cut \.\.\.\]\nb+$/);
  });

  test('at most maxRunning tasks run at once, counted again at every start: one that ended or was stopped makes room', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands({ maxRunning: 2 });
    try {
      const quick = commands.start(`exit 0 # ${marker}`, { cwd: root });
      await ended(commands, quick, 'BackgroundCommands.start: `exit 0` ends at once; its task must end');
      const room =
        'BackgroundCommands.start: a task that has ended does not count against maxRunning: count with running() (given), not every task ever started (guided step 1)';
      const startWithRoom = () => {
        try {
          return commands.start(`sleep 300.${marker}`, { cwd: root });
        } catch (error) {
          if (error instanceof Error && error.name === 'TodoError') throw error;
          return expect.fail(`${room}; one task has ended and maxRunning is 2, yet it threw: ${String(error)}`);
        }
      };
      const one = startWithRoom();
      const two = startWithRoom();
      expect([quick, one, two], room).toEqual(['b1', 'b2', 'b3']);
      let refused: unknown;
      try {
        commands.start(`sleep 300.${marker}`, { cwd: root });
      } catch (error) {
        refused = error;
      }
      expect(
        refused,
        'BackgroundCommands.start: two tasks are running and maxRunning is 2: a third start must throw (running() >= maxRunning) (guided step 1)',
      ).toBeInstanceOf(Error);
      expect(
        String(refused),
        'BackgroundCommands.start: the refusal says they are already running (guided step 1)',
      ).toMatch(/already running/);
      expect(
        String(refused),
        'BackgroundCommands.start: the refusal says how to make room: TaskStop (guided step 1)',
      ).toMatch(/TaskStop/);
      expect(commands.ids(), 'a refused start makes no task').toEqual(['b1', 'b2', 'b3']);
      await within(commands.stop(one));
      expect(
        commands.start(`true # ${marker}`, { cwd: root }),
        'BackgroundCommands.start: once one is stopped there is room again: count the running tasks at every start (guided step 1)',
      ).toBe('b4');
    } finally {
      killLeftOver(marker);
    }
  });

  test('the timeout stops a background run, and the status says it timed out', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    // runCommand's timer is a fake one, moved past the limit once the command has printed.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const id = commands.start(`echo begun; touch printed; sleep 300.${marker}`, { cwd: root, timeoutMs: 1000 });
      await waitUntil(exists(root, 'printed'), 'BackgroundCommands.start: the command must run (guided step 4)');
      vi.advanceTimersByTime(1000);
      await ended(
        commands,
        id,
        'BackgroundCommands.start: 1000 ms have passed and the timeout is 1000 ms: pass options.timeoutMs to runCommand (guided step 4)',
      );
      const read = commands.read(id);
      expect(
        read.status,
        'BackgroundCommands.start: stopped "timeout" is timed out, with the timeout (guided step 5)',
      ).toEqual({ state: 'timed out', timeoutMs: 1000 });
      expect(read.stdout, 'what it printed before the timeout is kept').toBe('begun\n');
    } finally {
      vi.useRealTimers();
      killLeftOver(marker);
    }
  });

  test(`without a timeout, a background run may last BACKGROUND_DEFAULT_TIMEOUT_MS (${BACKGROUND_DEFAULT_TIMEOUT_MS} ms)`, async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const id = commands.start(`touch started; ${gate('go')}; echo done # ${marker}`, { cwd: root });
      await waitUntil(exists(root, 'started'), 'BackgroundCommands.start: the command must run (guided step 4)');
      vi.advanceTimersByTime(BACKGROUND_DEFAULT_TIMEOUT_MS - 1);
      open(root, 'go');
      await ended(commands, id, 'BackgroundCommands.start: the command ends once the test lets it');
      expect(
        commands.read(id).status,
        `BackgroundCommands.start: ${BACKGROUND_DEFAULT_TIMEOUT_MS - 1} ms is within the default timeout: with no options.timeoutMs, give runCommand BACKGROUND_DEFAULT_TIMEOUT_MS (guided step 4)`,
      ).toEqual({ state: 'exited', exitCode: 0, signal: null });
      vi.useRealTimers();
      // The default also shows in the status of a task that reaches it.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const late = commands.start(`touch late; sleep 300.${marker}`, { cwd: root });
      await waitUntil(exists(root, 'late'), 'BackgroundCommands.start: the command must run (guided step 4)');
      vi.advanceTimersByTime(BACKGROUND_DEFAULT_TIMEOUT_MS);
      await ended(commands, late, 'BackgroundCommands.start: the default timeout has passed; the task must end');
      expect(
        commands.read(late).status,
        'BackgroundCommands.start: the status says which timeout passed: the default one (guided step 5)',
      ).toEqual({ state: 'timed out', timeoutMs: BACKGROUND_DEFAULT_TIMEOUT_MS });
    } finally {
      vi.useRealTimers();
      open(root, 'go');
      killLeftOver(marker);
    }
  });
});

describe('BackgroundCommands.read (src/tools/background.ts)', () => {
  test('a second read gives only what was printed since the first, on stdout and on stderr', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    try {
      const id = commands.start(`echo one; echo uno >&2; ${gate('go')}; echo two; echo dos >&2 # ${marker}`, {
        cwd: root,
      });
      const first = await readUntil(
        commands,
        id,
        (seen) => seen.stdout.includes('one') && seen.stderr.includes('uno'),
        'BackgroundCommands.read: the command printed "one" and "uno" and waits: the reads while it runs must give them; start\'s onOutput adds each piece to the caps the task has at that moment, task.unread[stream], since each read swaps them (start guided step 4, read guided step 2)',
      );
      expect(
        first,
        'BackgroundCommands.read: reads while it waits give "one" and "uno" once each: each read gives only what is new (guided step 2)',
      ).toEqual({ stdout: 'one\n', stderr: 'uno\n' });
      open(root, 'go');
      await ended(commands, id, 'BackgroundCommands.start: the command ends once the test lets it');
      const second = commands.read(id);
      expect(
        [second.stdout, second.stderr],
        'BackgroundCommands.read: the read after the first gives only what came since ("two" and "dos"): take the unread caps and leave fresh ones, for each stream; and start adds each piece to the caps the task has at that moment (guided step 2, start guided step 4)',
      ).toEqual(['two\n', 'dos\n']);
      expect(
        [commands.read(id).stdout, commands.read(id).stderr],
        'BackgroundCommands.read: nothing new since: empty (guided step 2)',
      ).toEqual(['', '']);
      expect(commands.read(id).status, 'the status is there at every read').toEqual({
        state: 'exited',
        exitCode: 0,
        signal: null,
      });
    } finally {
      open(root, 'go');
      killLeftOver(marker);
    }
  });

  test('what is not yet read stays within outputLimit, the first read and every read after it', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands({ outputLimit: 100 });
    const lots = (letter: string) => `head -c 5000 /dev/zero | tr '\\0' ${letter}`;
    try {
      const id = commands.start(
        `${lots('a')}; echo; echo first; ${gate('go')}; ${lots('b')}; ${lots('c')} >&2 # ${marker}`,
        {
          cwd: root,
        },
      );
      const first = await readUntil(
        commands,
        id,
        (seen) => seen.stdout.includes('first'),
        'BackgroundCommands.read: the command printed 5000 characters and "first", then waits: the reads while it runs must give them (guided step 2)',
      );
      expect(
        first.stdout.length,
        'BackgroundCommands.start and read: the unread output goes into OutputCaps of this.outputLimit (here 100), so it stays bounded while the task runs: the caps start makes (start guided step 3), and the fresh caps a read leaves are of this.outputLimit too (read guided step 2)',
      ).toBeLessThan(200);
      expect(first.stdout, 'the OutputCap says how much it cut').toMatch(/characters cut/);
      open(root, 'go');
      await ended(commands, id, 'BackgroundCommands.start: the command ends once the test lets it');
      const second = commands.read(id);
      expect(
        [second.stdout.length < 200, second.stderr.length < 200],
        'BackgroundCommands.read: the fresh caps a read leaves are of this.outputLimit too, for each stream, so what comes after stays bounded (guided step 2)',
      ).toEqual([true, true]);
      expect(second.stdout).toMatch(/^b+\n\[\.\.\. \d+ characters cut \.\.\.\]\nb+$/);
      expect(second.stderr).toMatch(/^c+\n\[\.\.\. \d+ characters cut \.\.\.\]\nc+$/);
    } finally {
      open(root, 'go');
      killLeftOver(marker);
    }
  });

  test('an unknown id is an error that names it', async () => {
    const { root } = tempWorkspace();
    const commands = new BackgroundCommands();
    let error: unknown;
    try {
      commands.read('b7');
    } catch (thrown) {
      error = thrown;
    }
    if (error instanceof Error && error.name === 'TodoError') throw error;
    expect(
      String(error),
      'BackgroundCommands.read: find the task with this.task(id) (given), which throws an error naming an unknown id (guided step 1)',
    ).toMatch(/No background task with id "b7"/);
    const id = commands.start('true', { cwd: root });
    await ended(commands, id, 'BackgroundCommands.start: `true` ends at once');
    expect(commands.read(id).id, 'BackgroundCommands.read: the read names its task (guided step 3)').toBe('b1');
    expect(commands.read(id).command, 'BackgroundCommands.read: the read names its command (guided step 3)').toBe(
      'true',
    );
  });
});

describe('BackgroundCommands.stopAll (src/tools/background.ts)', () => {
  test('stop ends the task and everything it started, even a child in the background or out of the group', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    try {
      const id = commands.start(
        `sleep 300.${marker}1 & setsid sleep 300.${marker}2 & touch started; sleep 300.${marker}3`,
        { cwd: root },
      );
      await waitUntil(exists(root, 'started'), 'BackgroundCommands.start: the command must run (guided step 4)');
      const outcome = await within(commands.stop(id));
      expect(
        outcome.status,
        "BackgroundCommands.start: stop() aborts the task's controller: pass controller.signal to runCommand, which then kills the group and the leftovers (guided step 4)",
      ).toBe('resolved');
      expect(commands.read(id).status, 'BackgroundCommands.start: stopped "abort" is stopped (guided step 5)').toEqual({
        state: 'stopped',
      });
      await waitUntil(
        () => processesRunning(`sleep 300.${marker}`).length === 0,
        'BackgroundCommands.start: a process the task started kept running after stop(): let runCommand run the command, with the signal (guided step 4)',
      );
    } finally {
      killLeftOver(marker);
    }
  });

  test('stopAll resolves only when every task has ended, and leaves nothing running', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    try {
      const ids = [1, 2, 3].map((n) =>
        commands.start(`setsid sleep 300.${marker}${n} & touch started${n}; sleep 300.${marker}${n}`, { cwd: root }),
      );
      for (const n of [1, 2, 3]) {
        await waitUntil(exists(root, `started${n}`), 'BackgroundCommands.start: the commands must run (guided step 4)');
      }
      const outcome = await within(commands.stopAll());
      if (outcome.status === 'rejected') throw outcome.error;
      expect(outcome.status, `BackgroundCommands.stopAll: it must end ${hung()}`).toBe('resolved');
      expect(
        ids.map((id) => commands.read(id).status.state),
        'BackgroundCommands.stopAll: when it resolves, every task has ended: await every stop, not only start them (guided step 2)',
      ).toEqual(['stopped', 'stopped', 'stopped']);
      await waitUntil(
        () => processesRunning(`sleep 300.${marker}`).length === 0,
        'BackgroundCommands.stopAll: a process a task started kept running after stopAll (guided step 1)',
      );
    } finally {
      killLeftOver(marker);
    }
  });

  test('stopAll leaves a task that has ended as it was, and stops the others', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    try {
      const done = commands.start(`exit 2 # ${marker}`, { cwd: root });
      await ended(commands, done, 'BackgroundCommands.start: `exit 2` ends at once');
      const running = commands.start(`touch started; sleep 300.${marker}`, { cwd: root });
      await waitUntil(exists(root, 'started'), 'BackgroundCommands.start: the command must run (guided step 4)');
      const outcome = await within(commands.stopAll());
      if (outcome.status === 'rejected') throw outcome.error;
      expect(
        [commands.read(done).status, commands.read(running).status],
        'BackgroundCommands.stopAll: stop every task with stop(id) and await them: the ended one keeps its exit code, the running one is stopped (guided step 1 and 2)',
      ).toEqual([{ state: 'exited', exitCode: 2, signal: null }, { state: 'stopped' }]);
    } finally {
      killLeftOver(marker);
    }
  });
});

describe('backgroundTools (src/tools/background.ts): bash run_in_background, TaskOutput and TaskStop', () => {
  test('bash with run_in_background answers with the task id; TaskOutput shows what is new; TaskStop stops it', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    const tools = backgroundTools(commands);
    try {
      const started = await call(tool(tools, 'bash'), root, {
        command: `echo listening; touch started; sleep 300.${marker}`,
        run_in_background: true,
      });
      expect(started, 'the bash tool names the task it started').toMatch(/task b1\b/);
      await waitUntil(exists(root, 'started'), 'BackgroundCommands.start: the command must run (guided step 4)');
      await waitUntil(
        () => commands.task('b1').unread.stdout.toString().includes('listening'),
        'BackgroundCommands.start: the command printed "listening"; onOutput adds it to task.unread.stdout (guided step 4)',
      );
      const output = await call(tool(tools, 'TaskOutput'), root, { task_id: 'b1', block: false });
      expect(output, 'TaskOutput without block answers at once, with the task running and what it printed').toBe(
        'task b1: running\n--- stdout (new since the last read) ---\nlistening\n--- stderr (new since the last read) ---\n(empty)',
      );
      const stopped = await within(call(tool(tools, 'TaskStop'), root, { task_id: 'b1' }));
      expect(stopped, 'TaskStop stops the task').toEqual({
        status: 'resolved',
        value: expect.stringMatching(/Stopped task b1/),
      });
      const after = await call(tool(tools, 'TaskOutput'), root, { task_id: 'b1', block: false });
      expect(
        after,
        'BackgroundCommands.read: after the read that gave "listening", nothing more is new (guided step 2)',
      ).toBe(
        'task b1: stopped (TaskStop, or the agent ended)\n--- stdout (new since the last read) ---\n(empty)\n--- stderr (new since the last read) ---\n(empty)',
      );
      expect(processesRunning(`sleep 300.${marker}`), 'nothing the task started is left').toEqual([]);
    } finally {
      killLeftOver(marker);
    }
  });

  test('TaskOutput with block waits for the task to end, and then gives the rest of its output', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    const tools = backgroundTools(commands);
    try {
      await call(tool(tools, 'bash'), root, {
        command: `echo early; ${gate('go')}; echo late; exit 4 # ${marker}`,
        run_in_background: true,
      });
      const blocked = call(tool(tools, 'TaskOutput'), root, { task_id: 'b1', timeout: 600_000 });
      open(root, 'go');
      const outcome = await within(blocked);
      expect(outcome, 'TaskOutput (block: true) answers once the task has exited, with all it printed').toEqual({
        status: 'resolved',
        value:
          'task b1: exited with code 4\n--- stdout (new since the last read) ---\nearly\nlate\n--- stderr (new since the last read) ---\n(empty)',
      });
    } finally {
      open(root, 'go');
      killLeftOver(marker);
    }
  });

  test('TaskOutput with block gives up at its timeout, with the task still running', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands();
    const tools = backgroundTools(commands);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await call(tool(tools, 'bash'), root, {
        command: `touch started; sleep 300.${marker}`,
        run_in_background: true,
      });
      await waitUntil(exists(root, 'started'), 'BackgroundCommands.start: the command must run (guided step 4)');
      const blocked = call(tool(tools, 'TaskOutput'), root, { task_id: 'b1', timeout: 5000 });
      await vi.advanceTimersByTimeAsync(5000);
      const outcome = await within(blocked);
      expect(outcome, 'TaskOutput stops waiting at its timeout and answers with the task running').toEqual({
        status: 'resolved',
        value: expect.stringMatching(/^task b1: running\n/),
      });
    } finally {
      vi.useRealTimers();
      await within(commands.stopAll());
      killLeftOver(marker);
    }
  });

  test('TaskOutput and TaskStop on an unknown id are errors that name it', async () => {
    const { root } = tempWorkspace();
    const commands = new BackgroundCommands();
    const tools = backgroundTools(commands);
    await call(tool(tools, 'bash'), root, { command: 'true', run_in_background: true });
    for (const name of ['TaskOutput', 'TaskStop']) {
      const error = await rejection(
        call(tool(tools, name), root, { task_id: 'b9', block: false }),
        `${name}: there is no task b9`,
      );
      expect(String(error), `${name}: the error names the id and the ids there are`).toMatch(
        /No background task with id "b9" \(the ids are b1\)/,
      );
    }
    await ended(commands, 'b1', 'BackgroundCommands.start: `true` ends at once');
  });

  test('the bash tool refuses more background commands than maxRunning, as an error the model reads', async () => {
    const { root } = tempWorkspace();
    const marker = newMarker();
    const commands = new BackgroundCommands({ maxRunning: 1 });
    const bash = tool(backgroundTools(commands), 'bash');
    try {
      await call(bash, root, { command: `sleep 300.${marker}`, run_in_background: true });
      const error = await rejection(
        call(bash, root, { command: `sleep 300.${marker}`, run_in_background: true }),
        'BackgroundCommands.start: one task runs and maxRunning is 1 (guided step 1)',
      );
      expect(String(error)).toMatch(/already running/);
      expect(
        await call(bash, root, { command: 'echo in front' }),
        'without run_in_background the command runs in the foreground, limit or not',
      ).toBe('exit code: 0\n--- stdout ---\nin front\n--- stderr ---\n(empty)');
    } finally {
      killLeftOver(marker);
    }
  });

  test('builtinTools(registry) adds run_in_background, TaskOutput and TaskStop; builtinTools() stays the six', async () => {
    const { root } = tempWorkspace();
    const commands = new BackgroundCommands();
    const tools = builtinTools(commands);
    expect(tools.names()).toEqual(['read', 'glob', 'grep', 'write', 'edit', 'bash', 'TaskOutput', 'TaskStop']);
    const bash = tools.definitions().find((d) => d.name === 'bash');
    expect(Object.keys(bash?.inputSchema.properties ?? {})).toEqual(['command', 'timeout_ms', 'run_in_background']);
    const plain = builtinTools();
    expect(plain.names()).toEqual(['read', 'glob', 'grep', 'write', 'edit', 'bash']);
    expect(Object.keys(plain.definitions().find((d) => d.name === 'bash')?.inputSchema.properties ?? {})).toEqual([
      'command',
      'timeout_ms',
    ]);
    const result = await tools.get('bash')!.execute({ command: 'true', run_in_background: true }, { cwd: root });
    expect(result).toMatch(/task b1/);
    await ended(commands, 'b1', 'BackgroundCommands.start: `true` ends at once');
  });
});
