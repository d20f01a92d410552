/**
 * Chapter 10: a wait that a person can cancel.
 */

/**
 * Resolves after `ms` milliseconds. A cancel through `signal`, during the wait, rejects at once with the signal's
 * reason; a signal cancelled before the call rejects the same way and schedules nothing. However it ends, it leaves
 * nothing behind: nothing scheduled, and no listener on the signal (a long-lived signal must not collect one per
 * wait). Without a signal it just waits.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  // #region chapter 10: sleep
  // 1. An aborted signal: reject with signal.reason right away (start no timer).
  // 2. Otherwise start a timer that resolves, and listen for abort ({ once: true }): on abort clear the timer and
  //    reject with the reason.
  // 3. When the timer fires, remove the abort listener (a long-lived signal must not collect them).
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  // #endregion
}
