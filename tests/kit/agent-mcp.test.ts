/**
 * `npm run agent` with MCP servers (chapter 11, wired by the factory of chapter 15), as a user runs it: a child process pointed at a fake
 * OpenAI-compatible API on 127.0.0.1, with real MCP servers (server-filesystem, server-everything) started over stdio
 * from `.mcp.json` and from `--mcp-config`.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileModelApi, openaiAnswer, openaiToolCall, runAgent, tempFolders, writeFiles } from './agent-process.js';

const require = createRequire(import.meta.url);
const binOf = (name: string) =>
  path.join(path.dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)), 'dist/index.js');
const tempFolder = tempFolders('kit-agent-mcp-');
const folder = (files: Record<string, string> = {}) => writeFiles(tempFolder(), files);
const agent = (args: string[], cwd: string, env: Record<string, string>) => runAgent(args, { cwd, env });

// A fake OpenAI-compatible API: records each request body and answers with the next scripted stream.
const api = fileModelApi();
const { requests } = api;
const toolCall = openaiToolCall;
const answer = (text: string) => openaiAnswer(text);
const env = () => ({ OPENAI_API_KEY: 'dummy', OPENAI_BASE_URL: api.url, OPENAI_MODEL: 'm' });

describe('npm run agent with MCP servers (chapter 11, wired by the factory of chapter 15)', () => {
  it('starts the servers of .mcp.json, notes the one that failed, uses the tools, and leaves no process behind', async () => {
    const cwd = folder({ 'hello.txt': 'hi\n' });
    writeFileSync(
      path.join(cwd, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          fs: { command: process.execPath, args: [binOf('server-filesystem'), '${WORKSPACE}'] },
          ghost: { command: path.join(cwd, 'no-such-server') },
        },
      }),
    );
    api.script(toolCall('mcp__fs__list_directory', { path: cwd }), answer('One file: hello.txt.'));
    // A server's readOnlyHint is only its claim: the person allows the server's tools (else -p, with nobody to ask, refuses them).
    const run = await agent(['--trust-workspace', '--allowedTools', 'mcp__fs', '-p', 'what is here?'], cwd, {
      ...env(),
      WORKSPACE: cwd,
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr, 'the banner names each server and its tool count').toMatch(/mcp: fs \(\d+ tools\)/);
    expect(run.stderr, 'a server that failed is noted, and the agent runs without it').toMatch(
      /mcp: ghost failed: MCP server "ghost" did not start/,
    );
    const offered = requests[0].tools.map((t: any) => t.function.name);
    expect(offered, "the built-in tools and the server's, namespaced").toEqual(
      expect.arrayContaining(['read', 'mcp__fs__list_directory', 'mcp__fs__read_text_file']),
    );
    const result = requests[1].messages.find((m: any) => m.role === 'tool');
    expect(result.content, "the server's answer went back to the model").toContain('[FILE] hello.txt');
    expect(run.stdout).toContain('● mcp__fs__list_directory');
    expect(run.stdout).toContain('One file: hello.txt.');
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(cwd));
    expect(left, 'every server process ends with the agent').toEqual([]);
  });

  it('--mcp-config FILE adds servers from another file (relative to where npm ran); a missing file is an error', async () => {
    const cwd = folder();
    writeFileSync(
      path.join(cwd, 'servers.json'),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [binOf('server-everything'), 'stdio'] } },
      }),
    );
    api.script(toolCall('mcp__everything__echo', { message: 'hello MCP' }), answer('It echoed.'));
    const run = await agent(
      ['--mcp-config', 'servers.json', '--allowedTools', 'mcp__everything__echo', '-p', 'echo something'],
      cwd,
      env(),
    );
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr).toMatch(/mcp: everything \(\d+ tools\)/);
    expect(requests[1].messages.find((m: any) => m.role === 'tool').content).toBe('Echo: hello MCP');
    const missing = await agent(['--mcp-config', 'nope.json', '-p', 'hi'], cwd, env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--mcp-config nope.json: no such file');
  });

  it("a --mcp-config server's readOnlyHint is only a claim: its tool is asked about in default mode and refused in plan mode", async () => {
    const cwd = folder();
    writeFileSync(
      path.join(cwd, 'servers.json'),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [binOf('server-everything'), 'stdio'] } },
      }),
    );
    // server-everything's echo says readOnlyHint: true. -p has nobody to ask, so a call that needs asking is refused.
    for (const mode of ['default', 'plan']) {
      api.script(toolCall('mcp__everything__echo', { message: 'hello MCP' }), answer('Done.'));
      const run = await agent(
        ['--mcp-config', 'servers.json', '--permission-mode', mode, '-p', 'echo something'],
        cwd,
        env(),
      );
      expect(run.code, run.stderr + run.stdout).toBe(0);
      const result = requests[1]?.messages.find((m: any) => m.role === 'tool')?.content ?? '';
      expect(result, `${mode} mode: the tool did not run unasked\n${run.stderr}${run.stdout}`).not.toContain(
        'Echo: hello MCP',
      );
      expect(result, `${mode} mode: the refusal says why`).toMatch(mode === 'plan' ? /plan mode/ : /Permission needed/);
    }
  });

  it('a bad .mcp.json is noted with the server and field, and the agent still answers', async () => {
    const cwd = folder();
    writeFileSync(path.join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { broken: { args: ['x'] } } }));
    api.script(answer('Fine without it.'));
    const run = await agent(['--trust-workspace', '-p', 'hi'], cwd, env());
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr).toMatch(/\.mcp\.json: server "broken": command/);
    expect(run.stdout).toContain('Fine without it.');
  });
});
