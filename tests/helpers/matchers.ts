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

/**
 * The rules of a valid history, checked by the tests themselves (not by the learner's historyProblems, so a wrong
 * checker cannot hide a broken history): starts with a user message; every call id non-empty and used once; every
 * call of an assistant turn answered by exactly one result right after that turn; no result without an open call.
 */
export function historyRuleBreaks(messages: readonly Message[]): string[] {
  const breaks: string[] = [];
  if (messages.length > 0 && messages[0]!.role !== 'user')
    breaks.push(`[0] is ${messages[0]!.role}, but a history starts with a user message`);
  const seen = new Set<string>();
  let open = new Set<string>();
  const closeTurn = (index: number) => {
    for (const id of open) breaks.push(`call ${id} has no result before [${index}]`);
    open = new Set();
  };
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      if (open.has(message.toolCallId)) open.delete(message.toolCallId);
      else breaks.push(`[${index}] answers ${message.toolCallId || '(empty id)'}, which no open call has`);
      return;
    }
    closeTurn(index);
    if (message.role !== 'assistant') return;
    for (const block of message.content) {
      if (block.type !== 'tool_call') continue;
      if (!block.id) breaks.push(`[${index}] has a call to ${block.name || '(no name)'} with an empty id`);
      else if (seen.has(block.id)) breaks.push(`[${index}] reuses call id ${block.id}`);
      seen.add(block.id);
      open.add(block.id);
    }
  });
  for (const id of open) breaks.push(`call ${id} has no result at the end`);
  return breaks;
}

expect.extend({
  /** The history keeps every rule of historyRuleBreaks. */
  toBeValidHistory(received: readonly Message[], context?: string) {
    const breaks = historyRuleBreaks(received);
    const pass = breaks.length === 0;
    const where = context ? ` ${context}` : '';
    return {
      pass,
      message: () =>
        pass
          ? `the history${where} should not be valid, but it is:\n${listing(received)}`
          : `the history${where} must stay valid (every call answered once, right after its turn), but ${breaks.join('; ')}:\n${listing(received)}`,
    };
  },
  /**
   * The request (or history) ends with one assistant turn that asked for exactly `ids`, followed by one result for
   * each, in the same order.
   */
  toEndWithResultsFor(received: WithMessages | readonly Message[], ids: string[]) {
    const messages = 'messages' in received ? received.messages : received;
    const tail = messages.slice(-(ids.length + 1));
    const [turn, ...results] = tail;
    const askedFor =
      turn?.role === 'assistant' ? turn.content.flatMap((b) => (b.type === 'tool_call' ? [b.id] : [])) : [];
    const answered = results.map((r) => (r.role === 'tool' ? r.toolCallId : `(${r.role} message)`));
    const pass = tail.length === ids.length + 1 && this.equals(askedFor, ids) && this.equals(answered, ids);
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
    /**
     * A valid history: starts with a user message, every call id non-empty and used once, every call answered by
     * exactly one result right after its turn. `context` says when, e.g. "after the abort".
     */
    toBeValidHistory(context?: string): T;
  }
}
