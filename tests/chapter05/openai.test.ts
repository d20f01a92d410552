import { describe, expect, test } from 'vitest';
import type OpenAI from 'openai';
import {
  OpenAIProvider,
  fromOpenAICompletion,
  openaiRequest,
  openaiStopReason,
  parseToolArguments,
  toOpenAIMessages,
  toOpenAIToolChoice,
  toOpenAITools,
} from 'kit/providers/openai';
import { ProviderError } from 'kit/providers/errors';
import { SimpleAgent } from 'kit/simple-agent';
import { userMessage } from 'kit/messages';
import { fakeApi } from '../helpers/fake-http.js';
import { rejection } from '../helpers/assert.js';
import { loopTools } from '../chapter03/fixtures.js';
import { OPENAI_KEY, OPENAI_URL, history, openaiEnv, openaiResponse, openaiShape, tools } from './fixtures.js';

const api = fakeApi();

const provider = (env: Record<string, string> = openaiEnv, options = {}) => new OpenAIProvider(options, env);
const completion = (...args: Parameters<typeof openaiResponse>) =>
  openaiResponse(...args) as unknown as OpenAI.ChatCompletion;
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
  return expect.fail(`${what} should throw, but it returned normally`);
}

describe('toOpenAIMessages (src/providers/openai.ts)', () => {
  test('system first, then one role:"tool" message per result, each with its tool_call_id', () => {
    const sent = toOpenAIMessages('Be brief.', history);
    expect(openaiShape(sent), 'the system prompt is the first message; every result is its own tool message').toEqual([
      'system "Be brief."',
      'user "Fix the bug in a.ts"',
      'assistant "Reading both files." + call read#toolu_A + call read#toolu_B',
      'tool#toolu_A',
      'tool#toolu_B',
      'assistant call edit#toolu_C',
      'tool#toolu_C',
    ]);
    expect(sent[4], 'a tool message carries the result text').toEqual({
      role: 'tool',
      tool_call_id: 'toolu_B',
      content: 'Error: ENOENT: b.ts',
    });
    expect(toOpenAIMessages(undefined, [userMessage('hi')]), 'no system prompt, no system message').toEqual([
      { role: 'user', content: 'hi' },
    ]);
  });

  test('tool call arguments travel as a JSON string; thinking stays home', () => {
    const turn = toOpenAIMessages(undefined, history)[1] as OpenAI.ChatCompletionAssistantMessageParam;
    expect(turn.content, 'the text of the turn (thinking is not sent back)').toBe('Reading both files.');
    expect(
      turn.tool_calls,
      'toOpenAIMessages: tool_calls with id, type function, name and arguments as a JSON string (guided step 3)',
    ).toEqual([
      { id: 'toolu_A', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } },
      { id: 'toolu_B', type: 'function', function: { name: 'read', arguments: '{"path":"b.ts","offset":2}' } },
    ]);
    const callOnly = toOpenAIMessages(undefined, history)[4] as OpenAI.ChatCompletionAssistantMessageParam;
    expect(callOnly.content ?? null, 'a turn with calls and no text has content null (or leaves it out)').toBeNull();
  });

  test('arguments that failed to parse go back exactly as the model wrote them', () => {
    const [, turn] = toOpenAIMessages(undefined, [
      userMessage('go'),
      {
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'call_1', name: 'read', arguments: '{"path": "a.ts"' }],
        stopReason: 'tool_use',
      },
      { role: 'tool', toolCallId: 'call_1', toolName: 'read', content: 'Invalid arguments', isError: true },
    ]) as OpenAI.ChatCompletionAssistantMessageParam[];
    expect(
      (turn!.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.arguments,
      'do not JSON.stringify a string twice',
    ).toBe('{"path": "a.ts"');
  });

  test('an assistant turn with only text is { role: "assistant", content } with no tool_calls', () => {
    const sent = toOpenAIMessages(undefined, [
      userMessage('hi'),
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Hello! ' },
          { type: 'text', text: 'How can I help?' },
        ],
        stopReason: 'end_turn',
      },
      userMessage('fix a.ts'),
    ]);
    expect(
      sent[1],
      'the text blocks joined; no tool_calls key at all (OpenAI rejects an empty tool_calls list)',
    ).toEqual({
      role: 'assistant',
      content: 'Hello! How can I help?',
    });
    expect(sent[1], 'add tool_calls only when the turn has tool calls').not.toHaveProperty('tool_calls');
  });
});

