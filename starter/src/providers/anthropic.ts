/**
 * Chapter 5: Claude through the official Anthropic SDK.
 *
 * The provider is a translator. Going out, the kit's history becomes the Messages API's: the system prompt is a
 * top-level field, tool calls are `tool_use` blocks, and tool results travel in a *user* message, all the results of
 * one turn together. Coming back, content blocks, the stop reason and the usage become the kit's types again.
 * Chapter 6 adds `stream`, the same turn as events.
 *
 * The conversions are pure functions in anthropic-convert.ts (exported from here too); this file holds the
 * provider class: the SDK client, complete (chapter 5) and stream (chapter 6).
 */

import { TodoError } from '../todo.js';
import Anthropic from '@anthropic-ai/sdk';
import type { AssistantMessage } from '../messages.js';
import type { ModelRequest, Provider } from '../provider.js';
import type { StreamEvent } from '../stream-events.js';
import { anthropicConfig, type AnthropicOptions, type Env } from './config.js';
import { ProviderError, toProviderError } from './errors.js';
import { turnStopReason } from './turn.js';
import {
  type AnthropicUsageFields,
  anthropicRequest,
  anthropicStopReason,
  anthropicUsage,
  fromAnthropicMessage,
} from './anthropic-convert.js';

export * from './anthropic-convert.js';

export class AnthropicProvider implements Provider {
  readonly name = 'anthropic';
  /** Every current Claude model reads images. */
  readonly imageInput = true;
  readonly model: string;
  /** For side jobs such as summaries (chapter 12) and as a fallback (chapter 10). */
  readonly smallFastModel: string;
  readonly maxTokens: number;
  private readonly client: Anthropic;
  /** Kept only to scrub it from error messages. */
  private readonly secret: string;

  /** Throws ProviderConfigError when the key or the model is missing. `env` defaults to process.env. */
  constructor(options: AnthropicOptions = {}, env: Env = process.env) {
    const config = anthropicConfig(options, env);
    this.model = config.model;
    this.smallFastModel = config.smallFastModel;
    this.maxTokens = config.maxTokens;
    this.secret = config.credential.value;
    this.client = new Anthropic({
      ...(config.credential.kind === 'apiKey'
        ? { apiKey: config.credential.value }
        : { authToken: config.credential.value }),
      // null, not undefined: undefined would make the SDK read ANTHROPIC_BASE_URL from process.env behind our back.
      baseURL: config.baseURL ?? null,
      // The kit's own retry policy (chapter 10) is the only one that runs.
      maxRetries: 0,
      ...(config.fetch ? { fetch: config.fetch } : {}),
    });
  }

  /**
   * One call of the Messages API: what anthropicRequest makes with this provider's defaults, sent by the SDK
   * with the request's signal, and the answer read back with fromAnthropicMessage. The SDK never retries
   * (chapter 10 does), so one call is one request.
   *
   * - Every failure of the call is a ProviderError made by toProviderError, with this provider's name and its key
   *   among the secrets: the status, the API's own sentence and type are kept, the key never appears.
   * - An abort is not a provider failure: when the signal has fired, the call rejects with the signal's reason.
   */
  async complete(request: ModelRequest): Promise<AssistantMessage> {
    // #region chapter 5: AnthropicProvider.complete
    // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
    throw new TodoError(5, 'AnthropicProvider.complete');
    // #endregion
  }

  /**
   * The turn chapter 5's provider returns, as the kit's StreamEvent list (stream-events.ts), translated from the
   * SDK's raw stream: sent with `stream: true` on top of chapter 5's request, the SDK resolves to an async iterable
   * of Anthropic's stream events, already parsed (its type, RawMessageStreamEvent, lists them). Each becomes the
   * kit's counterpart, or nothing.
   *
   * - The kit's `index` counts only the blocks its finished turn keeps (text, thinking, tool calls): block types the
   *   kit drops (such as `redacted_thinking`) take no index, and their deltas yield nothing; nor do delta types the
   *   kit does not know, nor empty JSON pieces. Blocks whose start already carries text yield it before their
   *   deltas.
   * - Usage arrives at the start and is updated near the end, where fields that did not change come as `null`:
   *   they keep what they were. anthropicUsage converts it.
   * - One `finish`, last, once `message_stop` has arrived, its stop reason decided as in chapter 5
   *   (anthropicStopReason, then turnStopReason with whether a tool call started), so a cut call is `max_tokens`,
   *   never `tool_use`.
   * - Failures surface while the stream is read too, not only when it is asked for (a failure the server reports
   *   inside the stream, a dropped connection): every one is a ProviderError through toProviderError as in chapter 5
   *   (the server's type and text kept, the key scrubbed). A stream that ends without `message_stop`, even on a
   *   clean close, is a ProviderError saying the stream ended early, and never yields a finish.
   * - A signal that aborts rejects with its reason, never a ProviderError, even when the SDK ends the stream
   *   quietly on abort; the signal goes to the SDK so that it closes the connection.
   */
  async *stream(request: ModelRequest): AsyncIterable<StreamEvent> {
    // #region chapter 6: AnthropicProvider.stream
    // Write it from the contract above. Step by step instead: npm run reset -- chapter6 --guided
    throw new TodoError(6, 'AnthropicProvider.stream');
    // #endregion
  }
}
