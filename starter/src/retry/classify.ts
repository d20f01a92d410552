/**
 * Chapter 10: which failures are worth another try.
 *
 * A pure function of the error: it reads the HTTP status, the provider's error type, the `x-should-retry` header and
 * the network error code, and says whether to retry and why, in words a person can read. It never looks at the
 * clock or the request: the wrapper (with-retries.ts) decides when and how often.
 */
import { TodoError } from '../todo.js';
import { ProviderError } from '../providers/errors.js';

export interface RetryDecision {
  /** True when the same request may succeed if it is sent again. */
  retry: boolean;
  /** Why, for a person: "rate limited (429)", "overloaded (529)", "connection reset (ECONNRESET)", "bad request (400)". */
  reason: string;
  /** True for an overloaded model (529 or `overloaded_error`): the failures that count towards the fallback. */
  overloaded: boolean;
  /** The response headers, lower-case names ({} when there were none): where retry-after comes from. */
  headers: Record<string, string>;
}

/** Network error codes (Node's and undici's) that mean the connection failed: the request may never have arrived. */
export const CONNECTION_CODES: readonly string[] = [
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
];

/** A readable name for the statuses a retry decision is made on; other statuses read "HTTP <status>". */
const STATUS_NAMES: Record<number, string> = {
  400: 'bad request',
  401: 'not authenticated',
  403: 'forbidden',
  404: 'not found',
  408: 'request timeout',
  409: 'conflict',
  413: 'request too large',
  422: 'invalid request',
  429: 'rate limited',
  529: 'overloaded',
};

export const statusName = (status: number): string =>
  STATUS_NAMES[status] ?? (status >= 500 ? 'server error' : `HTTP ${status}`);

type Fields = { [key: string]: unknown };
const fieldsOf = (value: unknown): Fields => (typeof value === 'object' && value !== null ? (value as Fields) : {});

/** The headers of an error as a plain object with lower-case names: a Headers object, or a plain record. */
export function headersOf(error: unknown): Record<string, string> {
  const headers = fieldsOf(error).headers;
  const out: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((value, name) => (out[name] = value));
  else
    for (const [name, value] of Object.entries(fieldsOf(headers)))
      if (typeof value === 'string') out[name.toLowerCase()] = value;
  return out;
}

/** The first network error code along the `cause` chain (at most 5 deep), or undefined. */
export function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined; depth++) {
    const code = fieldsOf(current).code;
    if (typeof code === 'string' && CONNECTION_CODES.includes(code)) return code;
    current = fieldsOf(current).cause;
  }
  return undefined;
}

/** The provider's error type: a ProviderError's `errorType`, or the SDK body's `error.error.type` / `error.type`. */
function errorTypeOf(error: unknown): string | undefined {
  const fields = fieldsOf(error);
  if (typeof fields.errorType === 'string') return fields.errorType;
  const body = fieldsOf(fields.error);
  const inner = fieldsOf(body.error);
  const type = inner.type ?? body.type;
  return typeof type === 'string' && type !== 'error' ? type : undefined;
}

/** Error types a provider sends (also inside a stream, with no status) for a failure that may pass. */
const RETRYABLE_TYPES = ['overloaded_error', 'rate_limit_error', 'api_error', 'server_error'];

/**
 * Whether a failed provider call is worth another try, and why, as a RetryDecision. Anything may be passed (a bug, a
 * string, undefined): it never throws. The four helpers above read what a failure carries: its HTTP answer, its
 * provider's error type (a stream's error event has one and no HTTP answer), its headers and a network failure
 * along its cause chain. A `status: '503'` (a string) is no HTTP answer.
 *
 * - Retried: HTTP 408, 409, 429 and all from 500 up, and nothing else with an HTTP answer; without one, a type of
 *   RETRYABLE_TYPES, a network failure, the SDKs' APIConnectionError and APIConnectionTimeoutError (the OpenAI
 *   SDK's are told apart only by their class), and a ProviderError with neither an HTTP answer nor a type (no
 *   answer came at all). Nothing else.
 * - The `x-should-retry` header, when it says true or false, wins over all of that, both ways; another value is
 *   ignored.
 * - Overloaded: HTTP 529, or the type overloaded_error (a 429 is not).
 * - Why, the first that applies: the HTTP answer in words and in brackets, as `rate limited (429)`; `overloaded`
 *   for an overloaded type, another type as it is; a network failure as `connection failed (ECONNRESET)`;
 *   `timed out` for the SDKs' time-out; `connection failed` for the rest that is retried; else
 *   `not a provider failure`.
 */
export function classifyError(error: unknown): RetryDecision {
  // #region chapter 10: classifyError
  // Write it from the contract above. Step by step instead: npm run reset -- chapter10 --guided
  throw new TodoError(10, 'classifyError');
  // #endregion
}