describe('toOpenAITools (src/providers/openai.ts)', () => {
  test('tool definitions become function tools with the schema as parameters', () => {
    expect(
      toOpenAITools(tools),
      'toOpenAITools: function tools with the schema as parameters, in order (guided step 1)',
    ).toEqual([
      { type: 'function', function: { name: 'read', description: 'Read a file', parameters: tools[0]!.inputSchema } },
      {
        type: 'function',
        function: { name: 'edit', description: 'Replace text in a file', parameters: tools[1]!.inputSchema },
      },
    ]);
  });
});

describe('toOpenAIToolChoice (src/providers/openai.ts)', () => {
  test('tool choice: the three words stay, a name becomes a function choice', () => {
    expect([toOpenAIToolChoice('auto'), toOpenAIToolChoice('required'), toOpenAIToolChoice('none')]).toEqual([
      'auto',
      'required',
      'none',
    ]);
    expect(
      toOpenAIToolChoice({ name: 'edit' }),
      "toOpenAIToolChoice: { name } -> { type: 'function', function: { name } } (guided step 2)",
    ).toEqual({ type: 'function', function: { name: 'edit' } });
  });
});

describe('parseToolArguments (src/providers/openai.ts)', () => {
  test('arguments: JSON is parsed, empty is {}, invalid JSON stays the raw string', () => {
    expect(
      parseToolArguments('{"path":"a.ts","lines":[1,2]}'),
      'parseToolArguments: valid JSON is parsed (guided step 3)',
    ).toEqual({ path: 'a.ts', lines: [1, 2] });
    expect(parseToolArguments(''), 'some servers send "" for a call without arguments').toEqual({});
    expect(
      parseToolArguments('{"path": "a.ts"'),
      "keep the raw string: the agent's schema check tells the model what went wrong",
    ).toBe('{"path": "a.ts"');
  });

  test('arguments that are only whitespace are {} too', () => {
    expect(parseToolArguments(' \n'), 'an all-whitespace string means no arguments: test text.trim() === ""').toEqual(
      {},
    );
  });
});

