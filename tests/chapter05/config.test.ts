import { describe, expect, test } from 'vitest';
import { anthropicConfig, openaiConfig } from 'kit/providers/config';
import { ProviderConfigError } from 'kit/providers/errors';
import { AnthropicProvider } from 'kit/providers/anthropic';
import { OpenAIProvider } from 'kit/providers/openai';

/** What a call threw; fails the test if it did not throw. */
function thrown(run: () => unknown, what: string): Error {
  try {
    run();
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return error as Error;
  }
  return expect.fail(`${what} should throw a ProviderConfigError, but it returned normally`);
}

describe('anthropicConfig (src/providers/config.ts)', () => {
  test('a missing key is a ProviderConfigError that names the variable to set', () => {
    const error = thrown(() => anthropicConfig({}, { ANTHROPIC_MODEL: 'claude-test' }), 'anthropicConfig with no key');
    expect(error, 'throw new ProviderConfigError(...) from src/providers/errors.ts').toBeInstanceOf(
      ProviderConfigError,
    );
    expect((error as ProviderConfigError).variable, 'the variable that would fix it').toBe('ANTHROPIC_API_KEY');
    expect(
      (error as ProviderConfigError).provider,
      "the first argument of ProviderConfigError is the provider's name",
    ).toBe('anthropic');
    expect(error.message, 'the message tells a person what to set').toContain('ANTHROPIC_API_KEY');
    expect(error.message, 'and mentions the token alternative').toContain('ANTHROPIC_AUTH_TOKEN');
  });

  test('a missing model is a ProviderConfigError that names ANTHROPIC_MODEL', () => {
    const error = thrown(() => anthropicConfig({}, { ANTHROPIC_API_KEY: 'k-123456' }), 'anthropicConfig with no model');
    expect(error, 'anthropicConfig: no model is a ProviderConfigError (guided step 2)').toBeInstanceOf(
      ProviderConfigError,
    );
    expect(
      (error as ProviderConfigError).variable,
      'anthropicConfig: the error names ANTHROPIC_MODEL as the variable (guided step 2)',
    ).toBe('ANTHROPIC_MODEL');
    expect(
      (error as ProviderConfigError).provider,
      "the first argument of ProviderConfigError is the provider's name",
    ).toBe('anthropic');
    expect(error.message, 'anthropicConfig: the message names ANTHROPIC_MODEL (guided step 2)').toContain(
      'ANTHROPIC_MODEL',
    );
  });

  test('reads every setting from the environment it is given', () => {
    const config = anthropicConfig(
      {},
      {
        ANTHROPIC_API_KEY: 'key-from-env',
        ANTHROPIC_MODEL: 'claude-big',
        ANTHROPIC_SMALL_FAST_MODEL: 'claude-small',
        ANTHROPIC_BASE_URL: 'http://gateway.test/anthropic',
      },
    );
    expect(config, 'anthropicConfig: key, model, small fast model and base URL from the env argument').toMatchObject({
      credential: { kind: 'apiKey', value: 'key-from-env' },
      model: 'claude-big',
      smallFastModel: 'claude-small',
      baseURL: 'http://gateway.test/anthropic',
    });
    expect(config.maxTokens, 'maxTokens has a default: the Messages API requires max_tokens').toBeGreaterThan(0);
  });

  test('ANTHROPIC_AUTH_TOKEN is a credential of its own; the small fast model defaults to the model', () => {
    const config = anthropicConfig({}, { ANTHROPIC_AUTH_TOKEN: 'token-123456', ANTHROPIC_MODEL: 'claude-big' });
    expect(config.credential, 'a token from ANTHROPIC_AUTH_TOKEN is kind "authToken"').toEqual({
      kind: 'authToken',
      value: 'token-123456',
    });
    expect(config.smallFastModel, 'with no ANTHROPIC_SMALL_FAST_MODEL, side jobs use the main model').toBe(
      'claude-big',
    );
    expect(config.baseURL, 'no ANTHROPIC_BASE_URL: leave it undefined so the SDK uses its default').toBeUndefined();
  });

  test('an authToken option is a credential of kind "authToken" and wins over the environment', () => {
    const config = anthropicConfig(
      { authToken: 'token-from-code' },
      { ANTHROPIC_AUTH_TOKEN: 'token-from-env', ANTHROPIC_API_KEY: 'key-from-env', ANTHROPIC_MODEL: 'claude-big' },
    );
    expect(config.credential, 'options.authToken comes right after options.apiKey, before every variable').toEqual({
      kind: 'authToken',
      value: 'token-from-code',
    });
  });

  test('options passed in code win over the environment', () => {
    const config = anthropicConfig(
      { apiKey: 'key-from-code', model: 'model-from-code', baseURL: 'http://from-code.test', maxTokens: 321 },
      {
        ANTHROPIC_AUTH_TOKEN: 'token-from-env',
        ANTHROPIC_MODEL: 'model-from-env',
        ANTHROPIC_BASE_URL: 'http://from-env.test',
      },
    );
    expect(config, 'anthropicConfig: options win over the environment').toMatchObject({
      credential: { kind: 'apiKey', value: 'key-from-code' },
      model: 'model-from-code',
      baseURL: 'http://from-code.test',
      maxTokens: 321,
    });
  });

  test('with both ANTHROPIC_AUTH_TOKEN and ANTHROPIC_API_KEY set, the token wins', () => {
    const config = anthropicConfig(
      {},
      { ANTHROPIC_API_KEY: 'key-from-env', ANTHROPIC_AUTH_TOKEN: 'token-from-env', ANTHROPIC_MODEL: 'claude-big' },
    );
    expect(
      config.credential,
      'ANTHROPIC_AUTH_TOKEN comes before ANTHROPIC_API_KEY in the order (guided step 1)',
    ).toEqual({
      kind: 'authToken',
      value: 'token-from-env',
    });
  });

  test('a variable set to "" counts as unset, for every setting', () => {
    const config = anthropicConfig(
      {},
      {
        ANTHROPIC_AUTH_TOKEN: '',
        ANTHROPIC_API_KEY: 'key-from-env',
        ANTHROPIC_MODEL: 'claude-big',
        ANTHROPIC_SMALL_FAST_MODEL: '',
        ANTHROPIC_BASE_URL: '',
      },
    );
    expect(
      config.credential,
      'ANTHROPIC_AUTH_TOKEN="" is no token, so ANTHROPIC_API_KEY is used (guided step 1)',
    ).toEqual({
      kind: 'apiKey',
      value: 'key-from-env',
    });
    expect(
      config.baseURL,
      'ANTHROPIC_BASE_URL="" is no base URL: undefined, so the SDK uses its default (pick() does this) (guided step 4)',
    ).toBeUndefined();
    expect(
      config.smallFastModel,
      'ANTHROPIC_SMALL_FAST_MODEL="" is unset: the small fast model is the model (guided step 3)',
    ).toBe('claude-big');
    const noModel = thrown(
      () => anthropicConfig({}, { ANTHROPIC_API_KEY: 'k-123456', ANTHROPIC_MODEL: '' }),
      'anthropicConfig with ANTHROPIC_MODEL=""',
    );
    expect((noModel as ProviderConfigError).variable, 'ANTHROPIC_MODEL="" is no model (guided step 2)').toBe(
      'ANTHROPIC_MODEL',
    );
    const fromCode = anthropicConfig(
      { apiKey: '', baseURL: '' },
      { ANTHROPIC_API_KEY: 'key-from-env', ANTHROPIC_MODEL: 'claude-big', ANTHROPIC_BASE_URL: 'http://gw.test' },
    );
    expect(
      [fromCode.credential.value, fromCode.baseURL],
      'an option set to "" is unset too, so the variables are used (guided steps 1 and 4)',
    ).toEqual(['key-from-env', 'http://gw.test']);
  });

  test('reads the env argument, never process.env', () => {
    process.env.ANTHROPIC_API_KEY = 'leaked-from-process-env';
    process.env.ANTHROPIC_MODEL = 'leaked-model';
    try {
      const error = thrown(() => anthropicConfig({}, {}), 'anthropicConfig({}, {}) with keys only in process.env');
      expect(error, 'use the `env` parameter: tests (and callers) pass their own environment').toBeInstanceOf(
        ProviderConfigError,
      );
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      delete process.env.ANTHROPIC_MODEL;
    }
  });
});

