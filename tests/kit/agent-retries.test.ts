/**
 * `npm run agent` with chapter 10's part (chapter 10, wired by the factory of chapter 15), as a user runs it: a child process pointed
 * at a fake Anthropic API on 127.0.0.1 that is overloaded, rate limited, or refuses a bad request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicAnswer, type ApiReply, fakeModelApi, runAgent, stubbedTree, tempFolders } from './agent-process.js';

const folder = tempFolders('kit-agent-retry-');
const agent = (args: string[], cwd: string, env: Record<string, string>) => runAgent(args, { cwd, home: cwd, env });

type Answer = { status: number; type: string; headers?: Record<string, string> } | string;

/** What the fake API sends for an answer: an Anthropic error, or a stream that says the text. */
const reply = (answer: Answer): ApiReply =>
  typeof answer === 'string'
    ? anthropicAnswer(answer)
    : {
        status: answer.status,
        body: { type: 'error', error: { type: answer.type, message: `fake ${answer.type}` } },
        headers: answer.headers,
      };

// A fake Anthropic API: records each request body and answers with the next scripted error or text.
const api = fakeModelApi(() => reply({ status: 500, type: 'api_error' }));
const { requests } = api;
beforeAll(api.start);
afterAll(api.stop);

const fast = { 'retry-after-ms': '20' };
const env = (extra: Record<string, string> = {}) => ({
  ANTHROPIC_API_KEY: 'sk-ant-dummy-key',
  ANTHROPIC_BASE_URL: api.origin,
  ANTHROPIC_MODEL: 'big-model',
  ...extra,
});
const reset = (...script: Answer[]) => api.script(...script.map(reply));

describe('npm run agent with the retries part (chapter 10, wired by the factory of chapter 15)', () => {
  it('retries an overloaded and a rate-limited call with a line for each, then answers', async () => {
    reset(
      { status: 529, type: 'overloaded_error', headers: fast },
      { status: 429, type: 'rate_limit_error', headers: { 'retry-after-ms': '1500' } },
      'Finally here.',
    );
    const run = await agent(['-p', 'hello'], folder(), env());
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr, 'the banner says retries are on').toContain('retries: up to 4 (waits of up to 60 s)');
    expect(run.stdout, 'a line per retry, with the reason, the wait and the attempt').toContain(
      '⟳ retrying in 0.0 s (attempt 2 of 5): overloaded (529)',
    );
    expect(run.stdout).toContain('⟳ retrying in 1.5 s (attempt 3 of 5): rate limited (429)');
    expect(run.stdout).toContain('Finally here.');
    expect(requests.length, 'three calls in all').toBe(3);
  });

  it('falls back to the small fast model after three overloaded answers in a row, and says so', async () => {
    const overloaded = { status: 529, type: 'overloaded_error', headers: fast };
    reset(overloaded, overloaded, overloaded, 'From the small model.');
    const run = await agent(['-p', 'hello'], folder(), env({ ANTHROPIC_SMALL_FAST_MODEL: 'small-model' }));
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr, 'the banner names the fallback').toContain('falls back to small-model when overloaded');
    expect(
      requests.map((body) => body.model),
      'the fourth call asks for the small fast model',
    ).toEqual(['big-model', 'big-model', 'big-model', 'small-model']);
    expect(run.stdout, 'the line says which model the next try uses').toContain('(attempt 4 of 5, with small-model)');
    expect(run.stdout).toContain('From the small model.');
  });

  it('a bad request is not retried, and --max-retries 0 turns retries off', async () => {
    reset({ status: 400, type: 'invalid_request_error', headers: fast }, 'never');
    const bad = await agent(['-p', 'hello'], folder(), env());
    expect(requests.length, 'a 400 is sent once').toBe(1);
    expect(bad.stdout + bad.stderr, "the provider's error is shown").toContain('invalid_request_error');
    expect(bad.stdout, 'no retry line').not.toContain('retrying in');

    reset({ status: 529, type: 'overloaded_error', headers: fast }, 'never');
    const off = await agent(['--max-retries', '0', '-p', 'hello'], folder(), env());
    expect(off.stderr, 'the banner says so').toContain('retries: off');
    expect(requests.length, 'no retry').toBe(1);
    expect(off.stdout + off.stderr, 'the error says the one try was spent').toContain(
      'gave up after 1 attempt (overloaded (529))',
    );
  });

  it('a bad --max-retries is a clear usage error, not a stack', async () => {
    reset();
    const run = await agent(['--max-retries', 'lots', '-p', 'hi'], folder(), env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--max-retries takes a whole number');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(requests).toEqual([]);
  });

  it('with chapter 10 unfinished (--starter) one line says so, and an overloaded call is not tried again', async () => {
    const src = stubbedTree(folder(), (region) => region.chapter === 10);
    reset({ status: 529, type: 'overloaded_error', headers: fast }, 'Too late.');
    const run = await agent(['-p', 'hello'], folder(), { ...env(), KIT_SRC: src });
    expect(run.stderr, 'the one line about the tree names the part left out').toMatch(
      /^\(your code, without retries \(10\) until that chapter is done\)$/m,
    );
    expect(run.stderr, 'no retries banner').not.toContain('retries: up to');
    expect(run.code, 'the overloaded answer ends the run: exit code 1').toBe(1);
    expect(requests.length, 'one try, no retry').toBe(1);
    expect(run.stdout).not.toContain('Too late.');
  });
});
