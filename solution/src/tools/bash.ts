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
    // 1. The head fills first: move characters from the chunk into it until it holds Math.floor(limit / 2).
    // 2. The rest of the chunk goes to the end of the tail.
    // 3. If the tail is now longer than its share (limit minus the head's share), drop characters from its start
    //    and add how many to `cut`. Do this on every chunk: the tail may never keep more than its share.
    const headShare = Math.floor(this.limit / 2);
    const room = headShare - this.head.length;
    this.head += chunk.slice(0, room);
    this.tail += chunk.slice(room);
    const extra = Math.max(0, this.tail.length - (this.limit - headShare));
    this.tail = this.tail.slice(extra);
    this.cut += extra;
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
  // 1. Give the run an id (randomUUID()) and start it with spawn('bash', ['-c', command], { cwd, detached: true,
  //    stdio: ['ignore', 'pipe', 'pipe'], env: commandEnvironment(runId) }). `detached: true` makes the shell the
  //    leader of a new process group, which everything it starts joins; the environment marks every process of
  //    this run and hides the agent's API keys from the command.
  // 2. Read stdout and stderr as text (setEncoding('utf8') keeps multi-byte characters whole) into an OutputCap
  //    each, chunk by chunk as they arrive, and hand each chunk to options.onOutput too, with its stream's name,
  //    when it is given.
  // 3. Write killGroup(): process.kill(-child.pid, 'SIGKILL') (a negative pid means the whole group), inside a
  //    try/catch because the group may already be gone.
  // 4. Stop the command when options.timeoutMs has passed, or when options.signal fires: remember why in
  //    `stopped` ('timeout' or 'abort'), then killGroup().
  // 5. Wait for the shell's 'exit' event (reject with the child's 'error': bash could not start). Then stop what
  //    the command left running: stopLeftovers(runId) finds every process of this run, in the group or out of it
  //    (`sleep 100 &`, `setsid …`), and a note names what it stopped. Then killGroup(), for what it cannot find.
  // 6. Wait for 'close' (all output read), but not forever: something out of reach may still hold the pipes. If
  //    settlesWithin(closed, BASH_CLOSE_WAIT_MS) is false, destroy both streams and add a note that something out
  //    of the group still held the output open and may still be running.
  // 7. Whatever happened, clear the timer and remove the abort listener. Resolve with { exitCode, signal,
  //    stdout, stderr (the caps as text), stopped, notes }.
  const runId = randomUUID();
  const child = spawn('bash', ['-c', command], {
    cwd: options.cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: commandEnvironment(runId),
  });
  const stdout = new OutputCap();
  const stderr = new OutputCap();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout.add(chunk);
    options.onOutput?.('stdout', chunk);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr.add(chunk);
    options.onOutput?.('stderr', chunk);
  });
  const closed = new Promise((resolve) => child.once('close', resolve));
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // The group has already ended.
    }
  };
  let stopped: CommandOutcome['stopped'];
  const stop = (reason: 'timeout' | 'abort') => {
    stopped ??= reason;
    killGroup();
  };
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onAbort = () => stop('abort');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('exit', (code, sig) => resolve([code, sig]));
      child.once('error', reject);
    });
    const notes: string[] = [];
    const leftovers = await stopLeftovers(runId);
    if (leftovers.length > 0) {
      notes.push(
        `Stopped ${leftovers.length} process(es) the command left running in the background: ${leftovers.join('; ')}`,
      );
    }
    killGroup();
    if (!(await settlesWithin(closed, BASH_CLOSE_WAIT_MS))) {
      child.stdout.destroy();
      child.stderr.destroy();
      notes.push(
        `A process that left the command's process group still held its output open ${BASH_CLOSE_WAIT_MS} ms after ` +
          'the command ended; it may still be running.',
      );
    }
    return { exitCode, signal, stdout: stdout.toString(), stderr: stderr.toString(), stopped, notes };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
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
    // 1. If ctx.signal is already aborted, throw an error saying the command was not run because the run was
    //    cancelled, without starting it.
    // 2. Run it with runCommand(command, { cwd: ctx.cwd, timeoutMs, signal: ctx.signal }).
    // 3. Build the two labelled sections the model reads, each without its final newline, and `(empty)` when
    //    nothing was printed; then each of outcome.notes on a line of its own:
    //        --- stdout ---
    //        <stdout>
    //        --- stderr ---
    //        <stderr>
    //        <note>
    // 4. Stopped by the timeout: throw an error that says the command timed out after <ms> ms and was stopped,
    //    with the sections on the next line. Stopped by the abort signal: an error that says it was aborted, and
    //    the sections.
    // 5. Otherwise return `exit code: <code>` (or `exit code: none (killed by <signal>)`), a newline, and the
    //    sections. A non-zero exit code is a normal result: the model reads it as a person reads a terminal.
    if (ctx.signal?.aborted) throw new Error('Command not run: the run was cancelled');
    const outcome = await runCommand(command, { cwd: ctx.cwd, timeoutMs, signal: ctx.signal });
    const section = (label: string, text: string) => `--- ${label} ---\n${text.replace(/\n$/, '') || '(empty)'}`;
    const report = [section('stdout', outcome.stdout), section('stderr', outcome.stderr), ...outcome.notes].join('\n');
    if (outcome.stopped === 'timeout') {
      throw new Error(`Command timed out after ${timeoutMs} ms and was stopped. Output so far:\n${report}`);
    }
    if (outcome.stopped === 'abort') throw new Error(`Command aborted. Output so far:\n${report}`);
    const code = outcome.exitCode ?? `none (killed by ${outcome.signal})`;
    return `exit code: ${code}\n${report}`;
    // #endregion
  },
});
