/**
 * What a careless model or a broken server can send back, and what the providers must make of it: a turn cut in
 * the middle of a tool call, an error body with status 200, counts that are missing, a string where an object was
 * expected, a key echoed in a header, the statuses a proxy uses (400, 408, 409).
 */
import { describe, expect, test } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { AnthropicProvider, anthropicUsage, fromAnthropicMessage, toAnthropicMessages } from 'kit/providers/anthropic';
import {
  OpenAIProvider,
  fromOpenAICompletion,
  openaiUsage,
  parseToolArguments,
  toOpenAIMessages,
} from 'kit/providers/openai';
import { ProviderError, toProviderError } from 'kit/providers/errors';
import { turnStopReason } from 'kit/providers/turn';
import { type Message, userMessage } from 'kit/messages';
import { fakeApi } from '../helpers/fake-http.js';
import { rejection } from '../helpers/assert.js';
import {
  ANTHROPIC_KEY,
  ANTHROPIC_URL,
  OPENAI_KEY,
  OPENAI_URL,
  anthropicEnv,
  anthropicResponse,
  openaiEnv,
  openaiResponse,
  tools,
} from './fixtures.js';

const api = fakeApi();

const anthropic = () => new AnthropicProvider({}, anthropicEnv);
const openai = () => new OpenAIProvider({}, openaiEnv);
const completion = (...args: Parameters<typeof openaiResponse>) =>
  openaiResponse(...args) as unknown as OpenAI.ChatCompletion;
const message = (...args: Parameters<typeof anthropicResponse>) =>
  anthropicResponse(...args) as unknown as Anthropic.Message;
const functionCall = (id: string, name: string, args: string) => ({
  id,
  type: 'function',
  function: { name, arguments: args },
});

/** What a call threw; fails the test if it did not throw. */
function thrownBy(run: () => unknown, what: string): unknown {
  try {
    run();
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return error;
  }
  return expect.fail(`${what} should throw a ProviderError, but it returned normally`);
}

describe('turnStopReason (src/providers/turn.ts)', () => {
  test('a cut or refused turn says so even with tool calls; otherwise tool_use means "there are calls"', () => {
    expect(
      turnStopReason('max_tokens', true),
      "a turn cut at the limit stays 'max_tokens' even with calls (they may be half written) (guided step 1)",
    ).toBe('max_tokens');
    expect(turnStopReason('refusal', true), "a refused turn stays 'refusal' even with calls (guided step 1)").toBe(
      'refusal',
    );
    expect(
      turnStopReason('end_turn', true),
      "calls and 'end_turn' (a server that says 'stop'): 'tool_use' (guided step 2)",
    ).toBe('tool_use');
    expect(turnStopReason('stop_sequence', true), "calls and 'stop_sequence': 'tool_use' (guided step 2)").toBe(
      'tool_use',
    );
    expect(turnStopReason('tool_use', true), "calls and 'tool_use': 'tool_use' (guided step 2)").toBe('tool_use');
    expect(
      turnStopReason('tool_use', false),
      "'tool_use' with no call at all has nothing to run: 'end_turn' (guided step 3)",
    ).toBe('end_turn');
    expect(turnStopReason('max_tokens', false), "'max_tokens' without calls stays 'max_tokens' (guided step 1)").toBe(
      'max_tokens',
    );
    expect(turnStopReason('refusal', false), "'refusal' without calls stays 'refusal' (guided step 1)").toBe('refusal');
    expect(
      turnStopReason('stop_sequence', false),
      "any other reason without calls is kept ('stop_sequence') (guided step 4)",
    ).toBe('stop_sequence');
    expect(turnStopReason('end_turn', false), "'end_turn' without calls is kept (guided step 4)").toBe('end_turn');
  });
});

