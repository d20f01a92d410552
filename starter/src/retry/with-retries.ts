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
   * After try `state.attempt` failed with `error`: the notice for the next try (and `state` moved on to it), or a
   * throw to give up. Never retries an abort.
   */
  nextTry(error: unknown, request: ModelRequest, state: RetryState): RetryNotice {
    // #region chapter 10: RetryingProvider.nextTry
    // Write it from the contract above. Step by step instead: npm run reset -- chapter10 --guided
    throw new TodoError(10, 'RetryingProvider.nextTry');
    // #endregion
  }

  /** The whole turn, tried again after a retryable failure (nextTry decides), waiting with the policy's sleep. */
  async complete(request: ModelRequest): Promise<AssistantMessage> {
    // #region chapter 10: RetryingProvider.complete
    // Write it from the contract above. Step by step instead: npm run reset -- chapter10 --guided
    throw new TodoError(10, 'RetryingProvider.complete');
    // #endregion
  }

  /**
   * The turn as events, retried only before its first event, with a retry notice before each wait. A provider with
   * no stream of its own is streamed from its complete (turnEvents).
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
