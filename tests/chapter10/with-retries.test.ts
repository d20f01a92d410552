import { describe, expect, test } from 'vitest';
import { assistantText, type AssistantMessage } from 'kit/messages';
import type { ModelRequest, Provider } from 'kit/provider';
import type { StreamEvent } from 'kit/stream-events';
import { ProviderError } from 'kit/providers/errors';
import { RetryError, StreamInterruptedError, withRetries, type RetryPolicy } from 'kit/retry/with-retries';
import { rejection, settles } from '../helpers/assert.js';
import { agentWith, ask, collect, theDone } from '../chapter07/fixtures.js';
import { expectCutMessage } from './fixtures.js';

/** One scripted call: an error to throw, a whole turn, or stream events (an Error among them is thrown there). */
type Step = Error | AssistantMessage | Array<StreamEvent | Error>;

const overloaded = () => new ProviderError('anthropic', 'Overloaded', { status: 529, errorType: 'overloaded_error' });
const rateLimited = (headers: Record<string, string> = {}) =>
  new ProviderError('anthropic', 'slow down', { status: 429, errorType: 'rate_limit_error', headers });
const badRequest = () =>
  new ProviderError('anthropic', 'messages: field required', { status: 400, errorType: 'invalid_request_error' });
const reset = () =>
  Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
  });
const hello: StreamEvent[] = [
  { type: 'text_delta', index: 0, text: 'Hel' },
  { type: 'text_delta', index: 0, text: 'lo' },
  { type: 'finish', stopReason: 'end_turn' },
];

/** A provider that answers each call with the next step, and records the requests. */
function scripted(steps: Step[], withStream = true) {
  const requests: ModelRequest[] = [];
  const next = (request: ModelRequest) => {
    requests.push(request);
    const step = steps.shift();
    if (!step) throw new Error(`fake provider: no step scripted for call ${requests.length}`);
    return step;
  };
  const provider: Provider = {
    name: 'fake',
    async complete(request) {
      const step = next(request);
      if (step instanceof Error) throw step;
      if (Array.isArray(step)) throw new Error('fake provider: a stream step for complete()');
      return step;
    },
    ...(withStream
      ? {
          async *stream(request: ModelRequest) {
            const step = next(request);
            if (step instanceof Error) throw step;
            if (!Array.isArray(step)) throw new Error('fake provider: a whole turn for stream()');
            for (const event of step) {
              if (event instanceof Error) throw event;
              yield event;
            }
          },
        }
      : {}),
  };
  return { provider, requests };
}

/** A policy with fake time: sleeps are recorded, not waited. */
function fakeTime(extra: RetryPolicy = {}) {
  const slept: number[] = [];
  const policy: RetryPolicy = {
    baseDelayMs: 100,
    maxDelayMs: 1000,
    maxWaitMs: 10_000,
    random: () => 0.5,
    now: () => Date.parse('2026-11-23T12:00:00Z'),
    sleep: async (ms) => void slept.push(ms),
    ...extra,
  };
  return { policy, slept };
}

async function events(stream: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; error: unknown }> {
  const out: StreamEvent[] = [];
  try {
    for await (const event of stream) out.push(event);
    return { events: out, error: undefined };
  } catch (error) {
    return { events: out, error };
  }
}

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  ...extra,
});

