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
 * The kit's history as Chat Completions messages: the system prompt first (when there is one), user text as it is
 * (with images: content parts, each image an `image_url` whose URL is a base64 data URL, images first, then the
 * text; an image the API cannot take refused with checkImage), an assistant turn as its text plus `tool_calls` whose arguments are a JSON string, and one `role: 'tool'` message
 * per result. Thinking is not sent back: compatible servers that produce it do not want it returned.
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

/** The kit's tool definitions as OpenAI function tools. The input schema is already JSON Schema. */
export function toOpenAITools(tools: readonly ToolDefinition[]): OpenAI.ChatCompletionFunctionTool[] {
  // #region chapter 5: toOpenAITools
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toOpenAITools');
  // #endregion
}

/** 'auto', 'required' and 'none' keep their names; { name } -> { type: 'function', function: { name } }. */
export function toOpenAIToolChoice(choice: ToolChoice): OpenAI.ChatCompletionToolChoiceOption {
  // #region chapter 5: toOpenAIToolChoice
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'toOpenAIToolChoice');
  // #endregion
}

/**
 * The body of one Chat Completions call. The request's model wins over the provider's; `max_completion_tokens` is
 * sent only when a limit is set (the request's, else the provider's); `tools` and `tool_choice` are left out when
 * there are no tools (OpenAI rejects an empty tools list). The request's temperature and extras (provider-specific
 * fields) pass through; an extra never replaces a field.
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
 * A tool call's arguments string as a value. An empty string is `{}` (some servers send that for a call without
 * arguments). JSON that does not parse is returned as the raw string, so that the agent's schema check reports it
 * to the model instead of the provider crashing. So is JSON whose value is a string (the model wrote a string,
 * often one holding more JSON): a string argument always means "exactly what the model wrote", and goes back to
 * the model unchanged. A server that sends the arguments as an object instead of a string has them kept as they
 * are; none at all is `{}`.
 */
export function parseToolArguments(text: unknown): unknown {
  // #region chapter 5: parseToolArguments
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'parseToolArguments');
  // #endregion
}

/** OpenAI's finish reason in the kit's words. */
export function openaiStopReason(reason: string | null | undefined): StopReason {
  // #region chapter 5: openaiStopReason
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'openaiStopReason');
  // #endregion
}

/**
 * OpenAI's usage in the kit's words. OpenAI's `prompt_tokens` includes the cached part; the kit counts like
 * Anthropic, so inputTokens is the uncached part and cacheReadTokens the cached one.
 */
export function openaiUsage(usage: OpenAI.CompletionUsage): Usage {
  // #region chapter 5: openaiUsage
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'openaiUsage');
  // #endregion
}

/**
 * A Chat Completions response as the kit's assistant turn: reasoning (when a compatible server sends it) as
 * thinking, then the text, then the function tool calls with parsed arguments. The stop reason comes from
 * turnStopReason. Throws a ProviderError when there is no choice at all, or when the answer is not a completion
 * (an error body sent with status 200, for instance).
 */
export function fromOpenAICompletion(completion: OpenAI.ChatCompletion): AssistantMessage {
  // #region chapter 5: fromOpenAICompletion
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'fromOpenAICompletion');
  // #endregion
}
