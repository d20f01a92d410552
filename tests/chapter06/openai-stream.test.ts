import { describe, expect, test } from 'vitest';
import { OpenAIProvider } from 'kit/providers/openai';
import { ProviderError } from 'kit/providers/errors';
import { userMessage } from 'kit/messages';
import type { ModelRequest } from 'kit/provider';
import type { StreamEvent } from 'kit/stream-events';
import { drain, openaiFrame as frame, sseServer, turnFromEvents, type SseStep } from '../helpers/fake-http.js';
import { HANG_MS } from '../helpers/wait.js';

const server = sseServer();
const KEY = 'sk-proj-STREAMKEY-0123456789';

const provider = () =>
  new OpenAIProvider({ baseURL: `${server.url}/v1` }, { OPENAI_API_KEY: KEY, OPENAI_MODEL: 'gpt-test-model' });

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [userMessage('hi')],
  tools: [],
  ...extra,
});

/** One chat.completion.chunk, as the API sends it with include_usage on (usage: null until the last chunk). */
const chunk = (delta: Record<string, unknown>, finish_reason: string | null = null) =>
  frame({
    id: 'chatcmpl-AJ7vbO4hT3kFOcDkeITb',
    object: 'chat.completion.chunk',
    created: 1729180535,
    model: 'gpt-test-model',
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason }],
    usage: null,
  });
const role = chunk({ role: 'assistant', content: '', refusal: null });
const content = (text: string) => chunk({ content: text });
const finish = (reason: string) => chunk({}, reason);
const usage = (prompt_tokens: number, completion_tokens: number, cached_tokens = 0) =>
  frame({
    id: 'chatcmpl-AJ7vbO4hT3kFOcDkeITb',
    object: 'chat.completion.chunk',
    created: 1729180535,
    model: 'gpt-test-model',
    choices: [],
    usage: {
      prompt_tokens,
      completion_tokens,
      total_tokens: prompt_tokens + completion_tokens,
      prompt_tokens_details: { cached_tokens },
    },
  });
const done = frame('[DONE]');
const callStart = (index: number, id: string, name: string) =>
  chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] });
const args = (index: number, piece: string) => chunk({ tool_calls: [{ index, function: { arguments: piece } }] });

async function events(steps: SseStep[], extra: Partial<ModelRequest> = {}): Promise<StreamEvent[]> {
  server.script(steps);
  const { events, error } = await drain(provider().stream(request(extra)));
  if (error) expect.fail(`the stream should finish, but it rejected with ${String(error)}`);
  return events;
}

