/**
 * Matchers for the kit's domain. Their failures describe the conversation line by line, e.g.
 *
 *   the request should end with the assistant turn that asked for call_1, then the result of call_1,
 *   but it ends with:
 *     [0] user "read a.txt"
 *     [1] tool read#call_1
 */
import { expect } from 'vitest';
import type { Message } from 'kit/messages';
import { describeMessage } from './transcript.js';

interface WithMessages {
  messages: readonly Message[];
}

const listing = (messages: readonly Message[]) =>
  messages.length === 0 ? '    (no messages)' : messages.map((m, i) => `    [${i}] ${describeMessage(m)}`).join('\n');

expect.extend({
  /**
   * The request (or history) ends with one assistant turn that asked for exactly `ids`, followed by one result for
   * each, in the same order.
   */
  toEndWithResultsFor(received: WithMessages | readonly Message[], ids: string[]) {
    const messages = 'messages' in received ? received.messages : received;
    const tail = messages.slice(-(ids.length + 1));
    const [turn, ...results] = tail;
    const askedFor = turn?.role === 'assistant' ? turn.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : [])) : [];
    const answered = results.map((r) => (r.role === 'tool' ? r.toolCallId : `(${r.role} message)`));
    const pass =
      tail.length === ids.length + 1 &&
      this.equals(askedFor, ids) &&
      this.equals(answered, ids);
    const want = ids.map((id) => `the result of ${id}`).join(', then ');
    return {
      pass,
      message: () =>
        `the conversation should ${pass ? 'not ' : ''}end with the assistant turn that asked for ${ids.join(', ')}, then ${want}, ` +
        `but it ends with:\n${listing(messages)}`,
    };
  },
});

declare module 'vitest' {
  interface Matchers<T = any> {
    /** Ends with the assistant turn that asked for exactly these call ids, then one result for each, in order. */
    toEndWithResultsFor(ids: string[]): T;
  }
}