describe('a turn cut in the middle of a tool call (src/providers/anthropic.ts, openai.ts)', () => {
  test("Anthropic: max_tokens during a tool_use block is a 'max_tokens' turn, never 'tool_use'", async () => {
    api.answer(
      ANTHROPIC_URL,
      anthropicResponse(
        [
          { type: 'text', text: 'Writing the file.' },
          { type: 'tool_use', id: 'toolu_cut', name: 'write', input: { path: 'a.ts' } },
        ],
        'max_tokens',
      ),
    );
    const turn = await anthropic().complete({ messages: [userMessage('write a.ts')], tools });
    expect(
      turn.stopReason,
      "fromAnthropicMessage: turnStopReason keeps 'max_tokens': the call may be half written (guided step 3)",
    ).toBe('max_tokens');
    expect(
      turn.content,
      'the provider reports the cut call as it was written; the stop reason, not a dropped block, says it must not run',
    ).toContainEqual({
      type: 'tool_call',
      id: 'toolu_cut',
      name: 'write',
      arguments: { path: 'a.ts' },
    });
  });

  test("OpenAI: finish_reason 'length' with half-written arguments is a 'max_tokens' turn, and the text is kept", () => {
    const turn = fromOpenAICompletion(
      completion(
        { content: null, tool_calls: [functionCall('call_cut', 'write', '{"path":"a.ts","content":"expo')] },
        'length',
      ),
    );
    expect(
      turn.stopReason,
      "fromOpenAICompletion: turnStopReason keeps 'max_tokens' ('length'): never 'tool_use' (guided step 3)",
    ).toBe('max_tokens');
    expect(turn.content, 'the half-written arguments stay the raw text, exactly as far as the model got').toEqual([
      { type: 'tool_call', id: 'call_cut', name: 'write', arguments: '{"path":"a.ts","content":"expo' },
    ]);
  });

  test("OpenAI: content_filter during a call is 'refusal'; Anthropic: refusal with a call too", () => {
    const filtered = fromOpenAICompletion(
      completion({ content: null, tool_calls: [functionCall('call_1', 'read', '{"path":"a.ts"}')] }, 'content_filter'),
    );
    expect(
      filtered.stopReason,
      "fromOpenAICompletion: turnStopReason keeps 'refusal' (content_filter) even with a call (guided step 3)",
    ).toBe('refusal');
    const refused = fromAnthropicMessage(
      message([{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }], 'refusal'),
    );
    expect(
      refused.stopReason,
      "fromAnthropicMessage: turnStopReason keeps 'refusal' even with a call (guided step 3)",
    ).toBe('refusal');
  });

  test("'tool_use' with no call the kit can run ends the turn", () => {
    const custom = fromOpenAICompletion(
      completion(
        {
          content: 'Done.',
          tool_calls: [{ id: 'call_custom', type: 'custom', custom: { name: 'grammar', input: 'a' } }],
        },
        'tool_calls',
      ),
    );
    expect(
      custom.stopReason,
      "fromOpenAICompletion: no function call survived, so turnStopReason gives 'end_turn' (guided step 3)",
    ).toBe('end_turn');
    const dropped = fromAnthropicMessage(
      message([{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }], 'tool_use'),
    );
    expect(
      dropped.stopReason,
      "fromAnthropicMessage: no tool_use block kept, so turnStopReason gives 'end_turn' (guided step 3)",
    ).toBe('end_turn');
  });
});

