import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { emptyHookConfig, type HookRun } from 'kit/capstone/command-hooks';
import {
  agentHooks,
  agentTools,
  mcpServerList,
  openSavedSession,
  permissionSetup,
  retryPolicy,
  DEFAULT_MAX_RETRIES,
  type HookParts,
} from 'kit/capstone/factory';
import type { Hooks } from 'kit/hooks';
import { assistantText, assistantToolCalls } from 'kit/messages';
import { parseRule } from 'kit/permissions/rules';
import type { PermissionGate } from 'kit/permissions/gate';
import { SessionStore } from 'kit/session/store';
import { defineTool } from 'kit/tool';
import { z } from 'zod';
import { fakeServer, toolInfo } from '../chapter11/fixtures.js';
import { within } from '../helpers/wait.js';
import { build, doneOf, noSettings, resultText, runPrompt, workspace, writeFiles } from './factory-fixtures.js';

/** The error `run` throws (a TODO stays a TODO, so an unfinished stub says so rather than failing an assertion). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return error;
  }
  return undefined;
}

/** The error `promise` rejects with, or undefined when it resolves (a TODO is thrown as it is). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return error;
  }
  return undefined;
}
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

const rulesText = (rules: ReadonlyArray<{ behavior: string; tool: string; specifier?: string; source: string }>) =>
  rules.map(
    (rule) => `${rule.behavior} ${rule.tool}${rule.specifier ? `(${rule.specifier})` : ''} from ${rule.source}`,
  );
const overloaded = () => Object.assign(new Error('overloaded'), { status: 529 });
const bashCall = (id: string, command: string) => assistantToolCalls([{ id, name: 'bash', arguments: { command } }]);

describe('permissionSetup (src/capstone/factory-pieces.ts)', () => {
  test("the flags' rules come first (deny, then allow), then the settings files' rules, each with its source", () => {
    const settings = noSettings({ rules: [parseRule('Bash(git push:*)', 'ask', '/p/.claude/settings.json')] });
    const setup = permissionSetup(
      { disallowedTools: ['Bash(rm:*)', 'WebFetch'], allowedTools: ['Edit(src/**)'] },
      settings,
    );
    expect(
      rulesText(setup.rules),
      "permissionSetup: --disallowedTools as deny rules, then --allowedTools as allow rules, then the settings' rules as they are (guided steps 1-3)",
    ).toEqual([
      'deny Bash(rm:*) from --disallowedTools',
      'deny WebFetch from --disallowedTools',
      'allow Edit(src/**) from --allowedTools',
      'ask Bash(git push:*) from /p/.claude/settings.json',
    ]);
    expect(
      rulesText(permissionSetup({}, settings).rules),
      'permissionSetup: no flags given means no rules from flags (the lists may be missing) (guided steps 1-2)',
    ).toEqual(['ask Bash(git push:*) from /p/.claude/settings.json']);
  });

  test("the mode: the flag, else the settings' defaultMode, else default", () => {
    const planned = noSettings({ defaultMode: 'plan' });
    expect(
      permissionSetup({ permissionMode: 'acceptEdits' }, planned).mode,
      "permissionSetup: --permission-mode wins over the settings' defaultMode (guided step 4)",
    ).toBe('acceptEdits');
    expect(
      permissionSetup({}, planned).mode,
      "permissionSetup: without the flag, the settings' defaultMode (guided step 4)",
    ).toBe('plan');
    expect(permissionSetup({}, noSettings()).mode, 'permissionSetup: neither given: default (guided step 4)').toBe(
      'default',
    );
  });
});

describe('retryPolicy (src/capstone/factory-pieces.ts)', () => {
  test('--max-retries N is N tries after the first, and 0 means never retry (not "use the default")', () => {
    expect(
      retryPolicy({}, {}).maxAttempts,
      `retryPolicy: no flag: ${DEFAULT_MAX_RETRIES} retries, so ${DEFAULT_MAX_RETRIES + 1} tries in all (guided step 1)`,
    ).toBe(DEFAULT_MAX_RETRIES + 1);
    expect(
      retryPolicy({ maxRetries: 2 }, {}).maxAttempts,
      'retryPolicy: maxAttempts counts the first try too (2 retries: 3 tries) (guided step 1)',
    ).toBe(3);
    expect(
      retryPolicy({ maxRetries: 0 }, {}).maxAttempts,
      'retryPolicy: --max-retries 0 is one try, never a retry (0 is a value, not "not given": use ??, not ||) (guided step 1)',
    ).toBe(1);
  });

  test('--max-wait is seconds, the policy milliseconds; 0 is a value too', () => {
    expect(retryPolicy({}, {}).maxWaitMs, 'retryPolicy: the default wait, 60 s, in milliseconds (guided step 2)').toBe(
      60_000,
    );
    expect(retryPolicy({ maxWait: 5 }, {}).maxWaitMs, 'retryPolicy: --max-wait 5 is 5000 ms (guided step 2)').toBe(
      5000,
    );
    expect(
      retryPolicy({ maxWait: 0 }, {}).maxWaitMs,
      'retryPolicy: --max-wait 0 means never wait for a retry-after (0 ms), not the default (guided step 2)',
    ).toBe(0);
  });

  test('the small fast model is the fallback only when it is another model', () => {
    expect(
      retryPolicy({}, { model: 'big', smallFastModel: 'small' }).fallbackModel,
      'retryPolicy: the small fast model (guided step 3)',
    ).toBe('small');
    expect(
      retryPolicy({}, { model: 'same', smallFastModel: 'same' }),
      'retryPolicy: no fallbackModel key when it is the model itself (guided step 3)',
    ).not.toHaveProperty('fallbackModel');
    expect(
      retryPolicy({}, { model: 'big' }),
      'retryPolicy: no fallbackModel key without a small fast model (guided step 3)',
    ).not.toHaveProperty('fallbackModel');
  });
});

describe('mcpServerList (src/capstone/factory-pieces.ts)', () => {
  const server = (command: string) => ({ mcpServers: { [command]: { command } } });
  const stdio = (command: string) => ({ type: 'stdio' as const, command, args: [], env: {} });

  test('.mcp.json first, then each --mcp-config file (relative to the workspace), then the extra servers; a later name wins', async () => {
    const { cwd } = workspace();
    writeFiles(cwd, {
      '.mcp.json': { mcpServers: { shared: { command: 'from-project' }, local: { command: 'local' } } },
      'config/more.json': {
        mcpServers: { shared: { command: 'from-flag' }, extra: { command: 'extra', args: ['${WHO}'] } },
      },
    });
    const elsewhere = process.cwd();
    const list = await mcpServerList(
      cwd,
      ['config/more.json'],
      { WHO: 'me' },
      { fromEditor: stdio('editor'), local: stdio('editor-local') },
    ).catch((error: unknown) => {
      if (error instanceof Error && error.name === 'TodoError') throw error;
      return expect.fail(
        `mcpServerList: a --mcp-config path is relative to cwd (${cwd}), not to the process's folder (${elsewhere}): ${messageOf(error)} (guided step 1)`,
      );
    });
    expect(list.problems, 'mcpServerList: good files have no problems').toEqual([]);
    expect(Object.keys(list.servers).sort(), 'mcpServerList: every server of every source (guided steps 1-4)').toEqual([
      'extra',
      'fromEditor',
      'local',
      'shared',
    ]);
    expect(
      list.servers.shared,
      'mcpServerList: a --mcp-config file comes after .mcp.json, so its "shared" replaces the project\'s (guided step 2)',
    ).toMatchObject({ command: 'from-flag' });
    expect(
      list.servers.local,
      "mcpServerList: the extra servers come last and replace a file's server of the same name (guided step 4)",
    ).toMatchObject({ command: 'editor-local' });
    expect(
      list.servers.extra,
      'mcpServerList: parseMcpConfig with the env given (${WHO} expanded) (guided step 2)',
    ).toMatchObject({ command: 'extra', args: ['me'] });
  });

  test('no .mcp.json and no files: no servers and no problems', async () => {
    const { cwd } = workspace();
    expect(
      await mcpServerList(cwd, [], {}),
      'mcpServerList: a workspace without .mcp.json is fine (guided step 1)',
    ).toEqual({
      servers: {},
      problems: [],
    });
  });

  test('a broken .mcp.json is a problem and the other sources still count; a --mcp-config file that is missing or broken throws', async () => {
    const { cwd } = workspace();
    writeFiles(cwd, {
      '.mcp.json': '{ not json',
      'good.json': server('good'),
      'bad.json': { mcpServers: { 'bad name!': { command: 'x' } } },
    });
    const list = await rejection(mcpServerList(cwd, ['good.json'], {})).then((error) => {
      expect(
        error,
        'mcpServerList: a broken .mcp.json is a problem in the list, not an error (guided step 3)',
      ).toBeUndefined();
      return mcpServerList(cwd, ['good.json'], {});
    });
    expect(
      Object.keys(list.servers),
      'mcpServerList: a broken .mcp.json does not stop the --mcp-config files (guided step 3)',
    ).toEqual(['good']);
    expect(list.problems, 'mcpServerList: one problem for the broken .mcp.json (guided step 3)').toHaveLength(1);
    expect(list.problems[0], 'mcpServerList: the problem says its servers are not started (guided step 3)').toMatch(
      /not started/,
    );
    expect(
      list.problems[0],
      'mcpServerList: the problem starts with the file it is about (".mcp.json: "), even for a JSON syntax error (guided step 3)',
    ).toMatch(/^\.mcp\.json: /);
    expect(
      messageOf(await rejection(mcpServerList(cwd, ['nowhere.json'], {}))),
      'mcpServerList: a --mcp-config file that does not exist is an error that names the option and the file (guided step 3)',
    ).toMatch(/--mcp-config nowhere\.json: no such file/);
    const refused = messageOf(await rejection(mcpServerList(cwd, ['bad.json'], {})));
    expect(
      refused,
      'mcpServerList: a --mcp-config file parseMcpConfig refuses is an error that starts with the option and the file (guided step 3)',
    ).toMatch(/^--mcp-config bad\.json: /);
    expect(
      refused,
      "mcpServerList: parseMcpConfig's message starts with the file already: do not name it twice (guided step 3)",
    ).not.toMatch(/bad\.json: bad\.json/);
  });
});

describe('openSavedSession (src/capstone/factory-pieces.ts)', () => {
  const storeIn = () => {
    const { cwd, home } = workspace();
    let n = 0;
    return { store: new SessionStore({ home, cwd, newId: () => `s${++n}` }), cwd, home };
  };

  test('no options: a new session for the model; --no-session: none, and no file is written', () => {
    const { store } = storeIn();
    const open = openSavedSession(store, {}, 'model-x');
    expect(open?.session.id, 'openSavedSession: a new session (guided step 5)').toBe('s1');
    expect(open?.session.model, 'openSavedSession: store.create(model) (guided step 5)').toBe('model-x');
    open?.close();
    const none = storeIn();
    expect(
      openSavedSession(none.store, { noSession: true }),
      'openSavedSession: --no-session gives no session (guided step 5)',
    ).toBeUndefined();
    expect(
      existsSync(none.store.dir) ? readdirSync(none.store.dir) : [],
      'openSavedSession: --no-session writes no session file (guided step 5)',
    ).toEqual([]);
  });

  test('--resume ID opens that session, --continue the latest; --continue with none says so', () => {
    const { store } = storeIn();
    const first = store.create();
    first.session.messages.push({ role: 'user', content: 'first' });
    first.recorder.record({
      type: 'done',
      reason: 'end_turn',
      turns: 1,
      text: '',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    first.close();
    const resumed = openSavedSession(store, { resume: 's1' });
    expect(resumed?.session.id, 'openSavedSession: --resume s1 opens s1 (guided step 3)').toBe('s1');
    resumed?.close();
    const continued = openSavedSession(store, { continue: true });
    expect(continued?.session.id, 'openSavedSession: --continue opens the latest session (guided step 3)').toBe('s1');
    continued?.close();
    const empty = storeIn();
    const nothing = messageOf(thrown(() => openSavedSession(empty.store, { continue: true })));
    expect(
      nothing,
      'openSavedSession: --continue without any saved session is an error naming the folder (guided step 2)',
    ).toContain(empty.store.dir);
    expect(
      nothing,
      'openSavedSession: the error says there is no saved session to continue (check store.latest() before resuming) (guided step 2)',
    ).toMatch(/no saved session to continue/);
  });

  test('contradictory options throw before anything is opened', () => {
    const { store } = storeIn();
    expect(
      messageOf(thrown(() => openSavedSession(store, { noSession: true, continue: true }))),
      'openSavedSession: --no-session with --continue is an error naming --no-session (guided step 1)',
    ).toMatch(/--no-session/);
    expect(
      messageOf(thrown(() => openSavedSession(store, { noSession: true, resume: 's1' }))),
      'openSavedSession: --no-session with --resume is an error naming --no-session (guided step 1)',
    ).toMatch(/--no-session/);
    expect(
      messageOf(thrown(() => openSavedSession(store, { resume: 's1', continue: true }))),
      'openSavedSession: --resume with --continue is an error naming both (guided step 1)',
    ).toMatch(/--resume.*--continue|--continue.*--resume/);
    expect(
      messageOf(thrown(() => openSavedSession(store, { forkSession: true }))),
      'openSavedSession: --fork-session without --resume or --continue is an error naming --fork-session (guided step 1)',
    ).toMatch(/--fork-session/);
    expect(
      messageOf(thrown(() => openSavedSession(store, { forkSession: true, noSession: true }))),
      'openSavedSession: --fork-session with --no-session and nothing to fork is an error (guided step 1)',
    ).toMatch(/--fork-session/);
    expect(
      existsSync(store.dir) ? readdirSync(store.dir) : [],
      'openSavedSession: nothing was created (guided step 1)',
    ).toEqual([]);
  });

  /** A store with session s1 saved: a question and its answer, ended. */
  const savedOne = () => {
    const at = storeIn();
    const first = at.store.create('model-x');
    first.session.messages.push({ role: 'user', content: 'first' }, assistantText('an answer'));
    first.recorder.record({
      type: 'done',
      reason: 'end_turn',
      turns: 1,
      text: 'an answer',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    first.close();
    return at;
  };

  test('--fork-session with --resume: a new session that starts as a copy, and the original is left as it was', () => {
    const { store } = savedOne();
    const before = readdirSync(store.dir).sort();
    const original = store.load('s1').session;
    const forked = openSavedSession(store, { resume: 's1', forkSession: true });
    try {
      expect(
        forked?.session.id,
        'openSavedSession: --fork-session goes on in a new session, not s1 (guided step 4)',
      ).toBe('s2');
      expect(
        forked?.session.messages,
        'openSavedSession: the fork holds every message of s1 (store.fork(id, its number of messages)) (guided step 4)',
      ).toEqual(original.messages);
      expect(
        forked?.session.forkedFrom,
        'openSavedSession: the fork says where it came from (store.fork, then store.resume of the fork) (guided step 4)',
      ).toEqual({ id: 's1', messages: 2 });
      forked?.session.messages.push({ role: 'user', content: 'only in the fork' });
    } finally {
      forked?.close();
    }
    expect(
      store.load('s1').session.messages,
      'openSavedSession: s1 itself is not changed by a fork (guided step 4)',
    ).toEqual(original.messages);
    expect(readdirSync(store.dir).sort(), "openSavedSession: one new file, the fork's (guided step 4)").toEqual(
      [...before, 's2.jsonl'].sort(),
    );
  });

  test('--fork-session with --continue forks the latest; a session with no messages gives a new one', () => {
    const { store } = savedOne();
    const forked = openSavedSession(store, { continue: true, forkSession: true });
    expect(
      forked?.session.id,
      'openSavedSession: --continue --fork-session forks the latest into a new session (guided step 4)',
    ).toBe('s2');
    expect(
      forked?.session.forkedFrom?.id,
      'openSavedSession: the fork of --continue is of the latest (guided step 4)',
    ).toBe('s1');
    forked?.close();
    const empty = storeIn();
    empty.store.create().close();
    let again: ReturnType<typeof openSavedSession>;
    const refused = thrown(() => {
      again = openSavedSession(empty.store, { resume: 's1', forkSession: true }, 'model-y');
    });
    expect(
      refused === undefined ? undefined : messageOf(refused),
      'openSavedSession: a session with no messages has nothing to fork: a new session, not an error (guided step 4)',
    ).toBeUndefined();
    expect(
      again!?.session.id,
      'openSavedSession: no messages: store.create(model), a new session (guided step 4)',
    ).not.toBe('s1');
    expect(again!?.session.model, 'openSavedSession: no messages: store.create(model) (guided step 4)').toBe('model-y');
    again!?.close();
  });
});

