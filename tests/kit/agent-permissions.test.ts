/**
 * `npm run agent` with chapter 8's permission gate (chapter 8, wired by the factory of chapter 15), as a person runs it: a child
 * process in a temp workspace, with the OpenAI provider pointed at a fake API on 127.0.0.1.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentWorkspace,
  fileModelApi,
  openaiAnswer,
  openaiToolCall,
  runAgent,
  tempFolders,
  type AgentRun,
} from './agent-process.js';
import { KIT_HANG_MS } from './helpers.js';

const tempFolder = tempFolders('kit-agent-perm-');

/** A workspace and an empty HOME beside it (so the person's real ~/.claude/settings.json is never read). */
const folder = (files: Record<string, string> = {}) => agentWorkspace(tempFolder, { 'README.md': 'hi\n', ...files });

const api = fileModelApi();
const { requests } = api;
const bashCall = (command: string) => openaiToolCall('bash', { command });
const answer = (text: string) => openaiAnswer(text);

/**
 * Runs the agent in `cwd`. With `prompt`, an interactive session: the prompt is typed, each question is answered
 * with the next of `replies` as it appears, and stdin is closed once the model's last answer is shown.
 */
function agent(
  args: string[],
  where: { cwd: string; home: string },
  session?: { prompt: string; replies: string[]; last: string },
): Promise<AgentRun> {
  let questions = 0;
  return runAgent(args, {
    cwd: where.cwd,
    home: where.home,
    env: { OPENAI_API_KEY: 'dummy', OPENAI_BASE_URL: api.url, OPENAI_MODEL: 'm' },
    ...(session ? {} : { stdin: '' }),
    onStart: (child) => {
      if (session) child.stdin.write(`${session.prompt}\n`);
    },
    onOutput: (stdout, child) => {
      if (!session) return;
      const asked = stdout.split('[y]es / [n]o / [a]lways').length - 1;
      while (questions < asked) child.stdin.write(`${session.replies[questions++] ?? 'n'}\n`);
      if (stdout.includes(session.last) && child.stdin.writable) child.stdin.end();
    },
    killAfterMs: KIT_HANG_MS,
  });
}

describe('npm run agent with permissions (chapter 8, wired by the factory of chapter 15)', () => {
  it('asks before a command in default mode, and runs it once the person says yes', async () => {
    const where = folder();
    api.script(bashCall('touch made-by-agent'), answer('Made the file.'));
    const run = await agent([], where, { prompt: 'make a file', replies: ['y'], last: 'Made the file.' });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout, 'the question names the tool, then shows the command').toMatch(
      /Allow bash\? \(.+\)\n {4}touch made-by-agent\n/,
    );
    expect(existsSync(path.join(where.cwd, 'made-by-agent')), 'after "y" the command ran').toBe(true);
    expect(run.stderr, 'the banner names the mode').toContain('permissions: default mode');
  });

  it('does not run the command when the person says no, and the model reads that it was rejected', async () => {
    const where = folder();
    api.script(bashCall('touch nope'), answer('Understood.'));
    const run = await agent([], where, { prompt: 'make a file', replies: ['n'], last: 'Understood.' });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(existsSync(path.join(where.cwd, 'nope')), 'after "n" the command did not run').toBe(false);
    const result = requests[1].messages.find((m: any) => m.role === 'tool');
    expect(result.content, 'the model read the rejection').toMatch(/rejected/);
  });

  it('"always" adds a prefix rule for the session, and the next matching command is not asked about', async () => {
    const where = folder();
    api.script(bashCall('git init -q'), bashCall('git init -q again'), answer('Initialised twice.'));
    const run = await agent([], where, { prompt: 'init', replies: ['a'], last: 'Initialised twice.' });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout.split('[y]es / [n]o / [a]lways').length - 1, 'one question only').toBe(1);
    expect(run.stdout, 'the rule added is shown').toContain('allowed from now on in this session: Bash(git init:*)');
  });

  it('does not ask in bypassPermissions, and runs the command at once (-p, no terminal)', async () => {
    const where = folder();
    api.script(bashCall('touch bypassed'), answer('Done.'));
    const run = await agent(['--permission-mode', 'bypassPermissions', '-p', 'make a file'], where);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stdout, 'no question in bypassPermissions').not.toContain('[y]es / [n]o');
    expect(existsSync(path.join(where.cwd, 'bypassed')), 'the command ran').toBe(true);
    expect(run.stderr).toContain('permissions: bypassPermissions mode');
  });

  it('with nobody to ask (-p), a command is rejected with how to allow it; --allowedTools allows it', async () => {
    const where = folder();
    api.script(bashCall('touch asked'), answer('Could not.'));
    const run = await agent(['-p', 'make a file'], where);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(existsSync(path.join(where.cwd, 'asked')), 'nobody approved it').toBe(false);
    expect(
      requests[1].messages.find((m: any) => m.role === 'tool').content,
      'the model reads how to allow it',
    ).toContain('--allowedTools "Bash(touch asked)"');
    api.scripts = [bashCall('touch asked'), answer('Made it.')];
    const allowed = await agent(['--allowedTools', 'Bash(touch asked)', '-p', 'make a file'], where);
    expect(allowed.code, allowed.stderr + allowed.stdout).toBe(0);
    expect(existsSync(path.join(where.cwd, 'asked')), '--allowedTools allowed it').toBe(true);
  });

  it('a deny rule in .claude/settings.json denies even in bypassPermissions, with a line that says so', async () => {
    const where = folder({ '.claude/settings.json': JSON.stringify({ permissions: { deny: ['Bash(touch:*)'] } }) });
    api.script(bashCall('touch denied'), answer('Denied.'));
    const run = await agent(['--permission-mode', 'bypassPermissions', '-p', 'make a file'], where);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(existsSync(path.join(where.cwd, 'denied')), 'the deny rule wins').toBe(false);
    expect(run.stdout, 'a line for the denied call, naming the rule').toMatch(
      /⎿ denied: denied by the rule Bash\(touch:\*\)/,
    );
  });

  it('a malformed settings file stops the agent with the file and the rule named', async () => {
    const where = folder({ '.claude/settings.local.json': JSON.stringify({ permissions: { allow: ['Bash(npm'] } }) });
    api.scripts = [];
    const run = await agent(['-p', 'hi'], where);
    expect(run.code, run.stdout).not.toBe(0);
    expect(run.stderr).toContain('settings.local.json');
    expect(run.stderr).toContain('"Bash(npm"');
  });
});