describe('what the model wrote goes back unchanged (src/providers/openai.ts, anthropic.ts)', () => {
  test('parseToolArguments: a JSON string, or a string holding JSON, stays the text the model wrote', () => {
    expect(
      parseToolArguments('"{\\"path\\":\\"a.ts\\"}"'),
      'the value JSON.parse gives is a string, so return the text itself (guided step 3)',
    ).toBe('"{\\"path\\":\\"a.ts\\"}"');
    expect(parseToolArguments('"a.ts"'), 'a plain JSON string stays the text too, quotes and all (guided step 3)').toBe(
      '"a.ts"',
    );
    expect(
      parseToolArguments('[1,2]'),
      'JSON that is not a string is its value (the schema check judges it) (guided step 3)',
    ).toEqual([1, 2]);
    expect(
      parseToolArguments({ path: 'a.ts' }),
      'a server that sends an object instead of a string: keep the object (guided step 1)',
    ).toEqual({ path: 'a.ts' });
    expect(parseToolArguments(undefined), 'no arguments at all are {} (guided step 1)').toEqual({});
    expect(parseToolArguments(null), 'null arguments are {} (guided step 1)').toEqual({});
  });

  test('OpenAI: double-encoded arguments come back in the next request exactly as the model wrote them', async () => {
    const written = '"{\\"path\\": \\"a.ts\\"}"';
    api.answer(
      OPENAI_URL,
      openaiResponse({ content: null, tool_calls: [functionCall('call_1', 'read', written)] }, 'tool_calls'),
      openaiResponse({ content: 'ok' }),
    );
    const provider = openai();
    const turn = await provider.complete({ messages: [userMessage('read a.ts')], tools });
    expect(
      turn.content[0],
      'parseToolArguments: a JSON string is kept as the text the model wrote (guided step 3)',
    ).toMatchObject({ arguments: written });
    const history: Message[] = [
      userMessage('read a.ts'),
      turn,
      { role: 'tool', toolCallId: 'call_1', toolName: 'read', content: 'Invalid arguments', isError: true },
    ];
    await provider.complete({ messages: history, tools });
    expect(
      api.requests[1]!.body.messages[1].tool_calls[0].function.arguments,
      'toOpenAIMessages: string arguments go back as they are, so the model sees the string it wrote (guided step 3)',
    ).toBe(written);
  });

  test('OpenAI: arguments that are an object go back as JSON; Anthropic: input is the object itself', () => {
    const turn: Message = {
      role: 'assistant',
      content: [{ type: 'tool_call', id: 'c1', name: 'todo', arguments: { items: '["a","b"]' } }],
      stopReason: 'tool_use',
    };
    const [, sent] = toOpenAIMessages(undefined, [
      userMessage('plan'),
      turn,
    ]) as OpenAI.ChatCompletionAssistantMessageParam[];
    expect(
      (sent!.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.arguments,
      'toOpenAIMessages: a property that holds a JSON string stays a string inside the JSON (guided step 3)',
    ).toBe('{"items":"[\\"a\\",\\"b\\"]"}');
    const [, back] = toAnthropicMessages([userMessage('plan'), turn]);
    expect(
      (back!.content as Anthropic.ToolUseBlockParam[])[0]!.input,
      'toAnthropicMessages: input is the arguments object, unchanged (guided step 3)',
    ).toEqual({
      items: '["a","b"]',
    });
  });
});

describe('an answer that is not a turn (src/providers/anthropic.ts, openai.ts)', () => {
  test('Anthropic: a 200 whose body is an error is a ProviderError with its message and type', async () => {
    api.answer(ANTHROPIC_URL, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const history = [userMessage('hi')];
    const error = await rejection(
      anthropic().complete({ messages: history, tools: [] }),
      'a 200 error body should reject',
    );
    expect(
      error,
      'fromAnthropicMessage: content is not an array, so throw unexpectedAnswer(...) (guided step 1)',
    ).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message, "the ProviderError carries the server's message").toContain('Overloaded');
    expect((error as ProviderError).errorType, "and the server's error type").toBe('overloaded_error');
    expect(history).toBeValidHistory('after a 200 error body');
  });

  test("Anthropic: an error body in OpenAI's shape, or a body with no content at all, is a ProviderError too", () => {
    const openaiShaped = thrownBy(
      () => fromAnthropicMessage({ error: { message: 'model not found', type: 'invalid_request_error' } } as never),
      'fromAnthropicMessage of an OpenAI-shaped error',
    );
    expect(openaiShaped, 'fromAnthropicMessage: check content before reading it (guided step 1)').toBeInstanceOf(
      ProviderError,
    );
    expect((openaiShaped as ProviderError).message, "the error's own message is kept").toContain('model not found');
    const empty = thrownBy(
      () => fromAnthropicMessage({ id: 'msg_1', role: 'assistant' } as never),
      'fromAnthropicMessage of a body with no content',
    );
    expect(
      empty,
      'fromAnthropicMessage: a body with no content list is a ProviderError, not a TypeError (guided step 1)',
    ).toBeInstanceOf(ProviderError);
    expect((empty as ProviderError).message, 'the error names what is missing').toContain('content');
    expect(
      (empty as ProviderError).provider,
      "fromAnthropicMessage: unexpectedAnswer('anthropic', ...): the provider's name first (guided step 1)",
    ).toBe('anthropic');
  });

  test('OpenAI: a 200 whose body is an error is a ProviderError with its message', async () => {
    api.answer(OPENAI_URL, {
      error: { message: 'The model `gpt-x` does not exist', type: 'invalid_request_error', code: 'model_not_found' },
    });
    const history = [userMessage('hi')];
    const error = await rejection(
      openai().complete({ messages: history, tools: [] }),
      'a 200 error body should reject',
    );
    expect(
      error,
      'fromOpenAICompletion: choices is not an array, so throw unexpectedAnswer(...) (guided step 1)',
    ).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message, "the ProviderError carries the server's message").toContain(
      'does not exist',
    );
    expect(history).toBeValidHistory('after a 200 error body');
  });

  test("OpenAI: an error body in Anthropic's shape, or a choice with no message, is a ProviderError", () => {
    const anthropicShaped = thrownBy(
      () =>
        fromOpenAICompletion({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } as never),
      'fromOpenAICompletion of an Anthropic-shaped error',
    );
    expect(anthropicShaped, 'fromOpenAICompletion: check choices before reading it (guided step 1)').toBeInstanceOf(
      ProviderError,
    );
    expect((anthropicShaped as ProviderError).message, "the ProviderError carries the server's message").toContain(
      'Overloaded',
    );
    const noMessage = thrownBy(
      () =>
        fromOpenAICompletion({
          ...completion({ content: 'x' }),
          choices: [{ index: 0, finish_reason: 'stop' }],
        } as never),
      'fromOpenAICompletion of a choice without message',
    );
    expect(
      noMessage,
      'fromOpenAICompletion: a choice without a message object is a ProviderError (guided step 1)',
    ).toBeInstanceOf(ProviderError);
    expect((noMessage as ProviderError).message, 'the error names what is missing').toContain('message');
    expect(
      (noMessage as ProviderError).provider,
      "fromOpenAICompletion: unexpectedAnswer('openai', choice, 'message') (guided step 1)",
    ).toBe('openai');
    const noChoices = thrownBy(
      () => fromOpenAICompletion({ id: 'chatcmpl-1', object: 'chat.completion' } as never),
      'fromOpenAICompletion of a body without choices',
    );
    expect(
      noChoices,
      'fromOpenAICompletion: a body with no choices array is a ProviderError (guided step 1)',
    ).toBeInstanceOf(ProviderError);
    expect(
      (noChoices as ProviderError).provider,
      "fromOpenAICompletion: unexpectedAnswer('openai', completion, 'choices') (guided step 1)",
    ).toBe('openai');
    expect((noChoices as ProviderError).message, "the error names what is missing: 'choices'").toContain('choices');
    const nullMessage = thrownBy(
      () =>
        fromOpenAICompletion({
          ...completion({ content: 'x' }),
          choices: [{ index: 0, message: null, finish_reason: 'stop' }],
        } as never),
      'fromOpenAICompletion of a choice whose message is null',
    );
    expect(
      nullMessage,
      'fromOpenAICompletion: message: null is no message object either (typeof null is "object") (guided step 1)',
    ).toBeInstanceOf(ProviderError);
  });

  test('OpenAI: a tool call without id or name is no crash; the empty strings are for the agent to judge', () => {
    const turn = fromOpenAICompletion(
      completion({ content: null, tool_calls: [{ type: 'function', function: { arguments: '{}' } }] }, 'tool_calls'),
    );
    expect(turn.content, "fromOpenAICompletion: '' for a missing id or name, never undefined (guided step 2)").toEqual([
      { type: 'tool_call', id: '', name: '', arguments: {} },
    ]);
  });
});