describe('agentHooks and agentTools (src/capstone/factory-pieces.ts)', () => {
  const named = (name: string): Hooks => ({ beforeToolCall: () => undefined, [Symbol.for('name')]: name }) as Hooks;
  const nameOf = (hooks: Hooks | undefined) =>
    (hooks as Record<symbol, string> | undefined)?.[Symbol.for('name')] ?? String(hooks);

  test('the hooks in their order: mcp, commands, gate, plan, budget, compaction; missing parts left out', () => {
    const parts = {
      mcp: named('mcp'),
      commands: named('commands'),
      gate: named('gate') as PermissionGate,
      plan: named('plan'),
      budget: named('budget'),
      compaction: named('compaction'),
    } satisfies HookParts;
    expect(
      agentHooks(parts).map(nameOf),
      'agentHooks: a command hook runs before the gate (a block spares a question), the budget and compaction last (guided step 1)',
    ).toEqual(['mcp', 'commands', 'gate', 'plan', 'budget', 'compaction']);
    expect(
      agentHooks({ gate: parts.gate, plan: parts.plan }).map(nameOf),
      'agentHooks: parts that are undefined are left out, not passed as undefined (guided step 1)',
    ).toEqual(['gate', 'plan']);
  });

  test('built-in tools in their order, a client tool in the place of the built-in of its name, then MCP, planning and task', () => {
    const tool = (name: string) =>
      defineTool({ name, description: name, input: z.object({}), execute: async () => name });
    const clientRead = tool('read');
    const tools = agentTools({
      client: [clientRead, tool('terminal')],
      mcp: [tool('mcp__s__t')],
      planning: [tool('todo_write')],
      task: tool('task'),
    });
    expect(
      tools.map((t) => t.name),
      'agentTools: built-ins, a client tool with a new name after them, then MCP, planning, task (guided steps 1-2)',
    ).toEqual(['read', 'glob', 'grep', 'write', 'edit', 'bash', 'terminal', 'mcp__s__t', 'todo_write', 'task']);
    expect(tools[0], "agentTools: the client's read replaces the built-in read (guided step 1)").toBe(clientRead);
    expect(
      agentTools({ planning: [] }).map((t) => t.name),
      'agentTools: no task tool when none is given (guided step 2)',
    ).toEqual(['read', 'glob', 'grep', 'write', 'edit', 'bash']);
  });
});

