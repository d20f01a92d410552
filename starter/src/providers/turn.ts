/**
 * Chapter 5: what both providers decide the same way when an answer comes back.
 *
 * A server's stop reason and its tool calls can disagree: compatible servers often say "stop" after tool calls, and
 * a turn cut at the token limit can end in the middle of a call, whose arguments are then half written. The kit's
 * turn must say which it is, because the agent runs the calls of a 'tool_use' turn and of no other.
 */
import { TodoError } from '../todo.js';
import type { StopReason } from '../messages.js';
import { ProviderError } from './errors.js';

/**
 * The stop reason of a finished turn, from the reason the server gave (already in the kit's words) and whether the
 * turn holds tool calls. A cut or refused turn says so even when it holds calls (a call written as the output was
 * cut may be half written, and must never look runnable); otherwise 'tool_use' means exactly "there are calls to
 * run", whatever the server said, and any other reason is kept.
 */
export function turnStopReason(reported: StopReason, hasToolCalls: boolean): StopReason {
  // #region chapter 5: turnStopReason
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'turnStopReason');
  // #endregion
}

/** Names an extra may never set: streaming changes what comes back, and the others are an object's own machinery. */
const NOT_EXTRAS = new Set(['stream', '__proto__', 'constructor', 'prototype']);

/**
 * Adds a request's provider-specific extras (ModelRequest.extra) to an SDK request body, as they are. An extra never
 * replaces a field the body already has (model, messages, system, tools, the token limit, the temperature), and
 * never sets `stream` or `__proto__`: what the kit built is what is sent, whatever a setting holds. Call it last.
 */
export function addExtras(params: object, extra: Readonly<Record<string, unknown>> | undefined): void {
  for (const [key, value] of Object.entries(extra ?? {})) {
    if (NOT_EXTRAS.has(key) || Object.hasOwn(params, key)) continue;
    Object.defineProperty(params, key, { value, enumerable: true, writable: true, configurable: true });
  }
}

/** A token count as a server sent it: a finite number of 0 or more, else 0 (a missing count must never be NaN). */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The ProviderError for an answer that is not the one expected (`missing` names what is missing, such as
 * "content"): some gateways and compatible servers answer 200 with an error body, in either provider's shape
 * (`{error: {type, message}}`, with or without `type: 'error'` around it); its message and type are kept. Any other
 * body is described by its field names, never its values (a body may quote the key).
 */
export function unexpectedAnswer(provider: string, body: unknown, missing: string): ProviderError {
  const inner = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (inner && typeof inner.message === 'string') {
    const errorType = typeof inner.type === 'string' && inner.type !== '' ? inner.type : undefined;
    return new ProviderError(provider, `the server answered with an error instead of a turn: ${inner.message}`, {
      errorType,
    });
  }
  const fields = isObject(body) ? Object.keys(body).slice(0, 10).join(', ') : typeof body;
  return new ProviderError(
    provider,
    `the answer has no ${missing}: the server sent ${isObject(body) ? `an object with ${fields || 'no fields'}` : fields}`,
  );
}
