/**
 * Chapter 4: the bash tool, a terminal for the model.
 *
 * The model runs a command and reads what a person would see: the exit code, stdout and stderr. A failing command
 * is information, not a crash. What the tool must guard against is a command that never ends, prints without end
 * or leaves something running: a timeout stops it (with everything it started), long output is cut in the middle
 * as it arrives, and the agent's own API keys are kept out of the command's environment.
 *
 * The workspace check of the file tools cannot hold a shell: a command may touch any file the user can. Which
 * commands may run at all is chapter 8's business.
 */
import { TodoError } from '../todo.js';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineTool } from '../tool.js';
import { commandEnvironment, settlesWithin, stopLeftovers } from './processes.js';

/** How long a command may run when the model does not say. */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
/** The longest timeout the model may ask for. */
export const BASH_MAX_TIMEOUT_MS = 600_000;
/** Characters kept of stdout, and of stderr: the start and the end, with the middle cut. */
export const BASH_OUTPUT_LIMIT = 30_000;
/** How long to wait for the output pipes to close once the command and its leftovers have been stopped. */
export const BASH_CLOSE_WAIT_MS = 300;

/** How a command ended. */
export interface CommandOutcome {
  /** The exit code, or null when the process was ended by a signal. */
  exitCode: number | null;
  /** The signal that ended it, if one did. */
  signal: NodeJS.Signals | null;
  /** What it printed, capped by an OutputCap: the start and the end, with a note of how much was cut between. */
  stdout: string;
  stderr: string;
  /** Set when runCommand stopped the command itself: its timeout passed, or the abort signal fired. */
  stopped?: 'timeout' | 'abort';
  /** Sentences the model should read about what the command left behind (processes stopped, pipes held open). */
  notes: string[];
}

export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called with each piece of output as it arrives, as text (background commands read it while they run). */
  onOutput?(stream: 'stdout' | 'stderr', text: string): void;
}

/**
 * Keeps the start and the end of a stream of text, never more than `limit` characters in all, and counts the
 * characters it dropped in between. A command can print gigabytes (`yes`): the output must be capped as it
 * arrives, since no string can hold all of it.
 */
export class OutputCap {
  /** The first characters seen, at most Math.floor(limit / 2). */
  head = '';
  /** The last characters seen after the head, at most the rest of the limit. */
  tail = '';
  /** How many characters were dropped between the head and the tail. */
  cut = 0;

  constructor(readonly limit = BASH_OUTPUT_LIMIT) {}

  /**
   * Takes the next piece of output, however the text was cut into pieces: the head keeps the first
   * Math.floor(limit / 2) characters seen (a piece that fills it goes on into the tail), the tail the last ones
   * after it, up to the rest of the limit, and `cut` counts every character dropped between them over all pieces.
   * Never holds more than `limit` characters, after any piece: the output may never end. Text within the limit is
   * kept whole (toString, given, then gives it back unchanged).
   */
  add(chunk: string): void {
    // #region chapter 4: OutputCap.add
    // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
    throw new TodoError(4, 'OutputCap.add');
    // #endregion
  }

  /** Everything seen when nothing was cut; otherwise the head, `[... N characters cut ...]` and the tail. */
  toString(): string {
    return this.cut === 0 ? this.head + this.tail : `${this.head}\n[... ${this.cut} characters cut ...]\n${this.tail}`;
  }
}

/**
 * Runs `bash -c command` in `options.cwd` and collects its output. Never rejects because of the command's exit
 * code; rejects only when bash cannot be started, with spawn's own error. On timeout or abort, kills the command's
 * whole process group (everything it started, not only the shell, even what ignores SIGTERM) and resolves with
 * `stopped` set and the output printed so far. Whatever the command left running is stopped too, and named in
 * `notes`. The tool must come back even when the command does not: nothing it left may keep it waiting.
 *
 * - The command runs as the leader of a process group of its own, with the environment commandEnvironment (given)
 *   makes for this run: the agent's API keys are gone, the rest is kept, and every process of the run is marked
 *   so that stopLeftovers (given) can find it even out of the group (`sleep 100 &`, `setsid`). Once the shell has
 *   exited, a note names each process it stopped (so it looks before anything else kills them); one it cannot find
 *   (it hid its environment but stayed in the group) goes with the group, quietly, before the pipes are waited for.
 * - stdin is closed (a command that reads it gets end of input at once). stdout and stderr are kept apart, each
 *   read as text, piece by piece as it arrives, into an OutputCap (a character whose bytes arrive in two pieces
 *   stays whole); each piece also goes to `options.onOutput`, when given, with the name of its stream.
 * - Once the shell has exited, the pipes are waited for only a short while (BASH_CLOSE_WAIT_MS, settlesWithin):
 *   something out of reach may hold them open. Then they are closed and a note says something still held the
 *   output open and `may still be running`.
 * - The timer and the abort listener are removed however it ends.
 */
export async function runCommand(command: string, options: RunOptions): Promise<CommandOutcome> {
  // #region chapter 4: runCommand
  // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
  throw new TodoError(4, 'runCommand');
  // #endregion
}

/** The bash tool's input: the command and its timeout (chapter 4's background commands add to it). */
export const bashInput = z.object({
  command: z.string().min(1).describe('The shell command to run with bash, in the workspace root'),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(BASH_MAX_TIMEOUT_MS)
    .optional()
    .describe(
      `Milliseconds before the command is stopped (default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS})`,
    ),
});

export const bashTool = defineTool({
  name: 'bash',
  description:
    'Run a shell command with bash in the workspace root and return its exit code, stdout and stderr. ' +
    'Each call starts a fresh shell. Long output is cut in the middle; a command that runs too long is stopped.',
  input: bashInput,
  /**
   * Runs the command with runCommand in the workspace root, with the run's signal, and answers as a terminal would:
   * a first line `exit code: <code>`, or `exit code: none (killed by <signal>)` when a signal ended it, then two
   * labelled sections, `--- stdout ---` and `--- stderr ---`, each on the lines after its heading, then each note
   * runCommand gave on a line of its own. Each loses only its final newline (a blank line before it stays)
   * and reads `(empty)` when nothing was printed. A non-zero exit code is a normal result: the model reads a failing
   * test run as a person does.
   *
   * - Stopped by its timeout: an error that says it `timed out after <ms> ms` and was stopped, with the sections on
   *   the next line (what it printed shows what hung). Stopped by an abort: an error that says
   *   `Command aborted. Output so far:` and the sections.
   * - With a signal that has already fired, the command is never started: an error says it was not run because
   *   the run was cancelled.
   */
  async execute({ command, timeout_ms: timeoutMs = BASH_DEFAULT_TIMEOUT_MS }, ctx) {
    // #region chapter 4: bashTool.execute
    // Write it from the contract above. Step by step instead: npm run reset -- chapter4 --guided
    throw new TodoError(4, 'bashTool.execute');
    // #endregion
  },
});
