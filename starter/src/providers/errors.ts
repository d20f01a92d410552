/**
 * Chapter 5: what goes wrong with a real provider, as two named errors.
 *
 * A ProviderConfigError happens before any request: a key or a model is missing, and the message says which
 * environment variable to set. A ProviderError is a failed API call: the provider's name, the HTTP status, and the
 * provider's own explanation, so a person (and the retry wrapper of chapter 10) can tell a bad key from an
 * overloaded server. Neither ever contains the key.
 */
import { TodoError } from '../todo.js';

/** The provider cannot be built: a key, a model or another setting is missing or invalid. */
export class ProviderConfigError extends Error {
  override name = 'ProviderConfigError';
  constructor(
    readonly provider: string,
    /** The environment variable that would fix it, such as ANTHROPIC_API_KEY. */
    readonly variable: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ProviderErrorDetails {
  /** HTTP status of the failed response; undefined when there was none (network failure, error inside a stream). */
  status?: number;
  /** The provider's error type, such as `overloaded_error` or `invalid_request_error`, when it sent one. */
  errorType?: string;
  /** Response headers (lower-case names), for `retry-after` and `retry-after-ms`. */
  headers?: Record<string, string>;
}

/**
 * A provider call failed. The message reads `anthropic API error 429 (rate_limit_error): ...` when the API answered
 * with an error, and `openai request failed: ...` when no answer came (network failure, a stream cut short).
 */
export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly status: number | undefined;
  readonly errorType: string | undefined;
  readonly headers: Record<string, string>;

  constructor(
    readonly provider: string,
    /** The provider's own explanation, with any secret removed. */
    readonly providerMessage: string,
    details: ProviderErrorDetails = {},
  ) {
    const status = details.status === undefined ? '' : ` ${details.status}`;
    const type = details.errorType ? ` (${details.errorType})` : '';
    super(
      status || type
        ? `${provider} API error${status}${type}: ${providerMessage}`
        : `${provider} request failed: ${providerMessage}`,
    );
    this.status = details.status;
    this.errorType = details.errorType;
    this.headers = details.headers ?? {};
  }
}

type Json = { [key: string]: unknown };
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Every non-empty secret replaced by `[redacted]`. Secrets shorter than 4 characters are left alone. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}

/**
 * Any error thrown by an SDK call, as a ProviderError. Both SDKs throw an `APIError` with `status`, `headers` and
 * `error` (the parsed error body): Anthropic's body is `{type:'error', error:{type, message}}`, OpenAI's SDK keeps
 * only the inner `{message, type, code}`. A network failure has no status and the real reason in its `cause`.
 * A ProviderError passes through unchanged. `secrets` (the key) never appear in the result, not in its message nor
 * in its headers, which is why the SDK's error is not attached as `cause`: its message and body may quote the key.
 *
 * - The message is the provider's own sentence, found in either shape (whichever provider's shape the body has),
 *   else the error's own message. Only a number is an HTTP status. With no status, the cause's message is added in
 *   brackets ("Connection error." alone helps nobody); with a status, the provider's message stands alone.
 * - The error type is kept, and the headers become a plain object (a 429's retry-after is in them).
 * - redact (given) removes each secret from the message and from every header value: a proxy may echo the key.
 */
export function toProviderError(
  provider: string,
  error: unknown,
  secrets: readonly (string | undefined)[] = [],
): ProviderError {
  // #region chapter 5: toProviderError
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toProviderError');
  // #endregion
}
