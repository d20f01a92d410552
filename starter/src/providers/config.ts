/**
 * Chapter 5: where a provider's key, model and server come from.
 *
 * Options passed in code win; otherwise the environment decides, with the same variable names other tools use, so a
 * learner who has run Claude Code or an OpenAI client already has them set. The environment is a parameter, not
 * `process.env` read deep inside: tests pass a plain object, and nothing reads the real one by accident.
 */
import { TodoError } from '../todo.js';
import { ProviderConfigError } from './errors.js';

export type Env = Record<string, string | undefined>;

/** Used when neither the request nor the options say how long an Anthropic answer may be (the API requires it). */
export const DEFAULT_MAX_TOKENS = 8192;

export interface AnthropicOptions {
  /** Sent as `Authorization: Bearer`. Wins over every variable. */
  apiKey?: string;
  /** A token from a gateway or a login; used when no apiKey is given. */
  authToken?: string;
  baseURL?: string;
  model?: string;
  /** A cheaper model for side jobs (summaries, titles); defaults to `model`. */
  smallFastModel?: string;
  maxTokens?: number;
  /** The fetch the SDK uses; tests pass one, everyone else leaves it out. */
  fetch?: typeof globalThis.fetch;
}

export interface AnthropicConfig {
  credential: { kind: 'apiKey' | 'authToken'; value: string };
  /** Undefined means the SDK's own default, https://api.anthropic.com. */
  baseURL: string | undefined;
  model: string;
  smallFastModel: string;
  maxTokens: number;
  fetch: typeof globalThis.fetch | undefined;
}

export interface OpenAIOptions {
  apiKey?: string;
  /** Any OpenAI-compatible server: Ollama, vLLM, LM Studio, a hosted gateway. */
  baseURL?: string;
  model?: string;
  maxTokens?: number;
  /** Whether the model reads images; wins over OPENAI_IMAGE_INPUT. */
  imageInput?: boolean;
  fetch?: typeof globalThis.fetch;
}

export interface OpenAIConfig {
  apiKey: string;
  /** Undefined means the SDK's own default, https://api.openai.com/v1. */
  baseURL: string | undefined;
  model: string;
  /** Undefined: let the server decide. */
  maxTokens: number | undefined;
  /** Whether the model reads images (a request with images to one that does not is refused before it is sent). */
  imageInput: boolean;
  fetch: typeof globalThis.fetch | undefined;
}

/** An option, else a non-empty variable, else undefined. An empty variable counts as unset. */
export function pick(option: string | undefined, env: Env, name: string): string | undefined {
  if (option !== undefined && option !== '') return option;
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The Anthropic settings from options and environment: ANTHROPIC_AUTH_TOKEN or ANTHROPIC_API_KEY,
 * ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, ANTHROPIC_SMALL_FAST_MODEL. Throws ProviderConfigError, naming the variable
 * to set, when there is no key or no model.
 */
export function anthropicConfig(options: AnthropicOptions = {}, env: Env = process.env): AnthropicConfig {
  // #region chapter 5: anthropicConfig
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'anthropicConfig');
  // #endregion
}

/**
 * The OpenAI settings from options and environment: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL,
 * OPENAI_IMAGE_INPUT. Throws ProviderConfigError, naming the variable to set, when there is no key or no model, or
 * when OPENAI_IMAGE_INPUT is neither true nor false. Images are on for OpenAI's own API (its current models read them)
 * and off for any other server until the person says its model reads them: a guess would send pictures to a model
 * that cannot see them.
 */
export function openaiConfig(options: OpenAIOptions = {}, env: Env = process.env): OpenAIConfig {
  // #region chapter 5: openaiConfig
  // Write it from the contract above. Step by step instead: npm run reset -- chapter5 --guided
  throw new TodoError(5, 'openaiConfig');
  // #endregion
}
