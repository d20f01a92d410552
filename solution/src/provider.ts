/**
 * Chapter 1: the provider contract.
 *
 * A provider turns a request (system prompt, history, tools) into the model's next turn. The agent never knows
 * which model is behind it: the scripted MockProvider, Anthropic and OpenAI all fit the same small interface, and
 * are passed in as values.
 */
import type { AssistantMessage, Message } from './messages.js';
import type { StreamEvent } from './stream-events.js';

/** A JSON Schema object, as providers expect for a tool's input. */
export type JsonSchema = { [key: string]: unknown };

/** What the model is told about a tool: its name, what it does, and the JSON Schema of its input. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** Whether the model may, must, or must not call tools, or must call one named tool. */
export type ToolChoice = 'auto' | 'required' | 'none' | { name: string };

export interface ModelRequest {
  system?: string;
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  toolChoice?: ToolChoice;
  /** false: at most one tool call per turn (chapter 9); true or left out: as many as the model likes. */
  parallelToolCalls?: boolean;
  /** Overrides the provider's configured model for this one request. */
  model?: string;
  maxTokens?: number;
  /**
   * Sampling temperature, for OpenAI and compatible servers; left out, the server's default. 0 is a temperature (the
   * most repeatable one). Anthropic's current Messages API has none: its provider refuses a request that sets one.
   */
  temperature?: number;
  /**
   * Provider-specific fields, added to the request body as they are (Anthropic's `top_k` or `metadata`, OpenAI's
   * `seed` or `reasoning_effort`). An extra never replaces a field the kit sets and never turns on streaming.
   */
  extra?: Readonly<Record<string, unknown>>;
  signal?: AbortSignal;
}

export interface Provider {
  /** A short name for logs and errors, such as "anthropic" or "mock". */
  readonly name: string;
  /**
   * True when the model reads images in user messages (chapter 5). Left out or false: it does not, and a request
   * that carries one is refused before it is sent (refuseImages, images.ts). A wrapper passes on its inner value.
   */
  readonly imageInput?: boolean;
  /** The model's whole next turn. Rejects on a provider failure; never returns a partial turn. */
  complete(request: ModelRequest): Promise<AssistantMessage>;
  /** The same turn as events while it is being written (chapter 6). Ends with one `finish` event. */
  stream?(request: ModelRequest): AsyncIterable<StreamEvent>;
}
