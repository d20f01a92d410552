import { describe, expect, test } from 'vitest';
import { ProviderError, toProviderError } from 'kit/providers/errors';

describe('toProviderError (src/providers/errors.ts)', () => {
  test('a ProviderError is returned as it is', () => {
    const original = new ProviderError('anthropic', 'Overloaded', {
      status: 529,
      errorType: 'overloaded_error',
      headers: { 'retry-after': '3' },
    });
    expect(
      toProviderError('anthropic', original, ['sk-secret-key']),
      'an error that is already a ProviderError goes back unchanged, the same object',
    ).toBe(original);
  });

  test("with no status, the cause's message is added in brackets", () => {
    const error = toProviderError(
      'openai',
      new Error('Connection error.', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') }),
    );
    expect(error.status, 'no HTTP status: no answer came').toBeUndefined();
    expect(error.providerMessage, "the error's own message, then ` (${error.cause.message})`").toBe(
      'Connection error. (connect ECONNREFUSED 127.0.0.1:9)',
    );
    expect(error.message, 'ProviderError words it as a failed request').toBe(
      'openai request failed: Connection error. (connect ECONNREFUSED 127.0.0.1:9)',
    );
  });

  test('an error with neither status nor cause keeps its own message', () => {
    const error = toProviderError('anthropic', new Error('socket hang up'));
    expect(error.providerMessage, 'no body and no cause: the message of the error itself, with nothing added').toBe(
      'socket hang up',
    );
  });

  test("an answer with a status keeps the provider's message alone, even when the error has a cause", () => {
    const failure = Object.assign(new Error('502 upstream timed out'), {
      status: 502,
      error: { message: 'upstream timed out', type: 'server_error' },
      cause: new Error('socket closed'),
    });
    const error = toProviderError('openai', failure);
    expect(error.status, 'the status is kept (guided step 5)').toBe(502);
    expect(error.providerMessage, 'add the cause only when there is no status: an answer explains itself').toBe(
      'upstream timed out',
    );
  });

  test('only a number is an HTTP status', () => {
    const error = toProviderError('openai', Object.assign(new Error('stream failed'), { status: 'failed' }));
    expect(error.status, "status is copied only when typeof status === 'number'").toBeUndefined();
    expect(error.message, 'with no status, the message says the request failed').toBe(
      'openai request failed: stream failed',
    );
  });
});
