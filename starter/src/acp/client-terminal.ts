/**
 * Chapter 14: commands in the editor's terminal.
 *
 * A client that offers `terminal` (initialize: clientCapabilities.terminal) runs commands for the agent: the agent
 * asks it to start one (`terminal/create`), shows that terminal in the tool's card (the editor streams its output
 * there as it comes), waits for it to end (`terminal/wait_for_exit`), reads what it printed (`terminal/output`),
 * and gives it back (`terminal/release`). The person watches the command run where they work, and can see it was
 * the command they allowed.
 *
 * The rules of chapter 4's bash tool still hold: the same time limit, the same cap on what the model reads (the
 * client is asked to keep no more, and what it sends is capped again), the same cancel. And one the editor adds: a
 * terminal is the client's to keep until it is released, so the tool releases it on every path, errors and cancel
 * included.
 */
import { TodoError } from '../todo.js';
import type { TerminalOutputResponse, WaitForTerminalExitResponse } from '@agentclientprotocol/sdk';
import { bashTool, BASH_DEFAULT_TIMEOUT_MS, BASH_OUTPUT_LIMIT, OutputCap } from '../tools/bash.js';
import { defineTool, type Tool } from '../tool.js';

/** A terminal the client started (terminal/create): what the tool can do with it. */
export interface ClientTerminal {
  readonly id: string;
  /** terminal/output: what it printed so far (the client may have dropped the start: `truncated`), and its exit. */
  currentOutput(): Promise<TerminalOutputResponse>;
  /** terminal/wait_for_exit: resolves when the command has ended. */
  waitForExit(): Promise<WaitForTerminalExitResponse>;
  /** terminal/kill: ends the command; the terminal stays readable until released. */
  kill(): Promise<void>;
  /** terminal/release: the client may forget the terminal (and kills the command if it still runs). */
  release(): Promise<void>;
}

/** What the client does for the bash tool (the server sends the requests; a test passes its own). */
export interface ClientTerminals {
  /**
   * terminal/create for `bash -c <command>` in `cwd`, asking the client to keep at most `outputByteLimit` bytes of
   * output; with `callId`, the terminal is shown in that call's card.
   */
  create(
    request: { command: string; cwd: string; outputByteLimit: number; callId?: string },
    signal?: AbortSignal,
  ): Promise<ClientTerminal>;
}

/** How waiting for `work` ended: its value, or `stopped` when the time limit passed or the signal fired first. */
export type Waited<T> = { value: T; stopped?: undefined } | { stopped: 'timeout' | 'abort' };

/**
 * Waits for `work`, at most `timeoutMs`, and no longer than `signal` allows. Never leaves a timer or a listener
 * behind, and a rejection of `work` after it was given up on is ignored. A rejection before that is thrown.
 */
export async function waitOrStop<T>(work: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<Waited<T>> {
  work.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<Waited<T>>((resolve) => {
    timer = setTimeout(() => resolve({ stopped: 'timeout' }), timeoutMs);
    onAbort = () => resolve({ stopped: 'abort' });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work.then((value) => ({ value })), stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

/** A terminal's output as the model reads it: capped like chapter 4's (OutputCap), with a note when the client cut it. */
export function terminalText(output: TerminalOutputResponse): string {
  const cap = new OutputCap(BASH_OUTPUT_LIMIT);
  cap.add(output.output);
  const text = cap.toString().replace(/\n$/, '') || '(empty)';
  return `--- output ---\n${text}${output.truncated ? `\n(the terminal kept only the last ${BASH_OUTPUT_LIMIT} bytes)` : ''}`;
}

/** How a terminal's command ended, as chapter 4 says it: `exit code: 1`, or `exit code: none (killed by SIGTERM)`. */
export function exitLine(exit: WaitForTerminalExitResponse): string {
  return `exit code: ${exit.exitCode ?? `none (killed by ${exit.signal ?? 'a signal'})`}`;
}

/**
 * `bash` in the editor's terminal: the same name, input and description as chapter 4's bash tool, the command run by
 * the client, shown live in the call's card. Time limit, output cap and cancel as chapter 4's; the terminal is
 * released on every path.
 */
export function clientBashTool(terminals: ClientTerminals): Tool {
  return defineTool({
    name: bashTool.name,
    description: bashTool.description,
    input: bashTool.input,
    /**
     * Chapter 4's bash in the client's terminal (terminals.create, shown live in the call's card: give it the call's
     * id), with chapter 4's rules: its time limit, its output cap (the client is asked to keep at most
     * BASH_OUTPUT_LIMIT bytes, and what it sends is capped again: terminalText, given), its cancel.
     *
     * - A call cancelled before it starts throws an error saying the command was `not run`, and asks the client for
     *   nothing.
     * - A terminal, once created, is the client's to keep until it is released: release it on every path, a failure
     *   of the wait or of the output included, last of all; a release that fails must not hide the outcome.
     * - The wait for the exit is bounded by the time limit and the cancel (waitOrStop, given). Cut short either way,
     *   the command is killed, then its output read, then the terminal released, and the call throws:
     *   `Command timed out after 20 ms and was stopped. Output so far:` and the output for the time limit,
     *   `Command aborted. Output so far:` and the output for a cancel (a newline between).
     * - Ended: exitLine (given), a newline, then the output. A failing command is a normal result.
     */
    async execute({ command, timeout_ms: timeoutMs = BASH_DEFAULT_TIMEOUT_MS }, ctx) {
      // #region chapter 14: clientBashTool.execute
      // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
      throw new TodoError(14, 'clientBashTool.execute');
      // #endregion
    },
  });
}