describe('openaiConfig (src/providers/config.ts)', () => {
  test('a missing key or model is a ProviderConfigError that names OPENAI_API_KEY or OPENAI_MODEL', () => {
    const noKey = thrown(() => openaiConfig({}, { OPENAI_MODEL: 'gpt-test' }), 'openaiConfig with no key');
    expect(noKey, 'openaiConfig: no key is a ProviderConfigError (guided step 1)').toBeInstanceOf(ProviderConfigError);
    expect(
      (noKey as ProviderConfigError).variable,
      'openaiConfig: the error names OPENAI_API_KEY (guided step 1)',
    ).toBe('OPENAI_API_KEY');
    expect(
      (noKey as ProviderConfigError).provider,
      "the first argument of ProviderConfigError is the provider's name",
    ).toBe('openai');
    expect(noKey.message, 'openaiConfig: the message names OPENAI_API_KEY (guided step 1)').toContain('OPENAI_API_KEY');
    const noModel = thrown(() => openaiConfig({}, { OPENAI_API_KEY: 'sk-123456' }), 'openaiConfig with no model');
    expect(noModel, 'openaiConfig: no model is a ProviderConfigError (guided step 2)').toBeInstanceOf(
      ProviderConfigError,
    );
    expect(
      (noModel as ProviderConfigError).variable,
      'openaiConfig: the error names OPENAI_MODEL (guided step 2)',
    ).toBe('OPENAI_MODEL');
    expect(
      (noModel as ProviderConfigError).provider,
      "the first argument of ProviderConfigError is the provider's name",
    ).toBe('openai');
    expect(noModel.message, 'openaiConfig: the message names OPENAI_MODEL (guided step 2)').toContain('OPENAI_MODEL');
  });

  test('reads OPENAI_* from the environment; options win; an empty variable counts as unset', () => {
    expect(
      openaiConfig(
        {},
        { OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: 'gpt-env', OPENAI_BASE_URL: 'http://localhost:11434/v1' },
      ),
      'openaiConfig: key, model and base URL from the env argument',
    ).toMatchObject({
      apiKey: 'sk-env',
      model: 'gpt-env',
      baseURL: 'http://localhost:11434/v1',
    });
    expect(
      openaiConfig(
        { apiKey: 'sk-code', model: 'gpt-code', baseURL: 'http://code.test/v1' },
        { OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: 'gpt-env', OPENAI_BASE_URL: '' },
      ),
    ).toMatchObject({ apiKey: 'sk-code', model: 'gpt-code', baseURL: 'http://code.test/v1' });
    const error = thrown(
      () => openaiConfig({}, { OPENAI_API_KEY: '', OPENAI_MODEL: 'gpt-env' }),
      'openaiConfig with OPENAI_API_KEY=""',
    );
    expect(error, 'OPENAI_API_KEY="" is no key at all (the SDK would refuse it)').toBeInstanceOf(ProviderConfigError);
  });

  test('OPENAI_BASE_URL="" or OPENAI_MODEL="" count as unset', () => {
    expect(
      openaiConfig({}, { OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: 'gpt-env', OPENAI_BASE_URL: '' }).baseURL,
      'OPENAI_BASE_URL="" is no base URL: undefined, so the SDK uses its default (use pick()) (guided step 3)',
    ).toBeUndefined();
    const noModel = thrown(
      () => openaiConfig({}, { OPENAI_API_KEY: 'sk-env', OPENAI_MODEL: '' }),
      'openaiConfig with OPENAI_MODEL=""',
    );
    expect((noModel as ProviderConfigError).variable, 'OPENAI_MODEL="" is no model (guided step 2)').toBe(
      'OPENAI_MODEL',
    );
  });
});

describe('provider constructors (src/providers/anthropic.ts, openai.ts)', () => {
  test('the constructors report missing settings before any request', () => {
    expect(thrown(() => new AnthropicProvider({}, {}), 'new AnthropicProvider({}, {})')).toBeInstanceOf(
      ProviderConfigError,
    );
    expect(thrown(() => new OpenAIProvider({}, {}), 'new OpenAIProvider({}, {})')).toBeInstanceOf(ProviderConfigError);
    const anthropic = new AnthropicProvider(
      {},
      { ANTHROPIC_API_KEY: 'k-123456', ANTHROPIC_MODEL: 'claude-big', ANTHROPIC_SMALL_FAST_MODEL: 'claude-small' },
    );
    expect([anthropic.name, anthropic.model, anthropic.smallFastModel]).toEqual([
      'anthropic',
      'claude-big',
      'claude-small',
    ]);
    const openai = new OpenAIProvider({ model: 'gpt-code' }, { OPENAI_API_KEY: 'sk-123456' });
    expect([openai.name, openai.model]).toEqual(['openai', 'gpt-code']);
  });
});
