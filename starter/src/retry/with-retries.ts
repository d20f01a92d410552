/**
 * Chapter 10: a provider that tries again.
 *
 * `withRetries(provider, policy)` is a Provider around a Provider (chapter 1's contract), so the loop never knows:
 * a failed call is classified (classify.ts), waited for (delay.ts, with the injected sleep) and sent again, up to
 * `maxAttempts` tries. A stream is retried only before its first event: the events it has handed out cannot be taken
 * back, so after that a failure is final and says the stream was cut after it began. Before each retry the stream
 * yields a `retry` notice, which chapter 7's loop passes on as a `retry` event.
 */
import { TodoError } from '../todo.js';
import type { AssistantMessage } from '../messages.js';
import type { ModelRequest, Provider } from '../provider.js';
import { errorText } from '../safe-call.js';
import type { RetryNotice, StreamEvent } from '../stream-events.js';
import { turnEvents } from '../streaming-agent.js';
import { classifyError } from './classify.js';
import { retryDelay, type DelayPolicy } from './delay.js';
import { sleep as realSleep } from './sleep.js';

export interface RetryPolicy extends Partial<DelayPolicy> {
  /** The most tries in all, the first included (default 5; 1 means never retry). */
  maxAttempts?: number;
  /** The model to switch to after `fallbackAfter` overloaded failures in a row (the small fast model). */
  fallbackModel?: string;
  /** Overloaded failures in a row before the fallback model is used (default 3). */
  fallbackAfter?: number;
  /** The clock, for an HTTP-date retry-after (default Date.now). */
  now?: () => number;
  /** The wait (default: sleep from sleep.ts). Must reject with the signal's reason when it aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter (default Math.random). */
  random?: () => number;
}

export type ResolvedRetryPolicy = Required<Omit<RetryPolicy, 'fallbackModel'>> & Pick<RetryPolicy, 'fallbackModel'>;

export const DEFAULT_RETRY_POLICY = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxWaitMs: 60_000,
  fallbackAfter: 3,
} as const;

/** The policy with every default filled in. Throws a RangeError naming the field for a value that makes no sense. */
export function resolvePolicy(policy: RetryPolicy = {}): ResolvedRetryPolicy {
  const whole = { maxAttempts: 1, fallbackAfter: 1 } as const;
  for (const [field, least] of Object.entries(whole)) {
    const value = policy[field as keyof typeof whole];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= least)) {
      throw new RangeError(`retry policy: ${field} must be a whole number of at least ${least}, not ${String(value)}`);
    }
  }
  for (const field of ['baseDelayMs', 'maxDelayMs', 'maxWaitMs'] as const) {
    const value = policy[field];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`retry policy: ${field} must be a number of milliseconds, 0 or more, not ${String(value)}`);
    }
  }
  return {
    ...DEFAULT_RETRY_POLICY,
    now: Date.now,
    sleep: realSleep,
    random: Math.random,
    ...Object.fromEntries(Object.entries(policy).filter(([, value]) => value !== undefined)),
  } as ResolvedRetryPolicy;
}

/** The error a retrying provider gives up with: the retries are spent, or the server asked for too long a wait. */
export class RetryError extends Error {
  override name = 'RetryError';
  constructor(
    message: string,
    /** How many tries were made. */
    readonly attempts: number,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

/** A stream failed after it had handed out events: it is not retried. */
export class StreamInterruptedError extends Error {
  override name = 'StreamInterruptedError';
}

/** Where a request is in its retries. */
export interface RetryState {
  /** The try that just failed (1 for the first). */
  attempt: number;
  /** Overloaded failures in a row, this one included once counted. */
  overloadedInRow: number;
  /** The model the next try asks for, once the fallback is in use. */
  model?: string;
}

export class RetryingProvider implements Provider {
  readonly name: string;
  readonly imageInput: boolean | undefined;
  readonly policy: ResolvedRetryPolicy;

  constructor(
    readonly inner: Provider,
    policy: RetryPolicy = {},
  ) {
    this.name = inner.name;
    this.imageInput = inner.imageInput;
    this.policy = resolvePolicy(policy);
  }

  /**
   * After try `state.attempt` failed with `error`: the RetryNotice for the next try, with `state` moved on to it, or
   * a throw to give up. complete and stream both ask it, so every rule about giving up lives here.
   *
   * - Never retries a cancel: once the request has been cancelled, the cancel's reason is thrown, whatever the
   *   failure was (an SDK's own abort error is not retryable, but the person's reason must come out).
   * - A failure that classifyError does not retry is thrown unchanged.
   * - `maxAttempts` counts the first try (1: never retry). Spent, it gives up with a RetryError (the tries made, the
   *   failure as its cause) whose message reads `gave up after 3 attempts (<why>): <errorText of the failure>`,
   *   with `1 attempt` for one.
   * - The wait is retryDelay's. A server that asks for longer than the policy allows is not waited for: a
   *   RetryError, the failure as its cause, reading `<why>: the server asked to wait 3600.0 s before retrying,
   *   more than the policy's maximum of 10.0 s; not retried: <errorText of the failure>` (seconds, one decimal).
   * - After `fallbackAfter` failures in a row that were an overloaded model (any other failure starts the count
   *   again), the next tries ask for the fallback, and their notices name it; a notice has no key for it before
   *   that, or when the policy has none.
   */
  nextTry(error: unknown, request: ModelRequest, state: RetryState): RetryNotice {
    // #region chapter 10: RetryingProvider.nextTry
    // Write it from the contract above. Step by step instead: npm run reset -- chapter10 --guided
    throw new TodoError(10, 'RetryingProvider.nextTry');
    // #endregion
  }

  /**
   * The whole turn, tried again after a retryable failure: nextTry decides whether, and how long to wait first. The
   * wait is the policy's sleep, given the request's cancel, so a cancel during it ends the call with the cancel's
   * reason and no further try. Each try sends the request as it was, asking for the fallback once nextTry has
   * switched to it; the answer of the try that worked is returned.
   */
  async complete(request: ModelRequest): Promise<AssistantMessage> {
    // #region chapter 10: RetryingProvider.complete
    // Write it from the contract above. Step by step instead: npm run reset -- chapter10 --guided
    throw new TodoError(10, 'RetryingProvider.complete');
    // #endregion
  }

  /**
   * The turn as events, retried only before its first real event: what was handed out cannot be taken back. Each
   * try goes through turnEvents (given), so a provider with no stream of its own is streamed from its complete and
   * retried the same way; once nextTry has switched to the fallback, the tries ask for that model.
   *
   * - Before each wait it yields nextTry's notice (the loop passes it on as a `retry` event), then waits as
   *   complete does.
   * - Every event but a retry notice is real: a notice from a wrapper further in is passed on, and the try has not
   *   started for it.
   * - A failure after a real event is final: a StreamInterruptedError, the failure as its cause, whose message says
   *   the stream was cut after it started, so it is not retried, and carries the failure's own text.
   * - A failure once the request has been cancelled throws the cancel's reason, even after events.
   */
  async *stream(request: ModelRequest): AsyncGenerator<StreamEvent, void, undefined> {
    // #region chapter 10: RetryingProvider.stream
    // Write it from the contract above. Step by step instead: npm run reset -- chapter10 --guided
    throw new TodoError(10, 'RetryingProvider.stream');
    // #endregion
  }
}

/** `provider`, retried by `policy` (defaults: 5 tries, 0.5 s base, 8 s cap, equal jitter, waits up to 60 s). */
export function withRetries(provider: Provider, policy: RetryPolicy = {}): RetryingProvider {
  return new RetryingProvider(provider, policy);
}
