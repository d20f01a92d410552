/**
 * Chapter 4: the bash tool, a terminal for the model.
 *
 * The model runs a command and reads what a person would see: the exit code, stdout and stderr. A failing command
 * is information, not a crash. What the tool must guard against is a command that never ends or prints without
 * end: a timeout stops it (with everything it started), and long output is cut in the middle.
 *
 * The workspace check of the file tools cannot hold a shell: a command may touch any file the user can. Which
 * commands may run at all is chapter 8's business.
 */
import { TodoError } from '../todo.js';
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { defineTool } from '../tool.js';

/** How long a command may run when the model does not say. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** The longest timeout the model may ask for. */
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** Characters kept of stdout, and of stderr, before the middle is cut. */
export const BASH_OUTPUT_LIMIT = 30_000;

/** How a command ended. */
export interface CommandOutcome {
  /** The exit code, or null when the process was ended by a signal. */
  exitCode: number | null;
  /** The signal that ended it, if one did. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Set when runCommand stopped the command itself: its timeout passed, or the abort signal fired. */
  stopped?: 'timeout' | 'abort';
}

export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Runs `bash -c command` and collects its output. Never rejects because of the command's exit code; rejects only
 * when bash cannot be started. On timeout or abort, kills the command's whole process group and resolves with
 * `stopped` set and the output printed so far.
 */
export function runCommand(command: string, options: RunOptions): Promise<CommandOutcome> {
  // #region chapter 4: runCommand
  // 1. Start it with spawn('bash', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }).
  //    `detached: true` makes the shell the leader of a new process group: everything it starts joins that group,
  //    so all of it can be stopped at once.
  // 2. Collect stdout and stderr as text: setEncoding('utf8') on each stream keeps multi-byte characters whole.
  // 3. Write killGroup(): process.kill(-child.pid, 'SIGKILL') (a negative pid means the whole group), inside a
  //    try/catch because the group may already be gone.
  // 4. Stop the command when options.timeoutMs has passed, or when options.signal fires: remember why in
  //    `stopped` ('timeout' or 'abort'), then killGroup().
  // 5. When the shell exits, call killGroup() too: a leftover background job (`sleep 100 &`) would otherwise keep
  //    the pipes open and the tool waiting.
  // 6. Resolve on the child's 'close' event (all output has been read) with { exitCode, signal, stdout, stderr,
  //    stopped }; reject on its 'error' event. Either way, clear the timer and remove the abort listener.
  throw new TodoError(4, 'runCommand');
  // #endregion
}

/** `text` if it has at most `limit` characters; otherwise its start and its end with a note of how much was cut. */
export function capOutput(text: string, limit = BASH_OUTPUT_LIMIT): string {
  // #region chapter 4: capOutput
  // 1. Text of at most `limit` characters comes back unchanged.
  // 2. Otherwise keep the first Math.floor(limit / 2) characters and the last (limit - that) characters: the start
  //    shows what ran, the end shows how it ended (the error is usually there).
  // 3. Join them with a line saying how many characters were left out: `\n[... <N> characters cut ...]\n`.
  throw new TodoError(4, 'capOutput');
  // #endregion
}

const input = z.object({
  command: z.string().min(1).describe('The shell command to run with bash, in the workspace root'),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(BASH_MAX_TIMEOUT_MS)
    .optional()
    .describe(`Milliseconds before the command is stopped (default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS})`),
});

export const bashTool = defineTool({
  name: 'bash',
  description:
    'Run a shell command with bash in the workspace root and return its exit code, stdout and stderr. ' +
    'Each call starts a fresh shell. Long output is cut in the middle; a command that runs too long is stopped.',
  input,
  async execute({ command, timeout_ms: timeoutMs = BASH_DEFAULT_TIMEOUT_MS }, ctx) {
    // #region chapter 4: bashTool.execute
    // 1. If ctx.signal is already aborted, throw `Command not run: the run was cancelled` without starting it.
    // 2. Run it with runCommand(command, { cwd: ctx.cwd, timeoutMs, signal: ctx.signal }).
    // 3. Build the two labelled sections the model reads, each through capOutput, without a final newline, and
    //    `(empty)` when nothing was printed:
    //        --- stdout ---
    //        <stdout>
    //        --- stderr ---
    //        <stderr>
    // 4. Stopped by the timeout: throw `Command timed out after <ms> ms and was stopped. Output so far:` followed
    //    by the sections on the next line. Stopped by the abort signal: throw `Command aborted. Output so far:` and
    //    the sections.
    // 5. Otherwise return `exit code: <code>` (or `exit code: none (killed by <signal>)`), a newline, and the
    //    sections. A non-zero exit code is a normal result: the model reads it as a person reads a terminal.
    throw new TodoError(4, 'bashTool.execute');
    // #endregion
  },
});
