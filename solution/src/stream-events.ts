/**
 * Chapter 6: a model turn as it is being written.
 *
 * Each event carries the `index` of the content block it belongs to in the finished turn. Text and thinking arrive
 * as deltas; a tool call arrives as a start (id and name), argument deltas (pieces of JSON, split anywhere), and an
 * end. A stream ends with exactly one `finish`.
 */
import type { StopReason, Usage } from './messages.js';

export type StreamEvent =
  | { type: 'text_delta'; index: number; text: string }
  | { type: 'thinking_delta'; index: number; thinking: string }
  | { type: 'thinking_signature'; index: number; signature: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; argumentsDelta: string }
  | { type: 'tool_call_end'; index: number }
  | { type: 'finish'; stopReason: StopReason; usage?: Usage }
  | RetryNotice;

/**
 * Not part of the turn: a provider wrapped with retries (chapter 10) says it is about to try again. It comes only
 * before the first event of the turn (once a turn has begun, it is never retried), and a TurnBuilder ignores it.
 */
export interface RetryNotice {
  type: 'retry';
  /** The attempt about to start, counting the first try as 1 (so the first retry is 2). */
  attempt: number;
  /** The most attempts the policy allows, the first included. */
  maxAttempts: number;
  /** How long it waits before that attempt, in milliseconds. */
  delayMs: number;
  /** Why, in words a person can read: "overloaded (529)", "rate limited (429)", "connection reset". */
  reason: string;
  /** The model the next attempt uses, when it is not the one asked for (the fallback to a small fast model). */
  model?: string;
}
