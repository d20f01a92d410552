/**
 * Chapter 5: the conversions between the kit's types and Anthropic's Messages API, pure functions.
 *
 * Going out, the kit's history becomes the Messages API's: the system prompt is a top-level field, tool calls are
 * `tool_use` blocks, and tool results travel in a *user* message, all the results of one turn together. Coming back,
 * content blocks, the stop reason and the usage become the kit's types again. AnthropicProvider (anthropic.ts) sends
 * what these make and reads what comes back with them.
 */
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
  // 1. Walk the messages in order, building a new array.
  // 2. user: { role: 'user', content: message.content }. With images (message.images, not empty): content is a list
  //    instead, each image first, in order, as { type: 'image', source: { type: 'base64', media_type, data } } from
  //    checkImage(image) (given: it throws for a type, size or data the API refuses; never drop an image), then the
  //    text as { type: 'text', text } (left out when empty).
  // 3. assistant: { role: 'assistant', content: [...] } with, for each block in order:
  //    - text -> { type: 'text', text }, skipped when the text is empty;
  //    - thinking -> { type: 'thinking', thinking, signature }, skipped when there is no signature;
  //    - tool_call -> { type: 'tool_use', id, name, input: arguments } (input must be an object: use {} when the
  //      arguments are not one, for instance a string that failed to parse).
  // 4. tool: a { type: 'tool_result', tool_use_id: toolCallId, content, is_error: isError } block. If the message
  //    you added last is a user message made of tool results, push the block into it; otherwise start a new user
  //    message. Anthropic wants all the results of one turn in a single user message.
  const out: Anthropic.MessageParam[] = [];
  let results: Anthropic.ToolResultBlockParam[] | undefined;
  for (const message of messages) {
    switch (message.role) {
      case 'user': {
        results = undefined;
        if (!message.images?.length) {
          out.push({ role: 'user', content: message.content });
          break;
        }
        const content: Anthropic.ContentBlockParam[] = message.images.map((image) => {
          const { mimeType, data } = checkImage(image);
          return { type: 'image', source: { type: 'base64', media_type: mimeType, data } };
        });
        if (message.content !== '') content.push({ type: 'text', text: message.content });
        out.push({ role: 'user', content });
        break;
      }
      case 'assistant': {
        results = undefined;
        const content: Anthropic.ContentBlockParam[] = [];
        for (const block of message.content) {
          if (block.type === 'text' && block.text !== '') content.push({ type: 'text', text: block.text });
          if (block.type === 'thinking' && block.signature) {
            content.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
          }
          if (block.type === 'tool_call') {
            content.push({
              type: 'tool_use',
              id: block.id,
              name: block.name,
              input: isRecord(block.arguments) ? block.arguments : {},
            });
          }
        }
        out.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const block: Anthropic.ToolResultBlockParam = {
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: message.content,
          is_error: message.isError,
        };
        if (results) results.push(block);
        else {
          results = [block];
          out.push({ role: 'user', content: results });
        }
        break;
      }
    }
  }
  return out;
  // #endregion
}

/**
 * The kit's tool definitions as Anthropic tools (Anthropic.Tool), one each, in order. The input schema is already
 * JSON Schema: it goes as it is.
 */
export function toAnthropicTools(tools: readonly ToolDefinition[]): Anthropic.Tool[] {
  // #region chapter 5: toAnthropicTools
  // 1. One { name, description, input_schema } per definition, in order; input_schema is the definition's
  //    inputSchema as it is (cast it to Anthropic.Tool.InputSchema).
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
  }));
  // #endregion
}

/**
 * The kit's ToolChoice as the Messages API's (Anthropic.ToolChoice; the SDK's type lists its variants): each of
 * the kit's three words has a counterpart of the same meaning there, under Anthropic's own name where it has one
 * ("must call some tool" is not spelled as the kit spells it), and a named tool becomes the variant that names one.
 */
