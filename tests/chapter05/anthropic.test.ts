import { describe, expect, test } from 'vitest';
import type Anthropic from '@anthropic-ai/sdk';
import {
  AnthropicProvider,
  anthropicRequest,
  anthropicStopReason,
  anthropicUsage,
  fromAnthropicMessage,
  toAnthropicMessages,
  toAnthropicToolChoice,
  toAnthropicTools,
} from 'kit/providers/anthropic';
import { ProviderError } from 'kit/providers/errors';
import { userMessage } from 'kit/messages';
import { SimpleAgent } from 'kit/simple-agent';
import { loopTools } from '../chapter03/fixtures.js';
import { fakeApi } from '../helpers/fake-http.js';
import { rejection } from '../helpers/assert.js';
import {
  ANTHROPIC_KEY,
  ANTHROPIC_URL,
  anthropicEnv,
  anthropicResponse,
  anthropicShape,
  history,
  tools,
} from './fixtures.js';

const api = fakeApi();

const provider = (env: Record<string, string> = anthropicEnv, options = {}) => new AnthropicProvider(options, env);

describe('toAnthropicMessages (src/providers/anthropic.ts)', () => {
  test('all the results of one turn travel in ONE user message, each paired with its tool_use id', () => {
    const sent = toAnthropicMessages(history);
    expect(
      anthropicShape(sent as never),
      'tool results go back as tool_result blocks whose tool_use_id is the id of their call; the results of one turn share ONE user message',
    ).toEqual([
      'user "Fix the bug in a.ts"',
      'assistant thinking + text + tool_use read#toolu_A + tool_use read#toolu_B',
      'user tool_result#toolu_A + tool_result#toolu_B error',
      'assistant tool_use edit#toolu_C',
      'user tool_result#toolu_C',
    ]);
    const results = sent[2]!.content as Anthropic.ToolResultBlockParam[];
    expect(results[0], 'a tool_result carries the result text and tool_use_id = the call id').toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_A',
      content: 'export const a = 1;',
    });
    expect(results[0]!.is_error, 'a successful result is not an error').toBeFalsy();
    expect(results[1], 'a failed tool keeps is_error: true so the model knows').toMatchObject({
      tool_use_id: 'toolu_B',
      is_error: true,
    });
  });

  test('an assistant turn keeps signed thinking, text and tool_use blocks with their input objects', () => {
    const turn = toAnthropicMessages(history)[1]!;
    expect(turn.content, 'thinking must go back with its signature; tool_use input is the arguments object').toEqual([
      { type: 'thinking', thinking: 'Read both files first.', signature: 'sig-abc' },
      { type: 'text', text: 'Reading both files.' },
      { type: 'tool_use', id: 'toolu_A', name: 'read', input: { path: 'a.ts' } },
      { type: 'tool_use', id: 'toolu_B', name: 'read', input: { path: 'b.ts', offset: 2 } },
    ]);
  });

  test('leaves out what the API would refuse: empty text, unsigned thinking, non-object input', () => {
    const [, turn] = toAnthropicMessages([
      userMessage('go'),
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'from another provider, unsigned' },
          { type: 'text', text: '' },
          { type: 'tool_call', id: 'toolu_X', name: 'read', arguments: '{"path": "a.ts"' },
        ],
        stopReason: 'tool_use',
      },
      { role: 'tool', toolCallId: 'toolu_X', toolName: 'read', content: 'Invalid arguments', isError: true },
    ]);
    expect(
      turn!.content,
      'drop unsigned thinking and empty text; a tool_use input must be an object ({} for a raw string)',
    ).toEqual([{ type: 'tool_use', id: 'toolu_X', name: 'read', input: {} }]);
  });

  test('a tool_use input is a plain object: arguments that are an array or null go out as {}', () => {
    const [, turn] = toAnthropicMessages([
      userMessage('go'),
      {
        role: 'assistant',
        content: [
          { type: 'tool_call', id: 'toolu_L', name: 'read', arguments: ['a.ts'] },
          { type: 'tool_call', id: 'toolu_N', name: 'read', arguments: null },
        ],
        stopReason: 'tool_use',
      },
    ]);
    expect(
      turn!.content,
      'toAnthropicMessages: an array or null is not an object the API takes as input (typeof says "object" for both): use {} (guided step 3)',
    ).toEqual([
      { type: 'tool_use', id: 'toolu_L', name: 'read', input: {} },
      { type: 'tool_use', id: 'toolu_N', name: 'read', input: {} },
    ]);
  });
});

