/**
 * Chapter 10: a wait that a person can cancel.
 */
import { TodoError } from '../todo.js';

/**
 * Resolves after `ms` milliseconds. A cancel through `signal`, during the wait, rejects at once with the signal's
 * reason; a signal cancelled before the call rejects the same way and schedules nothing. However it ends, it leaves
 * nothing behind: nothing scheduled, and no listener on the signal (a long-lived signal must not collect one per
 * wait). Without a signal it just waits.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  // #region chapter 10: sleep
  // Write it from the contract above. Step by step instead: npm run reset -- chapter10 --guided
  throw new TodoError(10, 'sleep');
  // #endregion
}