describe('OpenAIProvider.stream (src/providers/openai.ts)', () => {
  test('streams text as deltas; the usage-only last chunk and [DONE] end it with one finish', async () => {
    const seen = await events([role, content('Hello'), content(', world.'), finish('stop'), usage(20, 5), done]);
    expect(seen, 'an empty first content carries nothing; usage arrives in a chunk with choices: []').toEqual([
      { type: 'text_delta', index: 0, text: 'Hello' },
      { type: 'text_delta', index: 0, text: ', world.' },
      { type: 'finish', stopReason: 'end_turn', usage: { inputTokens: 20, outputTokens: 5, cacheReadTokens: 0 } },
    ]);
  });

  test('asks for a stream with usage, on top of the same body as complete()', async () => {
    await events([role, content('ok'), finish('stop'), usage(3, 1), done], { system: 'Be brief.' });
    const { url, headers, body } = server.requests[0]!;
    expect(url, 'the same endpoint as complete() (guided step 1)').toBe(`${server.url}/v1/chat/completions`);
    expect(headers.authorization, 'the same client, so the same Bearer key (guided step 1)').toBe(`Bearer ${KEY}`);
    expect(body, 'openaiRequest(...) plus stream: true and stream_options: { include_usage: true }').toMatchObject({
      model: 'gpt-test-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test('parallel tool calls are told apart by index, even when their argument pieces interleave', async () => {
    const seen = await events([
      chunk({
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'read', arguments: '' } }],
      }),
      args(0, '{"pa'),
      callStart(1, 'call_def', 'glob'),
      args(1, '{"pattern": "src/'),
      args(0, 'th": "a.ts"}'),
      args(1, '**/*.ts"}'),
      finish('tool_calls'),
      usage(120, 40, 100),
      done,
    ]);
    expect(
      seen.filter((e) => e.type === 'tool_call_start'),
      'the first delta of each index carries its id and name',
    ).toEqual([
      { type: 'tool_call_start', index: 0, id: 'call_abc', name: 'read' },
      { type: 'tool_call_start', index: 1, id: 'call_def', name: 'glob' },
    ]);
    expect(turnFromEvents(seen), "the pieces of each index, joined in order, are that call's arguments").toEqual({
      role: 'assistant',
      content: [
        { type: 'tool_call', id: 'call_abc', name: 'read', arguments: { path: 'a.ts' } },
        { type: 'tool_call', id: 'call_def', name: 'glob', arguments: { pattern: 'src/**/*.ts' } },
      ],
      stopReason: 'tool_use',
      usage: { inputTokens: 20, outputTokens: 40, cacheReadTokens: 100 },
    });
  });

  test('every tool call ends when the finish reason arrives, before the finish event', async () => {
    const seen = await events([
      callStart(0, 'call_1', 'read'),
      args(0, '{}'),
      callStart(1, 'call_2', 'read'),
      args(1, '{}'),
      finish('tool_calls'),
      usage(5, 5),
      done,
    ]);
    expect(seen.slice(-3), 'OpenAI never says a call is complete: end them all at finish_reason').toEqual([
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_end', index: 1 },
      { type: 'finish', stopReason: 'tool_use', usage: { inputTokens: 5, outputTokens: 5, cacheReadTokens: 0 } },
    ]);
  });

  test('exactly one start per call, no empty argument pieces, and a missing id, name or function is no crash', async () => {
    const seen = await events([
      callStart(0, 'call_1', 'read'),
      args(0, '{"path":'),
      chunk({ tool_calls: [{ index: 0 }] }),
      args(0, '"a.ts"}'),
      chunk({ tool_calls: [{ index: 1, type: 'function' }] }),
      args(1, '{}'),
      finish('tool_calls'),
      done,
    ]);
    expect(
      seen,
      "the empty arguments of a first piece are skipped; an entry without id or function.name starts its call with '' for them",
    ).toEqual([
      { type: 'tool_call_start', index: 0, id: 'call_1', name: 'read' },
      { type: 'tool_call_delta', index: 0, argumentsDelta: '{"path":' },
      { type: 'tool_call_delta', index: 0, argumentsDelta: '"a.ts"}' },
      { type: 'tool_call_start', index: 1, id: '', name: '' },
      { type: 'tool_call_delta', index: 1, argumentsDelta: '{}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_end', index: 1 },
      { type: 'finish', stopReason: 'tool_use' },
    ]);
  });

  test('a finish_reason repeated in a later chunk ends each call once and keeps the first reason', async () => {
    const repeat = (reason: string) =>
      frame({
        id: 'chatcmpl-AJ7vbO4hT3kFOcDkeITb',
        object: 'chat.completion.chunk',
        created: 1729180535,
        model: 'gpt-test-model',
        choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: reason }],
        usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
      });
    const calls = await events([
      callStart(0, 'call_1', 'read'),
      args(0, '{}'),
      finish('tool_calls'),
      repeat('tool_calls'),
      done,
    ]);
    expect(
      calls.filter((e) => e.type === 'tool_call_end'),
      'some servers send finish_reason again with the usage: end the calls only the first time',
    ).toEqual([{ type: 'tool_call_end', index: 0 }]);
    const text = await events([role, content('Cut sho'), finish('length'), repeat('stop'), done]);
    expect(text.at(-1), 'the first finish_reason is the one that counts (length means max_tokens)').toEqual({
      type: 'finish',
      stopReason: 'max_tokens',
      usage: { inputTokens: 9, outputTokens: 4 },
    });
  });

  test('text then a tool call take indices 0 and 1; a server that says "stop" after a call still means tool_use', async () => {
    const seen = await events([
      role,
      content('Let me look.'),
      callStart(0, 'call_9', 'read'),
      args(0, '{"path":"b.ts"}'),
      finish('stop'),
      done,
    ]);
    expect(turnFromEvents(seen), 'no usage chunk: the finish has no usage; tool calls mean tool_use').toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_call', id: 'call_9', name: 'read', arguments: { path: 'b.ts' } },
      ],
      stopReason: 'tool_use',
    });
  });

  test('reasoning from a compatible server streams as thinking; length maps to max_tokens', async () => {
    const seen = await events([
      chunk({ role: 'assistant', content: '', reasoning_content: 'Short ' }),
      chunk({ reasoning_content: 'question.' }),
      content('Yes'),
      finish('length'),
      done,
    ]);
    expect(turnFromEvents(seen), "reasoning as thinking before the text; 'length' finishes as 'max_tokens'").toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Short question.' },
        { type: 'text', text: 'Yes' },
      ],
      stopReason: 'max_tokens',
    });
  });
});