describe('fromOpenAICompletion and openaiUsage (src/providers/openai.ts)', () => {
  test('parallel tool calls come back in order with parsed arguments', () => {
    const turn = fromOpenAICompletion(
      completion(
        {
          content: 'Reading both.',
          tool_calls: [
            functionCall('call_abc', 'read', '{"path":"a.ts"}'),
            functionCall('call_def', 'read', '{"path":"b.ts"}'),
          ],
        },
        'tool_calls',
      ),
    );
    expect(
      turn.content,
      'fromOpenAICompletion: text first, then each call with parsed arguments, in order (guided step 2)',
    ).toEqual([
      { type: 'text', text: 'Reading both.' },
      { type: 'tool_call', id: 'call_abc', name: 'read', arguments: { path: 'a.ts' } },
      { type: 'tool_call', id: 'call_def', name: 'read', arguments: { path: 'b.ts' } },
    ]);
    expect(
      turn.stopReason,
      "fromOpenAICompletion: calls with finish_reason 'tool_calls' stop for 'tool_use' (guided step 3)",
    ).toBe('tool_use');
  });

  test("tool calls mean 'tool_use' even when a compatible server says 'stop'", () => {
    const turn = fromOpenAICompletion(
      completion({ content: null, tool_calls: [functionCall('call_1', 'read', '{}')] }, 'stop'),
    );
    expect(turn.stopReason, 'Ollama and others often finish tool calls with "stop"; never drop a call').toBe(
      'tool_use',
    );
    expect(turn.content, 'no text block for content null').toEqual([
      { type: 'tool_call', id: 'call_1', name: 'read', arguments: {} },
    ]);
  });

  test("text and a tool call stop for 'tool_use'; with no call, even an empty answer keeps the finish reason", () => {
    const mixed = fromOpenAICompletion(
      completion({ content: 'Reading it.', tool_calls: [functionCall('call_1', 'read', '{"path":"a.ts"}')] }, 'stop'),
    );
    expect(
      mixed.stopReason,
      "one tool call among other blocks is enough for 'tool_use' (check with .some, not .every)",
    ).toBe('tool_use');
    const cut = fromOpenAICompletion(completion({ content: '' }, 'length'));
    expect(
      cut.content,
      'a reasoning model can spend the whole limit before writing: content "" gives no block',
    ).toEqual([]);
    expect(
      cut.stopReason,
      "no tool call at all: the stop reason is openaiStopReason(finish_reason), here 'max_tokens'",
    ).toBe('max_tokens');
  });

  test('tool calls that are not function calls are skipped', () => {
    const turn = fromOpenAICompletion(
      completion(
        {
          content: null,
          tool_calls: [
            { id: 'call_custom', type: 'custom', custom: { name: 'grammar', input: 'a + b' } },
            functionCall('call_fn', 'read', '{"path":"a.ts"}'),
          ],
        },
        'tool_calls',
      ),
    );
    expect(
      turn.content,
      "keep only the calls that have a `function` ('function' in call): a custom tool call has none",
    ).toEqual([{ type: 'tool_call', id: 'call_fn', name: 'read', arguments: { path: 'a.ts' } }]);
  });

  test('a response without usage gives a turn without usage', () => {
    const { usage: _, ...bare } = completion({ content: 'hi' });
    const turn = fromOpenAICompletion(bare as OpenAI.ChatCompletion);
    expect(
      turn,
      'some compatible servers send no usage: call openaiUsage only when completion.usage is there',
    ).not.toHaveProperty('usage');
    expect(turn.content, 'fromOpenAICompletion: the text is kept (guided step 2)').toEqual([
      { type: 'text', text: 'hi' },
    ]);
  });

  test('usage: prompt_tokens minus the cached part is inputTokens, completion_tokens is outputTokens', () => {
    const turn = fromOpenAICompletion(
      completion({ content: 'hi' }, 'stop', {
        prompt_tokens: 1200,
        completion_tokens: 35,
        total_tokens: 1235,
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      }),
    );
    expect(
      turn.usage,
      'inputTokens counts the uncached input, as Anthropic does; cached tokens are cacheReadTokens',
    ).toEqual({
      inputTokens: 176,
      outputTokens: 35,
      cacheReadTokens: 1024,
    });
    expect(
      fromOpenAICompletion(
        completion({ content: 'hi' }, 'stop', { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }),
      ).usage,
      'no cached_tokens: leave cacheReadTokens out (no key set to undefined)',
    ).toStrictEqual({ inputTokens: 7, outputTokens: 3 });
    expect(
      fromOpenAICompletion(
        completion({ content: 'hi' }, 'stop', {
          prompt_tokens: 7,
          completion_tokens: 3,
          total_tokens: 10,
          prompt_tokens_details: null,
        }),
      ).usage,
      'prompt_tokens_details: null (some compatible servers send it): no cacheReadTokens',
    ).toStrictEqual({ inputTokens: 7, outputTokens: 3 });
    expect(
      fromOpenAICompletion(
        completion({ content: 'hi' }, 'stop', {
          prompt_tokens: 7,
          completion_tokens: 3,
          total_tokens: 10,
          prompt_tokens_details: { cached_tokens: 0 },
        }),
      ).usage,
      'openaiUsage: cached_tokens 0 is a number too: keep cacheReadTokens: 0 (guided step 3)',
    ).toStrictEqual({ inputTokens: 7, outputTokens: 3, cacheReadTokens: 0 });
  });

  test('a response with no choices is a ProviderError', () => {
    const empty = { ...completion({ content: 'x' }), choices: [] };
    const error = thrownBy(() => fromOpenAICompletion(empty), 'fromOpenAICompletion with no choices');
    expect(error, 'throw a ProviderError that says the server sent no answer').toBeInstanceOf(ProviderError);
    expect((error as ProviderError).provider, "new ProviderError('openai', ...): the provider's name comes first").toBe(
      'openai',
    );
    expect(
      (error as ProviderError).providerMessage,
      'the message says what is wrong: the response has no choices',
    ).toMatch(/no choices/);
  });

  test('reasoning from a compatible server becomes a thinking block before the text', () => {
    const turn = fromOpenAICompletion(completion({ content: 'Answer.', reasoning_content: 'Let me think.' }));
    expect(
      turn.content,
      'fromOpenAICompletion: reasoning as a thinking block, before the text (guided step 2)',
    ).toEqual([
      { type: 'thinking', thinking: 'Let me think.' },
      { type: 'text', text: 'Answer.' },
    ]);
  });
});

