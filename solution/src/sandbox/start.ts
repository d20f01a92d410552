/**
 * Chapter 16: starting the sandbox, or saying why it did not start.
 *
 * The dangerous failure of a sandbox is the quiet one: the person turned it on, it could not start (bubblewrap is not
 * installed, the platform is not supported, the proxy could not listen), and commands run as if it were there, or
 * worse, without the questions it was meant to replace. So a sandbox that cannot start is said in one line, and the
 * agent goes on with chapter 8's questions, as if it had never been turned on; with `failIfUnavailable`, it does not
 * start at all.
 */
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
  // 1. Policy off: { state: { policy, available: false }, notes: [], stop: a function that does nothing }.
  // 2. reasons = await runtime.missing(). None: await runtime.start(policy); if it rejects, stop the runtime (await
  //    runtime.stop(), its own failure ignored) and the rejection's message is the reason.
  // 3. Any reason: with failIfUnavailable throw a SandboxUnavailableError naming the reasons; otherwise not
  //    available, and the note `${UNAVAILABLE_NOTE} (<reasons, joined with "; ">): every command is asked about as
  //    without a sandbox`.
  // 4. Started: { state: { policy, available: true }, notes: [], stop: () => runtime.stop() }.
  const off = async () => {};
  if (!policy.enabled) return { state: { policy, available: false }, notes: [], stop: off };
  let reasons = await runtime.missing();
  if (reasons.length === 0) {
    try {
      await runtime.start(policy);
    } catch (error) {
      await runtime.stop().catch(() => {});
      reasons = [errorText(error)];
    }
  }
  if (reasons.length > 0) {
    if (policy.failIfUnavailable) {
      throw new SandboxUnavailableError(
        `the sandbox cannot start (${reasons.join('; ')}), and sandbox.failIfUnavailable is set`,
      );
    }
    const note = `${UNAVAILABLE_NOTE} (${reasons.join('; ')}): every command is asked about as without a sandbox`;
    return { state: { policy, available: false }, notes: [note], stop: off };
  }
  return { state: { policy, available: true }, notes: [], stop: () => runtime.stop() };
  // #endregion
}
