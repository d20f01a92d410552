/**
 * Chapter 12 in `npm run agent` (chapter 12, wired by the factory of chapter 15), as a person uses it: every session saved under
 * $HOME (a temp folder here), --resume ID, --continue, --list, /compact, the usage and cost at exit, the system prompt
 * from CLAUDE.md, and prompt-caching breakpoints in what reaches the Anthropic API. The API is a node:http server on
 * 127.0.0.1; nothing reaches the network.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicAnswer, fakeModelApi, runAgent, stubbedTree, tempFolders } from './agent-process.js';

const KEY = 'sk-ant-api03-PLANTED-SESSION-KEY-0123456789';
const tempFolder = tempFolders('kit-agent-session-');

/** A home folder and a project (a git repository with a CLAUDE.md) in a fresh temp folder. */
function setup() {
  const base = tempFolder();
  const home = path.join(base, 'home');
  const cwd = path.join(base, 'project');
  mkdirSync(path.join(cwd, '.git'), { recursive: true });
  mkdirSync(home);
  writeFileSync(path.join(cwd, 'CLAUDE.md'), 'Always answer in haiku.\n');
  return { home, cwd };
}

const agent = (
  args: string[],
  where: { home: string; cwd: string },
  env: Record<string, string> = {},
  stdin?: string,
) => runAgent(args, { cwd: where.cwd, home: where.home, env, stdin: stdin ?? '' });

/** An Anthropic stream that says `text`, with usage (cache counts included). */
const answer = (text: string) =>
  anthropicAnswer(text, {
    model: 'claude-sonnet-4-5',
    usage: { input_tokens: 100, output_tokens: 1, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 },
    outputTokens: 20,
  });