describe('usage a server leaves half empty (src/providers/anthropic.ts, openai.ts)', () => {
  test('OpenAI: missing counts are 0, never NaN; cached never makes input negative', () => {
    expect(
      openaiUsage({ completion_tokens: 5 } as never),
      'openaiUsage: no prompt_tokens counts as 0 (tokenCount) (guided step 2)',
    ).toStrictEqual({
      inputTokens: 0,
      outputTokens: 5,
    });
    expect(
      openaiUsage({ prompt_tokens: 9 } as never),
      'openaiUsage: no completion_tokens counts as 0 (guided step 2)',
    ).toStrictEqual({
      inputTokens: 9,
      outputTokens: 0,
    });
    expect(
      openaiUsage({ prompt_tokens: 4, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 10 } } as never),
      'openaiUsage: more cached than prompt tokens: input is 0, not below (guided step 2)',
    ).toStrictEqual({ inputTokens: 0, outputTokens: 1, cacheReadTokens: 10 });
    expect(
      openaiUsage({ prompt_tokens: '12', completion_tokens: null } as never),
      'openaiUsage: a count that is not a number is 0 (guided step 2)',
    ).toStrictEqual({
      inputTokens: 0,
      outputTokens: 0,
    });
  });

  test('Anthropic: missing or unusable counts are 0, and a response without usage still has a usage', () => {
    expect(anthropicUsage({ output_tokens: 3 }), 'anthropicUsage: no input_tokens is 0 (guided step 1)').toStrictEqual({
      inputTokens: 0,
      outputTokens: 3,
    });
    expect(
      anthropicUsage({ input_tokens: Number.NaN, output_tokens: -1 } as never),
      'anthropicUsage: NaN or a negative count is 0 (guided step 1)',
    ).toStrictEqual({
      inputTokens: 0,
      outputTokens: 0,
    });
    const { usage: _, ...bare } = anthropicResponse([{ type: 'text', text: 'hi' }]);
    expect(
      fromAnthropicMessage(bare as never).usage,
      'fromAnthropicMessage: no usage at all is anthropicUsage({}) (guided step 4)',
    ).toStrictEqual({
      inputTokens: 0,
      outputTokens: 0,
    });
  });
});

