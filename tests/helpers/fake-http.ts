/**
 * Fake provider APIs for the tests of chapters 5 and 6. Nothing here reaches the network.
 *
 * - `fakeApi()` (chapter 5) puts msw in front of fetch for one test file: every request is recorded (URL, headers,
 *   parsed JSON body) and answered from a script; any request no handler expects fails the test
 *   (onUnhandledRequest: 'error'). The SDKs capture fetch when a client is made, so providers must be built inside
 *   the tests, after msw is listening.
 * - `sseServer()` (chapter 6) is a real node:http server on 127.0.0.1 that answers each POST with a scripted
 *   event stream, which can stop cleanly or cut the connection in the middle. A real socket, rather than msw, keeps
 *   clear of msw's hang on Node 20 when a mocked body is cancelled (an abort, a `break` out of a stream). Its
 *   server, `fakeHttpServer()`, is also the one behind the kit tests' fake model APIs (tests/kit/agent-process.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { AssistantMessage, ContentBlock } from 'kit/messages';
import type { StreamEvent } from 'kit/stream-events';

/** A request as the fake API received it. Header names are lower case. */
export interface RecordedHttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The parsed JSON body. */
  body: any;
}

/** A scripted answer: a JSON body (status 200), or an explicit status, body and headers. */
export type FakeAnswer = object | { status: number; json: unknown; headers?: Record<string, string> };

const isExplicit = (
  answer: FakeAnswer,
): answer is { status: number; json: unknown; headers?: Record<string, string> } =>
  'status' in answer && 'json' in answer && typeof (answer as { status: unknown }).status === 'number';

/** Registers msw for the current test file. Call at the top level of the file (it adds before/after hooks). */
export function fakeApi() {
  const server = setupServer();
  const requests: RecordedHttpRequest[] = [];
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    server.resetHandlers();
    requests.length = 0;
  });
  afterAll(() => server.close());
  return {
    /** Every request received in the current test, in order. */
    requests,
    /**
     * Answers POSTs to `url` with the given answers, one per request, in order. A request past the end of the
     * script gets a 500 that says so.
     */
    answer(url: string, ...answers: FakeAnswer[]) {
      let next = 0;
      server.use(
        http.post(url, async ({ request }) => {
          requests.push({
            method: request.method,
            url: request.url,
            headers: Object.fromEntries(request.headers),
            body: await request.clone().json(),
          });
          const answer = answers[next++];
          if (!answer)
            return HttpResponse.json(
              { error: { message: `fake API: no answer scripted for request ${next}` } },
              { status: 500 },
            );
          if (isExplicit(answer))
            return HttpResponse.json(answer.json as object, { status: answer.status, headers: answer.headers });
          return HttpResponse.json(answer);
        }),
      );
    },
  };
}

/** One step of a scripted event stream. */
export type SseStep =
  | string // a raw frame, written as it is (include the blank line that ends an SSE event)
  | { wait: number } // pause before the next step
  | { cut: true }; // destroy the socket here: the client sees the connection drop mid-stream

/** An Anthropic-style SSE frame: an `event:` line and a `data:` line. */
export const anthropicFrame = (data: { type: string; [key: string]: unknown }) =>
  `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

/** An OpenAI-style SSE frame: a `data:` line only. */
export const openaiFrame = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** What a fake server answers to one request: a scripted event stream, or a status and a JSON body (and headers). */
export type SseAnswer = SseStep[] | { status: number; body: unknown; headers?: Record<string, string> };

/** A node:http server on 127.0.0.1, not listening yet, that answers each request with what its `answer` returns. */
export interface FakeHttpServer {
  /** Listens on a free port; resolves to the server's URL, `http://127.0.0.1:<port>`. */
  listen(): Promise<string>;
  /** Cuts the streams still open (a finished test's), without closing the server. */
  hangUp(): void;
  /** Cuts every connection and closes the server. */
  close(): Promise<void>;
  /** True once the client has closed the connection of the latest stream (break, abort). */
  readonly clientClosed: boolean;
}

/**
 * The one fake HTTP server of the tests, for `sseServer()` here and for the kit's fake model APIs
 * (tests/kit/agent-process.ts): records nothing itself, but hands `answer` each request, parsed, and sends back what
 * it returns. A stream's `wait` ends early when the client hangs up, so no timer outlives a test.
 */
export function fakeHttpServer(answer: (request: RecordedHttpRequest) => SseAnswer): FakeHttpServer {
  const open = new Set<ServerResponse>();
  let clientClosed = false;
  let url = '';

  async function handle(req: IncomingMessage, res: ServerResponse) {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const reply = answer({
      method: req.method ?? '',
      url: `${url}${req.url}`,
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      ),
      body: raw ? JSON.parse(raw) : undefined,
    });
    if (!Array.isArray(reply)) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
      return;
    }
    clientClosed = false;
    open.add(res);
    res.on('close', () => {
      open.delete(res);
      if (!res.writableEnded) clientClosed = true;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    for (const step of reply) {
      if (res.destroyed) return;
      if (typeof step === 'string') res.write(step);
      else if ('wait' in step) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, step.wait)))]);
        clearTimeout(timer);
      } else {
        res.socket?.destroy();
        return;
      }
    }
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => res.destroy(error));
  });
  return {
    async listen() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return url;
    },
    hangUp() {
      for (const res of open) res.destroy();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
    get clientClosed() {
      return clientClosed;
    },
  };
}

