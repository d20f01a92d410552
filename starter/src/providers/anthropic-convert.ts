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
 * The kit's history as Anthropic messages, in order, each in the SDK's own shape (Anthropic.MessageParam and the
 * block types it lists). User text stays a string; a user message with images becomes content blocks, each image a
 * base64 `image` block, images first and in order and the text after them (Anthropic's advice: the question after
 * the picture; empty text is left out), every image through checkImage (given), which refuses one the API cannot
 * take: an image is never dropped. An assistant turn becomes content blocks in its order: text (empty text is left
 * out: the API refuses it), signed thinking with its signature (unsigned thinking is left out: the API refuses it),
 * and `tool_use` blocks whose `input` is always a plain object (`{}` for arguments that are not one: an array,
 * null, a string that failed to parse). Consecutive tool results become ONE user message of `tool_result` blocks,
 * in order, each with the `tool_use_id` of its call and its error flag: Anthropic wants all of a turn's results in
 * one message.
 */
export function toAnthropicMessages(messages: readonly Message[]): Anthropic.MessageParam[] {
  // #region chapter 5: toAnthropicMessages
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toAnthropicMessages');
  // #endregion
}

/**
 * The kit's tool definitions as Anthropic tools (Anthropic.Tool), one each, in order. The input schema is already
 * JSON Schema: it goes as it is.
 */
export function toAnthropicTools(tools: readonly ToolDefinition[]): Anthropic.Tool[] {
  // #region chapter 5: toAnthropicTools
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toAnthropicTools');
  // #endregion
}

/**
 * The kit's ToolChoice as the Messages API's (Anthropic.ToolChoice; the SDK's type lists its variants): each of
 * the kit's three words has a counterpart of the same meaning there, under Anthropic's own name where it has one
 * ("must call some tool" is not spelled as the kit spells it), and a named tool becomes the variant that names one.
 */
export function toAnthropicToolChoice(choice: ToolChoice): Anthropic.ToolChoice {
  // #region chapter 5: toAnthropicToolChoice
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toAnthropicToolChoice');
  // #endregion
}

/**
 * The body of one Messages API call, made with this file's converters. The request's model and maxTokens win over
 * the provider's defaults (the API requires a limit); `system` is a top-level field, only for a non-empty prompt
 * (never a message); `tools` and `tool_choice` (the latter only when the request sets one) are left out when there
 * are no tools, and with tools, chapter 9's disableParallelToolUse (given) has its say. The request's extras
 * (provider-specific fields) pass through addExtras (given), last, and never replace a field. Throws for a
 * temperature, 0 included, before anything is sent, with a message that says the API has `no temperature` and
 * what to ask for instead (more or less effort, as an `output_config` extra): the Messages API this SDK speaks (version
 * 2026-10-21) has none, and a setting dropped in silence would mislead.
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

/**
 * Anthropic's stop reason (Anthropic.StopReason lists them) in the kit's words (StopReason), by meaning: the
 * reasons both know keep their names; running out of context window is a cut answer like running out of tokens;
 * anything else (a pause, null, a reason the API adds later) simply ends the turn.
 */
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

/**
 * Anthropic's usage in the kit's words (Usage). `input_tokens` already leaves out the cached part, so the counts
 * map one to one. The input and output counts always come out as numbers (tokenCount, given: 0 for a count that
 * is missing or not a number, never NaN); the cache counts only when the API sent numbers.
 */
export function anthropicUsage(usage: AnthropicUsageFields): Usage {
  // #region chapter 5: anthropicUsage
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'anthropicUsage');
  // #endregion
}

/**
 * An Anthropic response as the kit's assistant turn: text, thinking (with its signature) and tool calls (the input
 * as their arguments) in the order the model wrote them; other block types (`redacted_thinking`) are dropped. The
 * stop reason is anthropicStopReason's, settled by turnStopReason (given that the turn holds a call or not). The
 * turn always has a usage, from anthropicUsage, even when the answer has none. Throws the ProviderError of
 * unexpectedAnswer (given) when the answer has no content list (an error body sent with status 200, for instance).
 */
export function fromAnthropicMessage(message: Anthropic.Message): AssistantMessage {
  // #region chapter 5: fromAnthropicMessage
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'fromAnthropicMessage');
  // #endregion
}
