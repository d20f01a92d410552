/**
 * `npm run agent` (scripts/agent.ts) as a user runs it: a child process with its own environment. The real
 * providers are pointed at a fake API on 127.0.0.1 (node:http), so nothing reaches the network.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sseServer } from '../helpers/fake-http.js';
import { runAgent, stubbedTree, tempFolders, type AgentRun, type AgentRunOptions } from './agent-process.js';
import { KIT_HANG_MS } from './helpers.js';

const tempFolder = tempFolders('kit-agent-ws-');

/** A folder for the agent to work in. */
function workspace(files: Record<string, string>): string {
  const dir = tempFolder();
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/**
 * Runs the agent like `npm run agent -- <args>` from `cwd`; `env` adds the test's own variables, `onOutput` sees
 * stdout as it grows. HOME is a temp folder: chapter 12 saves every session under $HOME, never in the real one.
 */
function agent(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
  onOutput?: AgentRunOptions['onOutput'],
): Promise<AgentRun> {
  return runAgent(args, { cwd, home: tempFolder(), env, ...(onOutput ? { onOutput } : {}) });
}

/**
 * A fake model API (tests/helpers/fake-http.ts): records each POST and answers it with the next scripted SSE body (a
 * list of frames); its requests' URLs are their paths. Forgets both after each test.
 */
function fakeApi() {
  const server = sseServer();
  return {
    get requests() {
      return server.requests.map((request) => ({ ...request, url: new URL(request.url).pathname }));
    },
    get url() {
      return server.url;
    },
    script: server.script,
  };
}

const openai = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const chunk = (delta: object, finish_reason: string | null = null) =>
  openai({
    id: 'c1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'fake-model',
    choices: [{ index: 0, delta, finish_reason }],
  });
const anthropic = (data: { type: string; [key: string]: unknown }) =>
  `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
const usage = { input_tokens: 10, output_tokens: 1 };

describe('npm run agent (scripts/agent.ts)', () => {
  const api = fakeApi();

  it('runs offline with no API key: at least one real tool call, then an answer built from its result', async () => {
    const cwd = workspace({
      'README.md': '# Tiny project\n\nA folder for the offline agent test.\n',
      'src/main.ts': 'export {}\n',
    });
    const run = await agent(['-p', 'what is in this folder?'], cwd);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout, 'each tool call is shown as it runs').toMatch(/● glob\(\*\)/);
    expect(run.stdout, 'then a one-line summary of its result').toMatch(/⎿ /);
    expect(run.stdout, 'it reads the README it found').toContain('● read(README.md)');
    expect(run.stdout, 'the answer comes from the tool results').toContain('README.md');
    expect(run.stdout).toContain('Tiny project');
    expect(run.stdout, 'and says plainly that it is offline').toContain('Offline mode');
    expect(run.stderr, 'the banner names the provider and the workspace (INIT_CWD)').toContain(cwd);
  });

  it('uses an OpenAI-compatible server from OPENAI_BASE_URL with a dummy key, and runs the tool it asks for', async () => {
    const cwd = workspace({ 'hello.txt': 'hi\n' });
    api.script(
      [
        chunk({ role: 'assistant', content: 'Looking. ' }),
        chunk({
          tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'glob', arguments: '' } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"patt' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'ern":"*"}' } }] }),
        chunk({}, 'tool_calls'),
        openai('[DONE]'),
      ],
      [
        chunk({ content: 'There is one file: ' }),
        chunk({ content: 'hello.txt.' }),
        chunk({}, 'stop'),
        openai('[DONE]'),
      ],
    );
    const run = await agent(['-p', 'list the files'], cwd, {
      OPENAI_API_KEY: 'dummy-key',
      OPENAI_BASE_URL: `${api.url}/v1`,
      OPENAI_MODEL: 'fake-model',
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(
      api.requests.map((r) => r.url),
      'two streamed calls to the fake server',
    ).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    expect(api.requests[0]!.headers.authorization).toBe('Bearer dummy-key');
    expect(api.requests[0]!.body).toMatchObject({ model: 'fake-model', stream: true });
    const tool = api.requests[1]!.body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(tool, 'the glob result went back to the server').toMatchObject({
      tool_call_id: 'call_1',
      content: 'hello.txt',
    });
    expect(run.stdout).toContain('● glob(*)');
    expect(run.stdout).toContain('There is one file: hello.txt.');
    expect(run.stderr).toContain('openai fake-model');
  });

  it('prefers Anthropic when ANTHROPIC_API_KEY is set, at ANTHROPIC_BASE_URL', async () => {
    const cwd = workspace({});
    api.script([
      anthropic({
        type: 'message_start',
        message: {
          id: 'm1',
          type: 'message',
          role: 'assistant',
          model: 'fake-claude',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      }),
      anthropic({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      anthropic({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello from ' } }),
      anthropic({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'the fake Claude.' } }),
      anthropic({ type: 'content_block_stop', index: 0 }),
      anthropic({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 5 },
      }),
      anthropic({ type: 'message_stop' }),
    ]);
    const run = await agent(['-p', 'hi'], cwd, {
      ANTHROPIC_API_KEY: 'sk-ant-dummy',
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_MODEL: 'fake-claude',
      OPENAI_API_KEY: 'not-this-one',
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(api.requests.map((r) => r.url)).toEqual(['/v1/messages']);
    expect(run.stdout).toContain('Hello from the fake Claude.');
  });

  it('--provider offline wins over the environment; a missing model is a clear message, not a stack', async () => {
    const cwd = workspace({ 'a.txt': 'x\n' });
    api.script();
    const offline = await agent(['--provider', 'offline', '-p', 'what is in this folder?'], cwd, {
      OPENAI_API_KEY: 'k',
      OPENAI_BASE_URL: `${api.url}/v1`,
    });
    expect(offline.code).toBe(0);
    expect(api.requests, 'the offline provider makes no request').toEqual([]);
    const noModel = await agent(['-p', 'hi'], cwd, { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${api.url}/v1` });
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toContain('OPENAI_MODEL');
    expect(noModel.stderr).not.toMatch(/\n\s+at /);
  });

  it('Ctrl-C stops the running turn and the program exits with 130', async () => {
    const cwd = workspace({});
    api.script([
      chunk({ role: 'assistant', content: 'Thinking very slowly' }),
      { wait: 2 * KIT_HANG_MS },
      chunk({}, 'stop'),
      openai('[DONE]'),
    ]);
    let sent = false;
    const run = await agent(
      ['-p', 'hi'],
      cwd,
      { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: `${api.url}/v1`, OPENAI_MODEL: 'm' },
      (stdout, child) => {
        if (!sent && stdout.includes('slowly')) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    );
    expect(sent, 'the first text arrived while the stream was still open').toBe(true);
    expect(run.code).toBe(130);
    // The stream stays open far longer than the test waits: a run that Ctrl-C did not stop ends 0, not 130.
    expect(run.stdout).toContain('(stopped)');
  });

  it('--starter with unfinished chapters prints which chapter to finish', async () => {
    const run = await agent(['--starter', '-p', 'hi'], workspace({}));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/finish chapter \d+ first/);
  });

  /** A source tree with the chapters from `from` on stubbed, as a learner's starter/src would be. */
  function treeStubbedFrom(from: number): string {
    return stubbedTree(tempFolder(), (region) => region.chapter >= from);
  }

  it("with chapter 7 unfinished, the kit's loop runs the learner's tools, and one line says what is left out", async () => {
    const run = await agent(['-p', 'read notes.md'], workspace({ 'notes.md': '# Notes\n\nBuy milk.\n' }), {
      KIT_SRC: treeStubbedFrom(7),
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr, "one line names what is left out and what runs the kit's code").toMatch(
      /^\(your code, without permission rules \(8: [^\n]*planning tools \(13\), the sandbox \(16: [^)]*\) until those chapters are done; the kit's code for the stubs of chapters 7 and 15 you have not written\)$/m,
    );
    expect(
      run.stderr.split('\n').filter((line) => /chapter \d+|\(\d+\)/.test(line)),
      'one line about the chapters, not one per part',
    ).toHaveLength(1);
    expect(run.stderr, 'no banner line for a part that is left out').not.toMatch(/^(permissions|executor|retries):/m);
    expect(run.stdout).toContain('● read(notes.md)');
    expect(run.stdout).toContain('Buy milk.');
  });

  it('after chapter 3 (chapters 4-7 unfinished) the same factory runs, and each tool call is shown with its result', async () => {
    const run = await agent(['-p', 'read notes.md'], workspace({ 'notes.md': '# Notes\n\nBuy milk.\n' }), {
      KIT_SRC: treeStubbedFrom(4),
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr).toMatch(/the kit's code for the stubs of chapters 6, 7 and 15 you have not written\)$/m);
    expect(run.stdout, 'the call, then its result right under it').toMatch(
      /● read\(notes\.md\)\n\s*⎿ ok\n[^\n]*# Notes/,
    );
    expect(run.stdout).toContain('Buy milk.');
  });
});
