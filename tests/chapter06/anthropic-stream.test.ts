import { describe, expect, test } from 'vitest';
import { AnthropicProvider } from 'kit/providers/anthropic';
import { ProviderError } from 'kit/providers/errors';
import { userMessage } from 'kit/messages';
import type { ModelRequest } from 'kit/provider';
import type { StreamEvent } from 'kit/stream-events';
import { anthropicFrame as frame, drain, sseServer, turnFromEvents, type SseStep } from '../helpers/fake-http.js';
import { HANG_MS } from '../helpers/wait.js';

const server = sseServer();
const KEY = 'sk-ant-api03-STREAMKEY-0123456789';

const provider = () =>
  new AnthropicProvider({ baseURL: server.url }, { ANTHROPIC_API_KEY: KEY, ANTHROPIC_MODEL: 'claude-test-model' });

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [userMessage('hi')],
  tools: [],
  ...extra,
});

const messageStart = (usage: Record<string, number> = { input_tokens: 565, output_tokens: 1 }) =>
  frame({
    type: 'message_start',
    message: {
      id: 'msg_01GE2RKp1VYsPzdFs3sS9z5S',
      type: 'message',
      role: 'assistant',
      model: 'claude-test-model',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard', ...usage },
    },
  });
const ping = frame({ type: 'ping' });
const textStart = (index: number) =>
  frame({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
const text = (index: number, value: string) =>
  frame({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: value } });
const stop = (index: number) => frame({ type: 'content_block_stop', index });
const toolStart = (index: number, id: string, name: string) =>
  frame({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } });
const json = (index: number, partial_json: string) =>
  frame({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
const messageDelta = (stop_reason: string, usage: Record<string, number | null> = { output_tokens: 48 }) =>
  frame({ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage });
const messageStop = frame({ type: 'message_stop' });

/** A short answer in two pieces, with pings in between, as the API sends it. */
const hello: SseStep[] = [
  messageStart(),
  textStart(0),
  ping,
  text(0, 'Hello'),
  text(0, ', world.'),
  ping,
  stop(0),
  messageDelta('end_turn', { input_tokens: 565, output_tokens: 12 }),
  messageStop,
];

async function events(steps: SseStep[], extra: Partial<ModelRequest> = {}): Promise<StreamEvent[]> {
  server.script(steps);
  const { events, error } = await drain(provider().stream(request(extra)));
  if (error) expect.fail(`the stream should finish, but it rejected with ${String(error)}`);
  return events;
}

describe('AnthropicProvider.stream (src/providers/anthropic.ts)', () => {
  test('streams text as deltas and ends with one finish carrying the stop reason and usage', async () => {
    const seen = await events(hello);
    expect(seen, 'pings carry nothing; each text_delta becomes a text_delta at index 0; one finish at the end').toEqual(
      [
        { type: 'text_delta', index: 0, text: 'Hello' },
        { type: 'text_delta', index: 0, text: ', world.' },
        {
          type: 'finish',
          stopReason: 'end_turn',
          usage: { inputTokens: 565, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 },
        },
      ],
    );
  });

  test('sends the same body as complete(), with stream: true', async () => {
    await events(hello, { system: 'Be brief.', maxTokens: 99 });
    const { url, headers, body } = server.requests[0]!;
    expect(url, 'the same endpoint as complete() (guided step 1)').toBe(`${server.url}/v1/messages`);
    expect(headers.authorization, 'the same client, so the same Bearer key (guided step 1)').toBe(`Bearer ${KEY}`);
    expect(body, 'build it with anthropicRequest(...) and add stream: true').toMatchObject({
      model: 'claude-test-model',
      max_tokens: 99,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
  });

  test('thinking with its signature, text, then a tool call whose JSON arrives cut mid-token', async () => {
    const seen = await events([
      messageStart({ input_tokens: 900, output_tokens: 3 }),
      frame({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      }),
      frame({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'The user wants ' } }),
      frame({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'a.ts read.' } }),
      frame({
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA' },
      }),
      stop(0),
      textStart(1),
      text(1, "I'll read it."),
      stop(1),
      toolStart(2, 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', 'read'),
      json(2, ''),
      json(2, '{"pa'),
      json(2, 'th": "src/a'),
      json(2, '.ts", "off'),
      json(2, 'set": 1'),
      json(2, '0}'),
      stop(2),
      messageDelta('tool_use', { output_tokens: 89 }),
      messageStop,
    ]);
    expect(seen.slice(0, 4), 'thinking deltas, then its signature, all at index 0').toEqual([
      { type: 'thinking_delta', index: 0, thinking: 'The user wants ' },
      { type: 'thinking_delta', index: 0, thinking: 'a.ts read.' },
      { type: 'thinking_signature', index: 0, signature: 'EqQBCgIYAhIM1gbcDa9GJwZA' },
      { type: 'text_delta', index: 1, text: "I'll read it." },
    ]);
    expect(seen[4], 'content_block_start of a tool_use is tool_call_start with its id and name').toEqual({
      type: 'tool_call_start',
      index: 2,
      id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      name: 'read',
    });
    expect(
      seen
        .filter((e) => e.type === 'tool_call_delta')
        .map((e) => (e as { argumentsDelta: string }).argumentsDelta)
        .join(''),
      'the input_json_delta pieces, in order, passed on as they are',
    ).toBe('{"path": "src/a.ts", "offset": 10}');
    expect(turnFromEvents(seen), 'the events rebuild the whole turn').toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The user wants a.ts read.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA' },
        { type: 'text', text: "I'll read it." },
        {
          type: 'tool_call',
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          name: 'read',
          arguments: { path: 'src/a.ts', offset: 10 },
        },
      ],
      stopReason: 'tool_use',
      usage: { inputTokens: 900, outputTokens: 89, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
  });

  test('two tool calls in one turn: each starts, gets its own deltas and ends at its own index', async () => {
    const seen = await events([
      messageStart(),
      toolStart(0, 'toolu_A', 'read'),
      json(0, '{"path":'),
      json(0, '"a.ts"}'),
      stop(0),
      toolStart(1, 'toolu_B', 'glob'),
      json(1, ''),
      stop(1),
      messageDelta('tool_use'),
      messageStop,
    ]);
    expect(seen.filter((e) => e.type === 'tool_call_start' || e.type === 'tool_call_end')).toEqual([
      { type: 'tool_call_start', index: 0, id: 'toolu_A', name: 'read' },
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_start', index: 1, id: 'toolu_B', name: 'glob' },
      { type: 'tool_call_end', index: 1 },
    ]);
    expect(turnFromEvents(seen).content, 'a call without arguments (one empty partial_json) is {}').toEqual([
      { type: 'tool_call', id: 'toolu_A', name: 'read', arguments: { path: 'a.ts' } },
      { type: 'tool_call', id: 'toolu_B', name: 'glob', arguments: {} },
    ]);
  });

  test("index counts the blocks of the kit's turn: a block type the kit drops takes no index", async () => {
    const seen = await events([
      messageStart(),
      frame({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
      }),
      stop(0),
      textStart(1),
      text(1, 'Done.'),
      stop(1),
      messageDelta('end_turn'),
      messageStop,
    ]);
    expect(seen[0], "Anthropic's block 1 is the kit's block 0: map Anthropic's index to your own").toEqual({
      type: 'text_delta',
      index: 0,
      text: 'Done.',
    });
  });

  test('a block that starts with some text yields it before its deltas', async () => {
    const seen = await events([
      messageStart(),
      frame({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: 'Already ', signature: '' },
      }),
      frame({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'thinking.' } }),
      stop(0),
      frame({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: 'Already ' } }),
      text(1, 'writing.'),
      stop(1),
      messageDelta('end_turn'),
      messageStop,
    ]);
    expect(
      seen.slice(0, 4),
      'the text a content_block_start carries is the first delta of its block, at its kit index',
    ).toEqual([
      { type: 'thinking_delta', index: 0, thinking: 'Already ' },
      { type: 'thinking_delta', index: 0, thinking: 'thinking.' },
      { type: 'text_delta', index: 1, text: 'Already ' },
      { type: 'text_delta', index: 1, text: 'writing.' },
    ]);
  });

  test('yields nothing for deltas of a dropped block, for delta types it does not know, or for empty JSON pieces', async () => {
    const seen = await events([
      messageStart(),
      frame({
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      }),
      json(0, '{"query": "vitest"}'),
      stop(0),
      textStart(1),
      text(1, 'See the docs.'),
      frame({
        type: 'content_block_delta',
        index: 1,
        delta: {
          type: 'citations_delta',
          citation: {
            type: 'web_search_result_location',
            url: 'https://vitest.dev',
            title: 'Vitest',
            encrypted_index: 'Eo8BCi',
            cited_text: 'Vitest',
          },
        },
      }),
      stop(1),
      toolStart(2, 'toolu_9', 'read'),
      json(2, ''),
      json(2, '{"path": "a.ts"}'),
      json(2, ''),
      stop(2),
      messageDelta('tool_use'),
      messageStop,
    ]);
    expect(
      seen,
      'a server_tool_use block takes no index and its JSON is dropped; a citations_delta carries no text; an empty partial_json is skipped',
    ).toEqual([
      { type: 'text_delta', index: 0, text: 'See the docs.' },
      { type: 'tool_call_start', index: 1, id: 'toolu_9', name: 'read' },
      { type: 'tool_call_delta', index: 1, argumentsDelta: '{"path": "a.ts"}' },
      { type: 'tool_call_end', index: 1 },
      {
        type: 'finish',
        stopReason: 'tool_use',
        usage: { inputTokens: 565, outputTokens: 48, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ]);
  });

  test('usage fields that message_delta sends as null keep their values from message_start', async () => {
    const seen = await events([
      messageStart({
        input_tokens: 565,
        output_tokens: 1,
        cache_read_input_tokens: 30,
        cache_creation_input_tokens: 7,
      }),
      textStart(0),
      text(0, 'Hi.'),
      stop(0),
      messageDelta('end_turn', {
        input_tokens: null,
        cache_read_input_tokens: null,
        cache_creation_input_tokens: null,
        output_tokens: 48,
      }),
      messageStop,
    ]);
    expect(
      seen.at(-1),
      'merge only the non-null fields of message_delta.usage over message_start\'s: null means "not sent", not zero',
    ).toEqual({
      type: 'finish',
      stopReason: 'end_turn',
      usage: { inputTokens: 565, outputTokens: 48, cacheReadTokens: 30, cacheWriteTokens: 7 },
    });
  });

  test('a turn with tool calls finishes with tool_use; max_tokens maps like complete()', async () => {
    const calls = await events([
      messageStart(),
      toolStart(0, 'toolu_1', 'read'),
      json(0, '{}'),
      stop(0),
      messageDelta('end_turn'),
      messageStop,
    ]);
    const textThenCall = await events([
      messageStart(),
      textStart(0),
      text(0, 'Reading.'),
      stop(0),
      toolStart(1, 'toolu_2', 'read'),
      json(1, '{}'),
      stop(1),
      messageDelta('end_turn'),
      messageStop,
    ]);
    expect(
      textThenCall.at(-1),
      'text and then a tool call: one call is enough for tool_use, the other blocks need not be calls',
    ).toMatchObject({
      type: 'finish',
      stopReason: 'tool_use',
    });
    expect(calls.at(-1), 'a started tool call means tool_use, whatever stop_reason says').toMatchObject({
      type: 'finish',
      stopReason: 'tool_use',
    });
    const cut = await events([
      messageStart(),
      textStart(0),
      text(0, 'Once upon'),
      stop(0),
      messageDelta('max_tokens'),
      messageStop,
    ]);
    expect(cut.at(-1), "a text turn cut at the limit finishes with 'max_tokens' (guided step 7)").toMatchObject({
      type: 'finish',
      stopReason: 'max_tokens',
    });
  });
});

describe('AnthropicProvider.stream: a turn cut at the token limit (src/providers/anthropic.ts)', () => {
  test("max_tokens in the middle of a tool call finishes with 'max_tokens', never 'tool_use'", async () => {
    const seen = await events([
      messageStart(),
      textStart(0),
      text(0, 'Writing it.'),
      stop(0),
      toolStart(1, 'toolu_cut', 'write'),
      json(1, '{"path":"a.ts","content":"expo'),
      stop(1),
      messageDelta('max_tokens'),
      messageStop,
    ]);
    expect(
      seen.at(-1),
      "turnStopReason keeps 'max_tokens': the started call may be half written (guided step 7)",
    ).toEqual({
      type: 'finish',
      stopReason: 'max_tokens',
      usage: { inputTokens: 565, outputTokens: 48, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(turnFromEvents(seen).content[1], 'the cut call is still streamed as it was written').toEqual({
      type: 'tool_call',
      id: 'toolu_cut',
      name: 'write',
      arguments: '{"path":"a.ts","content":"expo',
    });
  });

  test("refusal with a started call stays 'refusal'; message_delta without usage keeps message_start's", async () => {
    const seen = await events([
      messageStart(),
      toolStart(0, 'toolu_1', 'read'),
      json(0, '{}'),
      stop(0),
      frame({ type: 'message_delta', delta: { stop_reason: 'refusal', stop_sequence: null } }),
      messageStop,
    ]);
    expect(seen.at(-1), "turnStopReason keeps 'refusal' even with a call (guided step 7)").toMatchObject({
      type: 'finish',
      stopReason: 'refusal',
    });
    expect(
      (seen.at(-1) as { usage?: unknown }).usage,
      'a message_delta with no usage field changes nothing (guided step 2)',
    ).toEqual({
      inputTokens: 565,
      outputTokens: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });
});

describe('AnthropicProvider.stream failures (src/providers/anthropic.ts)', () => {
  test('an error event in the middle of the stream rejects with a ProviderError that keeps its type', async () => {
    server.script([
      messageStart(),
      textStart(0),
      text(0, 'Let me'),
      frame({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ]);
    const { events, error } = await drain(provider().stream(request()));
    expect(events, 'what arrived before the error was still yielded').toEqual([
      { type: 'text_delta', index: 0, text: 'Let me' },
    ]);
    expect(error, 'wrap what the SDK throws with toProviderError').toBeInstanceOf(ProviderError);
    expect((error as ProviderError).errorType, 'the error type of the error event is kept').toBe('overloaded_error');
    expect((error as Error).message, "the message carries the error event's own message").toContain('Overloaded');
  });

  test('a connection cut in the middle rejects clearly instead of ending quietly', async () => {
    server.script([messageStart(), textStart(0), text(0, 'Half an ans'), { cut: true }]);
    const { events, error } = await drain(provider().stream(request()));
    expect(
      events.some((e) => e.type === 'finish'),
      'a cut stream must never look finished',
    ).toBe(false);
    expect(error, 'the stream must reject with a ProviderError').toBeInstanceOf(ProviderError);
  });

  test('a stream that stops before message_stop rejects, even when the connection closes cleanly', async () => {
    server.script([messageStart(), textStart(0), text(0, 'Half'), stop(0)]);
    const { events, error } = await drain(provider().stream(request()));
    expect(
      events.some((e) => e.type === 'finish'),
      'a stream that ends without message_stop must never look finished',
    ).toBe(false);
    expect(error, 'throw a ProviderError when the loop ends without message_stop').toBeInstanceOf(ProviderError);
    expect((error as Error).message, 'the error says the stream ended early (guided step 6)').toMatch(
      /message_stop|ended|early/i,
    );
  });

  test('an HTTP error before the stream starts is a ProviderError with its status', async () => {
    server.fail(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    const { error } = await drain(provider().stream(request()));
    expect(error, 'an HTTP error is wrapped with toProviderError (guided step 1)').toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status, 'the HTTP status is kept').toBe(529);
    expect(server.requests.length, 'no retries by the SDK').toBe(1);
  });

  test('an HTTP error that echoes the key is a ProviderError without the key', async () => {
    server.fail(401, { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key: ${KEY}` } });
    const { error } = await drain(provider().stream(request()));
    expect(error, 'an HTTP error is wrapped with toProviderError (guided step 1)').toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status, 'the HTTP status is kept').toBe(401);
    expect(
      (error as Error).message,
      'scrub the key as complete() does: toProviderError(this.name, error, [this.secret])',
    ).not.toContain(KEY);
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
    server.script([
      messageStart(),
      textStart(0),
      text(0, 'Thinking about it'),
      { wait: 2000 },
      text(0, ' never sent'),
      messageStop,
    ]);
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
    server.script([
      messageStart(),
      textStart(0),
      text(0, 'one'),
      { wait: 2000 },
      text(0, 'two'),
      stop(0),
      messageDelta('end_turn'),
      messageStop,
    ]);
    for await (const event of provider().stream(request())) {
      expect(event, 'the first event is the first text piece').toEqual({ type: 'text_delta', index: 0, text: 'one' });
      break;
    }
    await expect.poll(() => server.clientClosed, { timeout: HANG_MS }).toBe(true);
  });
});