describe('toAnthropicTools (src/providers/anthropic.ts)', () => {
  test('tool definitions become { name, description, input_schema } with the schema unchanged', () => {
    expect(
      toAnthropicTools(tools),
      'toAnthropicTools: name, description and input_schema, in order (guided step 1)',
    ).toEqual([
      { name: 'read', description: 'Read a file', input_schema: tools[0]!.inputSchema },
      { name: 'edit', description: 'Replace text in a file', input_schema: tools[1]!.inputSchema },
    ]);
  });
});

describe('toAnthropicToolChoice (src/providers/anthropic.ts)', () => {
  test("tool choice: auto -> auto, required -> any, none -> none, a name -> { type: 'tool', name }", () => {
    expect(toAnthropicToolChoice('auto'), "toAnthropicToolChoice: 'auto' -> { type: 'auto' }").toEqual({
      type: 'auto',
    });
    expect(toAnthropicToolChoice('required'), "Anthropic's word for 'must call some tool' is 'any'").toEqual({
      type: 'any',
    });
    expect(toAnthropicToolChoice('none'), "toAnthropicToolChoice: 'none' -> { type: 'none' }").toEqual({
      type: 'none',
    });
    expect(
      toAnthropicToolChoice({ name: 'read' }),
      "toAnthropicToolChoice: { name } -> { type: 'tool', name }",
    ).toEqual({ type: 'tool', name: 'read' });
  });
});

describe('fromAnthropicMessage and anthropicUsage (src/providers/anthropic.ts)', () => {
  test('a response becomes the kit turn: blocks in order, tool input as arguments, usage mapped', () => {
    const turn = fromAnthropicMessage(
      anthropicResponse(
        [
          { type: 'thinking', thinking: 'The user wants a.ts.', signature: 'EqQBCgIYAhIM' },
          { type: 'text', text: 'Let me look.', citations: null },
          {
            type: 'tool_use',
            id: 'toolu_01A09q90qw90lq917835lq9',
            name: 'read',
            input: { path: 'a.ts' },
            caller: { type: 'direct' },
          },
        ],
        'tool_use',
        { input_tokens: 472, output_tokens: 91, cache_read_input_tokens: 1024, cache_creation_input_tokens: 16 },
      ) as unknown as Anthropic.Message,
    );
    expect(
      turn.content,
      'fromAnthropicMessage: text, thinking and tool_use blocks in the order the model wrote them',
    ).toEqual([
      { type: 'thinking', thinking: 'The user wants a.ts.', signature: 'EqQBCgIYAhIM' },
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'read', arguments: { path: 'a.ts' } },
    ]);
    expect(
      turn.stopReason,
      "fromAnthropicMessage: a turn with a tool call and stop_reason 'tool_use' stops for 'tool_use'",
    ).toBe('tool_use');
    expect(
      turn.usage,
      'input_tokens -> inputTokens, output_tokens -> outputTokens, cache read/creation -> cacheRead/WriteTokens',
    ).toEqual({
      inputTokens: 472,
      outputTokens: 91,
      cacheReadTokens: 1024,
      cacheWriteTokens: 16,
    });
  });

  test("a turn with tool calls stops for 'tool_use' whatever stop_reason says", () => {
    const turn = fromAnthropicMessage(
      anthropicResponse(
        [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: {} }],
        'end_turn',
      ) as unknown as Anthropic.Message,
    );
    expect(turn.stopReason, 'the loop only runs tools on tool_use: a call must never be dropped').toBe('tool_use');
  });

  test("text and a tool call stop for 'tool_use'; a turn with no call, even an empty one, keeps the API's reason", () => {
    const mixed = fromAnthropicMessage(
      anthropicResponse(
        [
          { type: 'text', text: 'Reading it.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.ts' } },
        ],
        'end_turn',
      ) as unknown as Anthropic.Message,
    );
    expect(
      mixed.stopReason,
      "one tool call among other blocks is enough for 'tool_use' (check with .some, not .every)",
    ).toBe('tool_use');
    const empty = fromAnthropicMessage(anthropicResponse([], 'end_turn') as unknown as Anthropic.Message);
    expect(empty.content, 'Claude may answer with no content at all: an empty turn').toEqual([]);
    expect(
      empty.stopReason,
      "no tool call at all: the stop reason is anthropicStopReason(stop_reason), here 'end_turn'",
    ).toBe('end_turn');
  });

  test('block types the kit does not know, such as redacted_thinking, are dropped', () => {
    const turn = fromAnthropicMessage(
      anthropicResponse(
        [
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw' },
          { type: 'text', text: 'Done.' },
        ],
        'end_turn',
      ) as unknown as Anthropic.Message,
    );
    expect(
      turn.content,
      'keep only text, thinking and tool_use blocks: anything else is skipped, never turned into a tool call',
    ).toEqual([{ type: 'text', text: 'Done.' }]);
    expect(turn.stopReason, 'a dropped block is not a tool call').toBe('end_turn');
  });
});

