/**
 * Chapter 10: how long to wait before the next try.
 *
 * Pure functions of the attempt, the policy, the response headers, the time and a random number: no timer and no
 * clock is read here, so every delay can be tested exactly. The server's own wait (`retry-after-ms`, then
 * `retry-after`) wins over the backoff; a wait longer than the policy allows is not waited for at all.
 */

export interface DelayPolicy {
  /** The backoff before the first retry, before jitter (milliseconds). */
  baseDelayMs: number;
  /** The backoff never grows past this (milliseconds), jitter included. */
  maxDelayMs: number;
  /** The longest wait a server may ask for (retry-after); longer: give up instead of waiting (milliseconds). */
  maxWaitMs: number;
}

/** The wait before a retry: `{ ms }`, or `{ tooLongMs }` when the server asked for more than the policy's maximum. */
export type Delay = { ms: number } | { tooLongMs: number };

/**
 * The wait the server asked for, in milliseconds, or undefined when it asked for none (or nothing readable):
 * `retry-after-ms` (milliseconds, may have a fraction), else `retry-after` as seconds (a fraction too) or as an HTTP
 * date, the time from `now` until then (a date in the past means no wait: 0, never negative).
 *
 * Spaces around a number are ignored, and 0 is an answer ("now"); an empty or blank value, a negative number and
 * garbage count as no answer. "-5" is no answer either, although JavaScript's date parser reads it as a year.
 */
export function serverWaitMs(headers: Record<string, string>, now: number): number | undefined {
  // #region chapter 10: serverWaitMs
  // 1. retry-after-ms: a finite number of 0 or more (Number() of the trimmed text, not an empty string) is the
  //    answer as it is (Number() ignores spaces around it, but reads '' as 0).
  // 2. retry-after: first as a number of seconds (finite, 0 or more): times 1000.
  // 3. Else, unless it is a number after all (a negative one: Date.parse would read "-5" as a year), as an HTTP
  //    date (Date.parse): the time from `now` until then, never below 0.
  // 4. Nothing readable: undefined.
  const number = (text: string | undefined): number | undefined => {
    if (text === undefined || text.trim() === '') return undefined;
    const value = Number(text);
    return Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  const ms = number(headers['retry-after-ms']);
  if (ms !== undefined) return ms;
  const after = headers['retry-after'];
  const seconds = number(after);
  if (seconds !== undefined) return seconds * 1000;
  if (!Number.isNaN(Number(after))) return undefined;
  const date = Date.parse(after ?? '');
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
  // #endregion
}

/**
 * Exponential backoff with equal jitter before retry number `retry` (1 for the first retry): the ceiling starts at
 * the policy's base and doubles with each retry, up to its cap; the wait is half the ceiling plus a random part of
 * the other half, so it is always between ceiling/2 and the ceiling. The cap applies to the ceiling, before the
 * jitter: capping the wait instead would make every retry past the cap wait the same, and all clients retry in
 * step. `random` returns a number in [0, 1).
 */
export function backoffMs(retry: number, policy: DelayPolicy, random: () => number): number {
  // #region chapter 10: backoffMs
  // 1. The ceiling: baseDelayMs doubled (retry - 1) times, but never above maxDelayMs.
  // 2. Equal jitter: half the ceiling, plus random() times the other half.
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return ceiling / 2 + random() * (ceiling / 2);
  // #endregion
}

/**
 * The wait before retry number `retry`. The server's wait when it gave one, exactly as asked: no jitter, not
 * stretched or capped by the backoff's limits, and 0 (a date in the past) means now. Above the policy's longest
 * server wait it is not waited at all: the Delay says how long the server asked (exactly the longest is still
 * waited). With no server wait, the backoff. Rounded up to whole milliseconds.
 */
export function retryDelay(
  retry: number,
  headers: Record<string, string>,
  policy: DelayPolicy,
  now: number,
  random: () => number,
): Delay {
  // #region chapter 10: retryDelay
  // 1. Ask serverWaitMs. When the server gave a wait above policy.maxWaitMs: { tooLongMs: that wait } (the caller
  //    gives up and says so). When it gave one within the maximum: wait exactly that long (no jitter: the server
  //    said when).
  // 2. Otherwise the backoff. Round the result up to whole milliseconds.
  const asked = serverWaitMs(headers, now);
  if ((asked ?? 0) > policy.maxWaitMs) return { tooLongMs: asked! };
  return { ms: Math.ceil(asked ?? backoffMs(retry, policy, random)) };
  // #endregion
}
