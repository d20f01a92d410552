/**
 * What `npm run agent` and `npm run acp` print and what scripts read of them: no credential of a base URL in the
 * banner, an error or the editor's log, and the fields of Claude Code's `-p` output that scripts rely on
 * (`--output-format json`'s result, stream-json's init line).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers.js';
import { openaiAnswer, openaiToolCall, runAgent, scriptedApi, tempFolders } from './agent-process.js';

const tempFolder = tempFolders('kit-agent-output-');
const shown = (run: { code: number | null; stdout: string; stderr: string }) =>
  `exit ${run.code}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;

const QUERY_KEY = 'gateway-query-key-0123456789';
const PASSWORD = 'gateway-password-42';
const GATEWAY = `http://gwuser:${PASSWORD}@127.0.0.1:9/v1?api_key=${QUERY_KEY}&region=eu`;

describe('a base URL with credentials (scripts/agent.ts, scripts/acp.ts)', () => {
  it('npm run agent: the banner and the error show the gateway without its password or its query key', async () => {
    const home = tempFolder();
    const run = await runAgent(['-p', 'hi', '--max-retries', '0', '--no-session'], {
      cwd: tempFolder(),
      home,
      env: { ANTHROPIC_API_KEY: 'sk-ant-dummy-key', ANTHROPIC_BASE_URL: GATEWAY, ANTHROPIC_MODEL: 'claude-sonnet-4-5' },
      stdin: '',
      killAfterMs: 120_000,
    });
    expect(run.stderr, shown(run)).toMatch(
      /agent · anthropic claude-sonnet-4-5 at http:\/\/\[REDACTED\]@127\.0\.0\.1:9\/v1\?api_key=\[REDACTED\]&region=\[REDACTED\]/,
    );
    expect(run.stdout, `the request failed and said so\n${shown(run)}`).toMatch(/error: .*http:\/\/\[REDACTED\]@127/);
    for (const secret of [QUERY_KEY, PASSWORD, 'gwuser'])
      expect(run.stdout + run.stderr, `${secret} is never printed\n${shown(run)}`).not.toContain(secret);
  });

  it("npm run acp: the editor's log names the gateway without its credentials", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: tempFolder() };
    for (const name of Object.keys(env)) if (/^(ANTHROPIC|OPENAI|CLAUDE|KIT)_/.test(name)) delete env[name];
    Object.assign(env, { OPENAI_API_KEY: 'dummy-key', OPENAI_BASE_URL: GATEWAY, OPENAI_MODEL: 'fake-model' });
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'scripts/acp.ts')], { cwd: REPO, env });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const closed = new Promise((resolve) => child.on('close', resolve));
    child.stdin.end();
    await closed;
    expect(stderr, stderr).toMatch(/acp · openai fake-model at http:\/\/\[REDACTED\]@127\.0\.0\.1:9\/v1\?api_key=/);
    for (const secret of [QUERY_KEY, PASSWORD, 'gwuser'])
      expect(stderr, `${secret} is never printed`).not.toContain(secret);
  });
});

/** `npm run agent <args>` in a fresh folder with a HOME of its own, stdin closed; it must exit 0. */
async function printed(args: string[], env: Record<string, string>) {
  const run = await runAgent(args, { cwd: tempFolder(), home: tempFolder(), env, stdin: '', killAfterMs: 120_000 });
  expect(run.code, shown(run)).toBe(0);
  return run;
}

describe("-p's output for scripts (scripts/agent.ts, chapter 15's StreamJsonWriter)", () => {
  it('--output-format json: permission_denials lists the refused call with its input; modelUsage, stop_reason and uuid are there', async () => {
    const api = await scriptedApi(
      openaiToolCall('write', { path: 'notes.txt', content: 'hello' }, 'call_w'),
      openaiAnswer('I could not write it.'),
    );
    const run = await printed(['-p', 'write notes.txt', '--output-format', 'json', '--no-session'], api.openaiEnv);
    const result = JSON.parse(run.stdout) as Record<string, any>;
    expect(
      result.permission_denials,
      `nobody could answer the question, so the write was refused\n${shown(run)}`,
    ).toEqual([{ tool_name: 'Write', tool_use_id: 'call_w', tool_input: { path: 'notes.txt', content: 'hello' } }]);
    expect(result.stop_reason).toBe('end_turn');
    expect(result.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.keys(result.modelUsage), 'modelUsage is keyed by the model').toEqual(['fake-model']);
    expect(result.modelUsage['fake-model']).toMatchObject({ webSearchRequests: 0, costUSD: null });
  });

  it("stream-json: the init line names the MCP servers, the slash commands and the kit's version", async () => {
    const api = await scriptedApi(openaiAnswer('Hello.'));
    const run = await printed(['-p', 'hi', '--output-format', 'stream-json', '--no-session'], api.openaiEnv);
    const [init, ...rest] = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, any>);
    const { version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    expect(init, shown(run)).toMatchObject({
      type: 'system',
      subtype: 'init',
      mcp_servers: [],
      claude_code_version: version,
    });
    expect(init!.slash_commands, 'the built-in commands, without the slash').toEqual(
      expect.arrayContaining(['help', 'compact', 'clear']),
    );
    expect(rest.at(-1), 'the result has its own uuid').toMatchObject({ type: 'result', subtype: 'success' });
    expect(rest.at(-1)!.uuid).not.toBe(init!.uuid);
  });
});
