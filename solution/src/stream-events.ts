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
  | { type: 'finish'; stopReason: StopReason; usage?: Usage };
