/**
 * Chapter 4: commands that keep running.
 *
 * A dev server, a watcher or a long build never "finishes" the way `npm test` does, so the bash tool cannot wait for
 * it. With `run_in_background` the bash tool starts the command here and answers at once with the task's id; the
 * model then reads what the command printed since its last look (TaskOutput) and stops it when it is done with it
 * (TaskStop). The command runs through the same runCommand as a foreground one: its own process group, the run
 * marker, its leftovers stopped when it ends, a timeout (a much longer one). The agent stops every task when it ends
 * (stopAll), so nothing the model started outlives it.
 */
import { TodoError } from '../todo.js';
import { z } from 'zod';
import { defineTool, type Tool } from '../tool.js';
import { BASH_MAX_TIMEOUT_MS, BASH_OUTPUT_LIMIT, OutputCap, bashInput, bashTool, runCommand } from './bash.js';

/** How long a background command may run when the model does not say. */
export const BACKGROUND_DEFAULT_TIMEOUT_MS = 1_800_000;
/** The longest a background command may run. */
export const BACKGROUND_MAX_TIMEOUT_MS = 7_200_000;
/** How many background commands may run at once. */
export const BACKGROUND_MAX_RUNNING = 8;
/** How long TaskOutput waits for a task to end when the model does not say, and the longest it may wait. */
export const TASK_OUTPUT_DEFAULT_WAIT_MS = 30_000;
export const TASK_OUTPUT_MAX_WAIT_MS = 600_000;

/** Where a background task is. */
export type TaskStatus =
  | { state: 'running' }
  /** The command ended by itself: its exit code, or the signal that ended it. */
  | { state: 'exited'; exitCode: number | null; signal: NodeJS.Signals | null }
  /** Stopped by stop() or stopAll(). */
  | { state: 'stopped' }
  /** Stopped because it ran longer than its timeout. */
  | { state: 'timed out'; timeoutMs: number }
  /** bash could not be started (the error's message). */
  | { state: 'failed'; error: string };

/** What one read of a task gives: its status, and what it printed since the last read. */
export interface TaskRead {
  id: string;
  command: string;
  status: TaskStatus;
  /** What the command printed since the last read, each capped by an OutputCap of the registry's outputLimit. */
  stdout: string;
  stderr: string;
  /** runCommand's notes (what the command left running), once the task has ended. */
  notes: string[];
}

/** One background command, as the registry keeps it. */
export interface BackgroundTask {
  readonly id: string;
  readonly command: string;
  status: TaskStatus;
  /** What the command printed and nobody has read yet, one OutputCap per stream. */
  unread: { stdout: OutputCap; stderr: OutputCap };
  notes: string[];
  /** Aborting it stops the command (runCommand's signal). */
  readonly controller: AbortController;
  /** Resolves once the command has ended and its status is set; never rejects. */
  done: Promise<void>;
}

export interface BackgroundOptions {
  /** How many may run at once (BACKGROUND_MAX_RUNNING). */
  maxRunning?: number;
  /** The characters kept of each stream's unread output (BASH_OUTPUT_LIMIT). */
  outputLimit?: number;
}

/** The background commands of one agent, by id. */
export class BackgroundCommands {
  private readonly tasks = new Map<string, BackgroundTask>();
  readonly maxRunning: number;
  readonly outputLimit: number;

  constructor(options: BackgroundOptions = {}) {
    this.maxRunning = options.maxRunning ?? BACKGROUND_MAX_RUNNING;
    this.outputLimit = options.outputLimit ?? BASH_OUTPUT_LIMIT;
  }

  /** How many tasks are running now (a task that has ended, however, is not). */
  running(): number {
    return [...this.tasks.values()].filter((task) => task.status.state === 'running').length;
  }

  /** The ids of every task started, in order. */
  ids(): string[] {
    return [...this.tasks.keys()];
  }