describe('statuses a proxy uses, and a key echoed in a header (src/providers/errors.ts)', () => {
  const anthropicError = (status: number, type: string, text: string, headers?: Record<string, string>) => ({
    status,
    json: { type: 'error', error: { type, message: text } },
    ...(headers ? { headers } : {}),
  });
  const openaiError = (status: number, type: string, text: string) => ({
    status,
    json: { error: { message: text, type, param: null, code: null } },
  });

  test('Anthropic 408 and 409: ProviderErrors with their status and type, after one request each', async () => {
    api.answer(
      ANTHROPIC_URL,
      anthropicError(408, 'timeout_error', 'Request timed out', { 'retry-after': '1' }),
      anthropicError(409, 'conflict_error', 'Conflicting request'),
    );
    const history = [userMessage('hi')];
    const timeout = (await rejection(
      anthropic().complete({ messages: history, tools: [] }),
      '408 should reject',
    )) as ProviderError;
    expect(
      [timeout.status, timeout.errorType, timeout.providerMessage],
      'a 408 keeps its status, type and message',
    ).toEqual([408, 'timeout_error', 'Request timed out']);
    expect(timeout.headers['retry-after'], 'the retry-after header is kept for the retry policy of chapter 10').toBe(
      '1',
    );
    const conflict = (await rejection(
      anthropic().complete({ messages: history, tools: [] }),
      '409 should reject',
    )) as ProviderError;
    expect([conflict.status, conflict.errorType], 'a 409 keeps its status and type').toEqual([409, 'conflict_error']);
    expect(api.requests.length, 'maxRetries: 0, so the SDK never retries a 408 or 409 on its own').toBe(2);
    expect(history).toBeValidHistory('after a 408 and a 409');
  });

  test('OpenAI 400, 408 and 409: ProviderErrors with their status, type and message, after one request each', async () => {
    api.answer(
      OPENAI_URL,
      openaiError(400, 'invalid_request_error', "Invalid parameter: messages with role 'tool' must follow tool_calls"),
      openaiError(408, 'timeout', 'Request timed out'),
      openaiError(409, 'conflict', 'Conflicting request'),
    );
    const history = [userMessage('hi')];
    const seen: Array<[number | undefined, string | undefined, string]> = [];
    for (const status of [400, 408, 409]) {
      const error = (await rejection(
        openai().complete({ messages: history, tools: [] }),
        `${status} should reject`,
      )) as ProviderError;
      expect(error, `a ${status} is a ProviderError`).toBeInstanceOf(ProviderError);
      seen.push([error.status, error.errorType, error.providerMessage]);
    }
    expect(seen, "each keeps its status, the body's error type and the body's own message").toEqual([
      [400, 'invalid_request_error', "Invalid parameter: messages with role 'tool' must follow tool_calls"],
      [408, 'timeout', 'Request timed out'],
      [409, 'conflict', 'Conflicting request'],
    ]);
    expect(api.requests.length, 'maxRetries: 0, so the SDK never retries on its own').toBe(3);
    expect(history).toBeValidHistory('after a 400, a 408 and a 409');
  });

  test("an error body in the other provider's shape still gives its message and type", async () => {
    api.answer(ANTHROPIC_URL, openaiError(400, 'invalid_request_error', 'model not found'));
    api.answer(OPENAI_URL, anthropicError(529, 'overloaded_error', 'Overloaded'));
    const fromAnthropic = (await rejection(
      anthropic().complete({ messages: [userMessage('hi')], tools: [] }),
      '400 should reject',
    )) as ProviderError;
    expect(
      [fromAnthropic.providerMessage, fromAnthropic.errorType],
      "toProviderError: an OpenAI-shaped body through the Anthropic SDK: body.error's message and type (guided step 2)",
    ).toEqual(['model not found', 'invalid_request_error']);
    const fromOpenAI = (await rejection(
      openai().complete({ messages: [userMessage('hi')], tools: [] }),
      '529 should reject',
    )) as ProviderError;
    expect(
      [fromOpenAI.providerMessage, fromOpenAI.errorType],
      'toProviderError: an Anthropic-shaped body through the OpenAI SDK: its message and type (guided step 2)',
    ).toEqual(['Overloaded', 'overloaded_error']);
  });

  test('a key a proxy echoes in a response header is scrubbed from the headers, which keep everything else', async () => {
    api.answer(
      ANTHROPIC_URL,
      anthropicError(401, 'authentication_error', 'invalid x-api-key', {
        'x-echo-authorization': `Bearer ${ANTHROPIC_KEY}`,
        'retry-after': '2',
      }),
    );
    api.answer(OPENAI_URL, {
      status: 401,
      json: { error: { message: 'bad key', type: 'invalid_request_error' } },
      headers: { 'x-seen-key': OPENAI_KEY },
    });
    const fromAnthropic = (await rejection(
      anthropic().complete({ messages: [userMessage('hi')], tools: [] }),
      '401 should reject',
    )) as ProviderError;
    expect(
      JSON.stringify(fromAnthropic),
      'toProviderError: every header value goes through redact() too (guided step 5)',
    ).not.toContain(ANTHROPIC_KEY);
    expect(fromAnthropic.headers['x-echo-authorization'], 'the header stays, with the key replaced').toBe(
      'Bearer [redacted]',
    );
    expect(fromAnthropic.headers['retry-after'], 'headers without the key are kept as they are').toBe('2');
    const fromOpenAI = (await rejection(
      openai().complete({ messages: [userMessage('hi')], tools: [] }),
      '401 should reject',
    )) as ProviderError;
    expect(
      JSON.stringify(fromOpenAI),
      'toProviderError: every header value goes through redact() too (guided step 5)',
    ).not.toContain(OPENAI_KEY);
  });

  test('toProviderError scrubs every secret it is given from the headers', () => {
    const failure = Object.assign(new Error('401'), {
      status: 401,
      error: { message: 'no' },
      headers: new Headers({ 'x-a': 'first-secret-value', 'x-b': 'second-secret-value and more' }),
    });
    const error = toProviderError('openai', failure, ['first-secret-value', 'second-secret-value']);
    expect(error.headers, 'each header value through redact(value, secrets) (guided step 5)').toEqual({
      'x-a': '[redacted]',
      'x-b': '[redacted] and more',
    });
  });
});

