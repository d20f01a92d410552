/**
 * `npm run agent` with chapter 9's part (chapter 9, wired by the factory of chapter 15), as a user runs it: a child process pointed
 * at a fake OpenAI-compatible API on 127.0.0.1 that asks for several reads in one turn.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fileModelApi,
  openaiAnswer,
  openaiChunk,
  openaiData,
  runAgent,
  stubbedTree,
  tempFolders,
  writeFiles,
} from './agent-process.js';

const tempFolder = tempFolders('kit-agent-exec-');
const folder = (files: Record<string, string> = {}) => writeFiles(tempFolder(), files);
const agent = (args: string[], cwd: string, env: Record<string, string>) => runAgent(args, { cwd, env });

// A fake OpenAI-compatible API: records each request body and answers with the next scripted stream.
const api = fileModelApi();
const { requests } = api;

const frame = openaiData;
const chunk = (delta: object, finish: string | null = null) => openaiChunk(delta, finish, 'fake-model');
/** One streamed turn that asks for `read` of each path, as calls call_1, call_2, ... */
const readTurn = (...paths: string[]) => [
  ...paths.map((p, index) =>
    chunk({
      tool_calls: [
        {
          index,
          id: `call_${index + 1}`,
          type: 'function',
          function: { name: 'read', arguments: JSON.stringify({ path: p }) },
        },
      ],
    }),
  ),
  chunk({}, 'tool_calls'),
  frame('[DONE]'),
];
const answer = (text: string) => openaiAnswer(text, 'fake-model');
const env = () => ({ OPENAI_API_KEY: 'dummy', OPENAI_BASE_URL: api.url, OPENAI_MODEL: 'fake-model' });
const reset = api.script;
const toolMessages = (body: any) => body.messages.filter((m: { role: string }) => m.role === 'tool');

describe('npm run agent with the executor part (chapter 9, wired by the factory of chapter 15)', () => {
  it("runs a turn's reads side by side and sends the results back in call order", async () => {
    const cwd = folder({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'c.txt': 'gamma\n' });
    reset(readTurn('a.txt', 'b.txt', 'c.txt'), answer('Read all three.'));
    const run = await agent(['-p', 'read the three files'], cwd, env());
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr, 'the banner names the limit and the budget').toContain(
      'executor: up to 4 read-only calls at once; tool output cut at 30000 characters',
    );
    const results = toolMessages(requests[1]);
    expect(
      results.map((m: { tool_call_id: string }) => m.tool_call_id),
      'results in call order',
    ).toEqual(['call_1', 'call_2', 'call_3']);
    expect(results.map((m: { content: string }) => m.content).join('|'), 'each result is its own file').toMatch(
      /alpha.*\|.*beta.*\|.*gamma/s,
    );
    expect(run.stdout).toContain('Read all three.');
  });

  it('--max-parallel 1 runs the calls one by one', async () => {
    const cwd = folder({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    reset(readTurn('a.txt', 'b.txt'), answer('Done.'));
    const run = await agent(['--max-parallel', '1', '-p', 'read both'], cwd, env());
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr).toContain('executor: up to 1 read-only call at once');
    expect(toolMessages(requests[1]).length).toBe(2);
  });

  it('--output-budget cuts a long result and keeps the whole in .agent/outputs for the read tool', async () => {
    const big = Array.from({ length: 400 }, (_, i) => `log line ${i + 1}`).join('\n');
    const cwd = folder({ 'build.log': big });
    reset(readTurn('build.log'), answer('It is long.'));
    const run = await agent(['--output-budget', '200', '-p', 'show the log'], cwd, env());
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const [sent] = toolMessages(requests[1]);
    expect(sent.content, 'the model gets the cut text with the note').toMatch(
      /characters cut; the whole output is in \.agent\/outputs\/call_1\.txt/,
    );
    expect(sent.content.length, 'about the budget, not the whole log').toBeLessThan(200 + 250);
    const kept = path.join(cwd, '.agent/outputs/call_1.txt');
    expect(existsSync(kept), 'the whole output is kept in the workspace').toBe(true);
    expect(readFileSync(kept, 'utf8'), "the read tool's whole output, with the last line").toContain('log line 400');
  });

  it('a bad --max-parallel or --output-budget is a clear usage error, not a stack', async () => {
    const cwd = folder();
    reset();
    for (const args of [
      ['--max-parallel', '0'],
      ['--max-parallel', 'many'],
      ['--output-budget', '-5'],
    ]) {
      const run = await agent([...args, '-p', 'hi'], cwd, env());
      expect(run.code, `${args.join(' ')}: exit code 2`).toBe(2);
      expect(run.stderr, `${args.join(' ')}: names the option`).toContain(args[0]!);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    expect(requests, 'no model call with a bad option').toEqual([]);
  });

  it('with chapter 9 unfinished (--starter) one line says so, and the calls run one at a time', async () => {
    const src = stubbedTree(tempFolder(), (region) => region.chapter === 9);
    const cwd = folder({ 'notes.md': '# Notes\n\nBuy milk.\n' });
    const run = await agent(['--provider', 'offline', '-p', 'read notes.md'], cwd, { KIT_SRC: src });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr, 'the one line about the tree names the part left out').toMatch(
      /^\(your code, without parallel calls \(9\) until that chapter is done\)$/m,
    );
    expect(run.stderr, 'no executor banner').not.toContain('executor: up to');
    expect(run.stdout, 'the run itself works, one call after another').toContain('Buy milk.');
  });
});