describe('OpenAIProvider.stream: what compatible servers and cut turns send (src/providers/openai.ts)', () => {
  test('tool call entries without `index` are told apart by id, and a piece with neither goes to the call before it', async () => {
    const seen = await events([
      chunk({ tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'echo', arguments: '' } }] }),
      chunk({ tool_calls: [{ function: { arguments: '{"text":' } }] }),
      chunk({ tool_calls: [{ id: 'call_a', function: { arguments: '"a"}' } }] }),
      chunk({
        tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'echo', arguments: '{"text":"b"}' } }],
      }),
      finish('tool_calls'),
      done,
    ]);
    expect(
      turnFromEvents(seen).content,
      'no index: the call with the same id, else the call of the entry before; never one merged call (guided step 4)',
    ).toEqual([
      { type: 'tool_call', id: 'call_a', name: 'echo', arguments: { text: 'a' } },
      { type: 'tool_call', id: 'call_b', name: 'echo', arguments: { text: 'b' } },
    ]);
  });

  test('a first entry with neither index nor id is call 0: a later entry with index 0 continues it', async () => {
    const seen = await events([
      chunk({ tool_calls: [{ type: 'function', function: { name: 'echo', arguments: '{"text":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"a"}' } }] }),
      finish('tool_calls'),
      done,
    ]);
    expect(
      turnFromEvents(seen).content,
      "with no call before it, an entry without index or id is the call of index 0 (key '#0') (guided step 4)",
    ).toEqual([{ type: 'tool_call', id: '', name: 'echo', arguments: { text: 'a' } }]);
  });

  test("finish_reason 'length' in the middle of a call finishes with 'max_tokens', never 'tool_use'", async () => {
    const seen = await events([
      callStart(0, 'call_cut', 'write'),
      args(0, '{"path":"a.ts","content":"expo'),
      finish('length'),
      usage(10, 50),
      done,
    ]);
    expect(
      seen.slice(-2),
      "the call ends, and turnStopReason keeps 'max_tokens': the call may be half written (guided steps 5 and 7)",
    ).toEqual([
      { type: 'tool_call_end', index: 0 },
      { type: 'finish', stopReason: 'max_tokens', usage: { inputTokens: 10, outputTokens: 50, cacheReadTokens: 0 } },
    ]);
  });

  test('a chunk with no choices field at all, and usage without prompt_tokens, are no crash', async () => {
    const bare = frame({
      id: 'chatcmpl-x',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-test-model',
      usage: { completion_tokens: 3 },
    });
    const seen = await events([role, content('Hi'), finish('stop'), bare, done]);
    expect(seen.at(-1), 'usage counts a server leaves out are 0, never NaN (guided step 2)').toEqual({
      type: 'finish',
      stopReason: 'end_turn',
      usage: { inputTokens: 0, outputTokens: 3 },
    });
  });
});

