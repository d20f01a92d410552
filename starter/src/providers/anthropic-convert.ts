/**
 * Chapter 5: the conversions between the kit's types and Anthropic's Messages API, pure functions.
 *
 * Going out, the kit's history becomes the Messages API's: the system prompt is a top-level field, tool calls are
 * `tool_use` blocks, and tool results travel in a *user* message, all the results of one turn together. Coming back,
 * content blocks, the stop reason and the usage become the kit's types again. AnthropicProvider (anthropic.ts) sends
 * what these make and reads what comes back with them.
 */
import { TodoError } from '../todo.js';
import Anthropic from '@anthropic-ai/sdk';
import { checkImage } from '../images.js';
import type { AssistantMessage, ContentBlock, Message, StopReason, Usage } from '../messages.js';
import type { ModelRequest, ToolChoice, ToolDefinition } from '../provider.js';
import { addExtras, tokenCount, turnStopReason, unexpectedAnswer } from './turn.js';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The kit's history as Anthropic messages. User text stays a string; a user message with images becomes content
 * blocks, each image a base64 `image` block, images first and the text after them (Anthropic's advice: the question
 * after the picture), an image the API cannot take refused with checkImage. An assistant turn becomes content blocks:
 * text (empty text is left out: the API refuses it), signed thinking (unsigned thinking is left out: the API
 * refuses it), and `tool_use` blocks whose `input` is an object. Consecutive tool results become ONE user message
 * of `tool_result` blocks, in order, each with the `tool_use_id` of its call.
 */
export function toAnthropicMessages(messages: readonly Message[]): Anthropic.MessageParam[] {
  // #region chapter 5: toAnthropicMessages
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toAnthropicMessages');
  // #endregion
}

/** The kit's tool definitions as Anthropic tools. The input schema is already JSON Schema. */
export function toAnthropicTools(tools: readonly ToolDefinition[]): Anthropic.Tool[] {
  // #region chapter 5: toAnthropicTools
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toAnthropicTools');
  // #endregion
}

/** 'auto' -> auto, 'required' -> any, 'none' -> none, { name } -> that one tool. */
export function toAnthropicToolChoice(choice: ToolChoice): Anthropic.ToolChoice {
  // #region chapter 5: toAnthropicToolChoice
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toAnthropicToolChoice');
  // #endregion
}

/**
 * The body of one Messages API call. The request's model and maxTokens win over the provider's defaults; `system`
 * is a top-level field (never a message); `tools` and `tool_choice` are left out when there are no tools. The
 * request's extras (provider-specific fields) pass through, and never replace a field. Throws for a temperature: the
 * Messages API this SDK speaks (version 2026-10-21) has none, and a setting dropped in silence would mislead.
 */
export function anthropicRequest(
  request: ModelRequest,
  defaults: { model: string; maxTokens: number },
): Anthropic.MessageCreateParamsNonStreaming {
  // #region chapter 5: anthropicRequest
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'anthropicRequest');
  // #endregion
}

/**
 * Chapter 9 (given): `parallelToolCalls: false` as Anthropic's `disable_parallel_tool_use` on the tool choice (an
 * `auto` choice when none was set). The API takes the flag only on auto, any and tool: with `none` no tool is
 * called at all, so nothing is added.
 */
export function disableParallelToolUse(params: Anthropic.MessageCreateParamsNonStreaming, request: ModelRequest): void {
  if (request.parallelToolCalls !== false || !params.tools) return;
  const choice = params.tool_choice ?? { type: 'auto' };
  if (choice.type === 'none') return;
  params.tool_choice = { ...choice, disable_parallel_tool_use: true };
}

/** Anthropic's stop reason in the kit's words. */
export function anthropicStopReason(reason: string | null | undefined): StopReason {
  // #region chapter 5: anthropicStopReason
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'anthropicStopReason');
  // #endregion
}

/** The usage fields Anthropic sends, in a response and in the stream's message_start and message_delta events. */
export interface AnthropicUsageFields {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Anthropic's usage in the kit's words. `input_tokens` already leaves out the cached part. */
export function anthropicUsage(usage: AnthropicUsageFields): Usage {
  // #region chapter 5: anthropicUsage
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'anthropicUsage');
  // #endregion
}

/**
 * An Anthropic response as the kit's assistant turn: text, thinking (with its signature) and tool calls in the
 * order the model wrote them; other block types are dropped. The stop reason comes from turnStopReason. Throws a
 * ProviderError when the answer has no content list (an error body sent with status 200, for instance).
 */
export function fromAnthropicMessage(message: Anthropic.Message): AssistantMessage {
  // #region chapter 5: fromAnthropicMessage
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'fromAnthropicMessage');
  // #endregion
}