describe('every request carries what it must (src/providers/anthropic.ts, openai.ts)', () => {
  test('the second request through a provider carries model, limit, system and tools like the first', async () => {
    api.answer(
      ANTHROPIC_URL,
      anthropicResponse([{ type: 'text', text: 'one' }]),
      anthropicResponse([{ type: 'text', text: 'two' }]),
    );
    api.answer(OPENAI_URL, openaiResponse({ content: 'one' }), openaiResponse({ content: 'two' }));
    const a = anthropic();
    const o = openai();
    const first: Message[] = [userMessage('hi')];
    const second: Message[] = [
      ...first,
      { role: 'assistant', content: [{ type: 'text', text: 'one' }], stopReason: 'end_turn' },
      userMessage('again'),
    ];
    for (const messages of [first, second]) {
      await a.complete({ system: 'Be brief.', messages, tools, maxTokens: 300 });
      await o.complete({ system: 'Be brief.', messages, tools, maxTokens: 300 });
    }
    const bodies = api.requests.map((request) => request.body);
    for (const [n, body] of bodies.entries()) {
      const which = `request ${n + 1} (${n % 2 === 0 ? 'anthropic' : 'openai'})`;
      expect(body.model, `${which}: the model on every request`).toMatch(/test-model/);
      expect(body.tools?.length, `${which}: the tools on every request, not only the first`).toBe(2);
      expect(body.max_tokens ?? body.max_completion_tokens, `${which}: the token limit on every request`).toBe(300);
      const system = body.system ?? body.messages[0].content;
      expect(system, `${which}: the system prompt on every request, not only the first`).toBe('Be brief.');
    }
  });
});