describe('anthropicUsage (src/providers/anthropic.ts)', () => {
  test('cache counts are added only when the API sent numbers', () => {
    expect(
      anthropicUsage({
        input_tokens: 25,
        output_tokens: 12,
        cache_read_input_tokens: null,
        cache_creation_input_tokens: null,
      }),
      'cache_read_input_tokens and cache_creation_input_tokens may be null: then leave cacheReadTokens and cacheWriteTokens out',
    ).toStrictEqual({ inputTokens: 25, outputTokens: 12 });
    expect(
      anthropicUsage({ input_tokens: 25, output_tokens: 12 }),
      'no cache fields at all: the usage has only inputTokens and outputTokens (no keys set to undefined)',
    ).toStrictEqual({ inputTokens: 25, outputTokens: 12 });
    expect(
      anthropicUsage({ input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 0, cache_creation_input_tokens: 7 }),
      '0 is a number too: keep it',
    ).toStrictEqual({
      inputTokens: 3,
      outputTokens: 4,
      cacheReadTokens: 0,
      cacheWriteTokens: 7,
    });
  });
});

describe('anthropicStopReason (src/providers/anthropic.ts)', () => {
  test('stop reasons map onto the kit', () => {
    const table: Array<[string | null, string, string]> = [
      ['end_turn', 'end_turn', 'end_turn keeps its name (guided step 1)'],
      ['tool_use', 'tool_use', 'tool_use keeps its name (guided step 1)'],
      ['max_tokens', 'max_tokens', 'max_tokens keeps its name (guided step 1)'],
      ['stop_sequence', 'stop_sequence', 'stop_sequence keeps its name (guided step 1)'],
      ['refusal', 'refusal', 'refusal keeps its name (guided step 1)'],
      [
        'model_context_window_exceeded',
        'max_tokens',
        'model_context_window_exceeded is a kind of max_tokens (guided step 2)',
      ],
      ['pause_turn', 'end_turn', 'pause_turn (and any other reason) ends the turn: end_turn (guided step 3)'],
      ['a_reason_added_later', 'end_turn', 'a reason the kit does not know ends the turn: end_turn (guided step 3)'],
      [null, 'end_turn', 'null ends the turn: end_turn (guided step 3)'],
    ];
    for (const [reason, expected, label] of table) expect(anthropicStopReason(reason), label).toBe(expected);
  });
});