describe('OpenAIProvider.stream failures (src/providers/openai.ts)', () => {
  test('a connection cut in the middle rejects clearly instead of ending quietly', async () => {
    server.script([role, content('Half an ans'), { cut: true }]);
    const { events, error } = await drain(provider().stream(request()));
    expect(
      events.some((e) => e.type === 'finish'),
      'a cut stream must never look finished',
    ).toBe(false);
    expect(error, 'the stream must reject with a ProviderError').toBeInstanceOf(ProviderError);
  });

  test('a stream that closes before any finish_reason rejects', async () => {
    server.script([role, content('Half'), callStart(0, 'call_1', 'read'), args(0, '{"pa')]);
    const { events, error } = await drain(provider().stream(request()));
    expect(
      events.some((e) => e.type === 'finish'),
      'no finish_reason, no finish',
    ).toBe(false);
    expect(error, 'throw a ProviderError when the loop ends without a finish_reason').toBeInstanceOf(ProviderError);
    expect((error as Error).message, 'the error says the stream ended early (guided step 6)').toMatch(
      /finish_reason|ended|early/i,
    );
  });

  test('an error sent inside the stream rejects with its message', async () => {
    server.script([
      role,
      content('Hel'),
      frame({ error: { message: 'The server had an error while processing your request.', type: 'server_error' } }),
    ]);
    const { error } = await drain(provider().stream(request()));
    expect(error, 'an error inside the stream is a ProviderError').toBeInstanceOf(ProviderError);
    expect((error as Error).message, "the message carries the server's own message").toContain(
      'The server had an error',
    );
  });

  test('an HTTP error before the stream is a ProviderError with its status, and no key', async () => {
    server.fail(401, {
      error: {
        message: `Incorrect API key provided: ${KEY}.`,
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    const { error } = await drain(provider().stream(request()));
    expect(error, 'an HTTP error is wrapped with toProviderError (guided step 1)').toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status, 'the HTTP status is kept').toBe(401);
    expect((error as Error).message, 'the key is scrubbed here too').not.toContain(KEY);
  });

  test('a signal aborted before the call rejects with its reason, not a ProviderError', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped before it began'));
    const { events, error } = await drain(provider().stream(request({ signal: controller.signal })));
    expect(events, 'an aborted request yields nothing').toEqual([]);
    expect(
      error,
      'the SDK throws its own abort error from create(): in the catch, an aborted signal means throw signal.reason',
    ).toBe(controller.signal.reason);
  });

  test('aborting mid-stream rejects with the abort reason and closes the connection', async () => {
    server.script([role, content('Thinking about it'), { wait: 2000 }, content(' never sent'), finish('stop'), done]);
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    let error: unknown;
    try {
      for await (const event of provider().stream(request({ signal: controller.signal }))) {
        seen.push(event);
        controller.abort(new Error('user pressed Esc'));
      }
    } catch (caught) {
      if (caught instanceof Error && caught.name === 'TodoError') throw caught;
      error = caught;
    }
    expect(seen, 'what arrived before the abort was yielded').toEqual([
      { type: 'text_delta', index: 0, text: 'Thinking about it' },
    ]);
    expect(
      error,
      'the SDK ends its loop quietly on abort: check request.signal after the loop and throw its reason',
    ).toBe(controller.signal.reason);
    await expect.poll(() => server.clientClosed, { timeout: HANG_MS }).toBe(true);
  });

  test('breaking out of the loop early closes the connection without hanging', async () => {
    server.script([role, content('one'), { wait: 2000 }, content('two'), finish('stop'), done]);
    for await (const event of provider().stream(request())) {
      expect(event, 'the first event is the first text piece').toEqual({ type: 'text_delta', index: 0, text: 'one' });
      break;
    }
    await expect.poll(() => server.clientClosed, { timeout: HANG_MS }).toBe(true);
  });
});
