/**
 * Chapter 5: where a provider's key, model and server come from.
 *
 * Options passed in code win; otherwise the environment decides, with the same variable names other tools use, so a
 * learner who has run Claude Code or an OpenAI client already has them set. The environment is a parameter, not
 * `process.env` read deep inside: tests pass a plain object, and nothing reads the real one by accident.
 */
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
 * The Anthropic settings from options and environment (`env`, never process.env itself): ANTHROPIC_AUTH_TOKEN or
 * ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, ANTHROPIC_SMALL_FAST_MODEL. An option passed in code wins
 * over its variable, and an option or variable set to '' counts as unset, for every setting (pick, given).
 *
 * - The credential is a key or a token (a gateway's), of that kind: an option first (the key, then the token),
 *   then the variables, the token before the key. None: a ProviderConfigError for ANTHROPIC_API_KEY, the variable
 *   to set, whose message names both variables.
 * - No model: a ProviderConfigError for ANTHROPIC_MODEL. The small fast model defaults to the model.
 * - The token limit defaults to DEFAULT_MAX_TOKENS; a fetch option is kept.
 */
export function anthropicConfig(options: AnthropicOptions = {}, env: Env = process.env): AnthropicConfig {
  // #region chapter 5: anthropicConfig
  // 1. The credential is the first of: options.apiKey, options.authToken (kind 'authToken'),
  //    ANTHROPIC_AUTH_TOKEN (kind 'authToken'), ANTHROPIC_API_KEY; an empty string counts as unset. None at all:
  //    throw a ProviderConfigError for ANTHROPIC_API_KEY whose message names both variables.
  // 2. The model is options.model or ANTHROPIC_MODEL (pick() does exactly that); none: a ProviderConfigError
  //    that names ANTHROPIC_MODEL.
  // 3. The small fast model is options.smallFastModel, then ANTHROPIC_SMALL_FAST_MODEL, then the model.
  // 4. The base URL is options.baseURL or ANTHROPIC_BASE_URL (undefined is fine); maxTokens defaults to
  //    DEFAULT_MAX_TOKENS; fetch is passed through.
  //    In every step, an option or a variable set to '' counts as unset.
  const credential: AnthropicConfig['credential'] | undefined = options.apiKey
    ? { kind: 'apiKey', value: options.apiKey }
    : options.authToken
      ? { kind: 'authToken', value: options.authToken }
      : env.ANTHROPIC_AUTH_TOKEN
        ? { kind: 'authToken', value: env.ANTHROPIC_AUTH_TOKEN }
        : env.ANTHROPIC_API_KEY
          ? { kind: 'apiKey', value: env.ANTHROPIC_API_KEY }
          : undefined;
  if (!credential) {
    throw new ProviderConfigError(
      'anthropic',
      'ANTHROPIC_API_KEY',
      'No Anthropic credential: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a gateway), or pass { apiKey }.',
    );
  }
  const model = pick(options.model, env, 'ANTHROPIC_MODEL');
  if (!model) {
    throw new ProviderConfigError(
      'anthropic',
      'ANTHROPIC_MODEL',
      'No Anthropic model: set ANTHROPIC_MODEL to a model name, or pass { model }.',
    );
  }
  return {
    credential,
    baseURL: pick(options.baseURL, env, 'ANTHROPIC_BASE_URL'),
    model,
    smallFastModel: pick(options.smallFastModel, env, 'ANTHROPIC_SMALL_FAST_MODEL') ?? model,
    maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    fetch: options.fetch,
  };
  // #endregion
}

/**
 * The OpenAI settings from options and environment: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL,
 * OPENAI_IMAGE_INPUT. Throws ProviderConfigError, naming the variable to set, when there is no key (the message
 * says a local server without keys still needs a dummy value: the SDK refuses an empty key) or no model, or when
 * OPENAI_IMAGE_INPUT is neither true nor false (naming the value too). Options win over variables, and '' counts as
 * unset, as for Anthropic; the token limit and fetch come from the options only. Images are on for OpenAI's own API
 * (no base URL: its current models read them) and off for any other server until the person says its model reads
 * them, with the variable or the option, which wins: a guess would send pictures to a model that cannot see them.
 */
export function openaiConfig(options: OpenAIOptions = {}, env: Env = process.env): OpenAIConfig {
  // #region chapter 5: openaiConfig
  // 1. The key is options.apiKey or OPENAI_API_KEY (use pick()). None: throw a ProviderConfigError for
  //    OPENAI_API_KEY; say that a local server without keys still needs a dummy value, because the SDK refuses an
  //    empty key.
  // 2. The model is options.model or OPENAI_MODEL; none: a ProviderConfigError that names OPENAI_MODEL.
  // 3. The base URL is options.baseURL or OPENAI_BASE_URL; maxTokens and fetch come from the options only.
  //    In every step, an option or a variable set to '' counts as unset.
  // 4. imageInput: options.imageInput when it is set; else OPENAI_IMAGE_INPUT, 'true' or 'false' (any other value:
  //    a ProviderConfigError naming OPENAI_IMAGE_INPUT and the value); else true only when there is no base URL
  //    (OpenAI's own API). Another server's model may read no images: never guess yes.
  const apiKey = pick(options.apiKey, env, 'OPENAI_API_KEY');
  if (!apiKey) {
    throw new ProviderConfigError(
      'openai',
      'OPENAI_API_KEY',
      'No OpenAI API key: set OPENAI_API_KEY, or pass { apiKey }. A local server that needs no key still needs a dummy value such as "local".',
    );
  }
  const model = pick(options.model, env, 'OPENAI_MODEL');
  if (!model) {
    throw new ProviderConfigError(
      'openai',
      'OPENAI_MODEL',
      'No OpenAI model: set OPENAI_MODEL to a model name, or pass { model }.',
    );
  }
  const baseURL = pick(options.baseURL, env, 'OPENAI_BASE_URL');
  const images = pick(undefined, env, 'OPENAI_IMAGE_INPUT');
  if (images !== undefined && images !== 'true' && images !== 'false') {
    throw new ProviderConfigError(
      'openai',
      'OPENAI_IMAGE_INPUT',
      `OPENAI_IMAGE_INPUT is ${JSON.stringify(images)}: set it to true (the model reads images) or false.`,
    );
  }
  const imageInput = options.imageInput ?? (images === undefined ? baseURL === undefined : images === 'true');
  return { apiKey, baseURL, model, maxTokens: options.maxTokens, imageInput, fetch: options.fetch };
  // #endregion
}