describe('anthropicRequest (src/providers/anthropic.ts)', () => {
  test('the system prompt is the top-level system field, never a message', () => {
    const body = anthropicRequest(
      { system: 'You are terse.', messages: [userMessage('hi')], tools: [] },
      { model: 'm', maxTokens: 100 },
    );
    expect(body.system, 'Anthropic takes the system prompt in `system`').toBe('You are terse.');
    expect(anthropicShape(body.messages as never), 'messages hold only user and assistant turns').toEqual([
      'user "hi"',
    ]);
    expect(body, 'with no tools, send no tools and no tool_choice').not.toHaveProperty('tools');
    expect(body, 'anthropicRequest: no tools, so no tool_choice either (guided step 4)').not.toHaveProperty(
      'tool_choice',
    );
  });

  test('no system prompt, or an empty one: no system field at all', () => {
    const defaults = { model: 'm', maxTokens: 100 };
    expect(
      anthropicRequest({ messages: [userMessage('hi')], tools: [] }, defaults),
      'request.system is undefined: leave `system` out',
    ).not.toHaveProperty('system');
    expect(
      anthropicRequest({ system: '', messages: [userMessage('hi')], tools: [] }, defaults),
      "request.system is '': leave `system` out (set it only when it is a non-empty string)",
    ).not.toHaveProperty('system');
  });
});