describe('openaiStopReason (src/providers/openai.ts)', () => {
  test('finish reasons map onto the kit', () => {
    const table: Array<[string | null, string, string]> = [
      ['stop', 'end_turn', 'stop -> end_turn (guided step 1)'],
      ['length', 'max_tokens', 'length -> max_tokens (the answer was cut) (guided step 1)'],
      ['tool_calls', 'tool_use', 'tool_calls -> tool_use (guided step 1)'],
      ['function_call', 'tool_use', 'function_call (the older name) -> tool_use (guided step 1)'],
      ['content_filter', 'refusal', 'content_filter -> refusal (guided step 1)'],
      ['a_reason_added_later', 'end_turn', 'any other reason -> end_turn (guided step 1)'],
      [null, 'end_turn', 'null -> end_turn (guided step 1)'],
    ];
    for (const [reason, expected, label] of table) expect(openaiStopReason(reason), label).toBe(expected);
  });
});

describe('openaiRequest (src/providers/openai.ts)', () => {
  test('no tools: no tools and no tool_choice; max_completion_tokens only when a limit is set', () => {
    const body = openaiRequest({ messages: [userMessage('hi')], tools: [], toolChoice: 'auto' }, { model: 'gpt-x' });
    expect(body, 'OpenAI rejects an empty tools list').not.toHaveProperty('tools');
    expect(body, 'openaiRequest: no tools, so no tool_choice either (guided step 3)').not.toHaveProperty('tool_choice');
    expect(body, 'no limit configured: leave max_completion_tokens out and let the server decide').not.toHaveProperty(
      'max_completion_tokens',
    );
    expect(
      openaiRequest({ messages: [userMessage('hi')], tools: [], maxTokens: 50 }, { model: 'gpt-x', maxTokens: 999 })
        .max_completion_tokens,
      "openaiRequest: the request's maxTokens wins (guided step 2)",
    ).toBe(50);
    expect(
      openaiRequest({ messages: [userMessage('hi')], tools: [] }, { model: 'gpt-x', maxTokens: 999 })
        .max_completion_tokens,
      "no limit on the request: the provider's maxTokens",
    ).toBe(999);
  });
});