  /** The task with this id; throws an error naming the id, and the ids there are, when there is none. */
  task(id: string): BackgroundTask {
    const task = this.tasks.get(id);
    if (task) return task;
    const known = this.tasks.size === 0 ? 'none has been started' : `the ids are ${this.ids().join(', ')}`;
    throw new Error(`No background task with id "${id}" (${known})`);
  }

  /**
   * Starts `command` with runCommand in `cwd` and returns the new task's id at once, without waiting for it. Ids are
   * `b1`, `b2`, … in the order tasks were started, never reused. The command is stopped when `timeoutMs` has passed
   * (BACKGROUND_DEFAULT_TIMEOUT_MS when not given), by stop() or by stopAll().
   *
   * - Refused, with an error that says `already running` and that one can be stopped with TaskStop, when maxRunning
   *   tasks are running: every start counts the tasks running at that moment (running(), given), so a task that
   *   has ended makes room.
   * - What the command prints goes, piece by piece as it arrives, into the task's `unread` OutputCaps of
   *   outputLimit characters (the caps there when the piece arrives: read() replaces them), so memory stays bounded
   *   however long it runs and whatever it prints.
   * - When the run ends, the status says how: `timed out` (with its timeout), `stopped` (aborted), or `exited` with
   *   the exit code and signal, and runCommand's notes are kept. A run that rejects (bash could not start) is
   *   `failed` with the error's message: `done` never rejects.
   */
  start(command: string, options: { cwd: string; timeoutMs?: number }): string {
    // #region chapter 4: BackgroundCommands.start
    // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
    throw new TodoError(4, 'BackgroundCommands.start');
    // #endregion
  }

  /**
   * The task's status and what it printed since the last read of it (the first read: since it started), stdout and
   * stderr apart; a second read straight after gives '' for both. Throws for an unknown id (task(), given). Once the
   * status is no longer running, everything the command printed has been taken in: a read then gives the rest.
   */
  read(id: string): TaskRead {
    // #region chapter 4: BackgroundCommands.read
    // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
    throw new TodoError(4, 'BackgroundCommands.read');
    // #endregion
  }

  /** The task's status once it has ended, or after `ms` if it is still running then (never rejects but for an unknown id). */
  async wait(id: string, ms: number): Promise<TaskStatus> {
    const task = this.task(id);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([task.done, late]);
    clearTimeout(timer);
    return task.status;
  }

  /**
   * Stops the task (its whole process group and whatever it left running: runCommand's abort) and resolves with its
   * status once it has ended. A task that has already ended keeps its status.
   */
  async stop(id: string): Promise<TaskStatus> {
    const task = this.task(id);
    task.controller.abort();
    await task.done;
    return task.status;
  }

  /**
   * Stops every task at once, and resolves only when every one has ended: nothing any task started is running
   * then. The agent calls it when it ends. Tasks that have already ended are left as they are.
   */
  async stopAll(): Promise<void> {
    // #region chapter 4: BackgroundCommands.stopAll
    // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
    throw new TodoError(4, 'BackgroundCommands.stopAll');
    // #endregion
  }
}

/** A status as the model reads it: `running`, `exited with code 3`, `stopped`, `timed out after 1000 ms`, … */
export function describeStatus(status: TaskStatus): string {
  switch (status.state) {
    case 'running':
      return 'running';
    case 'exited':
      return status.exitCode === null ? `exited (killed by ${status.signal})` : `exited with code ${status.exitCode}`;
    case 'stopped':
      return 'stopped (TaskStop, or the agent ended)';
    case 'timed out':
      return `timed out after ${status.timeoutMs} ms and was stopped`;
    case 'failed':
      return `failed to start: ${status.error}`;
  }
}