describe('AnthropicProvider.complete (src/providers/anthropic.ts)', () => {
  test('posts the model, max_tokens, system, messages, tools and tool_choice, with the key as a Bearer token', async () => {
    api.answer(ANTHROPIC_URL, anthropicResponse([{ type: 'text', text: 'Fixed.' }]));
    const turn = await provider().complete({ system: 'Be brief.', messages: history, tools, toolChoice: 'required' });
    expect(api.requests.length, 'exactly one POST to /v1/messages').toBe(1);
    const { headers, body } = api.requests[0]!;
    expect(headers.authorization, 'the SDK sends the key as Authorization: Bearer').toBe(`Bearer ${ANTHROPIC_KEY}`);
    expect(headers['anthropic-version'], 'made by the official SDK').toBeTruthy();
    expect(body.model, 'ANTHROPIC_MODEL from the env argument').toBe('claude-test-model');
    expect(body.max_tokens, 'max_tokens is required by the API: send the default').toBeGreaterThan(0);
    expect(body.system, 'anthropicRequest: the system prompt is the top-level system field (guided step 2)').toBe(
      'Be brief.',
    );
    expect(
      anthropicShape(body.messages),
      'anthropicRequest: messages are toAnthropicMessages(request.messages) (guided step 3)',
    ).toEqual(anthropicShape(toAnthropicMessages(history) as never));
    expect(
      body.messages[2].content.map((b: Anthropic.ToolResultBlockParam) => b.tool_use_id),
      'each tool_result carries tool_use_id = the id of the call it answers',
    ).toEqual(['toolu_A', 'toolu_B']);
    expect(body.tools.map((t: Anthropic.Tool) => t.name)).toEqual(['read', 'edit']);
    expect(
      body.tool_choice,
      "anthropicRequest: toolChoice 'required' goes out as { type: 'any' } (guided step 4)",
    ).toEqual({
      type: 'any',
    });
    expect(turn, 'the answer comes back as a kit turn').toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Fixed.' }],
      stopReason: 'end_turn',
    });
  });

  test("the request's model and maxTokens win over the provider's", async () => {
    api.answer(ANTHROPIC_URL, anthropicResponse([{ type: 'text', text: 'ok' }]));
    await provider(anthropicEnv, { maxTokens: 1000 }).complete({
      messages: [userMessage('hi')],
      tools: [],
      model: 'claude-small',
      maxTokens: 64,
    });
    expect(
      api.requests[0]!.body,
      "anthropicRequest: the request's model and maxTokens win over the provider's (guided step 1)",
    ).toMatchObject({ model: 'claude-small', max_tokens: 64 });
  });

  test('a tool call comes back with its input as arguments, and the usage', async () => {
    api.answer(
      ANTHROPIC_URL,
      anthropicResponse(
        [
          { type: 'text', text: "I'll read it." },
          { type: 'tool_use', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'read', input: { path: 'src/a.ts' } },
        ],
        'tool_use',
        { input_tokens: 300, output_tokens: 40 },
      ),
    );
    const turn = await provider().complete({ messages: [userMessage('read a')], tools });
    expect(turn, 'AnthropicProvider.complete: the answer converted with fromAnthropicMessage').toMatchObject({
      content: [
        { type: 'text', text: "I'll read it." },
        { type: 'tool_call', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'read', arguments: { path: 'src/a.ts' } },
      ],
      stopReason: 'tool_use',
      usage: { inputTokens: 300, outputTokens: 40 },
    });
  });

  test('ANTHROPIC_BASE_URL and ANTHROPIC_AUTH_TOKEN send the request to a gateway with that token', async () => {
    api.answer('http://gateway.test/anthropic/v1/messages', anthropicResponse([{ type: 'text', text: 'via gateway' }]));
    const turn = await provider({
      ANTHROPIC_BASE_URL: 'http://gateway.test/anthropic',
      ANTHROPIC_AUTH_TOKEN: 'gw-token-123456',
      ANTHROPIC_MODEL: 'claude-gw',
    }).complete({
      messages: [userMessage('hi')],
      tools: [],
    });
    expect(api.requests[0]!.url, 'the request goes to ANTHROPIC_BASE_URL + /v1/messages').toBe(
      'http://gateway.test/anthropic/v1/messages',
    );
    expect(api.requests[0]!.headers.authorization, 'ANTHROPIC_AUTH_TOKEN is sent as a Bearer token').toBe(
      'Bearer gw-token-123456',
    );
    expect(turn.content, 'the answer from the gateway becomes the turn').toEqual([
      { type: 'text', text: 'via gateway' },
    ]);
  });

  test('SimpleAgent runs a tool round through the Anthropic API: both results in one user message', async () => {
    api.answer(
      ANTHROPIC_URL,
      anthropicResponse(
        [
          { type: 'tool_use', id: 'toolu_01', name: 'echo', input: { text: 'a' } },
          { type: 'tool_use', id: 'toolu_02', name: 'fail', input: {} },
        ],
        'tool_use',
      ),
      anthropicResponse([{ type: 'text', text: 'One worked, one failed.' }]),
    );
    const { tools: toolSet } = loopTools();
    const agent = new SimpleAgent({ provider: provider(), tools: toolSet, cwd: process.cwd(), system: 'Be brief.' });
    expect(await agent.run('try both'), "the agent's answer is the text of the last turn").toBe(
      'One worked, one failed.',
    );
    const second = api.requests[1]!.body;
    expect(anthropicShape(second.messages), 'request 2: the turn, then ONE user message answering both calls').toEqual([
      'user "try both"',
      'assistant tool_use echo#toolu_01 + tool_use fail#toolu_02',
      'user tool_result#toolu_01 + tool_result#toolu_02 error',
    ]);
    expect(second.messages[2].content[0].content, 'the first result carries the tool output').toBe('a');
    expect(second.system, 'the system prompt rides along on every request').toBe('Be brief.');
  });

  test('uses the fetch it is given', async () => {
    api.answer(ANTHROPIC_URL, anthropicResponse([{ type: 'text', text: 'ok' }]));
    const seen: string[] = [];
    const fetch: typeof globalThis.fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return globalThis.fetch(input, init);
    };
    await provider(anthropicEnv, { fetch }).complete({ messages: [userMessage('hi')], tools: [] });
    expect(seen, 'pass options.fetch to the SDK client').toEqual([ANTHROPIC_URL]);
  });
});

