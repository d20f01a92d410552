import { describe, expect, test } from 'vitest';
import { backoffMs, retryDelay, serverWaitMs, type DelayPolicy } from 'kit/retry/delay';
import { sleep } from 'kit/retry/sleep';
import { rejection } from '../helpers/assert.js';

const policy: DelayPolicy = { baseDelayMs: 500, maxDelayMs: 8000, maxWaitMs: 60_000 };
const NOW = Date.parse('2026-11-23T12:00:00Z');

/** A seeded random in [0, 1) (mulberry32), so the jitter tests see the same numbers every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('serverWaitMs (src/retry/delay.ts)', () => {
  test('retry-after-ms first, then retry-after in seconds (fractions kept)', () => {
    expect(
      serverWaitMs({ 'retry-after-ms': '1500', 'retry-after': '9' }, NOW),
      'serverWaitMs: retry-after-ms wins over retry-after (guided step 1)',
    ).toBe(1500);
    expect(
      serverWaitMs({ 'retry-after-ms': '12.5' }, NOW),
      'serverWaitMs: milliseconds may have a fraction (guided step 1)',
    ).toBe(12.5);
    expect(
      serverWaitMs({ 'retry-after': '3' }, NOW),
      'serverWaitMs: retry-after in seconds, times 1000 (guided step 2)',
    ).toBe(3000);
    expect(
      serverWaitMs({ 'retry-after': ' 0.25 ' }, NOW),
      'serverWaitMs: a fraction of a second, spaces trimmed (guided step 2)',
    ).toBe(250);
    expect(
      serverWaitMs({ 'retry-after': '0' }, NOW),
      'serverWaitMs: 0 means "now", not "no answer" (guided step 2)',
    ).toBe(0);
  });

  test('retry-after as an HTTP date: the time until then; a date in the past means no wait', () => {
    expect(
      serverWaitMs({ 'retry-after': 'Mon, 23 Nov 2026 12:00:07 GMT' }, NOW),
      'serverWaitMs: 7 s after now (guided step 3)',
    ).toBe(7000);
    expect(
      serverWaitMs({ 'retry-after': 'Mon, 23 Nov 2026 11:59:00 GMT' }, NOW),
      'serverWaitMs: a date in the past is 0, never negative (guided step 3)',
    ).toBe(0);
  });

  test('nothing readable is no answer: no header, garbage, a negative number, an empty value', () => {
    for (const headers of <Record<string, string>[]>[
      {},
      { 'retry-after': 'soon' },
      { 'retry-after': '-5' },
      { 'retry-after': '' },
      { 'retry-after': '   ' },
      { 'retry-after-ms': '  ' },
      { 'retry-after-ms': 'x' },
      { 'retry-after-ms': '' },
      { 'retry-after-ms': '-1' },
    ]) {
      expect(
        serverWaitMs(headers, NOW),
        `serverWaitMs: ${JSON.stringify(headers)} is no answer (guided step 4)`,
      ).toBeUndefined();
    }
    expect(
      serverWaitMs({ 'retry-after-ms': 'x', 'retry-after': '2' }, NOW),
      'serverWaitMs: an unreadable retry-after-ms falls through to retry-after',
    ).toBe(2000);
    expect(serverWaitMs({ 'retry-after': 'Infinity' }, NOW), 'serverWaitMs: Infinity is not a wait').toBeUndefined();
  });
});

describe('backoffMs (src/retry/delay.ts)', () => {
  test('exponential from the base: the lowest wait (random 0) is half the ceiling, which doubles each retry', () => {
    const lows = [1, 2, 3, 4, 5].map((retry) => backoffMs(retry, policy, () => 0));
    expect(
      lows,
      'backoffMs: ceilings 500, 1000, 2000, 4000, 8000; equal jitter starts at half of each (guided steps 1-2)',
    ).toEqual([250, 500, 1000, 2000, 4000]);
    expect(
      backoffMs(2, policy, () => 0.5),
      'backoffMs: half the ceiling plus random() times the other half (guided step 2)',
    ).toBe(750);
  });

  test('the cap holds for every retry and every random number, jitter included', () => {
    const random = seeded(10);
    for (let retry = 1; retry <= 30; retry++) {
      for (let i = 0; i < 20; i++) {
        const ms = backoffMs(retry, policy, random);
        const ceiling = Math.min(8000, 500 * 2 ** (retry - 1));
        expect(
          ms,
          `backoffMs: retry ${retry} must wait at most the ceiling ${ceiling} (jitter must not exceed the cap maxDelayMs)`,
        ).toBeLessThanOrEqual(ceiling);
        expect(ms, `backoffMs: retry ${retry} waits at least half the ceiling (equal jitter)`).toBeGreaterThanOrEqual(
          ceiling / 2,
        );
      }
    }
    expect(
      backoffMs(10, policy, () => 0.999999),
      'backoffMs: the ceiling of retry 10 is the cap (guided step 1)',
    ).toBeCloseTo(8000, 1);
  });

  test('the jitter spreads: a seeded random gives different waits across the whole upper half', () => {
    const random = seeded(42);
    const waits = Array.from({ length: 200 }, () => backoffMs(3, policy, random));
    expect(
      Math.min(...waits),
      'backoffMs: with random near 0 the wait is near half the ceiling (1000) (guided step 2)',
    ).toBeLessThan(1100);
    expect(
      Math.max(...waits),
      'backoffMs: with random near 1 the wait is near the ceiling (2000) (guided step 2)',
    ).toBeGreaterThan(1900);
    expect(new Set(waits).size, 'backoffMs: the wait depends on random() (guided step 2)').toBeGreaterThan(150);
  });

  test('past the cap the jitter still spreads: maxDelayMs caps the ceiling, before the random part', () => {
    const step =
      'backoffMs: cap the ceiling (baseDelayMs doubled, at most maxDelayMs) before the jitter, not the wait after it; otherwise every retry past the cap waits exactly maxDelayMs and all clients retry in step (guided step 1)';
    expect(
      backoffMs(10, policy, () => 0),
      `${step}: retry 10 with random 0 waits half the capped ceiling (4000)`,
    ).toBe(4000);
    const random = seeded(7);
    const waits = Array.from({ length: 200 }, () => backoffMs(8, policy, random));
    expect(new Set(waits).size, `${step}: retry 8's waits depend on random()`).toBeGreaterThan(150);
  });
});

describe('retryDelay (src/retry/delay.ts)', () => {
  test("the server's wait wins over the backoff, exactly (no jitter); without one, the backoff rounded up", () => {
    expect(
      retryDelay(1, { 'retry-after': '20' }, policy, NOW, () => 0.5),
      'retryDelay: retry-after 20 s is waited as it is, even above maxDelayMs (guided step 1)',
    ).toEqual({ ms: 20_000 });
    expect(
      retryDelay(4, { 'retry-after-ms': '10' }, policy, NOW, () => 0.5),
      'retryDelay: a short server wait is not stretched by the backoff (guided step 1)',
    ).toEqual({ ms: 10 });
    expect(
      retryDelay(2, {}, policy, NOW, () => 0.3),
      'retryDelay: no server wait: backoffMs(2) = 500 + 0.3 * 500 (guided step 2)',
    ).toEqual({ ms: 650 });
    expect(
      retryDelay(1, {}, policy, NOW, () => 0.0001),
      'retryDelay: rounded up to whole milliseconds (guided step 2)',
    ).toEqual({ ms: 251 });
    expect(
      retryDelay(1, { 'retry-after': 'Mon, 23 Nov 2026 11:00:00 GMT' }, policy, NOW, () => 0.5),
      'retryDelay: a server wait of 0 (a date in the past) is an answer: retry now, not after the backoff (?? keeps 0, || does not) (guided step 1)',
    ).toEqual({ ms: 0 });
  });

  test('a wait above the maximum is not waited for: tooLongMs says how long the server asked', () => {
    expect(
      retryDelay(1, { 'retry-after': '3600' }, policy, NOW, () => 0),
      'retryDelay: an hour is more than maxWaitMs (60 s) (guided step 1)',
    ).toEqual({ tooLongMs: 3_600_000 });
    expect(
      retryDelay(1, { 'retry-after': '60' }, policy, NOW, () => 0),
      'retryDelay: exactly the maximum is still waited (guided step 1)',
    ).toEqual({ ms: 60_000 });
    expect(
      retryDelay(1, { 'retry-after-ms': '60001' }, policy, NOW, () => 0),
      'retryDelay: one millisecond more is too long (guided step 1)',
    ).toEqual({ tooLongMs: 60_001 });
  });
});

describe('sleep (src/retry/sleep.ts)', () => {
  test('resolves after the time, and leaves no abort listener on the signal', async () => {
    const controller = new AbortController();
    const added: unknown[][] = [];
    const removed: unknown[][] = [];
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => (
      added.push(args.slice(0, 2)), add(...args)
    )) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => (
      removed.push(args.slice(0, 2)), remove(...args)
    )) as typeof remove;
    const started = performance.now();
    await sleep(20, signal);
    expect(performance.now() - started, 'sleep: it waits the time it was given (guided step 2)').toBeGreaterThanOrEqual(
      15,
    );
    expect(added.length, 'sleep: it listens for an abort, once (guided step 2)').toBe(1);
    expect(added[0]![0], 'sleep: the listener is for the abort event (guided step 2)').toBe('abort');
    expect(removed, 'sleep: when the timer fires, remove that same abort listener (guided step 3)').toEqual(added);
  });

  test("an abort during the wait ends it at once with the signal's reason, and clears its timer", async () => {
    const controller = new AbortController();
    const reason = new Error('stopped by the user');
    const timers = { set: globalThis.setTimeout, clear: globalThis.clearTimeout };
    const started: unknown[] = [];
    const cleared: unknown[] = [];
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      const handle = timers.set(...args);
      started.push(handle);
      return handle;
    }) as typeof setTimeout;
    globalThis.clearTimeout = ((handle: Parameters<typeof clearTimeout>[0]) => (
      cleared.push(handle), timers.clear(handle)
    )) as typeof clearTimeout;
    let waiting: Promise<void>;
    try {
      waiting = sleep(60_000, controller.signal);
    } finally {
      globalThis.setTimeout = timers.set;
    }
    try {
      timers.set(() => controller.abort(reason), 5);
      const outcome = await Promise.race([
        waiting.then(
          () => 'resolved',
          (error: unknown) => error,
        ),
        new Promise((resolve) => timers.set(() => resolve('still waiting 500 ms after the abort'), 500)),
      ]);
      if (outcome instanceof Error && outcome.name === 'TodoError') throw outcome;
      expect(
        outcome,
        "sleep: an abort must end the wait at once and reject with the signal's reason (guided step 2)",
      ).toBe(reason);
      expect(started.length, 'sleep: one timer for the wait (guided step 2)').toBe(1);
      expect(cleared, 'sleep: on abort, clear the timer (no timer left behind) (guided step 2)').toContain(started[0]);
    } finally {
      globalThis.clearTimeout = timers.clear;
    }
  });

  test('an already aborted signal rejects at once and starts no timer', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    const timers = globalThis.setTimeout;
    let started = 0;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => (
      started++, timers(...args)
    )) as typeof setTimeout;
    try {
      const error = await rejection(
        sleep(60_000, controller.signal),
        'sleep: an aborted signal rejects (guided step 1)',
      );
      expect((error as Error).message, "sleep: with the signal's reason (guided step 1)").toBe('too late');
    } finally {
      globalThis.setTimeout = timers;
    }
    expect(started, 'sleep: no timer for a wait that cannot happen (guided step 1)').toBe(0);
  });

  test('without a signal it just waits', async () => {
    const started = performance.now();
    await sleep(10);
    expect(performance.now() - started, 'sleep: no signal is fine').toBeGreaterThanOrEqual(8);
  });
});