/** One read as the model reads it: the status, the new output in labelled sections, then runCommand's notes. */
export function formatRead(read: TaskRead): string {
  const section = (label: string, text: string) =>
    `--- ${label} (new since the last read) ---\n${text.replace(/\n$/, '') || '(empty)'}`;
  return [
    `task ${read.id}: ${describeStatus(read.status)}`,
    section('stdout', read.stdout),
    section('stderr', read.stderr),
    ...read.notes,
  ].join('\n');
}

const backgroundBashInput = bashInput.extend({
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(BACKGROUND_MAX_TIMEOUT_MS)
    .optional()
    .describe(
      `Milliseconds before the command is stopped (default ${BACKGROUND_DEFAULT_TIMEOUT_MS} in the background, at ` +
        `most ${BACKGROUND_MAX_TIMEOUT_MS}; in the foreground default 120000, at most ${BASH_MAX_TIMEOUT_MS})`,
    ),
  run_in_background: z
    .boolean()
    .optional()
    .describe(
      'Run the command in the background and answer at once with its task id, for commands that keep running ' +
        '(a dev server, a watcher). Read its output with TaskOutput, stop it with TaskStop.',
    ),
});

/**
 * The bash tool with `run_in_background`, TaskOutput and TaskStop, all three on `commands`. Without
 * run_in_background the bash tool runs the command as bashTool does (and the foreground limit of BASH_MAX_TIMEOUT_MS
 * holds).
 */
export function backgroundTools(commands: BackgroundCommands): [Tool, Tool, Tool] {
  const bash = defineTool({
    name: bashTool.name,
    description: `${bashTool.description} With run_in_background, the command keeps running and the call answers at once with its task id.`,
    input: backgroundBashInput,
    async execute({ command, timeout_ms: timeoutMs, run_in_background: background }, ctx) {
      if (!background) {
        if (timeoutMs !== undefined && timeoutMs > BASH_MAX_TIMEOUT_MS) {
          throw new Error(
            `timeout_ms may be at most ${BASH_MAX_TIMEOUT_MS} in the foreground; use run_in_background for longer`,
          );
        }
        return bashTool.execute({ command, timeout_ms: timeoutMs }, ctx);
      }
      if (ctx.signal?.aborted) throw new Error('Command not run: the run was cancelled');
      const id = commands.start(command, { cwd: ctx.cwd, timeoutMs });
      return (
        `Started in the background: task ${id}. Read its output with TaskOutput (task_id "${id}"); ` +
        'stop it with TaskStop when it is no longer needed.'
      );
    },
  });
  const output = defineTool({
    name: 'TaskOutput',
    description:
      "Read a background task's status and what it printed since the last read. With block (the default), wait " +
      'for the task to end first, up to timeout milliseconds.',
    input: z.object({
      task_id: z.string().min(1).describe('The id the bash tool gave when it started the command'),
      block: z.boolean().default(true).describe('Wait for the task to end before answering (default true)'),
      timeout: z
        .number()
        .int()
        .min(0)
        .max(TASK_OUTPUT_MAX_WAIT_MS)
        .default(TASK_OUTPUT_DEFAULT_WAIT_MS)
        .describe(
          `With block, the longest to wait in milliseconds (default ${TASK_OUTPUT_DEFAULT_WAIT_MS}, at most ${TASK_OUTPUT_MAX_WAIT_MS})`,
        ),
    }),
    readOnly: true,
    async execute({ task_id: id, block, timeout }) {
      if (block) await commands.wait(id, timeout);
      return formatRead(commands.read(id));
    },
  });
  const stop = defineTool({
    name: 'TaskStop',
    description: 'Stop a background task, with everything it started.',
    input: z.object({ task_id: z.string().min(1).describe('The id of the background task to stop') }),
    async execute({ task_id: id }) {
      const before = commands.task(id).status;
      const after = await commands.stop(id);
      return before.state === 'running'
        ? `Stopped task ${id}, and everything it started.`
        : `Task ${id} had already ended: ${describeStatus(after)}.`;
    },
  });
  return [bash, output, stop];
}
