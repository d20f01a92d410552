/**
 * Readable views of what the agent sent to the model. A failing test compares these short lines instead of
 * walls of JSON, so the diff shows at a glance which message is missing, extra or out of order.
 */
import type { Message } from 'kit/messages';
import type { RecordedRequest } from 'kit/mock-provider';
import { expect } from 'vitest';

const clip = (text: string, max = 60) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * One line per message: `user "hi"`, `assistant "text" + call read#c1`, `tool read#c1 error`. Without text,
 * user and assistant text is left out: `user`, `assistant text + call read#c1`.
 */
export function describeMessage(message: Message, withText = true): string {
  switch (message.role) {
    case 'user':
      return withText ? `user ${JSON.stringify(clip(message.content))}` : 'user';
    case 'assistant': {
      const parts = message.content.map((block) => {
        if (block.type === 'text') return withText ? JSON.stringify(clip(block.text)) : 'text';
        if (block.type === 'thinking') return 'thinking';
        return `call ${block.name}#${block.id}`;
      });
      return `assistant ${parts.join(' + ') || '(empty)'}`;
    }
    case 'tool':
      return `tool ${message.toolName}#${message.toolCallId}${message.isError ? ' error' : ''}`;
  }
}

/** Every message described with its text. */
export function transcript(messages: readonly Message[]): string[] {
  return messages.map((message) => describeMessage(message));
}

/** The shape of a conversation: roles, tool names and call ids, in order. */
export function shape(messages: readonly Message[]): string[] {
  return messages.map((message) => describeMessage(message, false));
}

/**
 * The request the agent sent on model call `turn` (counting from 1). Fails with a clear message when the agent
 * made fewer calls than that.
 */
export function requestOn(provider: { requests: RecordedRequest[] }, turn: number): RecordedRequest {
  const request = provider.requests[turn - 1];
  expect(
    request,
    `expected a model call number ${turn}, but the agent made only ${provider.requests.length}. ` +
      `Does the loop go round again after running tools?`,
  ).toBeDefined();
  return request!;
}
