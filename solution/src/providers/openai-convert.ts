/**
 * Chapter 5: the conversions between the kit's types and OpenAI's Chat Completions API, pure functions.
 *
 * The system prompt is the first message, a tool call's arguments travel as a JSON *string*, and each tool result is
 * its own `role: 'tool'` message. OpenAIProvider (openai.ts) sends what these make and reads what comes back with
 * them.
 */
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
  // 1. If system is a non-empty string, start with { role: 'system', content: system }.
  // 2. user: { role: 'user', content }. With images (message.images, not empty): content is a list of parts instead,
  //    each image first, in order, as { type: 'image_url', image_url: { url } } where url is
  //    `data:<mimeType>;base64,<data>` of checkImage(image) (given: it throws for a type, size or data the API
  //    refuses; never drop an image), then { type: 'text', text } (left out when the text is empty).
  // 3. assistant: { role: 'assistant', content: its text blocks joined }, plus, when it has tool calls,
  //    tool_calls: [{ id, type: 'function', function: { name, arguments } }] in order, where arguments is
  //    JSON.stringify(call.arguments), or the string itself when the arguments are a string (JSON that failed to
  //    parse goes back exactly as the model wrote it). With tool calls and no text, content is null.
  // 4. tool: { role: 'tool', tool_call_id: toolCallId, content }. OpenAI has no error flag; the text says it.
  const out: OpenAI.ChatCompletionMessageParam[] = [];
  if (system) out.push({ role: 'system', content: system });
  for (const message of messages) {
    switch (message.role) {
      case 'user': {
        if (!message.images?.length) {
          out.push({ role: 'user', content: message.content });
          break;
        }
        const parts: OpenAI.ChatCompletionContentPart[] = message.images.map((image) => {
          const { mimeType, data } = checkImage(image);
          return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${data}` } };
        });
        if (message.content !== '') parts.push({ type: 'text', text: message.content });
        out.push({ role: 'user', content: parts });
        break;
      }
      case 'assistant': {
        let text = '';
        const calls: OpenAI.ChatCompletionMessageFunctionToolCall[] = [];
        for (const block of message.content) {
          if (block.type === 'text') text += block.text;
          if (block.type === 'tool_call') {
            const args = typeof block.arguments === 'string' ? block.arguments : JSON.stringify(block.arguments ?? {});
            calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: args } });
          }
        }
        out.push(
          calls.length > 0
            ? { role: 'assistant', content: text || null, tool_calls: calls }
            : { role: 'assistant', content: text },
        );
        break;
      }
      case 'tool':
        out.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
        break;
    }
  }
  return out;
  // #endregion
}

/**
 * The kit's tool definitions as OpenAI's tools (ChatCompletionFunctionTool: its type shows the shape), one each, in
 * order. The input schema is already JSON Schema: it goes as it is.
 */
export function toOpenAITools(tools: readonly ToolDefinition[]): OpenAI.ChatCompletionFunctionTool[] {
  // #region chapter 5: toOpenAITools
  // 1. One { type: 'function', function: { name, description, parameters: inputSchema } } per definition, in order.
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
  // #endregion
}

/**
 * The kit's ToolChoice as OpenAI's (ChatCompletionToolChoiceOption): the kit's three words are OpenAI's own, and a
 * named tool becomes the option of that type that names one.
 */
export function toOpenAIToolChoice(choice: ToolChoice): OpenAI.ChatCompletionToolChoiceOption {
  // #region chapter 5: toOpenAIToolChoice
  // 1. The three strings are OpenAI's own words: return them as they are.
  // 2. { name } becomes { type: 'function', function: { name } }.
  if (typeof choice === 'string') return choice;
  return { type: 'function', function: { name: choice.name } };
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
  // 1. model: request.model, else defaults.model; messages: toOpenAIMessages(request.system, request.messages).
  // 2. max_completion_tokens: request.maxTokens, else defaults.maxTokens; leave it out when both are undefined.
  // 3. When there is at least one tool: tools (toOpenAITools) and, if request.toolChoice is set, tool_choice
  //    (toOpenAIToolChoice); then setParallelToolCalls(params, request) (given, chapter 9). With no tools, send
  //    neither.
  // 4. temperature: request.temperature whenever it is a number (0 too); none, leave it out. Last, the extras:
  //    addExtras(params, request.extra) (given), which keeps every field already set, so never spread them over
  //    the body yourself.
  const params: OpenAI.ChatCompletionCreateParamsNonStreaming = {
    model: request.model ?? defaults.model,
    messages: toOpenAIMessages(request.system, request.messages),
  };
  const maxTokens = request.maxTokens ?? defaults.maxTokens;
  if (maxTokens !== undefined) params.max_completion_tokens = maxTokens;
  if (request.tools.length > 0) {
    params.tools = toOpenAITools(request.tools);
    if (request.toolChoice) params.tool_choice = toOpenAIToolChoice(request.toolChoice);
    setParallelToolCalls(params, request);
  }
  if (typeof request.temperature === 'number') params.temperature = request.temperature;
  addExtras(params, request.extra);
  return params;
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
  // 1. Not a string: undefined or null is {}; anything else (an object some servers send) is returned as it is.
  // 2. An empty (or all-whitespace) string is {}.
  // 3. Otherwise JSON.parse it. If that throws, or the value it gives is itself a string, return the text unchanged.
  if (typeof text !== 'string') return text ?? {};
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' ? text : value;
  } catch {
    return text;
  }
  // #endregion
}

/**
 * OpenAI's finish reason (the SDK's ChatCompletion.Choice lists them) in the kit's words (StopReason), by meaning:
 * a natural stop ends the turn, a cut at the token limit is a cut, asking for tools (under the current name or the
 * older one) asks for tools, a filtered answer is a refusal; anything else (null, a reason added later) ends it.
 */
export function openaiStopReason(reason: string | null | undefined): StopReason {
  // #region chapter 5: openaiStopReason
  // 1. stop -> end_turn; length -> max_tokens; tool_calls and function_call -> tool_use;
  //    content_filter -> refusal; anything else -> end_turn.
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
  // #endregion
}

/**
 * OpenAI's usage in the kit's words. OpenAI's `prompt_tokens` includes the part read from the cache; the kit counts
 * like Anthropic, so inputTokens is the rest (never below 0) and cacheReadTokens that part, only when the server
 * sent a count of it. A compatible server may leave any count out: tokenCount (given) makes it 0, never NaN.
 */
export function openaiUsage(usage: OpenAI.CompletionUsage): Usage {
  // #region chapter 5: openaiUsage
  // 1. cached = usage.prompt_tokens_details?.cached_tokens (may be missing).
  // 2. inputTokens = prompt_tokens minus cached (when there is a cached count), never below 0; outputTokens =
  //    completion_tokens. Read every count through tokenCount(): a compatible server may leave one out.
  // 3. cacheReadTokens = cached, only when it is a number.
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const input = tokenCount(usage.prompt_tokens) - tokenCount(cached);
  const result: Usage = { inputTokens: Math.max(0, input), outputTokens: tokenCount(usage.completion_tokens) };
  if (typeof cached === 'number') result.cacheReadTokens = cached;
  return result;
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
  // 1. If completion.choices is not an array, throw unexpectedAnswer('openai', completion, 'choices'). Take
  //    choices[0]; if there is none, throw new ProviderError('openai', '...no choices...'); if it has no message
  //    object, throw unexpectedAnswer('openai', choice, 'message').
  // 2. Blocks, in this order: reasoningOf(message) as { type: 'thinking', thinking } when there is some; the
  //    content as { type: 'text', text } when it is a non-empty string; each tool call that has a `function` as
  //    { type: 'tool_call', id, name, arguments: parseToolArguments(function.arguments) } ('' for a missing id
  //    or name).
  // 3. The stop reason is turnStopReason(openaiStopReason(finish_reason), whether there is a tool call).
  // 4. usage: openaiUsage(completion.usage) when the response has usage; otherwise leave it out.
  if (!Array.isArray(completion.choices)) throw unexpectedAnswer('openai', completion, 'choices');
  const choice = completion.choices[0];
  if (!choice) throw new ProviderError('openai', 'the response has no choices: the server sent no answer');
  if (typeof choice.message !== 'object' || choice.message === null)
    throw unexpectedAnswer('openai', choice, 'message');
  const { message } = choice;
  const content: ContentBlock[] = [];
  const reasoning = reasoningOf(message);
  if (reasoning) content.push({ type: 'thinking', thinking: reasoning });
  if (message.content) content.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls ?? []) {
    if ('function' in call) {
      const { name, arguments: args } = call.function;
      content.push({ type: 'tool_call', id: call.id ?? '', name: name ?? '', arguments: parseToolArguments(args) });
    }
  }
  const hasCalls = content.some((block) => block.type === 'tool_call');
  const stopReason = turnStopReason(openaiStopReason(choice.finish_reason), hasCalls);
  const turn: AssistantMessage = { role: 'assistant', content, stopReason };
  if (completion.usage) turn.usage = openaiUsage(completion.usage);
  return turn;
  // #endregion
}