describe('RetryingProvider.complete (src/retry/with-retries.ts)', () => {
  test('a 529 then a 429 then the answer: three calls, two waits with the backoff, the answer returned', async () => {
    const { provider, requests } = scripted([overloaded(), rateLimited(), assistantText('done')]);
    const { policy, slept } = fakeTime();
    const answer = await settles(
      withRetries(provider, policy).complete(request()),
      'RetryingProvider.complete: a 529 and a 429 are retried, so the call must end with the answer; a failure must reach the catch (await inner.complete inside try: a promise returned without await rejects after the catch was left) (guided step 3)',
    );
    expect(answer, 'RetryingProvider.complete: the answer of the try that worked (guided step 2)').toEqual(
      assistantText('done'),
    );
    expect(requests.length, 'RetryingProvider.complete: a retryable failure is tried again (guided step 3)').toBe(3);
    expect(
      slept,
      'RetryingProvider.complete: waits of backoffMs(1) = 75 and backoffMs(2) = 150 with random 0.5, in order (guided step 3)',
    ).toEqual([75, 150]);
    expect(withRetries(provider).name, "the wrapper keeps the inner provider's name").toBe('fake');
  });

  test('the request and its signal reach the provider and the sleep', async () => {
    const controller = new AbortController();
    const seen: Array<AbortSignal | undefined> = [];
    const { provider, requests } = scripted([reset(), assistantText('ok')]);
    const { policy } = fakeTime({ sleep: async (_ms, signal) => void seen.push(signal) });
    const asked = request({ signal: controller.signal, system: 'Be brief.' });
    await withRetries(provider, policy).complete(asked);
    expect(requests.length, 'two tries').toBe(2);
    expect(
      requests[0],
      'RetryingProvider.complete: the request itself, untouched while no fallback is in use (guided step 2)',
    ).toBe(asked);
    expect(
      requests[1],
      'RetryingProvider.complete: the same request on the retry (no model: undefined added) (guided step 2)',
    ).toBe(asked);
    expect(seen, "RetryingProvider.complete: the sleep gets the request's signal (guided step 3)").toEqual([
      controller.signal,
    ]);
  });

  test("an abort during the wait ends it with the signal's reason; no further call", async () => {
    const controller = new AbortController();
    const { provider, requests } = scripted([overloaded(), assistantText('never')]);
    const stopped = new Error('stopped by the user');
    const { policy } = fakeTime({
      sleep: (_ms, signal) => {
        controller.abort(stopped);
        return Promise.reject(signal?.reason);
      },
    });
    const error = await rejection(
      withRetries(provider, policy).complete(request({ signal: controller.signal })),
      "RetryingProvider.complete: await the wait (policy.sleep with the request's signal): an abort during it ends the retries (guided step 3)",
    );
    expect(
      error,
      "RetryingProvider.complete: the sleep's rejection (the signal's reason) ends it (guided step 3)",
    ).toBe(stopped);
    expect(requests.length, 'no try after an abort').toBe(1);
  });
});