describe('AnthropicProvider.complete errors (src/providers/anthropic.ts, errors.ts)', () => {
  const failing = async (status: number, type: string, message: string, headers?: Record<string, string>) => {
    api.answer(ANTHROPIC_URL, {
      status,
      json: { type: 'error', error: { type, message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' },
      headers,
    });
    const error = await rejection(
      provider().complete({ messages: [userMessage('hi')], tools: [] }),
      `a ${status} answer should reject`,
    );
    expect(
      error,
      'AnthropicProvider.complete: await the SDK call inside try (a returned promise rejects after the catch is gone) and wrap what it throws with toProviderError(...) (guided step 3)',
    ).toBeInstanceOf(ProviderError);
    return error as ProviderError;
  };

  test('401: a ProviderError with the status and the API message, and never the key', async () => {
    const error = await failing(401, 'authentication_error', 'invalid x-api-key');
    expect(error.provider, "ProviderError.provider is the provider's name").toBe('anthropic');
    expect(error.status, 'the HTTP status is kept').toBe(401);
    expect(error.message, "the provider's own explanation").toContain('invalid x-api-key');
    expect(error.message, 'the message shows the status').toContain('401');
    expect(
      error.providerMessage,
      "providerMessage is the API's own error.error.message, not the SDK's summary of the body",
    ).toBe('invalid x-api-key');
    expect(
      `${error.message} ${error.stack} ${JSON.stringify(error)}`,
      'an error must never show the key',
    ).not.toContain(ANTHROPIC_KEY);
  });

  test('the key is scrubbed even when the API quotes it', async () => {
    const error = await failing(401, 'authentication_error', `invalid x-api-key: ${ANTHROPIC_KEY}`);
    expect(error.message, 'the rest of the explanation stays').toContain('invalid x-api-key');
    expect(
      `${error.message} ${error.stack} ${JSON.stringify(error)}`,
      'pass the key to toProviderError as a secret to redact: toProviderError(this.name, error, [this.secret])',
    ).not.toContain(ANTHROPIC_KEY);
  });

  test('529 overloaded: one request only (the SDK must not retry) and the error type kept', async () => {
    const error = await failing(529, 'overloaded_error', 'Overloaded');
    expect(api.requests.length, 'build the client with maxRetries: 0; chapter 10 owns retries').toBe(1);
    expect(error.status, 'the 529 status is kept').toBe(529);
    expect(error.errorType, "Anthropic's error.type, for the retry policy").toBe('overloaded_error');
    expect(error.message, "the message carries the API's own sentence").toContain('Overloaded');
  });

  test('400, 429 and 500 keep their status and message; 429 keeps retry-after', async () => {
    const bad = await failing(400, 'invalid_request_error', 'messages.1.content.0: unexpected tool_use_id');
    expect([bad.status, bad.message.includes('unexpected tool_use_id')]).toEqual([400, true]);
    const limited = await failing(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit', {
      'retry-after': '7',
    });
    expect(limited.status, 'the 429 status is kept').toBe(429);
    expect(limited.headers['retry-after'], 'response headers are kept for the retry wrapper').toBe('7');
    const broken = await failing(500, 'api_error', 'Internal server error');
    expect([broken.status, broken.message.includes('Internal server error')]).toEqual([500, true]);
    expect(api.requests.length, 'no request is retried by the SDK').toBe(3);
  });

  test('a server that cannot be reached is a ProviderError that says why', async () => {
    const fetch: typeof globalThis.fetch = async () => {
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    };
    const error = await rejection(
      provider(anthropicEnv, { fetch }).complete({ messages: [userMessage('hi')], tools: [] }),
      'a network failure should reject',
    );
    expect(error, 'a network failure is a ProviderError too').toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status, 'no answer, no status').toBeUndefined();
    expect(
      (error as Error).message,
      "add the cause's message: 'Connection error.' alone does not say what failed",
    ).toMatch(/fetch failed|ECONNREFUSED/);
  });

  test('an aborted request rejects with the abort reason, not a ProviderError', async () => {
    api.answer(ANTHROPIC_URL, anthropicResponse([{ type: 'text', text: 'too late' }]));
    const controller = new AbortController();
    controller.abort(new Error('user pressed Esc'));
    const error = await rejection(
      provider().complete({ messages: [userMessage('hi')], tools: [], signal: controller.signal }),
      'complete() with an aborted signal should reject',
    );
    expect(error, 'pass request.signal to the SDK and rethrow signal.reason when it aborted').toBe(
      controller.signal.reason,
    );
  });
});
