/**
 * Chapter 5: GPT models, and any OpenAI-compatible server, through the official OpenAI SDK.
 *
 * The Chat Completions API sees a conversation differently from Anthropic: the system prompt is the first message,
 * a tool call's arguments travel as a JSON *string*, and each tool result is its own `role: 'tool'` message. The
 * same class serves Ollama, vLLM, LM Studio and hosted gateways: only the base URL changes. Chapter 6 adds `stream`.
 *
 * The conversions are pure functions in openai-convert.ts (exported from here too); this file holds the provider
 * class: the SDK client, complete (chapter 5) and stream (chapter 6).
 */

import { TodoError } from '../todo.js';
import OpenAI from 'openai';
import type { AssistantMessage, Usage } from '../messages.js';
import type { ModelRequest, Provider } from '../provider.js';
import type { StreamEvent } from '../stream-events.js';
import { openaiConfig, type Env, type OpenAIOptions } from './config.js';
import { ProviderError, toProviderError } from './errors.js';
import { turnStopReason } from './turn.js';
import { fromOpenAICompletion, openaiRequest, openaiStopReason, openaiUsage, reasoningOf } from './openai-convert.js';

export * from './openai-convert.js';

export class OpenAIProvider implements Provider {
  readonly name = 'openai';
  readonly model: string;
  readonly maxTokens: number | undefined;
  /** OpenAI's own API: yes; another server: only when the person said so (openaiConfig). */
  readonly imageInput: boolean;
  private readonly client: OpenAI;
  /** Kept only to scrub it from error messages. */
  private readonly secret: string;

  /** Throws ProviderConfigError when the key or the model is missing. `env` defaults to process.env. */
  constructor(options: OpenAIOptions = {}, env: Env = process.env) {
    const config = openaiConfig(options, env);
    this.model = config.model;
    this.maxTokens = config.maxTokens;
    this.imageInput = config.imageInput;
    this.secret = config.apiKey;
    this.client = new OpenAI({
      apiKey: config.apiKey,
      // null, not undefined: undefined would make the SDK read OPENAI_BASE_URL from process.env behind our back.
      baseURL: config.baseURL ?? null,
      // The kit's own retry policy (chapter 10) is the only one that runs.
      maxRetries: 0,
      ...(config.fetch ? { fetch: config.fetch } : {}),
    });
  }

  /**
   * One Chat Completions call: what openaiRequest makes with this provider's defaults, sent by the SDK with the
   * request's signal, and the answer read back with fromOpenAICompletion. The SDK never retries
   * (chapter 10 does), so one call is one request.
   *
   * - A failure of the call is a ProviderError made by toProviderError, with this provider's name and its key among
   *   the secrets: the status and the API's own sentence are kept, the key never appears.
   * - An abort is not a provider failure: when the signal has fired, the call rejects with the signal's reason.
   */
  async complete(request: ModelRequest): Promise<AssistantMessage> {
    // #region chapter 5: OpenAIProvider.complete
    // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
    throw new TodoError(5, 'OpenAIProvider.complete');
    // #endregion
  }

  /**
   * The turn chapter 5's provider returns, as the kit's StreamEvent list (stream-events.ts), translated
   * from the SDK's chunk stream: chapter 5's request, asked for as a stream with the usage included
   * (a stream carries none unless asked: `stream_options: { include_usage: true }`). Chat Completions has no
   * block starts or ends: text, reasoning (reasoningOf, given) and tool calls come as pieces, one part after another.
   *
   * - Text, thinking and each tool call get the kit's indices in the order they first appear, reasoning before
   *   text within one part (as in chapter 5).
   * - Tool-call pieces belong to the calls their `index` names, even when pieces of parallel calls interleave. Some
   *   compatible servers leave `index` out: then the one with the same `id`; with neither, the one of the piece
   *   before it (the first of them when nothing came before, so a later piece with index 0 continues it).
   * - Each of them starts exactly once, with its id and its name (`''` for what the server leaves out; a piece
   *   may come with neither a name nor arguments), and each non-empty piece of its arguments goes on as it is.
   * - Nothing marks the end of calls but the finish reason: when the first one arrives, all of them end, in
   *   order, once (a server may send it again later; the first one counts). One `finish` comes last, with the stop
   *   reason decided as in chapter 5 (openaiStopReason, then turnStopReason with whether there were calls:
   *   `stop` after calls still means `tool_use`, `length` is `max_tokens`) and the usage, which may come last, in a
   *   part with no choices.
   * - Failures surface while the stream is read too: every one is a ProviderError through toProviderError, as in
   *   chapter 5 (the server's own words kept, the credentials scrubbed). A stream that closes before any finish
   *   reason is a ProviderError saying the stream ended early, and never yields a finish.
   * - A signal that aborts rejects with its reason, never a ProviderError, even when the stream ends quietly; the
   *   signal goes to the SDK so that it closes the connection.
   */
  async *stream(request: ModelRequest): AsyncIterable<StreamEvent> {
    // #region chapter 6: OpenAIProvider.stream
    // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
    throw new TodoError(6, 'OpenAIProvider.stream');
    // #endregion
  }
}