describe('npm run agent: sessions (chapter 12, wired by the factory of chapter 15)', () => {
  const api = fakeModelApi();
  const { requests, script } = api;
  beforeAll(api.start);
  afterAll(api.stop);
  const anthropicEnv = () => ({
    ANTHROPIC_API_KEY: KEY,
    ANTHROPIC_BASE_URL: api.origin,
    ANTHROPIC_MODEL: 'claude-sonnet-4-5',
    ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-4-5',
  });
  const sessionFiles = (home: string) => {
    const root = path.join(home, '.coding-agent', 'sessions');
    return readdirSync(root).flatMap((project) =>
      readdirSync(path.join(root, project))
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => path.join(root, project, f)),
    );
  };
  const records = (file: string) =>
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));

  it('saves the session as it goes, never the key, sends CLAUDE.md and cache breakpoints, and prints usage and cost', async () => {
    const where = setup();
    script(answer('Hello, saved.'));
    const run = await agent(['-p', 'hi'], where, anthropicEnv());
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const files = sessionFiles(where.home);
    expect(files.length, 'one session file under $HOME/.coding-agent/sessions/<project>').toBe(1);
    const text = readFileSync(files[0]!, 'utf8');
    expect(text.includes(KEY), 'the API key must never reach the session file').toBe(false);
    expect(records(files[0]!).map((r) => (r.type === 'message' ? `message ${r.message.role}` : r.type))).toEqual([
      'session',
      'system',
      'message user',
      'status',
      'message assistant',
      'usage',
      'status',
      'status',
    ]);
    expect(
      JSON.stringify(records(files[0]!).find((r) => r.type === 'system')),
      'the session remembers the system prompt it ran under, CLAUDE.md included (chapter 12)',
    ).toContain('Always answer in haiku.');
    const body = requests[0];
    expect(JSON.stringify(body.system), 'the system prompt holds the project CLAUDE.md').toContain(
      'Always answer in haiku.',
    );
    expect(body.system.at(-1).cache_control, 'a cache breakpoint on the system prompt').toEqual({ type: 'ephemeral' });
    expect(body.tools.at(-1).cache_control, 'a cache breakpoint on the last tool').toEqual({ type: 'ephemeral' });
    expect(body.messages.at(-1).content.at(-1).cache_control, 'a cache breakpoint on the last message').toEqual({
      type: 'ephemeral',
    });
    expect(JSON.stringify(body).split('cache_control').length - 1, 'at most four breakpoints').toBeLessThanOrEqual(4);
    const id = path.basename(files[0]!, '.jsonl');
    expect(run.stderr, 'the usage (cache included) and cost at the end').toContain(
      `session ${id} · 100 in · 20 out · 2,000 cache read · 300 cache write · $`,
    );
    expect(run.stderr, 'and how to resume').toContain(`--resume ${id}`);
  });

  it('--resume ID and --continue go on with the saved conversation; --list shows it', async () => {
    const where = setup();
    script(answer('First answer.'));
    expect((await agent(['-p', 'first'], where, anthropicEnv())).code).toBe(0);
    const id = path.basename(sessionFiles(where.home)[0]!, '.jsonl');

    script(answer('Second answer.'));
    const resumed = await agent(['--resume', id, '-p', 'second'], where, anthropicEnv());
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(
      requests[0].messages.map((m: any) => m.role),
      '--resume sends the saved history, then the new prompt',
    ).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(requests[0].messages[1]), 'the saved answer is there').toContain('First answer.');

    script(answer('Third answer.'));
    const continued = await agent(['--continue', '-p', 'third'], where, anthropicEnv());
    expect(continued.code, continued.stderr).toBe(0);
    expect(
      requests[0].messages.length,
      '--continue takes the session changed last: 4 saved messages and the new prompt',
    ).toBe(5);
    expect(sessionFiles(where.home).length, 'resume and continue append to the same file').toBe(1);

    const list = await agent(['--list'], where);
    expect(list.code).toBe(0);
    expect(list.stdout, '--list: the id, the number of messages and the first request').toMatch(
      new RegExp(`${id} .* 6 messages  first`),
    );

    const original = readFileSync(sessionFiles(where.home)[0]!, 'utf8');
    script(answer('Fourth answer, in the fork.'));
    const forked = await agent(['--resume', id, '--fork-session', '-p', 'fourth'], where, anthropicEnv());
    expect(forked.code, forked.stderr).toBe(0);
    expect(requests[0].messages.length, '--fork-session sends the saved history too: 6 messages and the prompt').toBe(
      7,
    );
    const after = sessionFiles(where.home);
    expect(after.length, '--fork-session writes a second session file, the copy').toBe(2);
    expect(readFileSync(path.join(path.dirname(after[0]!), `${id}.jsonl`), 'utf8'), 'the original is untouched').toBe(
      original,
    );
    const copy = after.find((file) => path.basename(file, '.jsonl') !== id)!;
    expect(records(copy)[0].forkedFrom, 'the copy says where it was forked from').toEqual({ id, messages: 6 });
    expect(forked.stderr, 'the exit line names the fork, not the original').toContain(
      `--resume ${path.basename(copy, '.jsonl')}`,
    );

    const missing = await agent(['--resume', 'no-such-session', '-p', 'x'], where, anthropicEnv());
    expect(missing.code, 'an unknown id is a clear error').toBe(2);
    expect(missing.stderr).toContain('no session no-such-session');
  });

  it('/compact asks the small fast model with the kit summary prompt, and the file records the compaction', async () => {
    const where = setup();
    // Build a history of 14 messages with the offline stand-in (real tools, no network): two requests with tool rounds.
    writeFileSync(path.join(where.cwd, 'README.md'), '# Project\n');
    expect((await agent(['--provider', 'offline', '-p', 'what is in this folder?'], where)).code).toBe(0);
    expect((await agent(['--provider', 'offline', '--continue', '-p', 'what is in this folder?'], where)).code).toBe(0);
    script({
      status: 200,
      body: {
        id: 'm2',
        type: 'message',
        role: 'assistant',
        model: 'claude-haiku-4-5',
        content: [{ type: 'text', text: 'Summary: listed the folder twice, read README.md.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 500, output_tokens: 30 },
      },
    });
    const run = await agent(['--continue'], where, anthropicEnv(), '/compact\n');
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout, '/compact says what it did').toMatch(/compacted \d+ older messages into a summary/);
    expect(requests.length, 'one request: the summary').toBe(1);
    expect(requests[0].model, 'asked of the small fast model').toBe('claude-haiku-4-5');
    expect(JSON.stringify(requests[0].system), 'with the kit summary prompt').toContain('Open tasks');
    const compaction = records(sessionFiles(where.home)[0]!).find((r) => r.type === 'compaction');
    expect(compaction, 'the compaction is a record of the session file').toMatchObject({
      from: 1,
      manual: true,
      summary: 'Summary: listed the folder twice, read README.md.',
    });
  });

  it('with --starter and chapter 12 unfinished, one line says so, nothing is saved, and --continue is refused', async () => {
    const where = setup();
    const src = stubbedTree(tempFolder(), (region) => region.chapter >= 12);
    writeFileSync(path.join(where.cwd, 'README.md'), '# Project\n');
    const run = await agent(['--provider', 'offline', '-p', 'what is in this folder?'], where, { KIT_SRC: src });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr, 'the one line about the tree names what is left out').toMatch(
      /^\(your code, without saved sessions \(12\), planning tools \(13\), the sandbox \(16: [^)]*\) until those chapters are done; /m,
    );
    expect(existsSync(path.join(where.home, '.coding-agent')), 'nothing is saved').toBe(false);
    expect(run.stdout).toContain('README.md');
    const again = await agent(['--provider', 'offline', '--continue', '-p', 'go on'], where, { KIT_SRC: src });
    expect(again.code, 'a session that cannot have been saved cannot be continued').not.toBe(0);
    expect(again.stderr).toMatch(/--resume and --continue need chapter 12/);
  });
});
