/**
 * `npm run agent` with chapter 13's part (chapter 13, wired by the factory of chapter 15), as a person runs it: plan mode with the
 * plan approved at the terminal, the task list drawn, and a sub-agent's work shown under its call. A child process in
 * a temp workspace, the OpenAI provider pointed at a fake API on 127.0.0.1.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeOpenAI, openaiAnswer, openaiToolCall, runAgent, tempFolders } from './agent-process.js';
import { KIT_HANG_MS } from './helpers.js';

const tempFolder = tempFolders('kit-agent-plan-');

function folder() {
  const base = tempFolder();
  const cwd = path.join(base, 'project');
  const home = path.join(base, 'home');
  mkdirSync(home);
  mkdirSync(cwd);
  writeFileSync(path.join(cwd, 'a.txt'), 'old\n');
  return { cwd, home };
}

const api = fakeOpenAI(() => openaiAnswer('(nothing scripted)'));
beforeAll(api.start);
afterAll(api.stop);

let ids = 0;
const toolCall = (name: string, args: object) => openaiToolCall(name, args, `call_${++ids}`);
const env = () => ({ OPENAI_API_KEY: 'dummy', OPENAI_BASE_URL: api.url, OPENAI_MODEL: 'm' });

describe('npm run agent with plan mode, the task list and sub-agents (chapter 13, wired by the factory of chapter 15)', () => {
  it('plans in plan mode: a command is refused, the task list is drawn, the plan is approved at the terminal and the edit runs', async () => {
    const where = folder();
    api.requests.length = 0;
    api.scripts = [
      toolCall('bash', { command: 'touch sneaky' }),
      toolCall('todo_write', {
        todos: [
          { content: 'Change a.txt', status: 'in_progress', activeForm: 'Changing a.txt' },
          { content: 'Check it', status: 'pending' },
        ],
      }),
      toolCall('exit_plan_mode', { plan: '1. Write "new" into a.txt' }),
      toolCall('write', { path: 'a.txt', content: 'new\n' }),
      openaiAnswer('Changed a.txt.'),
    ];
    let answered = false;
    const run = await runAgent(['--permission-mode', 'plan'], {
      cwd: where.cwd,
      home: where.home,
      env: env(),
      onStart: (child) => child.stdin.write('change a.txt\n'),
      onOutput: (stdout, child) => {
        if (!answered && stdout.includes('Approve this plan?')) {
          answered = true;
          child.stdin.write('a\n');
        }
        if (stdout.includes('Changed a.txt.') && child.stdin.writable) child.stdin.end();
      },
      killAfterMs: KIT_HANG_MS,
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect(run.stderr, 'the banner says the agent plans first').toContain('plan mode');
    expect(existsSync(path.join(where.cwd, 'sneaky')), 'bash did not run while planning').toBe(false);
    expect(api.requests[0].messages[0].content, 'the model is told it is planning').toContain('You are in plan mode');
    expect(run.stdout, 'the task list is drawn').toContain('◐ Changing a.txt');
    expect(run.stdout).toContain('☐ Check it');
    expect(run.stdout, 'the plan is shown before the question').toMatch(
      /The plan:\s+1\. Write "new" into a\.txt[\s\S]*Approve this plan\?/,
    );
    expect(run.stdout, 'the mode change is shown').toContain('mode: plan → acceptEdits');
    expect(
      readFileSync(path.join(where.cwd, 'a.txt'), 'utf8'),
      'after the approval, the write ran without a question (acceptEdits)',
    ).toBe('new\n');
    expect(run.stdout.split('[y]es / [n]o / [a]lways').length - 1, 'no permission question in acceptEdits').toBe(0);
  });

  it('runs a task as a sub-agent with its own history, shows its work indented under the call, and hands its answer back', async () => {
    const where = folder();
    api.requests.length = 0;
    api.scripts = [
      toolCall('task', { description: 'Read a.txt', prompt: 'How many lines has a.txt?' }),
      toolCall('read', { path: 'a.txt' }),
      openaiAnswer('a.txt has 1 line.'),
      openaiAnswer('The sub-agent says a.txt has 1 line.'),
    ];
    const run = await runAgent(['-p', 'count the lines of a.txt'], {
      cwd: where.cwd,
      home: where.home,
      env: env(),
      stdin: '',
      killAfterMs: KIT_HANG_MS,
    });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const child = api.requests[1];
    expect(
      child.messages.map((m: any) => m.role),
      'the child starts from the system prompt and its prompt only',
    ).toEqual(['system', 'user']);
    expect(child.messages[1].content).toBe('How many lines has a.txt?');
    expect(
      child.tools.map((t: any) => t.function.name),
      'the child has no task tool (depth 1)',
    ).not.toContain('task');
    expect(run.stdout, "the child's call is shown indented under the task call").toMatch(/^ {2,}● read\(/m);
    const parentNext = api.requests[3].messages;
    expect(parentNext.find((m: any) => m.role === 'tool')?.content, "the parent reads the child's answer").toBe(
      'a.txt has 1 line.',
    );
    expect(
      parentNext.some((m: any) => m.role === 'tool' && m.content.includes('old')),
      'the parent never sees what the child read',
    ).toBe(false);
    expect(run.stdout).toContain('The sub-agent says a.txt has 1 line.');
  });
});