describe('RetryingProvider.nextTry (src/retry/with-retries.ts), through complete', () => {
  test('a 400 is never retried: one call, no wait, the error itself comes out unchanged', async () => {
    const error = badRequest();
    const { provider, requests } = scripted([error, assistantText('never')]);
    const { policy, slept } = fakeTime();
    const thrown = await rejection(withRetries(provider, policy).complete(request()), 'a 400 must reject');
    expect(thrown, 'RetryingProvider.nextTry: a failure that is not retryable is thrown as it is (guided step 2)').toBe(
      error,
    );
    expect(requests.length, 'RetryingProvider.nextTry: a bad request is sent once, never again (guided step 2)').toBe(
      1,
    );
    expect(slept, 'RetryingProvider.nextTry: no wait before giving up (guided step 2)').toEqual([]);
  });

  test('attempts are counted with the first try: maxAttempts 3 is three calls, then a RetryError that says so', async () => {
    const last = overloaded();
    const { provider, requests } = scripted([overloaded(), overloaded(), last, assistantText('too late')]);
    const { policy, slept } = fakeTime({ maxAttempts: 3 });
    const error = await rejection(withRetries(provider, policy).complete(request()), 'the retries are spent');
    expect(
      requests.length,
      'RetryingProvider.nextTry: maxAttempts counts the first try: 3 means three calls in all (guided step 3)',
    ).toBe(3);
    expect(slept.length, 'RetryingProvider.nextTry: two waits between three tries (guided step 3)').toBe(2);
    expect(error, 'RetryingProvider.nextTry: a RetryError once the tries are spent (guided step 3)').toBeInstanceOf(
      RetryError,
    );
    expect(
      (error as RetryError).message,
      'RetryingProvider.nextTry: the message says how many tries, why, and the last error (guided step 3)',
    ).toBe('gave up after 3 attempts (overloaded (529)): anthropic API error 529 (overloaded_error): Overloaded');
    expect((error as RetryError).attempts, 'RetryingProvider.nextTry: attempts (guided step 3)').toBe(3);
    expect((error as RetryError).cause, 'RetryingProvider.nextTry: the last error is the cause (guided step 3)').toBe(
      last,
    );
  });

  test('maxAttempts 1 never retries', async () => {
    const { provider, requests } = scripted([overloaded(), assistantText('never')]);
    const error = await rejection(
      withRetries(provider, fakeTime({ maxAttempts: 1 }).policy).complete(request()),
      'one try only',
    );
    expect(
      requests.length,
      'RetryingProvider.nextTry: maxAttempts 1 is the first try and no other (guided step 3)',
    ).toBe(1);
    expect((error as Error).message, 'RetryingProvider.nextTry guided step 3').toMatch(
      /^gave up after 1 attempt \(overloaded \(529\)\)/,
    );
  });

  test('retry-after is honoured; a server that asks for too long a wait is not waited for, and the error says so', async () => {
    const { provider } = scripted([rateLimited({ 'retry-after': '2' }), assistantText('ok')]);
    const { policy, slept } = fakeTime();
    await withRetries(provider, policy).complete(request());
    expect(
      slept,
      'RetryingProvider.nextTry: retry-after: 2 is a wait of 2000 ms, not the backoff (guided step 4)',
    ).toEqual([2000]);

    const tooLongError = rateLimited({ 'retry-after': '3600' });
    const tooLong = { ...scripted([tooLongError, assistantText('never')]), errors: [tooLongError] };
    const late = fakeTime();
    const error = await rejection(
      withRetries(tooLong.provider, late.policy).complete(request()),
      'an hour is too long',
    );
    expect(tooLong.requests.length, 'RetryingProvider.nextTry: no second try (guided step 4)').toBe(1);
    expect(late.slept, 'RetryingProvider.nextTry: no wait at all (guided step 4)').toEqual([]);
    expect(
      [error instanceof RetryError, (error as Error).cause],
      "RetryingProvider.nextTry: a RetryError with the server's error as its cause (guided step 4)",
    ).toEqual([true, tooLong.errors[0]]);
    expect(
      (error as Error).message,
      'RetryingProvider.nextTry: the error says how long the server asked and the maximum (guided step 4)',
    ).toBe(
      "rate limited (429): the server asked to wait 3600.0 s before retrying, more than the policy's maximum of 10.0 s; not retried: anthropic API error 429 (rate_limit_error): slow down",
    );
  });

  test("a failure after an abort is not retried: the signal's reason comes out", async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const { provider, requests } = scripted([overloaded(), assistantText('never')]);
    const { policy, slept } = fakeTime();
    const error = await rejection(
      withRetries(provider, policy).complete(request({ signal: controller.signal })),
      'aborted',
    );
    expect(
      (error as Error).message,
      "RetryingProvider.nextTry: an aborted request throws the signal's reason, never retries (guided step 1)",
    ).toBe('cancelled');
    expect(
      [requests.length, slept.length],
      'RetryingProvider.nextTry: no wait, no second call (guided step 1)',
    ).toEqual([1, 0]);
  });

  test("an aborted request throws the signal's reason even when its error is not retryable (the SDK's own abort error)", async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const sdkAbort = Object.assign(new Error('Request was aborted.'), { name: 'APIUserAbortError' });
    const { provider, requests } = scripted([sdkAbort, assistantText('never')]);
    const error = await rejection(
      withRetries(provider, fakeTime().policy).complete(request({ signal: controller.signal })),
      'aborted',
    );
    expect(
      (error as Error).message,
      "RetryingProvider.nextTry: look at the signal before classifying the error: an aborted request throws the signal's reason, whatever the error (here one classifyError does not retry) (guided step 1)",
    ).toBe('cancelled');
    expect(requests.length, 'RetryingProvider.nextTry: no second call (guided step 1)').toBe(1);
  });

  test('fallback: after fallbackAfter overloaded failures in a row, the next tries ask for the small fast model', async () => {
    const { provider, requests } = scripted([overloaded(), overloaded(), assistantText('from the small model')]);
    const { policy } = fakeTime({ fallbackModel: 'small-fast', fallbackAfter: 2 });
    await withRetries(provider, policy).complete(request({ model: 'big' }));
    expect(
      requests.map((r) => r.model),
      'RetryingProvider.nextTry guided step 5 and complete guided step 2: two overloaded in a row, then model: small-fast',
    ).toEqual(['big', 'big', 'small-fast']);
  });

  test('fallback counts overloaded failures in a row only: another failure in between resets the count', async () => {
    const { provider, requests } = scripted([
      overloaded(),
      rateLimited(),
      overloaded(),
      overloaded(),
      assistantText('ok'),
    ]);
    const { policy } = fakeTime({ fallbackModel: 'small-fast', fallbackAfter: 2, maxAttempts: 6 });
    await withRetries(provider, policy).complete(request());
    expect(
      requests.map((r) => r.model ?? 'default'),
      'RetryingProvider.nextTry: the 429 resets the count, so only the last try uses the fallback (guided step 5)',
    ).toEqual(['default', 'default', 'default', 'default', 'small-fast']);
  });
});