describe('OpenAIProvider.complete (src/providers/openai.ts, errors.ts)', () => {
  test('posts model, messages, tools and tool_choice to /chat/completions with the key as a Bearer token', async () => {
    api.answer(OPENAI_URL, openaiResponse({ content: 'Done.' }));
    const turn = await provider().complete({
      system: 'Be brief.',
      messages: history,
      tools,
      toolChoice: { name: 'edit' },
    });
    expect(api.requests.length, 'one request per complete() call').toBe(1);
    const { headers, body } = api.requests[0]!;
    expect(headers.authorization, 'the key is sent as a Bearer token').toBe(`Bearer ${OPENAI_KEY}`);
    expect(body.model, 'OPENAI_MODEL from the env argument').toBe('gpt-test-model');
    expect(
      openaiShape(body.messages),
      'openaiRequest: messages are toOpenAIMessages(system, history) (guided step 1)',
    ).toEqual(openaiShape(toOpenAIMessages('Be brief.', history)));
    expect(body.tools.map((t: OpenAI.ChatCompletionFunctionTool) => t.function.name)).toEqual(['read', 'edit']);
    expect(body.tool_choice, 'openaiRequest: a named tool choice as a function choice (guided step 3)').toEqual({
      type: 'function',
      function: { name: 'edit' },
    });
    expect(turn, 'OpenAIProvider.complete: the answer converted with fromOpenAICompletion').toMatchObject({
      content: [{ type: 'text', text: 'Done.' }],
      stopReason: 'end_turn',
      usage: { inputTokens: 40, outputTokens: 9 },
    });
  });

  test('OPENAI_BASE_URL points the same provider at an OpenAI-compatible server', async () => {
    api.answer('http://localhost:11434/v1/chat/completions', openaiResponse({ content: 'hello from a local model' }));
    const turn = await provider({
      OPENAI_BASE_URL: 'http://localhost:11434/v1',
      OPENAI_API_KEY: 'ollama',
      OPENAI_MODEL: 'qwen3:8b',
    }).complete({
      messages: [userMessage('hi')],
      tools: [],
    });
    expect(api.requests[0]!.url, 'the request goes to OPENAI_BASE_URL + /chat/completions').toBe(
      'http://localhost:11434/v1/chat/completions',
    );
    expect(api.requests[0]!.body.model, 'the model from OPENAI_MODEL').toBe('qwen3:8b');
    expect(turn.content, 'the answer from the local server becomes the turn').toEqual([
      { type: 'text', text: 'hello from a local model' },
    ]);
  });

  test('401: a ProviderError with status and message, with the key scrubbed even when the API quotes it', async () => {
    api.answer(OPENAI_URL, {
      status: 401,
      json: {
        error: {
          message: `Incorrect API key provided: ${OPENAI_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    });
    const error = await rejection(
      provider().complete({ messages: [userMessage('hi')], tools: [] }),
      'a 401 should reject',
    );
    expect(
      error,
      'OpenAIProvider.complete: a 401 is a ProviderError: await the SDK call inside try (a returned promise rejects after the catch is gone) and wrap what it throws with toProviderError(...) (guided step 3)',
    ).toBeInstanceOf(ProviderError);
    const failure = error as ProviderError;
    expect([failure.provider, failure.status]).toEqual(['openai', 401]);
    expect(failure.message, "the message carries the API's own sentence").toContain('Incorrect API key provided');
    expect(
      `${failure.message} ${failure.stack} ${JSON.stringify(failure)}`,
      'pass the key to toProviderError as a secret to redact',
    ).not.toContain(OPENAI_KEY);
  });

  test('429 and 500 become ProviderErrors after exactly one request each', async () => {
    api.answer(
      OPENAI_URL,
      {
        status: 429,
        json: {
          error: {
            message: 'Rate limit reached for gpt-test-model',
            type: 'requests',
            param: null,
            code: 'rate_limit_exceeded',
          },
        },
        headers: { 'retry-after-ms': '250' },
      },
      {
        status: 500,
        json: {
          error: {
            message: 'The server had an error while processing your request.',
            type: 'server_error',
            param: null,
            code: null,
          },
        },
      },
    );
    const limited = (await rejection(
      provider().complete({ messages: [userMessage('hi')], tools: [] }),
      '429 should reject',
    )) as ProviderError;
    expect([limited.status, limited.message.includes('Rate limit reached')]).toEqual([429, true]);
    expect(
      limited.headers['retry-after-ms'],
      'the retry-after-ms header is kept for the retry policy of chapter 10',
    ).toBe('250');
    expect(
      limited.providerMessage,
      "providerMessage is the API's own error.message, not the SDK's summary of the body",
    ).toBe('Rate limit reached for gpt-test-model');
    const broken = (await rejection(
      provider().complete({ messages: [userMessage('hi')], tools: [] }),
      '500 should reject',
    )) as ProviderError;
    expect(broken.status, 'the 500 status is kept').toBe(500);
    expect(api.requests.length, 'maxRetries: 0, so the SDK never retries on its own').toBe(2);
  });

  test('an aborted request rejects with the abort reason, not a ProviderError', async () => {
    api.answer(OPENAI_URL, openaiResponse({ content: 'too late' }));
    const controller = new AbortController();
    controller.abort(new Error('user pressed Esc'));
    const error = await rejection(
      provider().complete({ messages: [userMessage('hi')], tools: [], signal: controller.signal }),
      'complete() with an aborted signal should reject',
    );
    expect(error, 'pass { signal: request.signal } to the SDK and rethrow signal.reason when it aborted').toBe(
      controller.signal.reason,
    );
  });

  test('SimpleAgent runs a whole tool round through the OpenAI API', async () => {
    api.answer(
      OPENAI_URL,
      openaiResponse(
        {
          content: null,
          tool_calls: [
            functionCall('call_1', 'echo', '{"text":"hi","times":2}'),
            functionCall('call_2', 'echo', '{"text":'),
          ],
        },
        'tool_calls',
      ),
      openaiResponse({ content: 'It said hihi.' }),
    );
    const { tools: toolSet, calls } = loopTools();
    const agent = new SimpleAgent({ provider: provider(), tools: toolSet, cwd: process.cwd() });
    expect(await agent.run('echo hi twice'), "the agent's answer is the text of the last turn").toBe('It said hihi.');
    expect(calls, 'the valid call ran with parsed arguments; the broken one never ran').toEqual([
      { tool: 'echo', input: { text: 'hi', times: 2 } },
    ]);
    const second = api.requests[1]!.body;
    expect(
      openaiShape(second.messages),
      'the second request: the turn with both calls, then one tool message per call',
    ).toEqual(['user "echo hi twice"', 'assistant call echo#call_1 + call echo#call_2', 'tool#call_1', 'tool#call_2']);
    expect(second.messages[2].content, 'the first result carries the tool output').toBe('hihi');
    expect(
      second.messages[1].tool_calls[1].function.arguments,
      'the broken arguments go back exactly as the model wrote them',
    ).toBe('{"text":');
    expect(second.messages[3].content, "the agent's schema check reported the broken arguments to the model").toMatch(
      /Invalid arguments/i,
    );
  });
});
