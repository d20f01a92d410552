/**
 * Chapter 1: the conversation as data.
 *
 * A conversation is an array of messages. Each message is one member of a union tagged by `role`, and an assistant
 * message holds content blocks tagged by `type`. Everything the agent does is reading and appending to this array.
 */

/** A piece of text the model wrote. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** The model's visible reasoning. Some providers sign it and want it sent back unchanged. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
}

/**
 * The model asking to run a tool. `id` pairs this call with its result; `arguments` is the parsed JSON the model
 * wrote, not yet checked against the tool's schema (it may be anything, even a string that failed to parse).
 */
export interface ToolCall {
  type: 'tool_call';
  id: string;
  name: string;
  arguments: unknown;
}

export type ContentBlock = TextBlock | ThinkingBlock | ToolCall;

/** Why the model stopped. Only `tool_use` asks the agent to do anything more. */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/**
 * A picture attached to a user message: its media type (`image/png`) and its bytes as base64, without line breaks
 * and without a `data:` prefix. Each provider sends it in its own shape (chapter 5); a provider whose model takes no
 * images refuses a request that carries one (images.ts).
 */
export interface ImageBlock {
  type: 'image';
  mimeType: string;
  data: string;
}

/** What the person said: text, and (from an editor, chapter 14) the pictures they attached, in order. */
export interface UserMessage {
  role: 'user';
  content: string;
  /** Left out (or empty) when there are none. Readers that only want the words keep reading `content`. */
  images?: ImageBlock[];
}

/** One whole model turn. A provider returns exactly this, and the agent appends it to the history unchanged. */
export interface AssistantMessage {
  role: 'assistant';
  content: ContentBlock[];
  stopReason: StopReason;
  usage?: Usage;
}

/** The outcome of one tool call, paired with it by `toolCallId`. One message per call. */
export interface ToolResultMessage {
  role: 'tool';
  toolCallId: string;
  toolName: string;
  content: string;
  isError: boolean;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** A user message with the given text, and the images attached to it when there are any. */
export function userMessage(text: string, images: readonly ImageBlock[] = []): UserMessage {
  return images.length > 0 ? { role: 'user', content: text, images: [...images] } : { role: 'user', content: text };
}

/** An assistant turn that only says something and ends. Handy in scripts and tests. */
export function assistantText(text: string, usage?: Usage): AssistantMessage {
  return { role: 'assistant', content: [{ type: 'text', text }], stopReason: 'end_turn', ...(usage ? { usage } : {}) };
}

/** An assistant turn that asks for tools (optionally after some text). Handy in scripts and tests. */
export function assistantToolCalls(
  calls: Array<{ id: string; name: string; arguments: unknown }>,
  text?: string,
): AssistantMessage {
  const content: ContentBlock[] = text ? [{ type: 'text', text }] : [];
  for (const call of calls) content.push({ type: 'tool_call', ...call });
  return { role: 'assistant', content, stopReason: 'tool_use' };
}

/** A tool result message. */
export function toolResult(call: Pick<ToolCall, 'id' | 'name'>, content: string, isError = false): ToolResultMessage {
  return { role: 'tool', toolCallId: call.id, toolName: call.name, content, isError };
}

/**
 * What a turn says, as one string: the text of its text blocks, in the order they come, joined with nothing
 * between them (the model already put the spaces where it wanted them). Thinking is reasoning, not the answer, and
 * a tool call is not something said: neither is part of it. A turn with no text says `''`.
 */
export function textOf(message: AssistantMessage): string {
  // #region chapter 1: textOf
  // 1. Walk message.content in order.
  // 2. Keep only the blocks whose type is 'text' (thinking and tool calls are not text).
  // 3. Join their text with no separator and return it ('' when there is none).
  let text = '';
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
  }
  return text;
  // #endregion
}

/**
 * The tool calls of an assistant turn, in the order the model wrote them, each unchanged; none at all for a turn
 * that only talks. Always a new array: a caller that changes what it got (the loop takes calls off it) must never
 * change the message.
 */
export function toolCallsOf(message: AssistantMessage): ToolCall[] {
  // #region chapter 1: toolCallsOf
  // 1. Keep the blocks whose type is 'tool_call', in their original order.
  // 2. Return a new array; never hand out message.content itself.
  return message.content.filter((block): block is ToolCall => block.type === 'tool_call');
  // #endregion
}

/**
 * What is wrong with a history, as sentences; an empty list means it is valid. A valid history:
 * - starts with a user message;
 * - answers every tool call of an assistant turn with exactly one tool result, right after that turn and before
 *   anything else (results may come in any order among themselves);
 * - has no tool result that does not answer a call of the assistant turn before it;
 * - uses each tool call id once, across the whole history and within one turn.
 * Providers reject a history that breaks these rules, so the agent must never leave one behind. Never throws, and
 * only reads the history.
 *
 * - Each sentence names the index of the message where the problem shows, as `message <index>`, and the tool call
 *   id concerned, so a test (or a person) can find it.
 * - A user message or the next assistant turn ends the wait for results: the calls still open then are reported
 *   as never answered, each naming the message that ended the wait (where the problem shows, not the turn that
 *   made the call), and a result for one of them that comes later answers nothing open, a second problem. The
 *   calls still open when the history ends are reported too, as open at the end (there is no message to name).
 * - An empty history has nothing wrong with it. An id is any string: `constructor` or `toString` is an ordinary id
 *   (a plain object already "has" those).
 */
export function historyProblems(messages: readonly Message[]): string[] {
  // #region chapter 1: historyProblems
  // 1. If the history is not empty and messages[0] is not a user message, report it.
  // 2. Keep the set of call ids still waiting for a result (`pending`) and every id seen so far.
  // 3. On an assistant turn: report any ids still pending (they never got a result), then make its
  //    tool calls the new pending set, reporting an id that was already used.
  // 4. On a tool result: if its toolCallId is pending, remove it; otherwise report a result with no call.
  // 5. On a user message: report any pending ids (a result must come before the next user message).
  // 6. At the end, report any ids still pending. Name the message index and the id in each sentence.
  const problems: string[] = [];
  if (messages.length > 0 && messages[0]!.role !== 'user') {
    problems.push(`message 0 is a ${messages[0]!.role} message; a history must start with a user message`);
  }
  let pending = new Set<string>();
  const seen = new Set<string>();
  const reportPending = (index: number) => {
    for (const id of pending) problems.push(`tool call ${id} has no result before message ${index}`);
    pending = new Set();
  };
  messages.forEach((message, index) => {
    switch (message.role) {
      case 'assistant':
        reportPending(index);
        for (const call of toolCallsOf(message)) {
          if (seen.has(call.id)) problems.push(`message ${index} reuses tool call id ${call.id}`);
          seen.add(call.id);
          pending.add(call.id);
        }
        break;
      case 'tool':
        if (pending.has(message.toolCallId)) pending.delete(message.toolCallId);
        else problems.push(`message ${index} is a result for ${message.toolCallId}, which no open tool call has`);
        break;
      case 'user':
        reportPending(index);
        break;
    }
  });
  for (const id of pending) problems.push(`tool call ${id} has no result at the end of the history`);
  return problems;
  // #endregion
}