describe('RetryingProvider.stream (src/retry/with-retries.ts)', () => {
  test('retried before its first event: a notice before each wait, then the events of the try that worked', async () => {
    const { provider, requests } = scripted([[overloaded()], [reset()], hello]);
    const { policy, slept } = fakeTime({ maxAttempts: 4 });
    const asked = request();
    const { events: out, error } = await events(withRetries(provider, policy).stream(asked));
    expect(error, 'RetryingProvider.stream: it ends normally').toBeUndefined();
    expect(
      out,
      'RetryingProvider.stream: a retry notice (next attempt, maxAttempts, delay, reason; no model field without a fallback) before each wait, then the turn (guided step 4)',
    ).toStrictEqual([
      { type: 'retry', attempt: 2, maxAttempts: 4, delayMs: 75, reason: 'overloaded (529)' },
      { type: 'retry', attempt: 3, maxAttempts: 4, delayMs: 150, reason: 'connection failed (UND_ERR_SOCKET)' },
      ...hello,
    ]);
    expect(slept, 'RetryingProvider.stream: it waits the delay each notice announced (guided step 4)').toEqual([
      75, 150,
    ]);
    expect(requests.length, 'three tries').toBe(3);
    expect(
      requests.every((r) => r === asked),
      'RetryingProvider.stream: the request itself on every try while no fallback is in use (guided step 2)',
    ).toBe(true);
  });

  test('after text has been handed out, a failure is final: no retry, the error says the stream was cut after it began', async () => {
    const cause = reset();
    const { provider, requests } = scripted([[{ type: 'text_delta', index: 0, text: 'Hel' }, cause], hello]);
    const { policy, slept } = fakeTime();
    const { events: out, error } = await events(withRetries(provider, policy).stream(request()));
    expect(
      out,
      'RetryingProvider.stream: the event already handed out stays handed out, nothing is added (guided step 2)',
    ).toEqual([{ type: 'text_delta', index: 0, text: 'Hel' }]);
    expect(
      requests.length,
      'RetryingProvider.stream: a stream that has begun is never tried again (guided step 3)',
    ).toBe(1);
    expect(slept, 'RetryingProvider.stream: no wait (guided step 3)').toEqual([]);
    expect(error, 'RetryingProvider.stream: a StreamInterruptedError (guided step 3)').toBeInstanceOf(
      StreamInterruptedError,
    );
    expectCutMessage((error as Error).message, 'a stream cut after its text', 'fetch failed');
    expect((error as Error).cause, 'RetryingProvider.stream: the failure is the cause (guided step 3)').toBe(cause);
  });

  test("a tool call start counts as begun too; another wrapper's retry notice does not", async () => {
    const begun = scripted([[{ type: 'tool_call_start', index: 0, id: 'c1', name: 'echo' }, overloaded()], hello]);
    const first = await events(withRetries(begun.provider, fakeTime().policy).stream(request()));
    expect(first.error, 'RetryingProvider.stream: a tool call start is a real event (guided step 3)').toBeInstanceOf(
      StreamInterruptedError,
    );
    const notice: StreamEvent = { type: 'retry', attempt: 2, maxAttempts: 2, delayMs: 1, reason: 'inner' };
    const inner = scripted([[notice, overloaded()], hello]);
    const second = await events(withRetries(inner.provider, fakeTime().policy).stream(request()));
    expect(
      second.error,
      'RetryingProvider.stream: a retry notice from an inner wrapper is not part of the turn: still retried (guided step 2)',
    ).toBeUndefined();
    expect(
      second.events.map((e) => e.type),
      'RetryingProvider.stream: the inner notice is passed on, then ours, then the turn (guided step 2)',
    ).toEqual(['retry', 'retry', 'text_delta', 'text_delta', 'finish']);
  });

  test('a 400 in a stream is thrown unchanged; spent retries end with a RetryError after maxAttempts tries', async () => {
    const error = badRequest();
    const bad = scripted([[error], hello]);
    const first = await events(withRetries(bad.provider, fakeTime().policy).stream(request()));
    expect(
      [first.error, first.events, bad.requests.length],
      'RetryingProvider.nextTry: not retried, no notice, one call (guided step 2)',
    ).toEqual([error, [], 1]);
    const spent = scripted([[overloaded()], [overloaded()], hello]);
    const second = await events(withRetries(spent.provider, fakeTime({ maxAttempts: 2 }).policy).stream(request()));
    expect(second.error, 'RetryingProvider.nextTry: maxAttempts 2 is two tries (guided step 3)').toBeInstanceOf(
      RetryError,
    );
    expect(second.events.length, 'one notice: before try 2').toBe(1);
    expect(spent.requests.length, 'two tries').toBe(2);
  });

  test('the fallback model is named in the notice and asked for in the request', async () => {
    const { provider, requests } = scripted([[overloaded()], [overloaded()], hello]);
    const { policy } = fakeTime({ fallbackModel: 'small-fast', fallbackAfter: 2 });
    const { events: out } = await events(withRetries(provider, policy).stream(request()));
    expect(
      out.filter((e) => e.type === 'retry'),
      'RetryingProvider.nextTry: model only once the fallback is in use (guided step 6)',
    ).toStrictEqual([
      { type: 'retry', attempt: 2, maxAttempts: 5, delayMs: 75, reason: 'overloaded (529)' },
      { type: 'retry', attempt: 3, maxAttempts: 5, delayMs: 150, reason: 'overloaded (529)', model: 'small-fast' },
    ]);
    expect(
      requests.map((r) => r.model),
      'RetryingProvider.stream: the third try asks for the fallback model (guided step 2)',
    ).toEqual([undefined, undefined, 'small-fast']);
  });

  test("an abort during the wait ends the stream with the signal's reason", async () => {
    const controller = new AbortController();
    const { provider, requests } = scripted([[overloaded()], hello]);
    const { policy } = fakeTime({
      sleep: (_ms, signal) => {
        controller.abort(new Error('stopped'));
        return Promise.reject(signal?.reason);
      },
    });
    const { events: out, error } = await events(
      withRetries(provider, policy).stream(request({ signal: controller.signal })),
    );
    expect(
      (error as Error).message,
      'RetryingProvider.stream: the wait gets the signal; its rejection ends the stream (guided step 4)',
    ).toBe('stopped');
    expect([out.length, requests.length], 'the notice was handed out, no second try').toEqual([1, 1]);
  });

  test("a failure after an abort throws the signal's reason, even after events", async () => {
    const controller = new AbortController();
    const { provider } = scripted([[{ type: 'text_delta', index: 0, text: 'a' }, new Error('socket closed')]]);
    const source = withRetries(provider, fakeTime().policy).stream(request({ signal: controller.signal }));
    const out: StreamEvent[] = [];
    let error: unknown;
    try {
      for await (const event of source) {
        out.push(event);
        controller.abort(new Error('user stop'));
      }
    } catch (caught) {
      error = caught;
    }
    expect(
      (error as Error).message,
      "RetryingProvider.stream: an abort comes out as the signal's reason, not as a cut stream (guided step 3)",
    ).toBe('user stop');
  });

  test('a provider that cannot stream is streamed from complete, and retried the same way', async () => {
    const { provider, requests } = scripted([overloaded(), assistantText('whole')], false);
    const { events: out } = await events(withRetries(provider, fakeTime().policy).stream(request()));
    expect(
      out.map((e) => e.type),
      'RetryingProvider.stream: turnEvents(inner, ...) falls back to complete (guided step 2)',
    ).toEqual(['retry', 'text_delta', 'finish']);
    expect(requests.length, 'two tries').toBe(2);
  });
});

