/**
 * Waiting in graded tests without depending on the machine's speed (docs/authors.md, "A test's outcome depends on
 * the code"). Two kinds of wait:
 * - for a real process, server, file or socket: `within` / `outcomeWithin` / `waitUntil`, which resolve on the event
 *   itself and give up only at HANG_MS, a limit a correct solution never reaches even on a machine many times slower
 *   than the one the kit was measured on; a wrong solution that hangs then fails with its step's message (and says
 *   that it hung), well before the test's own timeout (vitest.config.ts, TEST_TIMEOUT_MS);
 * - for code that only awaits promises and fake timers: `settledSoon` (tests/chapter09/fixtures.ts), which fails at
 *   once when a few turns of the event loop were not enough.
 * Never assert on a duration: assert on the order of events (what had started, ended or been stopped when).
 */
import { expect } from 'vitest';
import { HANG_MS } from './limits.js';

// The real timers, taken before any test installs fake ones: a wait for a real event must not stop with the clock.
const { setTimeout, clearTimeout } = globalThis;

export { HANG_MS };

export type Outcome<T> =
  | { status: 'resolved'; value: T }
  | { status: 'rejected'; error: unknown }
  | { status: 'still running' };

/** How `promise` settled, or 'still running' if it had not after `ms` (a hang): the test then says which step hung. */
export async function outcomeWithin<T>(promise: Promise<T>, ms = HANG_MS): Promise<Outcome<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Outcome<T>>(
    (resolve) => (timer = setTimeout(() => resolve({ status: 'still running' }), ms)),
  );
  const settled = promise.then(
    (value): Outcome<T> => ({ status: 'resolved', value }),
    (error: unknown): Outcome<T> => ({ status: 'rejected', error }),
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `promise` is still pending after `ms` (a hang): for a test that then fails with its step's message. */
export async function hangs(promise: Promise<unknown>, ms = HANG_MS): Promise<boolean> {
  return (await outcomeWithin(promise, ms)).status === 'still running';
}

/** What a hang message says after the step's own words. */
export const hung = (ms = HANG_MS) => `(still waiting after ${ms / 1000} s: it hangs)`;

/** What `promise` settles with; fails with `message` if it has not settled after `ms` (a hang). */
export async function within<T>(promise: Promise<T>, message: string, ms = HANG_MS): Promise<T> {
  const outcome = await outcomeWithin(promise, ms);
  if (outcome.status === 'resolved') return outcome.value;
  if (outcome.status === 'rejected') throw outcome.error;
  return expect.fail(`${message} ${hung(ms)}`);
}

/**
 * Resolves once `check()` is true (looked at every few milliseconds); fails with `message` after `ms` (a hang).
 * With `alongside` (the call under test), it stops waiting when that call settles first: its error (a stub's TODO,
 * for one) is then the test's failure at once, not a wait for the limit.
 */
export async function waitUntil(
  check: () => boolean,
  message: string,
  ms = HANG_MS,
  alongside?: Promise<unknown>,
): Promise<void> {
  const until = Date.now() + ms;
  let settled: { error?: unknown } | undefined;
  alongside?.then(
    () => (settled = {}),
    (error: unknown) => (settled = { error }),
  );
  while (!check()) {
    if (settled) {
      if ('error' in settled) throw settled.error;
      return;
    }
    if (Date.now() > until) expect.fail(`${message} ${hung(ms)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
