import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { classifyError } from 'kit/retry/classify';
import { ProviderError } from 'kit/providers/errors';

const api = (status: number, errorType?: string, headers?: Record<string, string>) =>
  new ProviderError('anthropic', 'boom', {
    status,
    ...(errorType ? { errorType } : {}),
    ...(headers ? { headers } : {}),
  });

/** A network failure as undici reports it: TypeError('fetch failed') with the socket error as its cause. */
const fetchFailed = (code: string) =>
  Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`socket: ${code}`), { code }) });

describe('classifyError (src/retry/classify.ts)', () => {
  test.each([
    [408, 'request timeout (408)'],
    [409, 'conflict (409)'],
    [429, 'rate limited (429)'],
    [500, 'server error (500)'],
    [502, 'server error (502)'],
    [503, 'server error (503)'],
    [529, 'overloaded (529)'],
  ])('status %i is retried, with the reason %j', (status, reason) => {
    const decision = classifyError(api(status));
    expect(
      decision.retry,
      `classifyError: status ${status} may pass if the same request is sent again (guided step 4)`,
    ).toBe(true);
    expect(decision.reason, 'classifyError: the reason names the status in words and in brackets (guided step 2)').toBe(
      reason,
    );
  });

  test.each([
    [400, 'bad request (400)'],
    [401, 'not authenticated (401)'],
    [403, 'forbidden (403)'],
    [404, 'not found (404)'],
    [413, 'request too large (413)'],
    [422, 'invalid request (422)'],
    [418, 'HTTP 418 (418)'],
  ])('status %i is never retried (the same request fails the same way), with the reason %j', (status, reason) => {
    const decision = classifyError(api(status, 'invalid_request_error'));
    expect(
      decision.retry,
      `classifyError: status ${status} is the request's fault; sending it again cannot help (guided step 4)`,
    ).toBe(false);
    expect(decision.reason, 'classifyError: the reason names the status (guided step 2)').toBe(reason);
  });

  test('overloaded: 529, and overloaded_error inside a stream (no status), count as overloaded; 429 does not', () => {
    expect(classifyError(api(529)), 'classifyError: 529 is overloaded (guided step 1)').toMatchObject({
      retry: true,
      overloaded: true,
    });
    const inStream = new ProviderError('anthropic', 'Overloaded', { errorType: 'overloaded_error' });
    expect(
      classifyError(inStream),
      'classifyError: an overloaded_error event before any content (no status) is retried as "overloaded" (guided steps 1, 2, 5)',
    ).toEqual({
      retry: true,
      reason: 'overloaded',
      overloaded: true,
      headers: {},
    });
    expect(
      classifyError(api(429)).overloaded,
      'classifyError: a rate limit is not an overloaded model (guided step 1)',
    ).toBe(false);
    expect(
      classifyError(api(500)).overloaded,
      'classifyError: a plain 500 is not an overloaded model (guided step 1)',
    ).toBe(false);
  });

  test('error types with no status: retryable types are retried, an invalid request is not', () => {
    for (const type of ['rate_limit_error', 'api_error', 'server_error']) {
      expect(
        classifyError(new ProviderError('anthropic', 'x', { errorType: type })),
        `classifyError: a ${type} event is retried, and the type is the reason (guided step 5)`,
      ).toMatchObject({
        retry: true,
        reason: type,
        overloaded: false,
      });
    }
    for (const type of ['invalid_request_error', 'authentication_error', 'permission_error']) {
      expect(
        classifyError(new ProviderError('anthropic', 'x', { errorType: type })).retry,
        `classifyError: a ${type} is never retried (guided step 5)`,
      ).toBe(false);
    }
  });

  test('x-should-retry wins over the status, both ways', () => {
    expect(
      classifyError(api(400, undefined, { 'x-should-retry': 'true' })).retry,
      'classifyError: x-should-retry: true retries even a 400 (guided step 3)',
    ).toBe(true);
    expect(
      classifyError(api(529, undefined, { 'x-should-retry': 'false' })).retry,
      'classifyError: x-should-retry: false stops even a 529 (guided step 3)',
    ).toBe(false);
    expect(
      classifyError(api(500, undefined, { 'x-should-retry': 'maybe' })).retry,
      'classifyError: any other value is ignored, the status decides (guided step 3)',
    ).toBe(true);
    expect(
      classifyError(api(400, undefined, { 'x-should-retry': 'maybe' })).retry,
      'classifyError: any other value is ignored, the status decides (guided step 3)',
    ).toBe(false);
  });

  test('the headers come back as a plain object with lower-case names, from a Headers object or a record', () => {
    const sdk = new Anthropic.APIError(
      429,
      { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      'slow down',
      new Headers({ 'Retry-After': '3' }),
    );
    const decision = classifyError(sdk);
    expect(
      decision,
      'classifyError guided step 1 (headersOf): an SDK APIError keeps its Headers object; its type comes from the body',
    ).toMatchObject({
      retry: true,
      reason: 'rate limited (429)',
      headers: { 'retry-after': '3' },
    });
    expect(
      classifyError(api(503, undefined, { 'retry-after-ms': '250' })).headers,
      "classifyError: a ProviderError's headers are passed on",
    ).toEqual({ 'retry-after-ms': '250' });
  });

  test.each(['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET', 'EAI_AGAIN'])(
    'network code %s along the cause chain is retried',
    (code) => {
      expect(
        classifyError(fetchFailed(code)),
        `classifyError: ${code} two levels down (fetch failed -> socket error) is a connection failure (guided steps 2 and 5)`,
      ).toEqual({
        retry: true,
        reason: `connection failed (${code})`,
        overloaded: false,
        headers: {},
      });
      expect(
        classifyError(Object.assign(new Error('x'), { code })).retry,
        `classifyError: ${code} on the error itself`,
      ).toBe(true);
    },
  );

  test("the SDKs' connection errors are retried, a timeout says so; a ProviderError with no answer at all too", () => {
    expect(
      classifyError(new Anthropic.APIConnectionError({ message: undefined })),
      'classifyError: Anthropic APIConnectionError (guided step 5)',
    ).toMatchObject({
      retry: true,
      reason: 'connection failed',
    });
    expect(
      classifyError(new OpenAI.APIConnectionError({ message: undefined })),
      'classifyError: OpenAI APIConnectionError (its name is "Error": read constructor.name) (guided step 5)',
    ).toMatchObject({
      retry: true,
      reason: 'connection failed',
    });
    expect(
      classifyError(new Anthropic.APIConnectionTimeoutError()),
      'classifyError: a timeout reads "timed out" (guided step 2)',
    ).toMatchObject({ retry: true, reason: 'timed out' });
    expect(
      classifyError(new OpenAI.APIConnectionTimeoutError()),
      "classifyError: OpenAI's timeout too (guided step 2)",
    ).toMatchObject({ retry: true, reason: 'timed out' });
    expect(
      classifyError(new ProviderError('openai', 'Connection error. (fetch failed)')),
      'classifyError: a ProviderError with neither status nor type got no answer: retry (guided step 5)',
    ).toMatchObject({
      retry: true,
      reason: 'connection failed',
    });
  });

  test('what is not a provider failure is never retried: a bug, a string, an unknown code, a code too deep', () => {
    for (const error of [
      new TypeError("Cannot read properties of undefined (reading 'x')"),
      'boom',
      undefined,
      Object.assign(new Error('x'), { code: 'ENOENT' }),
      Object.assign(new Error('x'), { status: '503' }),
    ]) {
      expect(
        classifyError(error),
        `classifyError: ${String(error)} is not a provider failure (a status must be a number) (guided steps 1 and 5)`,
      ).toEqual({
        retry: false,
        reason: 'not a provider failure',
        overloaded: false,
        headers: {},
      });
    }
    let deep: Error = Object.assign(new Error('bottom'), { code: 'ECONNRESET' });
    for (let i = 0; i < 5; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(classifyError(deep).retry, 'networkCode looks at most 5 errors down the cause chain').toBe(false);
  });
});
