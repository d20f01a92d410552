/**
 * Running `npm run agent` (scripts/agent.ts) as a user does, for the kit tests of the agent and its parts: a child
 * process with its own environment (no provider variables of the real one), in a temp workspace, against a fake API
 * on 127.0.0.1; and the server-sent-event frames of the two wire formats.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { buildWorkspace } from '../../scripts/lib/regions.js';
import { fakeHttpServer, type SseAnswer } from '../helpers/fake-http.js';
import { REPO } from './helpers.js';

export const AGENT = path.join(REPO, 'scripts/agent.ts');

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface AgentRunOptions {
  /** The folder npm was run from (INIT_CWD): the agent's workspace. */
  cwd: string;
  /** HOME for the child (sessions and ~/.claude live there); the real one by default. */
  home?: string;
  /** Added to the environment, after the provider variables of the real one were removed. */
  env?: Record<string, string>;
  /** Written to stdin, which is then closed; left open when not given. */
  stdin?: string;
  /** Called once the child has started. */
  onStart?(child: ChildProcessWithoutNullStreams): void;
  /** Called with the whole stdout so far whenever it grows. */
  onOutput?(stdout: string, child: ChildProcessWithoutNullStreams): void;
  /** Kills the child after this long (a safety net for interactive runs). */
  killAfterMs?: number;
}

/** Runs the agent like `npm run agent -- <args>` (one node process, so a signal sent to it reaches the agent). */
export function runAgent(args: readonly string[], options: AgentRunOptions): Promise<AgentRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NO_COLOR: '1',
    INIT_CWD: options.cwd,
    ...(options.home ? { HOME: options.home } : {}),
  };
  for (const name of Object.keys(env)) if (/^(ANTHROPIC|OPENAI|CLAUDE|KIT)_/.test(name)) delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', AGENT, ...args], {
    cwd: REPO,
    env: { ...env, ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    options.onOutput?.(stdout, child);
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  options.onStart?.(child);
  if (options.stdin !== undefined) child.stdin.end(options.stdin);
  const timer = options.killAfterMs ? setTimeout(() => child.kill('SIGKILL'), options.killAfterMs) : undefined;
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** A function that makes a fresh temp folder (its real path) each call; all are removed after the test file. */
export function tempFolders(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
    made.push(dir);
    return dir;
  };
}

/** Writes `files` (paths relative to `dir`; folders made as needed) into `dir`, and returns `dir`. */
export function writeFiles(dir: string, files: Record<string, string> = {}): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/**
 * A workspace of fresh temp folders (from `tempFolder`, a `tempFolders` function) with these files, and a HOME of its
 * own beside it: sessions are saved there, and the person's real ~/.claude is never read.
 */
export function agentWorkspace(tempFolder: () => string, files: Record<string, string> = {}) {
  return { cwd: writeFiles(tempFolder(), files), home: tempFolder() };
}

/** One OpenAI server-sent event (`data: ...`), a string sent as it is ('[DONE]'). */
export const openaiData = (value: unknown) => `data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`;