describe('buildAgent and its parts (src/capstone/factory.ts, src/capstone/factory-steps.ts)', () => {
  test('the system prompt: --system-prompt replaces the base, CLAUDE.md follows, --append-system-prompt and SessionStart come last', async () => {
    const { cwd, home } = workspace();
    writeFiles(cwd, { 'CLAUDE.md': 'Use tabs.' });
    const hooks = {
      ...emptyHookConfig(),
      SessionStart: [{ hooks: [{ type: 'command' as const, command: 'branch-info' }] }],
    };
    const inputs: Array<Record<string, unknown>> = [];
    const runHook = async (_command: string, input: object): Promise<HookRun> => {
      inputs.push(input as Record<string, unknown>);
      return { exitCode: 0, stdout: 'On branch main.', stderr: '', timedOut: false };
    };
    const { built, provider } = await build([assistantText('ok')], {
      cwd,
      home,
      settings: noSettings({ hooks }),
      runHook,
      options: { systemPrompt: 'You are Tester.', appendSystemPrompt: 'Answer briefly.' },
    });
    await runPrompt(built, 'hi');
    const system = provider.requests[0]?.system ?? '';
    expect(
      system.startsWith('You are Tester.'),
      `systemPromptFor: --system-prompt takes the base prompt's place (sent: ${JSON.stringify(system.slice(0, 80))})`,
    ).toBe(true);
    expect(system, "systemPromptFor: the project's CLAUDE.md is still in the prompt").toContain('Use tabs.');
    expect(
      system.endsWith('Answer briefly.\n\nOn branch main.'),
      `systemPromptFor: --append-system-prompt, then the SessionStart text after a blank line (sent: ...${JSON.stringify(system.slice(-60))})`,
    ).toBe(true);
    expect(
      inputs[0],
      'commandHooksFor: hooks get the session id; guided step 6: a new session starts with source "startup"',
    ).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup', session_id: built.sessionId });
    expect(built.system, 'buildAgent: the system prompt it built is the one sent').toBe(system);
  });

  test("the gate: the flag's mode over the settings' defaultMode, the flags' and files' rules, and the ask callback", async () => {
    const { cwd, home } = workspace();
    const asked: string[] = [];
    const ask = async (request: { call: { name: string } }) => {
      asked.push(request.call.name);
      return 'reject_once' as const;
    };
    const settings = noSettings({
      defaultMode: 'bypassPermissions',
      rules: [parseRule('Bash(rm:*)', 'deny', '/settings.json')],
    });
    const { built } = await build([bashCall('c1', 'echo hi'), bashCall('c2', 'rm -rf build'), assistantText('done')], {
      cwd,
      home,
      settings,
      ask,
      options: { permissionMode: 'default' },
    });
    expect(built.gate.mode, "gateFor: --permission-mode default wins over the settings' bypassPermissions").toBe(
      'default',
    );
    await runPrompt(built, 'go');
    expect(
      asked,
      'gateFor: in default mode the gate asks through config.ask about echo (and never about a denied rm)',
    ).toEqual(['bash']);
    expect(resultText(built, 'c1'), 'gateFor: the person said no to echo').toMatch(/reject/i);
    expect(resultText(built, 'c2'), "gateFor: the settings' deny rule reached the gate").toMatch(/denied|deny/i);
  });

  test("a PreToolUse command hook that blocks runs before the gate: the person is not asked, the model reads the hook's stderr", async () => {
    const { cwd, home } = workspace();
    const asked: string[] = [];
    const hooks = {
      ...emptyHookConfig(),
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' as const, command: 'guard' }] }],
    };
    const runHook = async (): Promise<HookRun> => ({
      exitCode: 2,
      stdout: '',
      stderr: 'no shell in this project',
      timedOut: false,
    });
    const { built } = await build([bashCall('c1', 'ls'), assistantText('ok')], {
      cwd,
      home,
      settings: noSettings({ hooks }),
      runHook,
      ask: async (request) => {
        asked.push(request.call.name);
        return 'allow_once';
      },
    });
    await runPrompt(built, 'list');
    expect(
      asked,
      'assembleAgent guided step 2 (agentHooks): the command hooks come before the gate, so a blocked call is never asked about',
    ).toEqual([]);
    expect(
      resultText(built, 'c1'),
      "commandHooksFor: the settings' PreToolUse hooks are in the agent, and the model reads why",
    ).toContain('no shell in this project');
  });

  test("a PreToolUse hook's ask is a question even where an allow rule allows the call", async () => {
    const { cwd, home } = workspace();
    const asked: string[] = [];
    const hooks = {
      ...emptyHookConfig(),
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' as const, command: 'ask-first' }] }],
    };
    const runHook = async (): Promise<HookRun> => ({
      exitCode: 0,
      stdout: JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'ask',
          permissionDecisionReason: 'ls is fine, but ask',
        },
      }),
      stderr: '',
      timedOut: false,
    });
    const { built } = await build([bashCall('c1', 'ls'), assistantText('ok')], {
      cwd,
      home,
      settings: noSettings({ hooks }),
      options: { allowedTools: ['Bash(ls:*)'] },
      runHook,
      ask: async (request) => {
        asked.push(request.reason);
        return 'reject_once';
      },
    });
    await runPrompt(built, 'list');
    expect(
      asked,
      "buildAgent: the hook's ask reaches the gate's mustAsk, so the person is asked, with the hook's reason, though Bash(ls:*) allows ls (guided steps 2 and 5)",
    ).toEqual(['ls is fine, but ask']);
    expect(resultText(built, 'c1'), 'the person said no, so ls did not run').toMatch(/reject/i);
  });

  test('retries: an overloaded call is tried again; --max-retries 0 fails at once', async () => {
    const a = workspace();
    const retried = await build([overloaded(), assistantText('after a retry')], { ...a });
    const events = await runPrompt(retried.built, 'hi');
    expect(
      doneOf(events).reason,
      'retryPolicy (buildAgent, given, wraps the provider with it): the provider is wrapped with withRetries, so one 529 is tried again',
    ).toBe('end_turn');
    expect(
      events.some((event) => event.type === 'retry'),
      'retryPolicy (buildAgent, given, wraps the provider with it): the retry is announced as an event',
    ).toBe(true);
    const b = workspace();
    const once = await build([overloaded(), assistantText('never reached')], { ...b, options: { maxRetries: 0 } });
    expect(
      doneOf(await runPrompt(once.built, 'hi')).reason,
      'retryPolicy: the policy of the options (--max-retries 0: one try)',
    ).toBe('error');
    expect(
      once.provider.requests,
      'retryPolicy (buildAgent, given, wraps the provider with it): with --max-retries 0 the model is asked once',
    ).toHaveLength(1);
  });

  test('the session: saved under the home folder by default, the history is its messages, and --resume sends them again', async () => {
    const { cwd, home } = workspace();
    const first = await build([assistantText('Paris.')], {
      cwd,
      home,
      sessionId: 'chat-1',
      models: { model: 'claude-x' },
    });
    expect(first.built.sessionId, 'savedSessionFor: a new session takes config.sessionId').toBe('chat-1');
    expect(
      first.built.history,
      "savedSessionFor: the history is the session's own array, so the recorder sees every message",
    ).toBe(first.built.session?.session.messages);
    expect(first.built.session?.session.model, 'savedSessionFor: the session is priced at the model in use').toBe(
      'claude-x',
    );
    await runPrompt(first.built, 'Capital of France?');
    first.built.session?.recorder.record({
      type: 'done',
      reason: 'end_turn',
      turns: 1,
      text: 'Paris.',
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    await first.built.close();
    const second = await build([assistantText('About 2 million.')], { cwd, home, options: { resume: 'chat-1' } });
    expect(second.built.resumed, 'buildAgent: --resume marks the agent as resumed').toBe(true);
    await runPrompt(second.built, 'Its population?');
    const sent = second.provider.requests[0]?.messages.map((m) =>
      m.role === 'assistant'
        ? m.content.map((b) => (b.type === 'text' ? b.text : b.type)).join('')
        : m.role === 'user'
          ? m.content
          : m.role,
    );
    expect(sent, 'savedSessionFor: a resumed session sends the saved conversation first').toEqual([
      'Capital of France?',
      'Paris.',
      'Its population?',
    ]);
  });

  test('a resumed session whose system prompt changed says so, runs under the new prompt, and records it', async () => {
    const { cwd, home } = workspace();
    writeFiles(cwd, { 'CLAUDE.md': 'Use tabs.' });
    const first = await build([assistantText('ok')], { cwd, home, sessionId: 'chat-2' });
    expect(
      first.built.warnings.filter((w) => w.startsWith('session:')),
      'a new session has nothing to say about its prompt',
    ).toEqual([]);
    expect(
      first.built.session?.session.system,
      'systemPromptFor: the prompt is handed to session.recorder.useSystem, so the session remembers it',
    ).toBe(first.built.system);
    await runPrompt(first.built, 'hi');
    await first.built.close();
    const same = await build([assistantText('ok')], { cwd, home, options: { resume: 'chat-2' } });
    expect(
      same.built.warnings.filter((w) => w.startsWith('session:')),
      'resumed under the same prompt: nothing to say',
    ).toEqual([]);
    await same.built.close();
    writeFiles(cwd, { 'CLAUDE.md': 'Use spaces.' });
    const changed = await build([assistantText('ok')], { cwd, home, options: { resume: 'chat-2' } });
    expect(
      changed.built.warnings.filter((w) => w.startsWith('session:')),
      'systemPromptFor: the sentence useSystem returns is a warning starting "session: "',
    ).toEqual([expect.stringMatching(/^session: the system prompt has changed/)]);
    await runPrompt(changed.built, 'again');
    expect(changed.provider.requests[0]?.system, 'the session goes on under the current prompt').toContain(
      'Use spaces.',
    );
    expect(changed.built.session?.session.system, 'and remembers it').toBe(changed.built.system);
  });

  test('--no-session: nothing saved, and the history is still one array every run appends to', async () => {
    const { cwd, home } = workspace();
    const { built, provider } = await build([assistantText('one'), assistantText('two')], {
      cwd,
      home,
      options: { noSession: true },
    });
    expect(built.session, 'savedSessionFor: no saved session').toBeUndefined();
    await runPrompt(built, 'a');
    await runPrompt(built, 'b');
    expect(
      provider.requests[1]?.messages,
      "buildAgent: the second run sends the first one's messages too",
    ).toHaveLength(3);
    expect(
      existsSync(path.join(home, '.coding-agent')),
      'savedSessionFor: --no-session writes nothing under the home folder',
    ).toBe(false);
  });

  test('--max-turns reaches the agent', async () => {
    const { cwd, home } = workspace();
    const { built } = await build(
      [assistantToolCalls([{ id: 'g1', name: 'glob', arguments: { pattern: '*' } }]), assistantText('never')],
      { cwd, home, options: { maxTurns: 1 } },
    );
    expect(
      doneOf(await runPrompt(built, 'look')).reason,
      'assembleAgent: maxTurns from --max-turns (one turn, then stop) (guided step 3)',
    ).toBe('turn_limit');
  });

  test('the output budget cuts a long result (and 0 turns it off)', async () => {
    const long = "head -c 3000 /dev/zero | tr '\\0' a";
    const a = workspace();
    const cut = await build([bashCall('b1', long), assistantText('ok')], {
      ...a,
      options: { permissionMode: 'bypassPermissions', outputBudget: 500 },
    });
    await runPrompt(cut.built, 'go');
    expect(
      resultText(cut.built, 'b1').length,
      'assembleAgent: --output-budget 500 keeps the result near 500 characters (guided step 2)',
    ).toBeLessThan(1200);
    expect(
      resultText(cut.built, 'b1'),
      'assembleAgent: the cut result says where the whole output is (guided step 2)',
    ).toContain('.agent/outputs');
    const b = workspace();
    const whole = await build([bashCall('b1', long), assistantText('ok')], {
      ...b,
      options: { permissionMode: 'bypassPermissions', outputBudget: 0 },
    });
    await runPrompt(whole.built, 'go');
    expect(
      resultText(whole.built, 'b1'),
      'assembleAgent: --output-budget 0 adds no budget hook (the whole output) (guided step 2)',
    ).toContain('a'.repeat(3000));
  });

  test('sub-agents: a task call is not asked about, and its child meets the same gate', async () => {
    const { cwd, home } = workspace();
    const asked: string[] = [];
    const script = [
      assistantToolCalls([{ id: 't1', name: 'task', arguments: { description: 'clean', prompt: 'clean up' } }]),
      bashCall('k1', 'rm -rf dist'),
      assistantText('could not clean'),
      assistantText('the child could not clean'),
    ];
    const { built } = await build(script, {
      cwd,
      home,
      options: { disallowedTools: ['Bash(rm:*)'] },
      ask: async (request) => {
        asked.push(request.call.name);
        return 'allow_once';
      },
    });
    const events = await runPrompt(built, 'clean');
    expect(doneOf(events).reason, 'assembleAgent: the run with a sub-agent ends normally (guided step 1)').toBe(
      'end_turn',
    );
    expect(
      asked,
      "assembleAgent: the task tool is read-only, so the gate does not ask about it (its child's calls meet the gate instead) (guided step 1)",
    ).toEqual([]);
    const childBlocks = events.filter(
      (event) =>
        event.type === 'subagent' && event.event.type === 'tool_call_decided' && event.event.decision.type === 'block',
    );
    expect(
      childBlocks,
      "assembleAgent: the child is built with the parent's hooks, so --disallowedTools blocks its rm (guided step 1)",
    ).toHaveLength(1);
  });

  test("a child's own calls are asked about: only task tools are marked read-only", async () => {
    const { cwd, home } = workspace();
    const asked: string[] = [];
    const script = [
      assistantToolCalls([{ id: 't1', name: 'task', arguments: { description: 'build', prompt: 'make out.txt' } }]),
      bashCall('k1', 'touch out.txt'),
      assistantText('made it'),
      assistantText('the child made it'),
    ];
    const { built } = await build(script, {
      cwd,
      home,
      ask: async (request) => {
        asked.push(request.call.name);
        return 'reject_once';
      },
    });
    await runPrompt(built, 'build');
    expect(
      asked,
      "assembleAgent: the child's bash is not read-only, so the gate asks about it (mark only the task tool read-only) (guided step 1)",
    ).toEqual(['bash']);
  });

  test('--subagent-depth 0 leaves the task tool out; without approvePlan a plan is not approved and the model is told why', async () => {
    const { cwd, home } = workspace();
    const none = await build([], { cwd, home, options: { subagentDepth: 0 } });
    expect(none.built.tools.get('task'), 'assembleAgent: no task tool at depth 0 (guided step 1)').toBeUndefined();
    expect(none.built.warnings, 'buildAgent (given): a clean workspace gives no warnings').toEqual([]);
    expect(none.built.mcp, 'mcpFor: no MCP servers configured: none started (mcp is undefined)').toBeUndefined();
    const b = workspace();
    const { built } = await build(
      [
        assistantToolCalls([{ id: 'p1', name: 'exit_plan_mode', arguments: { plan: '1. Edit a.ts' } }]),
        assistantText('Plan: edit a.ts'),
      ],
      { ...b, options: { permissionMode: 'plan' } },
    );
    expect(built.tools.get('task'), 'assembleAgent: a task tool at the default depth (guided step 1)').toBeDefined();
    await runPrompt(built, 'plan it');
    expect(built.gate.mode, 'assembleAgent: nobody approved, so the agent stays in plan mode (guided step 1)').toBe(
      'plan',
    );
    expect(
      resultText(built, 'p1'),
      'assembleAgent: the model is told nobody can approve, and to give the plan as its answer (guided step 1)',
    ).toMatch(/nobody[\s\S]*answer/i);
  });

  test('MCP servers: the extra servers start, their tools are added, a server that fails is a warning', async () => {
    const { cwd, home } = workspace();
    const fake = fakeServer([{ info: toolInfo('echo', ['text']) }]);
    const { built } = await build([], {
      cwd,
      home,
      mcpServers: {
        fake: fake.factory,
        broken: () => {
          throw new Error('cannot start');
        },
      },
    });
    expect(built.tools.get('mcp__fake__echo'), "mcpFor: the servers' tools are in the agent").toBeDefined();
    expect(built.warnings.join('\n'), 'mcpFor: a server that failed is a warning `mcp: <name> failed: ...`').toMatch(
      /mcp: broken failed: .*cannot start/,
    );
    expect(fake.state.current?.server.transport, 'the server is connected while the agent is open').toBeDefined();
    await built.close();
    expect(fake.state.current?.server.transport, 'mcpFor: close() closes the MCP servers it started').toBeUndefined();
  });

  test("a server's question to the person goes through the same ask as the gate's, on the same call", async () => {
    const { cwd, home } = workspace();
    const fake = fakeServer([
      {
        info: toolInfo('deploy'),
        handler: async (_args, call) => {
          const answer = await call.elicit({
            message: 'Really deploy?',
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
          });
          return { content: [{ type: 'text', text: `deploy: ${answer.action}` }] };
        },
      },
    ]);
    const asked: Array<{ id: string; reason: string }> = [];
    const ask = async (request: { call: { id: string }; reason: string }) => {
      asked.push({ id: request.call.id, reason: request.reason });
      return 'allow_once' as const;
    };
    const { built } = await build(
      [assistantToolCalls([{ id: 'c1', name: 'mcp__fake__deploy', arguments: {} }]), assistantText('deployed')],
      { cwd, home, ask, mcpServers: { fake: fake.factory } },
    );
    await within(runPrompt(built, 'deploy it'), 'mcpFor: a server that asks must get an answer');
    expect(
      resultText(built, 'c1'),
      "mcpFor: pass the gate's ask to McpServers.start, so the person can answer the server (without it, every question is declined)",
    ).toBe('deploy: accept');
    expect(
      asked.map((a) => a.id),
      'the gate asked about the call, then the server asked its question, both about c1',
    ).toEqual(['c1', 'c1']);
    expect(asked[1]!.reason).toMatch(/MCP server "fake" asks/);
  });

  test('client tools replace built-ins of the same name', async () => {
    const { cwd, home } = workspace();
    const clientRead = defineTool({
      name: 'read',
      description: "the editor's read",
      input: z.object({ path: z.string() }),
      execute: async () => 'from the editor',
    });
    const { built } = await build([], { cwd, home, clientTools: [clientRead] });
    expect(built.tools.get('read'), 'assembleAgent: agentTools with config.clientTools (guided step 1)').toBe(
      clientRead,
    );
  });

  test('when a step fails, what was opened is closed again: the session file is not left locked', async () => {
    const { cwd, home } = workspace();
    expect(
      messageOf(
        await rejection(build([], { cwd, home, sessionId: 'broken-1', options: { mcpConfig: ['missing.json'] } })),
      ),
      'mcpFor: a missing --mcp-config file is an error',
    ).toMatch(/--mcp-config missing\.json/);
    const store = new SessionStore({ home, cwd });
    expect(
      () => store.resume('broken-1').close(),
      'a part that starts something hands its clean-up to life.cleanups (savedSessionFor, mcpFor): the session opened before the failure was closed (its lock released)',
    ).not.toThrow();
  });

  test('mcpFor reads the --mcp-config files with config.env: a ${VAR} the environment sets is expanded', async () => {
    const { cwd, home } = workspace();
    writeFiles(cwd, { 'with-env.json': { mcpServers: { tool: { command: 'kit-no-such-server-${WHO}' } } } });
    const outcome = await build([], { cwd, home, env: { WHO: 'me' }, options: { mcpConfig: ['with-env.json'] } }).then(
      ({ built }) => built.warnings.join('\n'),
      (error: unknown) => `threw: ${messageOf(error)}`,
    );
    expect(
      outcome,
      'mcpFor: mcpServerList gets config.env (or {} when there is none), so ${WHO} is expanded, not "not set"',
    ).not.toMatch(/not set|threw/);
    expect(
      outcome,
      'mcpFor: the server was started (and failed: its command does not exist), a warning says so',
    ).toMatch(/mcp: tool failed/);
  });

  test('close() runs once however often it is called', async () => {
    const { cwd, home } = workspace();
    const { built } = await build([], { cwd, home });
    await built.close();
    expect(
      messageOf(await rejection(built.close())),
      'buildAgent (given): a second close() does nothing (the clean-ups ran once)',
    ).toBe('undefined');
  });

  test('resuming: --continue counts as resumed, SessionStart hears "resume", and the session is priced at the model now in use', async () => {
    const { cwd, home } = workspace();
    const first = await build([assistantText('one')], { cwd, home, models: { model: 'old-model' } });
    await runPrompt(first.built, 'first');
    first.built.session?.recorder.record({
      type: 'done',
      reason: 'end_turn',
      turns: 1,
      text: 'one',
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    await first.built.close();
    const sources: unknown[] = [];
    const hooks = { ...emptyHookConfig(), SessionStart: [{ hooks: [{ type: 'command' as const, command: 'note' }] }] };
    const runHook = async (_command: string, input: object): Promise<HookRun> => {
      sources.push((input as { source?: unknown }).source);
      return { exitCode: 0, stdout: '', stderr: '', timedOut: false };
    };
    const second = await build([], {
      cwd,
      home,
      options: { continue: true },
      models: { model: 'new-model' },
      settings: noSettings({ hooks }),
      runHook,
    });
    expect(second.built.resumed, 'buildAgent: --continue goes on with a saved session, so the agent is resumed').toBe(
      true,
    );
    expect(sources, 'systemPromptFor: a session that goes on starts with SessionStart source "resume"').toEqual([
      'resume',
    ]);
    expect(
      second.built.session?.session.model,
      'savedSessionFor: a resumed session is priced at the model in use now',
    ).toBe('new-model');
  });

  test('without a saved session the agent still has the given session id, and a broken .mcp.json is a warning', async () => {
    const { cwd, home } = workspace();
    writeFiles(cwd, { '.mcp.json': '{ broken' });
    const { built } = await build([], { cwd, home, sessionId: 'ed-1', options: { noSession: true } });
    expect(
      built.sessionId,
      "savedSessionFor: config.sessionId names the agent's session even when nothing is saved",
    ).toBe('ed-1');
    expect(built.warnings.join('\n'), "mcpFor: mcpServerList's problems are warnings").toMatch(/not started/);
  });

  test('--max-parallel: read-only calls overlap by default and run one by one with 1', async () => {
    // Overlap is told by the order of events, never by time: two calls overlap when both have started before either ends.
    const order = async (maxParallel: number | undefined) => {
      const { cwd, home } = workspace();
      const log: string[] = [];
      let releaseAll!: () => void;
      const secondStarted = new Promise<void>((resolve) => (releaseAll = resolve));
      const slow = defineTool({
        name: 'read',
        description: 'a slow read',
        input: z.object({ path: z.string() }),
        readOnly: true,
        execute: async ({ path: file }) => {
          log.push(`start ${file}`);
          if (log.filter((line) => line.startsWith('start')).length >= 2) releaseAll();
          // Side by side, each read ends only once a second one has started; one by one, each ends after a short while.
          await (maxParallel === 1 ? new Promise((resolve) => setTimeout(resolve, 20)) : secondStarted);
          log.push(`end ${file}`);
          return 'text';
        },
      });
      const reads = assistantToolCalls(
        [1, 2, 3].map((n) => ({ id: `r${n}`, name: 'read', arguments: { path: `f${n}.txt` } })),
      );
      const { built } = await build([reads, assistantText('ok')], {
        cwd,
        home,
        clientTools: [slow],
        options: maxParallel === undefined ? {} : { maxParallel },
      });
      await within(
        runPrompt(built, 'read'),
        'assembleAgent: the parallel executor runs read-only calls side by side by default; here each read waits for a second one to start (guided step 3)',
      );
      return log;
    };
    const parallel = await order(undefined);
    expect(
      parallel.slice(0, 2).map((line) => line.split(' ')[0]),
      'assembleAgent: the parallel executor runs read-only calls side by side by default: two start before either ends (guided step 3)',
    ).toEqual(['start', 'start']);
    const sequential = await order(1);
    expect(
      sequential,
      'assembleAgent: parallelExecutor({ concurrency: options.maxParallel }): --max-parallel 1 runs them one by one, each ending before the next starts (guided step 3)',
    ).toEqual(['start f1.txt', 'end f1.txt', 'start f2.txt', 'end f2.txt', 'start f3.txt', 'end f3.txt']);
  });

  test('--subagent-depth 2 lets a child start its own task', async () => {
    const { cwd, home } = workspace();
    const task = (id: string) =>
      assistantToolCalls([{ id, name: 'task', arguments: { description: 'dig', prompt: 'dig deeper' } }]);
    const { built } = await build(
      [task('t1'), task('t2'), assistantText('grandchild'), assistantText('child'), assistantText('parent')],
      { cwd, home, options: { subagentDepth: 2 } },
    );
    const events = await runPrompt(built, 'go');
    const inner = events.flatMap((event) =>
      event.type === 'subagent' && event.event.type === 'tool_result' && event.event.callId === 't2'
        ? [event.event]
        : [],
    );
    expect(
      inner.map((result) => result.isError),
      'assembleAgent: createTaskTool with maxDepth from --subagent-depth (at 2 the child has a task tool too) (guided step 1)',
    ).toEqual([false]);
  });

  test('--compact-at: compaction asks the small fast model once the context passes the threshold', async () => {
    const { cwd, home } = workspace();
    const { built, provider } = await build([assistantText('a summary'), assistantText('answer')], {
      cwd,
      home,
      models: { model: 'big', smallFastModel: 'small' },
      options: { compactAt: 10, noSession: true },
    });
    for (let i = 0; i < 5; i++)
      built.history.push(
        { role: 'user', content: `question ${i} `.repeat(20) },
        assistantText(`answer ${i} `.repeat(20)),
      );
    const events = await runPrompt(built, 'one more');
    expect(
      events.some((event) => event.type === 'compaction'),
      'assembleAgent: compactionHook with threshold options.compactAt compacts a long history (guided step 2)',
    ).toBe(true);
    expect(provider.requests[0]?.model, 'assembleAgent: compaction asks the small fast model (guided step 2)').toBe(
      'small',
    );
  });
});
