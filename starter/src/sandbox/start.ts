/**
 * Chapter 16: starting the sandbox, or saying why it did not start.
 *
 * The dangerous failure of a sandbox is the quiet one: the person turned it on, it could not start (bubblewrap is not
 * installed, the platform is not supported, the proxy could not listen), and commands run as if it were there, or
 * worse, without the questions it was meant to replace. So a sandbox that cannot start is said in one line, and the
 * agent goes on with chapter 8's questions, as if it had never been turned on; with `failIfUnavailable`, it does not
 * start at all.
 */
import { TodoError } from '../todo.js';
import { errorText } from '../safe-call.js';
import type { SandboxState } from './decision.js';
import type { SandboxPolicy } from './policy.js';
import type { SandboxRuntime } from './runtime.js';

/** A sandbox that was asked for and cannot start, with failIfUnavailable set. */
export class SandboxUnavailableError extends Error {
  override name = 'SandboxUnavailableError';
}

/** The sandbox of a run: its state, what the person is told, and how to stop it. */
export interface StartedSandbox {
  state: SandboxState;
  /** Lines for the person: why the sandbox is not running when it was asked for. */
  notes: string[];
  /** Stops the runtime when it was started; does nothing otherwise. */
  stop(): Promise<void>;
}

/** The first words of the note when the sandbox was asked for and cannot run. */
export const UNAVAILABLE_NOTE = 'sandbox: not running';

/**
 * Starts the sandbox `policy` asks for with `runtime`.
 *
 * - Policy off: nothing is started, nothing is said; the state is not available.
 * - The runtime says something is missing (runtime.missing()), or its start rejects: not available, one note that
 *   starts with UNAVAILABLE_NOTE, gives the runtime's reasons, and says every command is asked about as without a
 *   sandbox. A start that rejected may have started a part of the runtime: it is stopped again. With the policy's
 *   failIfUnavailable, a SandboxUnavailableError with the same reasons is thrown instead, once anything started is
 *   stopped.
 * - Started: available, no note, and stop() stops the runtime.
 */
export async function startSandbox(policy: SandboxPolicy, runtime: SandboxRuntime): Promise<StartedSandbox> {
  // #region chapter 16: startSandbox
  // Write it from the contract above. Step by step instead: npm run reset -- chapter16 --guided
  throw new TodoError(16, 'startSandbox');
  // #endregion
}