/** One OpenAI chat-completion chunk with this delta (and a finish reason on the last). */
export const openaiChunk = (delta: object, finish: string | null = null, model = 'm') =>
  openaiData({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

/** A whole OpenAI turn that answers with `text`. */
export const openaiAnswer = (text: string, model?: string) => [
  openaiChunk({ role: 'assistant', content: text }, null, model),
  openaiChunk({}, 'stop', model),
  openaiData('[DONE]'),
];

/** One Anthropic server-sent event, named by its type. */
export const anthropicEvent = (data: { type: string; [key: string]: unknown }) =>
  `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

/** The event an Anthropic stream starts with: an empty assistant message of `model`, with `usage`. */
export const anthropicStart = (model: string, usage: object) =>
  anthropicEvent({
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });

/** A whole Anthropic turn that answers with `text`: `usage` as the stream starts, `outputTokens` as it ends. */
export const anthropicAnswer = (
  text: string,
  { model = 'm', usage = { input_tokens: 5, output_tokens: 1 } as object, outputTokens = 3 } = {},
) => [
  anthropicStart(model, usage),
  anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
  anthropicEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }),
  anthropicEvent({ type: 'content_block_stop', index: 0 }),
  anthropicEvent({
    type: 'message_delta',
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: outputTokens },
  }),
  anthropicEvent({ type: 'message_stop' }),
];

/**
 * A copy of solution/src in `dir` with the regions `stubbed` picks replaced by their stubs, for `KIT_SRC`: the agent
 * as a learner runs it with `--starter` before finishing those chapters.
 */
export function stubbedTree(dir: string, stubbed: (region: { chapter: number }) => boolean): string {
  for (const [rel, text] of buildWorkspace(path.join(REPO, 'solution/src'), stubbed).files) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  // ES modules, as in the kit (permissions/command.ts loads the bash grammar with a top-level await).
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  return dir;
}

/** What a scripted API answers to one request: stream frames (with pauses), or a status, a JSON body and headers. */
export type ApiReply = SseAnswer;

/** The answer to a request nothing was scripted for: a 400, which neither SDK retries. */
const nothingScripted = (): ApiReply => ({
  status: 400,
  body: {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'fake API: nothing scripted for this request' },
  },
});

/**
 * A fake model API on 127.0.0.1 (tests/helpers/fake-http.ts's server), OpenAI-compatible or Anthropic as the frames
 * scripted are: records each request body in `requests` and answers each request with the next reply of `scripts`,
 * or `otherwise(body)` once none is left. Call `start` in beforeAll and `stop` in afterAll; `url` is the base URL
 * to give the agent as OPENAI_BASE_URL (it ends in /v1), `origin` the one for ANTHROPIC_BASE_URL.
 */
export function fakeModelApi(otherwise: (body: any) => ApiReply = nothingScripted) {
  const api = {
    requests: [] as any[],
    scripts: [] as ApiReply[],
    url: '',
    origin: '',
    start,
    stop,
    /** Forgets the requests so far, and scripts the next ones. */
    script(...replies: ApiReply[]) {
      api.requests.length = 0;
      api.scripts.splice(0, api.scripts.length, ...replies);
    },
  };
  const server = fakeHttpServer(({ body }) => {
    api.requests.push(body);
    return api.scripts.shift() ?? otherwise(body);
  });
  async function start() {
    api.origin = await server.listen();
    api.url = `${api.origin}/v1`;
  }
  function stop() {
    return server.close();
  }
  return api;
}

/** `fakeModelApi` for the whole test file: listening from beforeAll on, closed in afterAll. */
export function fileModelApi(otherwise?: (body: any) => ApiReply) {
  const api = fakeModelApi(otherwise);
  beforeAll(api.start);
  afterAll(api.stop);
  return api;
}

/** `fakeModelApi`, by the name the ACP tests know it by. */
export const fakeOpenAI = fakeModelApi;

/**
 * A fake model API for one test, listening already, with `replies` scripted; closed after the test file.
 * `requests` are the bodies it received; `openaiEnv` and `anthropicEnv` point the agent at it.
 */
export async function scriptedApi(...replies: ApiReply[]) {
  const api = fakeModelApi();
  api.script(...replies);
  afterAll(api.stop);
  await api.start();
  return {
    requests: api.requests,
    openaiEnv: { OPENAI_API_KEY: 'dummy-key', OPENAI_BASE_URL: api.url, OPENAI_MODEL: 'fake-model' },
    anthropicEnv: {
      ANTHROPIC_API_KEY: 'sk-ant-dummy-key',
      ANTHROPIC_BASE_URL: api.origin,
      ANTHROPIC_MODEL: 'claude-sonnet-4-5',
    },
  };
}

/** One streamed OpenAI turn that calls one tool. */
export const openaiToolCall = (name: string, args: unknown, id = 'call_1') => [
  openaiChunk({
    role: 'assistant',
    tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
  }),
  openaiChunk({}, 'tool_calls'),
  openaiData('[DONE]'),
];