export function toAnthropicToolChoice(choice: ToolChoice): Anthropic.ToolChoice {
  // #region chapter 5: toAnthropicToolChoice
  // 1. 'auto' -> { type: 'auto' }; 'required' -> { type: 'any' } (Anthropic's word for "some tool");
  //    'none' -> { type: 'none' }; { name } -> { type: 'tool', name }.
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'required') return { type: 'any' };
  if (choice === 'none') return { type: 'none' };
  return { type: 'tool', name: choice.name };
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
  // 1. model: request.model, else defaults.model; max_tokens: request.maxTokens, else defaults.maxTokens (the API
  //    requires it).
  // 2. system: request.system, only when it is a non-empty string.
  // 3. messages: toAnthropicMessages(request.messages).
  // 4. When there is at least one tool: tools (toAnthropicTools) and, if request.toolChoice is set, tool_choice
  //    (toAnthropicToolChoice); then disableParallelToolUse(params, request) (given, chapter 9). With no tools,
  //    send neither.
  // 5. A temperature (any number, 0 too) cannot be sent: the Messages API has no such field any more. Throw an
  //    Error that says so and names what to use instead (extra: { output_config: { effort } }). Last, the extras:
  //    addExtras(params, request.extra) (given), which keeps every field already set, so never spread them over
  //    the body yourself.
  const params: Anthropic.MessageCreateParamsNonStreaming = {
    model: request.model ?? defaults.model,
    max_tokens: request.maxTokens ?? defaults.maxTokens,
    messages: toAnthropicMessages(request.messages),
  };
  if (request.system) params.system = request.system;
  if (request.tools.length > 0) {
    params.tools = toAnthropicTools(request.tools);
    if (request.toolChoice) params.tool_choice = toAnthropicToolChoice(request.toolChoice);
    disableParallelToolUse(params, request);
  }
  if (typeof request.temperature === 'number') {
    throw new Error(
      `Anthropic's Messages API (version 2026-10-21) has no temperature (this request set ${request.temperature}): leave it out for Anthropic, or ask for more or less effort with extra: { output_config: { effort: 'low' } }`,
    );
  }
  addExtras(params, request.extra);
  return params;
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
  // 1. end_turn, tool_use, max_tokens, stop_sequence and refusal keep their names.
  // 2. model_context_window_exceeded is a kind of max_tokens: the answer was cut.
  // 3. Anything else (pause_turn, null, a reason added later) ends the turn: end_turn.
  switch (reason) {
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
      return reason;
    case 'model_context_window_exceeded':
      return 'max_tokens';
    default:
      return 'end_turn';
  }
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
  // 1. inputTokens <- input_tokens, outputTokens <- output_tokens, each through tokenCount() (0 when missing or
  //    not a number).
  // 2. cacheReadTokens <- cache_read_input_tokens and cacheWriteTokens <- cache_creation_input_tokens, each only
  //    when it is a number.
  const result: Usage = { inputTokens: tokenCount(usage.input_tokens), outputTokens: tokenCount(usage.output_tokens) };
  if (typeof usage.cache_read_input_tokens === 'number') result.cacheReadTokens = usage.cache_read_input_tokens;
  if (typeof usage.cache_creation_input_tokens === 'number')
    result.cacheWriteTokens = usage.cache_creation_input_tokens;
  return result;
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
  // 1. If message.content is not an array, throw unexpectedAnswer('anthropic', message, 'content').
  // 2. For each content block in order: text -> { type: 'text', text }; thinking -> { type: 'thinking', thinking,
  //    signature }; tool_use -> { type: 'tool_call', id, name, arguments: input }. Skip every other type.
  // 3. The stop reason is turnStopReason(anthropicStopReason(message.stop_reason), whether there is a tool call).
  // 4. usage: anthropicUsage(message.usage), or of {} when the answer has none.
  if (!Array.isArray(message.content)) throw unexpectedAnswer('anthropic', message, 'content');
  const content: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === 'text') content.push({ type: 'text', text: block.text });
    else if (block.type === 'thinking')
      content.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    else if (block.type === 'tool_use')
      content.push({ type: 'tool_call', id: block.id, name: block.name, arguments: block.input });
  }
  const hasCalls = content.some((block) => block.type === 'tool_call');
  return {
    role: 'assistant',
    content,
    stopReason: turnStopReason(anthropicStopReason(message.stop_reason), hasCalls),
    usage: anthropicUsage(message.usage ?? {}),
  };
  // #endregion
}
