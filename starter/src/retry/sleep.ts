/**
 * Chapter 10: a wait that a person can cancel.
 */
import { TodoError } from '../todo.js';

/**
 * Resolves after `ms` milliseconds. When `signal` aborts (or has aborted already) it rejects at once with the
 * signal's reason, and leaves no timer and no listener behind.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  // #region chapter 10: sleep
  // Write it from the contract above. Step by step instead: npm run reset -- chapter10 --guided
  throw new TodoError(10, 'sleep');
  // #endregion
}