describe("withRetries in chapter 7's Agent (src/retry/with-retries.ts)", () => {
  test('retry events reach the run; a cut stream after text ends the run with error and a valid history; no tool runs twice', async () => {
    const { provider } = scripted([
      [overloaded()],
      [
        { type: 'tool_call_start', index: 0, id: 'c1', name: 'echo' },
        { type: 'tool_call_delta', index: 0, argumentsDelta: '{"text":"hi"}' },
        { type: 'tool_call_end', index: 0 },
        { type: 'finish', stopReason: 'tool_use' },
      ],
      [rateLimited({ 'retry-after-ms': '5' })],
      [{ type: 'text_delta', index: 0, text: 'Half an ans' }, reset()],
    ]);
    const { agent, ran } = agentWith(withRetries(provider, fakeTime().policy));
    const history = ask('echo hi');
    const all = await collect(agent.run(history));
    expect(
      all
        .filter((e) => e.type === 'retry')
        .map((e) => (e.type === 'retry' ? `${e.turn}: ${e.reason} ${e.delayMs}` : '')),
      'the notices become retry events of their turn',
    ).toEqual(['1: overloaded (529) 75', '2: rate limited (429) 5']);
    const done = theDone(all, 'a stream cut after text');
    expect(done.reason, 'a stream cut after it began ends the run with error').toBe('error');
    expectCutMessage(done.message, "the run's message");
    expect(history).toBeValidHistory('after a stream cut after it began');
    expect(ran, 'the tool ran once for its call id').toEqual(['echo hi']);
    expect(history.length, 'user, the tool round, its result; nothing of the cut turn').toBe(3);
  });
});