export interface SseServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request received since the last reset, in order. */
  requests: RecordedHttpRequest[];
  /** Scripts the next POST: each entry of `streams` answers one request, in order. */
  script(...streams: SseStep[][]): void;
  /** Answers the next POST with an error status and JSON body instead of a stream. */
  fail(status: number, json: unknown): void;
  /** True once the client has closed the connection of the latest request (break, abort). */
  readonly clientClosed: boolean;
}

/**
 * A `fakeHttpServer()` for the current test file, started before the tests and closed after them; the script and
 * the requests are forgotten after each test. Call at the top level of the file.
 */
export function sseServer(): SseServer {
  const answers: SseAnswer[] = [];
  const requests: RecordedHttpRequest[] = [];
  const server = fakeHttpServer((request) => {
    requests.push(request);
    return (
      answers.shift() ?? {
        status: 500,
        body: { error: { message: `fake API: no stream scripted for request ${requests.length}` } },
      }
    );
  });
  let url = '';
  beforeAll(async () => {
    url = await server.listen();
  });
  afterEach(() => {
    answers.length = 0;
    requests.length = 0;
    server.hangUp();
  });
  afterAll(() => server.close());

  return {
    get url() {
      return url;
    },
    requests,
    script: (...streams) => void answers.push(...streams),
    fail: (status, json) => void answers.push({ status, body: json }),
    get clientClosed() {
      return server.clientClosed;
    },
  };
}

/** Every event of a stream, and what it rejected with (undefined when it finished). */
export async function drain(stream: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; error: unknown }> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return { events, error };
  }
}

/**
 * The turn a list of stream events describes: a small reducer for the provider tests, independent of the kit's own
 * accumulator. It also checks the rules every provider stream must follow, and fails the test with the rule broken:
 * a block's events all carry its index and one type; a tool call starts before its deltas and ends after them;
 * exactly one `finish`, last. Arguments that are empty become {}; JSON that does not parse, or whose value is a
 * string, stays the raw text. A call that never ended is allowed only in a turn cut at the limit ('max_tokens').
 */
export function turnFromEvents(events: readonly StreamEvent[]): AssistantMessage {
  const blocks: Array<ContentBlock & { json?: string; ended?: boolean }> = [];
  const fail = (at: number, rule: string): never =>
    expect.fail(`stream event ${at} (${JSON.stringify(events[at])}) breaks a rule: ${rule}`);
  let finish: Extract<StreamEvent, { type: 'finish' }> | undefined;
  events.forEach((event, at) => {
    if (finish) fail(at, 'nothing may follow the finish event');
    if (event.type === 'finish') {
      finish = event;
      return;
    }
    if (event.type === 'retry')
      return fail(at, "a provider never sends a retry notice itself: only chapter 10's retry wrapper does");
    const block = blocks[event.index];
    if (!block && event.index !== blocks.length) {
      fail(
        at,
        `index ${event.index} skips ahead: the next new block must have index ${blocks.length} (indices count the blocks of the finished turn)`,
      );
    }
    switch (event.type) {
      case 'text_delta':
        if (!block) blocks.push({ type: 'text', text: event.text });
        else if (block.type === 'text') block.text += event.text;
        else fail(at, `index ${event.index} belongs to a ${block.type} block, not text`);
        break;
      case 'thinking_delta':
        if (!block) blocks.push({ type: 'thinking', thinking: event.thinking });
        else if (block.type === 'thinking') block.thinking += event.thinking;
        else fail(at, `index ${event.index} belongs to a ${block.type} block, not thinking`);
        break;
      case 'thinking_signature':
        if (!block) blocks.push({ type: 'thinking', thinking: '', signature: event.signature });
        else if (block.type === 'thinking') block.signature = (block.signature ?? '') + event.signature;
        else fail(at, `index ${event.index} belongs to a ${block.type} block, not thinking`);
        break;
      case 'tool_call_start':
        if (block) fail(at, `tool_call_start for index ${event.index}, which already has a block`);
        blocks.push({ type: 'tool_call', id: event.id, name: event.name, arguments: undefined, json: '' });
        break;
      case 'tool_call_delta':
        if (!block || block.type !== 'tool_call') fail(at, 'tool_call_delta before the tool_call_start of its index');
        else if (block.ended) fail(at, 'tool_call_delta after the tool_call_end of its index');
        else block.json += event.argumentsDelta;
        break;
      case 'tool_call_end':
        if (!block || block.type !== 'tool_call') fail(at, 'tool_call_end before the tool_call_start of its index');
        else if (block.ended) fail(at, 'a second tool_call_end for the same index');
        else block.ended = true;
        break;
    }
  });
  if (!finish) expect.fail(`the stream ended without a finish event; events: ${JSON.stringify(events)}`);
  const content = blocks.map((block): ContentBlock => {
    if (block.type !== 'tool_call') return block;
    if (!block.ended && finish!.stopReason !== 'max_tokens')
      expect.fail(`tool call ${block.id} never got its tool_call_end`);
    const json = block.json ?? '';
    let args: unknown = {};
    if (json.trim() !== '') {
      try {
        args = JSON.parse(json);
        if (typeof args === 'string') args = json;
      } catch {
        args = json;
      }
    }
    return { type: 'tool_call', id: block.id, name: block.name, arguments: args };
  });
  return {
    role: 'assistant',
    content,
    stopReason: finish!.stopReason,
    ...(finish!.usage ? { usage: finish!.usage } : {}),
  };
}
