/**
 * Chapter 5: the conversions between the kit's types and OpenAI's Chat Completions API, pure functions.
 *
 * The system prompt is the first message, a tool call's arguments travel as a JSON *string*, and each tool result is
 * its own `role: 'tool'` message. OpenAIProvider (openai.ts) sends what these make and reads what comes back with
 * them.
 */
import { TodoError } from '../todo.js';
import OpenAI from 'openai';
import { checkImage } from '../images.js';
import type { AssistantMessage, ContentBlock, Message, StopReason, Usage } from '../messages.js';
import type { ModelRequest, ToolChoice, ToolDefinition } from '../provider.js';
import { ProviderError } from './errors.js';
import { addExtras, tokenCount, turnStopReason, unexpectedAnswer } from './turn.js';

/**
 * The reasoning some OpenAI-compatible servers add next to the answer (`reasoning_content` in DeepSeek and older
 * vLLM, `reasoning` in Ollama and newer vLLM), or undefined. OpenAI's own API does not send it.
 */
export function reasoningOf(messageOrDelta: object): string | undefined {
  const fields = messageOrDelta as { reasoning_content?: unknown; reasoning?: unknown };
  const text = fields.reasoning_content ?? fields.reasoning;
  return typeof text === 'string' && text !== '' ? text : undefined;
}

/**
 * The kit's history as Chat Completions messages (the SDK's ChatCompletionMessageParam shapes): the system prompt
 * first (when there is one), user text as it is (with images: content parts, each image an `image_url` whose URL is
 * a base64 data URL, images first and in order, then the text unless it is empty; every image through checkImage,
 * given, which refuses one the API cannot take: an image is never dropped), an assistant turn as its text plus,
 * when it has calls, `tool_calls` in order whose arguments are a JSON string (arguments that are already a string,
 * JSON that failed to parse, go back exactly as the model wrote them; with calls and no text, no text at all), and
 * one `role: 'tool'` message per result, with the id of its call (OpenAI has no error flag: the text says it).
 * Thinking is not sent back: compatible servers that produce it do not want it returned.
 */
export function toOpenAIMessages(
  system: string | undefined,
  messages: readonly Message[],
): OpenAI.ChatCompletionMessageParam[] {
  // #region chapter 5: toOpenAIMessages
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toOpenAIMessages');
  // #endregion
}

/**
 * The kit's tool definitions as OpenAI's tools (ChatCompletionFunctionTool: its type shows the shape), one each, in
 * order. The input schema is already JSON Schema: it goes as it is.
 */
export function toOpenAITools(tools: readonly ToolDefinition[]): OpenAI.ChatCompletionFunctionTool[] {
  // #region chapter 5: toOpenAITools
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toOpenAITools');
  // #endregion
}

/**
 * The kit's ToolChoice as OpenAI's (ChatCompletionToolChoiceOption): the kit's three words are OpenAI's own, and a
 * named tool becomes the option of that type that names one.
 */
export function toOpenAIToolChoice(choice: ToolChoice): OpenAI.ChatCompletionToolChoiceOption {
  // #region chapter 5: toOpenAIToolChoice
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toOpenAIToolChoice');
  // #endregion
}

/**
 * The body of one Chat Completions call, made with this file's converters. The request's model wins over the
 * provider's; `max_completion_tokens` is sent only when a limit is set (the request's, else the provider's);
 * `tools` and `tool_choice` (the latter only when the request sets one) are left out when there are no tools
 * (OpenAI rejects an empty tools list), and with tools, chapter 9's setParallelToolCalls (given) has its say. The
 * request's temperature passes through whenever it is a number, 0 included; its extras (provider-specific
 * fields) through addExtras (given), last: an extra never replaces a field.
 */
export function openaiRequest(
  request: ModelRequest,
  defaults: { model: string; maxTokens?: number },
): OpenAI.ChatCompletionCreateParamsNonStreaming {
  // #region chapter 5: openaiRequest
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'openaiRequest');
  // #endregion
}

/**
 * Chapter 9 (given): `parallelToolCalls` as OpenAI's `parallel_tool_calls`, only when it is set, and only with
 * tools the model may call (the API refuses the field without tools; with tool_choice none it means nothing).
 */
export function setParallelToolCalls(
  params: OpenAI.ChatCompletionCreateParamsNonStreaming,
  request: ModelRequest,
): void {
  if (request.parallelToolCalls === undefined || !params.tools || params.tool_choice === 'none') return;
  params.parallel_tool_calls = request.parallelToolCalls;
}

/**
 * What a tool call's arguments text says, decoded. An empty (or all-blank) text is `{}` (some servers send that
 * for a call without arguments). Text that is not valid JSON comes back as it is, so that the agent's schema check
 * reports it to the model instead of the provider crashing. So does JSON that decodes to text (the model wrote
 * text, often holding more JSON): an argument that is text always means "exactly what the model wrote", and
 * goes back to the model unchanged. A server that sends the arguments as an object instead has them kept as they
 * are; none at all (undefined, null) is `{}`.
 */
export function parseToolArguments(text: unknown): unknown {
  // #region chapter 5: parseToolArguments
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'parseToolArguments');
  // #endregion
}

/**
 * OpenAI's finish reason (the SDK's ChatCompletion.Choice lists them) in the kit's words (StopReason), by meaning:
 * a natural stop ends the turn, a cut at the token limit is a cut, asking for tools (under the current name or the
 * older one) asks for tools, a filtered answer is a refusal; anything else (null, a reason added later) ends it.
 */
export function openaiStopReason(reason: string | null | undefined): StopReason {
  // #region chapter 5: openaiStopReason
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'openaiStopReason');
  // #endregion
}

/**
 * OpenAI's usage in the kit's words. OpenAI's `prompt_tokens` includes the part read from the cache; the kit counts
 * like Anthropic, so inputTokens is the rest (never below 0) and cacheReadTokens that part, only when the server
 * sent a count of it. A compatible server may leave any count out: tokenCount (given) makes it 0, never NaN.
 */
export function openaiUsage(usage: OpenAI.CompletionUsage): Usage {
  // #region chapter 5: openaiUsage
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'openaiUsage');
  // #endregion
}

/**
 * A Chat Completions response's first choice as the kit's assistant turn: reasoning (reasoningOf, given, when a
 * compatible server sends it) as thinking, then the text (when there is any), then the function tool calls in
 * order, with their arguments through parseToolArguments (a call without id or name gets `''`: the agent judges it;
 * calls that are not function calls are skipped). The stop reason is openaiStopReason's, settled by turnStopReason
 * (given that the turn holds a call or not). The usage only when the response has one. Throws a ProviderError
 * (unexpectedAnswer, given, names what is missing) when the answer is not a completion or its choice has no message
 * (an error body sent with status 200, for instance), and one that says there are `no choices` when the list is
 * empty.
 */
export function fromOpenAICompletion(completion: OpenAI.ChatCompletion): AssistantMessage {
  // #region chapter 5: fromOpenAICompletion
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'fromOpenAICompletion');
  // #endregion
}
