import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  commandHooks,
  hookMatches,
  parseHookSettings,
  runHook,
  runPostToolUse,
  runPreToolUse,
} from 'kit/capstone/command-hooks';
import { runSessionStart, runStop, runUserPromptSubmit, sessionHooks } from 'kit/capstone/session-hooks';
import { toolResult, type ToolCall } from 'kit/messages';
import { SettingsError } from 'kit/permissions/settings';
import { rejection } from '../helpers/assert.js';
import { requestOn } from '../helpers/transcript.js';
import { tempWorkspace } from '../helpers/workspace.js';
import type { CommandHookOptions, HookRun, RunHookCommand } from 'kit/capstone/command-hooks';
import {
  alive,
  ask,
  bashAgent,
  cmd,
  collect,
  config,
  eventually,
  fakeRunner,
  group,
  hookOptions,
  never,
  readJson,
  toolResults,
} from './hook-fixtures.js';
import { HANG_MS, within } from '../helpers/wait.js';

const bashCall = (command = 'rm -rf build'): ToolCall => ({
  type: 'tool_call',
  id: 'c1',
  name: 'bash',
  arguments: { command },
});
/** A shell command that prints `value` as JSON on stdout. */
const printJson = (value: unknown) => `printf '%s' '${JSON.stringify(value)}'`;
/**
 * A hook that starts `sleep 30`, saves its pid in sleep.pid and waits for it. The pid is written to another file and
 * moved into place, so sleep.pid never exists empty (a test that saw it appear read pid 0 now and then).
 */
const SLEEPER = 'sleep 300 & echo $! > sleep.pid.new && mv sleep.pid.new sleep.pid; wait';
const sleeperPid = (root: string) => Number(readFileSync(path.join(root, 'sleep.pid'), 'utf8'));

/** A runner that answers each command with its own outcome (exit code 0, no output, for any other); starts nothing. */
function scripted(outcomes: Record<string, Partial<HookRun>>): RunHookCommand {
  return async (command) => ({ exitCode: 0, stdout: '', stderr: '', timedOut: false, ...outcomes[command] });
}

/** An outcome that prints `value` as JSON on stdout. */
const jsonOut = (value: unknown): Partial<HookRun> => ({ stdout: JSON.stringify(value) });

/** Whether `promise` has settled yet (for waits that must end early when it fails at once). */
function watch(promise: Promise<unknown>): { done: boolean } {
  const state = { done: false };
  promise.then(
    () => (state.done = true),
    () => (state.done = true),
  );
  return state;
}

/** The error `fn` throws (a stub's TODO is passed on as it is). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return error;
  }
  return undefined;
}

describe('hookMatches (src/capstone/hook-settings.ts)', () => {
  test('no matcher, an empty one and * select every tool', () => {
    for (const name of ['bash', 'todo_write', 'mcp__files__read']) {
      expect(hookMatches(undefined, name), `hookMatches: no matcher selects ${name} (guided step 1)`).toBe(true);
      expect(hookMatches('', name), `hookMatches: '' selects ${name} (guided step 1)`).toBe(true);
      expect(hookMatches('*', name), `hookMatches: '*' selects ${name} (guided step 1)`).toBe(true);
    }
  });

  test('a plain matcher is a list of exact names, tried as the kit names the tool and as Claude Code does', () => {
    expect(
      hookMatches('Bash', 'bash'),
      "hookMatches: Claude Code's name Bash selects the kit's bash (guided step 2)",
    ).toBe(true);
    expect(hookMatches('bash', 'bash'), "hookMatches: the kit's own name selects it too (guided step 2)").toBe(true);
    expect(hookMatches('Edit|Write', 'write'), 'hookMatches: Edit|Write selects write (guided step 3)').toBe(true);
    expect(hookMatches('Edit|Write', 'edit'), 'hookMatches: Edit|Write selects edit (guided step 3)').toBe(true);
    expect(hookMatches('Edit|Write', 'read'), 'hookMatches: Edit|Write does not select read (guided step 3)').toBe(
      false,
    );
    expect(
      hookMatches('Write', 'todo_write'),
      'hookMatches: Write is an exact name, so it does not select TodoWrite (guided step 3)',
    ).toBe(false);
    expect(hookMatches('Edit|Write', 'todo_write'), 'hookMatches: nor does Edit|Write (guided step 3)').toBe(false);
    expect(hookMatches('TodoWrite', 'todo_write'), 'hookMatches: TodoWrite selects todo_write (guided step 3)').toBe(
      true,
    );
    expect(hookMatches('Bas', 'bash'), 'hookMatches: a plain matcher is not a prefix (guided step 3)').toBe(false);
    expect(hookMatches('Read', 'bash'), 'hookMatches: Read does not select bash (guided step 3)').toBe(false);
  });

  test('any other matcher is an unanchored regex, tried on both names; one that does not compile selects nothing', () => {
    expect(
      hookMatches('mcp__.*', 'mcp__files__read'),
      'hookMatches: mcp__.* selects every MCP tool (guided step 4)',
    ).toBe(true);
    expect(
      hookMatches('mcp__github__.*', 'mcp__files__read'),
      "hookMatches: another server's tools are not selected (guided step 4)",
    ).toBe(false);
    expect(
      hookMatches('^Web', 'web_fetch'),
      "hookMatches: ^Web selects web_fetch by Claude Code's name WebFetch (guided step 4)",
    ).toBe(true);
    expect(hookMatches('_fetch$', 'web_fetch'), "hookMatches: and a regex may use the kit's name (guided step 4)").toBe(
      true,
    );
    expect(hookMatches('Notebook.*', 'edit'), 'hookMatches: Notebook.* does not select edit (guided step 4)').toBe(
      false,
    );
    expect(
      hookMatches('ash.', 'bash'),
      'hookMatches: a regex that matches neither name selects nothing (guided step 4)',
    ).toBe(false);
    expect(
      hookMatches('(', 'bash'),
      'hookMatches: a regex that does not compile selects nothing, without throwing (guided step 4)',
    ).toBe(false);
  });
});

describe('parseHookSettings (src/capstone/hook-settings.ts)', () => {
  test("reads Claude Code's hooks into a config: groups, matchers and timeouts as written, other keys and types skipped", () => {
    const settings = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash|Edit',
            hooks: [
              { type: 'command', command: 'guard.sh', timeout: 5 },
              { type: 'http', url: 'http://127.0.0.1:9/hook' },
            ],
          },
          { hooks: [{ type: 'command', command: 'log.sh' }] },
        ],
        Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'npm test', timeout: 0.5 }] }],
        Notification: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
      },
    };
    expect(
      parseHookSettings(settings, '/p/.claude/settings.json'),
      'parseHookSettings: each group under its event; only command hooks; other events left out; no matcher or timeout key when the file gives none (guided steps 2-5)',
    ).toStrictEqual({
      PreToolUse: [
        { matcher: 'Bash|Edit', hooks: [{ type: 'command', command: 'guard.sh', timeout: 5 }] },
        { hooks: [{ type: 'command', command: 'log.sh' }] },
      ],
      PostToolUse: [],
      UserPromptSubmit: [],
      Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'npm test', timeout: 0.5 }] }],
      SessionStart: [],
    });
    const none = { PreToolUse: [], PostToolUse: [], UserPromptSubmit: [], Stop: [], SessionStart: [] };
    expect(
      parseHookSettings({ permissions: { deny: [] } }, 'settings.json'),
      'parseHookSettings: a file without hooks has none (guided step 1)',
    ).toEqual(none);
  });

  test('a file of the wrong shape is a SettingsError naming the file, the event and the index', () => {
    const source = '/p/.claude/settings.local.json';
    const cases: Array<[unknown, RegExp, string]> = [
      ['not an object', /object/, 'parseHookSettings: the settings must be an object (guided step 1)'],
      [{ hooks: [] }, /hooks/, 'parseHookSettings: hooks must be an object (guided step 1)'],
      [
        { hooks: { PreToolUse: { matcher: 'Bash' } } },
        /hooks\.PreToolUse/,
        'parseHookSettings: an event holds an array of groups (guided step 2)',
      ],
      [
        { hooks: { PostToolUse: [{ hooks: [] }, { matcher: 'Edit(', hooks: [] }] } },
        /hooks\.PostToolUse\[1\]\.matcher/,
        'parseHookSettings: a matcher that is not a valid regex, at its index (guided step 3)',
      ],
      [
        { hooks: { Stop: [{ matcher: 3, hooks: [] }] } },
        /hooks\.Stop\[0\]\.matcher/,
        'parseHookSettings: a matcher must be a string (guided step 3)',
      ],
      [
        { hooks: { SessionStart: [{}, {}] } },
        /hooks\.SessionStart\[0\]\.hooks/,
        'parseHookSettings: a group needs a hooks array (guided step 3)',
      ],
      [
        { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'a' }, { type: 'command' }] }] } },
        /hooks\.UserPromptSubmit\[0\]\.hooks\[1\]\.command/,
        'parseHookSettings: a command hook needs a command (guided step 4)',
      ],
      [
        { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'a', timeout: -1 }] }] } },
        /hooks\.PreToolUse\[0\]\.hooks\[0\]\.timeout/,
        'parseHookSettings: a timeout must be a positive number (guided step 4)',
      ],
      [
        { hooks: { PreToolUse: [{ hooks: [{ command: 'a' }] }] } },
        /hooks\.PreToolUse\[0\]\.hooks\[0\]/,
        'parseHookSettings: a hook needs a type (guided step 4)',
      ],
      [
        { hooks: { PreToolUse: [{ hooks: [] }, null] } },
        /hooks\.PreToolUse\[1\]/,
        'parseHookSettings: a group must be an object (guided step 3)',
      ],
      [
        { hooks: { Stop: [{ hooks: [{ type: 'command', command: '   ' }] }] } },
        /hooks\.Stop\[0\]\.hooks\[0\]\.command/,
        'parseHookSettings: a command of only spaces is empty (guided step 4)',
      ],
      [
        { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'a', timeout: 0 }] }] } },
        /hooks\.Stop\[0\]\.hooks\[0\]\.timeout/,
        'parseHookSettings: a timeout of 0 is not positive (guided step 4)',
      ],
      [
        { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'a', timeout: '5' }] }] } },
        /hooks\.Stop\[0\]\.hooks\[0\]\.timeout/,
        'parseHookSettings: a timeout must be a number, not a string (guided step 4)',
      ],
    ];
    for (const [value, where, label] of cases) {
      const error = thrown(() => parseHookSettings(value, source));
      expect(error, `${label} (a SettingsError, not ${String(error)})`).toBeInstanceOf(SettingsError);
      expect((error as Error).message, `${label}: the message names the file`).toContain(source);
      expect((error as Error).message, `${label}: the message says where`).toMatch(where);
      const rest = (error as Error).message.replace(source, '').replace(where, '');
      expect(rest, `${label}: the message also says what is wrong there (guided step 2), not only where`).toMatch(
        /[a-z]{3}/i,
      );
    }
  });
});

describe('runHook (src/capstone/command-hooks.ts)', () => {
  test('sends the event as JSON on stdin, and reads exit code 0 with plain text as ok', async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const verdict = await runHook(
      'PreToolUse',
      cmd('cat > in.json; echo "  all good  "'),
      { tool_name: 'Bash', tool_input: { command: 'ls' } },
      options,
      never(),
    );
    expect(
      readJson(root, 'in.json'),
      'runHook: session_id, cwd and hook_event_name, then the fields (guided step 2)',
    ).toEqual({
      session_id: 'session-15',
      cwd: root,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
    });
    expect(verdict, 'runHook: exit code 0 with text is ok, the text trimmed (guided step 7)').toEqual({
      type: 'ok',
      text: 'all good',
    });
  });

  test('exit code 2 blocks with stderr trimmed (stdout unread); with no stderr, with a sentence naming the event and the command', async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const allowing = printJson({ hookSpecificOutput: { permissionDecision: 'allow' } });
    const verdict = await runHook(
      'PreToolUse',
      cmd(`echo "  no rm -rf here  " >&2; ${allowing}; exit 2`),
      {},
      options,
      never(),
    );
    expect(
      verdict,
      'runHook: exit code 2 is a block with stderr trimmed, whatever stdout says (guided step 5)',
    ).toEqual({
      type: 'block',
      message: 'no rm -rf here',
    });
    const silent = await runHook('Stop', cmd('exit 2'), {}, options, never());
    expect(silent.type, 'runHook: exit code 2 blocks even without stderr (guided step 5)').toBe('block');
    const message = silent.type === 'block' ? silent.message : '';
    expect(message, 'runHook: with no stderr, a sentence that names the event (guided step 5)').toContain('Stop');
    expect(message, 'runHook: and the command (guided step 5)').toContain('exit 2');
  });

  test('any other non-zero exit code is reported with its code and stderr, and blocks nothing', async () => {
    const { root } = tempWorkspace();
    const { options, reports } = hookOptions(root);
    const one = await runHook('PreToolUse', cmd('echo "jq: command not found" >&2; exit 1'), {}, options, never());
    expect(one, 'runHook: exit code 1 is a failure of the hook, not a block (guided step 6)').toEqual({
      type: 'ignored',
    });
    expect(reports[0], 'runHook: the report names the event (guided step 6)').toContain('PreToolUse');
    expect(reports[0], 'runHook: the report gives the exit code (guided step 6)').toMatch(/\b1\b/);
    expect(reports[0], 'runHook: the report gives stderr (guided step 6)').toContain('jq: command not found');
    expect(
      await runHook('PostToolUse', cmd('exit 3'), {}, options, never()),
      'runHook: exit code 3 is ignored too (guided step 6)',
    ).toEqual({ type: 'ignored' });
    const { run } = fakeRunner({ exitCode: null, stderr: 'killed' });
    expect(
      await runHook('Stop', cmd('x'), {}, { ...options, run }, never()),
      'runHook: no exit code (killed) is ignored (guided step 6)',
    ).toEqual({ type: 'ignored' });
    expect(reports, 'runHook: each failure reported once (guided step 6)').toHaveLength(3);
  });

  test('a failed hook is reported with the event, the command, its code (or that it had none) and stderr trimmed', async () => {
    const { root } = tempWorkspace();
    const { options, reports } = hookOptions(root);
    const one = await runHook(
      'PreToolUse',
      cmd('check.sh'),
      {},
      { ...options, run: scripted({ 'check.sh': { exitCode: 1, stderr: '  jq: command not found\n' } }) },
      never(),
    );
    expect(one, 'runHook: exit code 1 is ignored (guided step 6)').toEqual({ type: 'ignored' });
    expect(reports[0], 'runHook: the report names the event (guided step 6)').toContain('PreToolUse');
    expect(reports[0], 'runHook: the report names the command (guided step 6)').toContain('check.sh');
    expect(reports[0], 'runHook: the report gives the exit code, 1 (guided step 6)').toMatch(/\b1\b/);
    expect(reports[0], 'runHook: the report gives stderr (guided step 6)').toContain('jq: command not found');
    expect(reports[0], 'runHook: stderr trimmed (the report is one line) (guided step 6)').not.toMatch(/\n/);
    await runHook(
      'Stop',
      cmd('check.sh'),
      {},
      { ...options, run: scripted({ 'check.sh': { exitCode: null } }) },
      never(),
    );
    expect(
      reports[1],
      'runHook: a hook with no exit code (null) is reported as killed or as having none (guided step 6)',
    ).toMatch(/null|none|no exit code|kill|signal/i);
  });

  test('options.report is optional: a hook that times out, fails or prints broken JSON is ignored without it', async () => {
    const { root } = tempWorkspace();
    const run = scripted({
      slow: { timedOut: true, exitCode: null },
      failing: { exitCode: 1, stderr: 'oops' },
      broken: { stdout: '{"a":' },
    });
    const options: CommandHookOptions = { cwd: root, sessionId: 'session-15', run };
    for (const [command, step] of [
      ['slow', 4],
      ['failing', 6],
      ['broken', 7],
    ] as const) {
      const verdict = await runHook('PreToolUse', cmd(command), {}, options, never()).catch((error: unknown) => {
        if (error instanceof Error && error.name === 'TodoError') throw error;
        return error;
      });
      expect(
        verdict,
        `runHook step ${step}: with no options.report, the ${command} hook is ignored (report only when given)`,
      ).toEqual({ type: 'ignored' });
    }
  });

  test('JSON on stdout after exit code 0 is read; output that starts with { but does not parse is reported and ignored', async () => {
    const { root } = tempWorkspace();
    const { options, reports } = hookOptions(root);
    const answer = {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' },
    };
    const verdict = await runHook('PreToolUse', cmd(printJson(answer)), {}, options, never());
    expect(verdict, 'runHook: exit code 0 with a JSON object is ok, with the object as json (guided step 7)').toEqual({
      type: 'ok',
      text: JSON.stringify(answer),
      json: answer,
    });
    expect(reports, 'runHook: nothing to report (guided step 7)').toEqual([]);
    const broken = await runHook('PreToolUse', cmd(`echo '{"hookSpecificOutput": '`), {}, options, never());
    expect(broken, 'runHook: a broken object is ignored, not taken as text (guided step 7)').toEqual({
      type: 'ignored',
    });
    expect(reports.join('\n'), 'runHook: and reported as JSON that does not parse (guided step 7)').toMatch(/JSON/);
  });

  test("the hook's timeout (seconds) is its time limit in milliseconds, 60 s when it has none; the run gets the cwd and the signal", async () => {
    const { root } = tempWorkspace();
    const { run, calls } = fakeRunner();
    const { options } = hookOptions(root, { run });
    const signal = never();
    await runHook('PreToolUse', cmd('check.sh', 5), {}, options, signal);
    await runHook('PreToolUse', cmd('check.sh'), {}, options, signal);
    expect(
      calls.map((c) => c.options.timeoutMs),
      'runHook: timeout 5 is 5000 ms; none is DEFAULT_HOOK_TIMEOUT_S (60) seconds (guided step 2)',
    ).toEqual([5000, 60_000]);
    expect(calls[0]!.options.cwd, 'runHook: the command runs in options.cwd (guided step 2)').toBe(root);
    expect(calls[0]!.options.signal, "runHook: the run's signal goes to the runner (guided step 2)").toBe(signal);
    expect(calls[0]!.command, 'runHook: the command as written (guided step 2)').toBe('check.sh');
  });

  test('a hook that runs past its time limit is killed with what it started, reported, and ignored', async () => {
    const { root } = tempWorkspace();
    const { options, reports } = hookOptions(root);
    // The test stops the hook itself once only a hang would still be waiting (and fails), so a time limit that does
    // not work leaves nothing running.
    const controller = new AbortController();
    const late = setTimeout(
      () => controller.abort(new Error('the test had to stop a hook that its time limit did not stop')),
      HANG_MS,
    );
    const verdict = await runHook('PreToolUse', cmd(SLEEPER, 0.2), {}, options, controller.signal).then(
      (value) => value,
      (error: unknown) => {
        if (error instanceof Error && error.name === 'TodoError') throw error;
        return error;
      },
    );
    clearTimeout(late);
    expect(
      controller.signal.aborted,
      'runHook: a hook with timeout 0.2 (seconds) is stopped by its own time limit, after about 200 ms (guided step 2)',
    ).toBe(false);
    expect(verdict, 'runHook: a timed-out hook is ignored (guided step 4)').toEqual({ type: 'ignored' });
    expect(reports.join('\n'), 'runHook: and reported as timed out (guided step 4)').toMatch(/timed out/);
    const pid = sleeperPid(root);
    expect(await eventually(() => !alive(pid)), `the sleep the hook started (pid ${pid}) is killed with it`).toBe(true);
  });

  test("an abort while a hook runs kills it and rejects with the signal's reason; an aborted signal runs nothing", async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const controller = new AbortController();
    const reason = new Error('the person pressed Esc');
    const running = runHook('PreToolUse', cmd(SLEEPER), {}, options, controller.signal);
    const settled = watch(running);
    await eventually(() => existsSync(path.join(root, 'sleep.pid')) || settled.done);
    controller.abort(reason);
    // The hook sleeps far longer than the test waits: only an abort that stops it ends the call.
    await within(
      running.then(
        () => undefined,
        () => undefined,
      ),
      'runHook: at once, not when the hook would have ended (guided step 3)',
    );
    const error = await rejection(
      running,
      "runHook: an abort while the hook runs rejects with the signal's reason (guided step 3)",
    );
    expect(error, "runHook: the rejection is the signal's reason itself (guided step 3)").toBe(reason);
    const pid = sleeperPid(root);
    expect(await eventually(() => !alive(pid)), `the sleep the hook started (pid ${pid}) is killed`).toBe(true);

    const { run, calls } = fakeRunner();
    const aborted = AbortSignal.abort(reason);
    expect(
      await rejection(
        runHook('Stop', cmd('x'), {}, { ...options, run }, aborted),
        'runHook: an aborted signal rejects (guided step 1)',
      ),
      "runHook: with the signal's reason (guided step 1)",
    ).toBe(reason);
    expect(calls, 'runHook: and nothing runs (guided step 1)').toEqual([]);
  });
});

describe('runPreToolUse (src/capstone/command-hooks.ts)', () => {
  test("exit code 2 blocks the call: the tool never runs and the model reads the hook's stderr", async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const hooks = commandHooks(
      config({ PreToolUse: [group('Bash', cmd('cat > in.json; echo "rm -rf is not allowed here" >&2; exit 2'))] }),
      options,
    );
    const { agent, provider, ran } = bashAgent(root, hooks);
    const history = ask('clean up');
    await collect(agent.run(history));
    expect(ran, 'runPreToolUse: a blocked call never runs (guided step 3)').toEqual([]);
    const [result] = toolResults(requestOn(provider, 2));
    expect(
      result?.content,
      "runPreToolUse: the model reads the hook's stderr as the call's result (guided step 3)",
    ).toBe('rm -rf is not allowed here');
    expect(result?.isError, 'runPreToolUse: as an error result (guided step 3)').toBe(true);
    expect(
      readJson(root, 'in.json'),
      "runPreToolUse: the hook reads the event, Claude Code's tool name, the input and the call's id (guided step 2)",
    ).toEqual({
      session_id: 'session-15',
      cwd: root,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build' },
      tool_use_id: 'c1',
    });
    expect(history).toBeValidHistory('after a call a hook blocked');
  });

  test('permissionDecision deny blocks with its reason, allow allows, ask is told to the gate, plain output has no opinion', async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const answer = (output: Record<string, unknown>) => [
      group('Bash', cmd(printJson({ hookSpecificOutput: { hookEventName: 'PreToolUse', ...output } }))),
    ];
    expect(
      await runPreToolUse(
        answer({ permissionDecision: 'deny', permissionDecisionReason: 'not on Fridays' }),
        bashCall(),
        options,
        never(),
      ),
      'runPreToolUse: deny blocks with permissionDecisionReason (guided step 4)',
    ).toEqual({ type: 'block', message: 'not on Fridays' });
    const bare = await runPreToolUse(answer({ permissionDecision: 'deny' }), bashCall(), options, never());
    expect(bare?.type, 'runPreToolUse: deny without a reason still blocks (guided step 4)').toBe('block');
    expect(
      bare?.type === 'block' && bare.message.trim().length > 0,
      'runPreToolUse: with a sentence of your own (guided step 4)',
    ).toBe(true);
    expect(
      await runPreToolUse(answer({ permissionDecision: 'allow' }), bashCall(), options, never()),
      'runPreToolUse: allow is { type: allow } (guided step 5)',
    ).toEqual({ type: 'allow' });
    expect(
      await runPreToolUse(answer({ permissionDecision: 'ask' }), bashCall(), options, never()),
      'runPreToolUse: without options.asked (no gate to tell), an ask is still no decision, and no error (guided step 4)',
    ).toBeUndefined();
    const asks: Array<[string, string]> = [];
    const asking = { ...options, asked: (id: string, reason: string) => asks.push([id, reason]) };
    expect(
      await runPreToolUse(
        answer({ permissionDecision: 'ask', permissionDecisionReason: ' check the branch ' }),
        { ...bashCall(), id: 'c-ask' },
        asking,
        never(),
      ),
      'runPreToolUse: ask is no decision of the hook itself (the gate asks) (guided step 5)',
    ).toBeUndefined();
    await runPreToolUse(answer({ permissionDecision: 'allow' }), { ...bashCall(), id: 'c-allow' }, asking, never());
    await runPreToolUse(answer({ permissionDecision: 'ask' }), { ...bashCall(), id: 'c-bare' }, asking, never());
    expect(
      asks[0],
      'runPreToolUse: ask tells options.asked the call id and the reason, trimmed (guided step 4)',
    ).toEqual(['c-ask', 'check the branch']);
    expect(
      asks.map(([id]) => id),
      'runPreToolUse: only an ask is told (an allow is not a question) (guided step 4)',
    ).toEqual(['c-ask', 'c-bare']);
    expect(
      asks[1]?.[0] === 'c-bare' && (asks[1]?.[1] ?? '').trim().length > 0,
      'runPreToolUse: an ask without a reason is told with a sentence of your own (guided step 4)',
    ).toBe(true);
    expect(
      await runPreToolUse([group('Bash', cmd('echo "checked"'))], bashCall(), options, never()),
      'runPreToolUse: plain output is no opinion (guided step 5)',
    ).toBeUndefined();
  });

  test('an allow from one hook does not stop the hooks after it: a later block still blocks', async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const allowing = cmd(
      printJson({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } }),
    );
    const denying = cmd(
      printJson({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' },
      }),
    );
    expect(
      await runPreToolUse([group('Bash', allowing), group('Bash', denying)], bashCall(), options, never()),
      'runPreToolUse: every matching hook runs; an allow is remembered, not returned at once, so the block of a later hook wins (guided steps 2-4)',
    ).toEqual({ type: 'block', message: 'no' });
  });

  test('deny with a reason of only spaces blocks with a sentence of your own', async () => {
    const { root } = tempWorkspace();
    const run = scripted({
      deny: jsonOut({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: ' \n ',
        },
      }),
    });
    const { options } = hookOptions(root, { run });
    const decision = await runPreToolUse([group('Bash', cmd('deny'))], bashCall(), options, never());
    expect(decision?.type, 'runPreToolUse: deny with a blank reason still blocks (guided step 4)').toBe('block');
    const message = decision?.type === 'block' ? decision.message : '';
    expect(
      message,
      'runPreToolUse: a reason that is blank once trimmed is none: the model reads a sentence of your own (guided step 4)',
    ).toMatch(/\w/);
  });

  test('updatedInput changes the call, and the hooks after it see the changed input', async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const dryRun = { command: 'rm -rf build --dry-run' };
    const rewrite = cmd(
      `cat > first.json; ${printJson({ hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: dryRun } })}`,
    );
    const hooks = commandHooks(
      config({ PreToolUse: [group('Bash', rewrite), group('*', cmd('cat > second.json'))] }),
      options,
    );
    const { agent, ran } = bashAgent(root, hooks);
    const events = await collect(agent.run(ask('clean up')));
    expect(ran, 'runPreToolUse: the tool runs with the updatedInput (guided step 4)').toEqual([
      'rm -rf build --dry-run',
    ]);
    expect(
      readJson(root, 'first.json')?.tool_input,
      'runPreToolUse: the first hook sees the input as the model wrote it (guided step 2)',
    ).toEqual({ command: 'rm -rf build' });
    expect(
      readJson(root, 'second.json')?.tool_input,
      'runPreToolUse: the hook after it sees the changed input (guided step 4)',
    ).toEqual(dryRun);
    const decided = events.find((event) => event.type === 'tool_call_decided');
    expect(
      decided && 'decision' in decided ? decided.decision : undefined,
      'runPreToolUse: the decision is a change with the new arguments (guided step 5)',
    ).toEqual({ type: 'change', arguments: dryRun });
  });

  test('every matching hook runs, in order; hooks whose matcher does not select the tool do not run', async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const say = (word: string) => cmd(`echo ${word} >> order.txt`);
    const groups = [
      group('Bash', say('one'), say('two')),
      group('Write', say('never')),
      group('*', say('three')),
      group('mcp__.*', say('never')),
      group('bash', say('four')),
    ];
    const decision = await runPreToolUse(groups, bashCall(), options, never());
    expect(
      readFileSync(path.join(root, 'order.txt'), 'utf8').split('\n').filter(Boolean),
      'runPreToolUse: every hook of every matching group, in order, and no other (guided step 2)',
    ).toEqual(['one', 'two', 'three', 'four']);
    expect(decision, 'runPreToolUse: hooks that only print have no opinion (guided step 5)').toBeUndefined();
  });

  test('a hook that fails with another code, or prints broken JSON, is reported and the call goes on', async () => {
    const { root } = tempWorkspace();
    const { options, reports } = hookOptions(root);
    const hooks = commandHooks(
      config({ PreToolUse: [group('Bash', cmd('echo "oops" >&2; exit 1'), cmd(`echo '{"hookSpecificOutput": {'`))] }),
      options,
    );
    const { agent, provider, ran } = bashAgent(root, hooks);
    await collect(agent.run(ask('clean up')));
    expect(ran, 'runPreToolUse: ignored verdicts change nothing: the call runs (guided step 4)').toEqual([
      'rm -rf build',
    ]);
    expect(
      toolResults(requestOn(provider, 2))[0]?.isError,
      "runPreToolUse: and its result is the tool's own (guided step 4)",
    ).toBe(false);
    expect(reports, 'runHook: both failures are reported (guided steps 6-7)').toHaveLength(2);
  });

  test('an abort while a PreToolUse hook runs ends the run as cancelled at once, with the hook killed', async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const { agent, ran } = bashAgent(
      root,
      commandHooks(config({ PreToolUse: [group(undefined, cmd(SLEEPER))] }), options),
    );
    const controller = new AbortController();
    const history = ask('clean up');
    const events = collect(agent.run(history, { signal: controller.signal }));
    const settled = watch(events);
    await eventually(() => existsSync(path.join(root, 'sleep.pid')) || settled.done);
    controller.abort(new Error('cancelled by the person'));
    // The hook sleeps far longer than the test waits: only a run whose signal reaches the hook ends.
    const done = (await within(events, 'runPreToolUse: at once, not after the hook (guided step 2)')).at(-1);
    expect(
      done?.type === 'done' && done.reason,
      "runPreToolUse: the hook gets the run's signal, so the run ends as cancelled (guided step 2)",
    ).toBe('cancelled');
    expect(ran, 'the call did not run').toEqual([]);
    const pid = sleeperPid(root);
    expect(await eventually(() => !alive(pid)), `the hook's sleep (pid ${pid}) is killed`).toBe(true);
    expect(history).toBeValidHistory('after an abort during a hook');
  });
});

describe('runPostToolUse (src/capstone/command-hooks.ts)', () => {
  test("exit code 2 adds the hook's stderr to the result the model reads", async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const hooks = commandHooks(
      config({ PostToolUse: [group('Bash', cmd('cat > post.json; echo "lint: 3 warnings" >&2; exit 2'))] }),
      options,
    );
    const { agent, provider, ran } = bashAgent(root, hooks);
    await collect(agent.run(ask('clean up')));
    expect(ran, 'PostToolUse runs after the call: it ran').toEqual(['rm -rf build']);
    const [result] = toolResults(requestOn(provider, 2));
    expect(
      result?.content,
      "runPostToolUse: the tool's output, a blank line, then the hook's note (guided step 3)",
    ).toBe('ran: rm -rf build\n\nPostToolUse hook: lint: 3 warnings');
    expect(result?.isError, 'runPostToolUse: the call ran, so it is not an error (guided step 3)').toBe(false);
    expect(
      readJson(root, 'post.json'),
      'runPostToolUse: the hook reads the call and the result as tool_response (guided step 1)',
    ).toEqual({
      session_id: 'session-15',
      cwd: root,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build' },
      tool_response: { content: 'ran: rm -rf build', isError: false },
      tool_use_id: 'c1',
    });
  });

  test('decision block adds its reason, notes keep their order, a quiet hook leaves the result alone, and the result given never changes', async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const given = toolResult({ id: 'c1', name: 'bash' }, 'exit code: 1');
    const before = structuredClone(given);
    const groups = [
      group('Bash', cmd('echo "first note" >&2; exit 2')),
      group('*', cmd(printJson({ decision: 'block', reason: 'the tests fail now' }))),
    ];
    const changed = await runPostToolUse(groups, bashCall(), given, options, never());
    expect(changed?.content, 'runPostToolUse: each note in hook order, the JSON reason too (guided step 2)').toBe(
      'exit code: 1\n\nPostToolUse hook: first note\n\nPostToolUse hook: the tests fail now',
    );
    expect(
      changed && { ...changed, content: '' },
      'runPostToolUse: the same id, name and isError (guided step 3)',
    ).toEqual({
      ...before,
      content: '',
    });
    expect(given, 'runPostToolUse: never change the result you were given: return a new one (guided step 3)').toEqual(
      before,
    );
    expect(
      await runPostToolUse([group('*', cmd('echo "all fine"'))], bashCall(), given, options, never()),
      'runPostToolUse: no notes: undefined (guided step 3)',
    ).toBeUndefined();
    expect(
      await runPostToolUse([group('Write', cmd('exit 2'))], bashCall(), given, options, never()),
      'runPostToolUse: a hook for Write does not run after bash (guided step 1)',
    ).toBeUndefined();
  });

  test('decision block with no reason, or a blank one, adds a sentence of your own', async () => {
    const { root } = tempWorkspace();
    const run = scripted({
      bare: jsonOut({ decision: 'block' }),
      blank: jsonOut({ decision: 'block', reason: ' \n ' }),
    });
    const { options } = hookOptions(root, { run });
    const given = toolResult({ id: 'c1', name: 'bash' }, 'exit code: 0');
    for (const [command, what] of [
      ['bare', 'no reason'],
      ['blank', 'a reason of only spaces'],
    ] as const) {
      const changed = await runPostToolUse([group('*', cmd(command))], bashCall(), given, options, never());
      const content = typeof changed?.content === 'string' ? changed.content : '';
      expect(content, `runPostToolUse: decision block with ${what} adds a note (guided step 3)`).toMatch(
        /^exit code: 0\n\nPostToolUse hook: /,
      );
      expect(
        content.replace(/^exit code: 0\n\nPostToolUse hook: /, ''),
        `runPostToolUse: with ${what}, the note is a sentence of your own (guided step 2)`,
      ).toMatch(/\w/);
    }
  });
});

describe('runUserPromptSubmit (src/capstone/session-hooks.ts)', () => {
  test("exit code 2 refuses the prompt with the hook's stderr, and the hooks after it do not run", async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const groups = [
      group(undefined, cmd('cat > prompt.json; echo "no API keys in prompts" >&2; exit 2'), cmd('touch later')),
    ];
    const verdict = await runUserPromptSubmit(groups, 'use sk-123 to deploy', options, never());
    expect(verdict, 'runUserPromptSubmit: blocked, with stderr as the reason (guided step 2)').toEqual({
      blocked: true,
      reason: 'no API keys in prompts',
    });
    expect(
      readJson(root, 'prompt.json'),
      'runUserPromptSubmit: the hook reads the prompt (guided step 1)',
    ).toMatchObject({
      hook_event_name: 'UserPromptSubmit',
      prompt: 'use sk-123 to deploy',
    });
    expect(
      existsSync(path.join(root, 'later')),
      'runUserPromptSubmit: the hooks after a block do not run (guided step 2)',
    ).toBe(false);
  });

  test('stdout is context for the model; JSON may add context or refuse; quiet hooks add nothing', async () => {
    const { root } = tempWorkspace();
    const { options } = hookOptions(root);
    const json = (value: unknown) => cmd(printJson(value));
    const groups = [
      group(undefined, cmd('echo "branch: main"')),
      group(
        'Bash',
        json({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'today is Friday' } }),
        cmd('true'),
      ),
    ];
    expect(
      await runUserPromptSubmit(groups, 'hi', options, never()),
      'runUserPromptSubmit: plain stdout and additionalContext, joined by a newline (every group runs: this event has no matcher) (guided step 3)',
    ).toEqual({ blocked: false, context: 'branch: main\ntoday is Friday' });
    expect(
      await runUserPromptSubmit([group(undefined, cmd('true'))], 'hi', options, never()),
      'runUserPromptSubmit: no context key when there is none (guided step 4)',
    ).toEqual({ blocked: false });
    expect(
      await runUserPromptSubmit(
        [group(undefined, json({ decision: 'block', reason: 'ask in English' }))],
        'hola',
        options,
        never(),
      ),
      'runUserPromptSubmit: decision block refuses with its reason (guided step 3)',
    ).toEqual({ blocked: true, reason: 'ask in English' });
  });

  test('a blank or missing reason refuses with a sentence of your own; additionalContext is trimmed; JSON without it adds nothing', async () => {
    const { root } = tempWorkspace();
    const run = scripted({
      bare: jsonOut({ decision: 'block' }),
      blank: jsonOut({ decision: 'block', reason: ' \n ' }),
      quiet: jsonOut({ suppressOutput: true }),
      other: jsonOut({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit' } }),
      spaces: jsonOut({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: '  \n ' } }),
      padded: jsonOut({
        hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: '\n  today is Friday  \n' },
      }),
    });
    const { options } = hookOptions(root, { run });
    for (const [command, what] of [
      ['bare', 'no reason'],
      ['blank', 'a reason of only spaces'],
    ] as const) {
      const verdict = await runUserPromptSubmit([group(undefined, cmd(command))], 'hi', options, never());
      expect(
        verdict.blocked,
        `runUserPromptSubmit: decision block with ${what} refuses the prompt (guided step 3)`,
      ).toBe(true);
      expect(
        verdict.blocked ? verdict.reason : '',
        `runUserPromptSubmit: with ${what}, the reason is a sentence of your own (guided step 3)`,
      ).toMatch(/\w/);
    }
    expect(
      await runUserPromptSubmit([group(undefined, cmd('quiet'), cmd('other'), cmd('spaces'))], 'hi', options, never()),
      'runUserPromptSubmit: JSON without additionalContext, or with a blank one, adds no context (guided steps 3-4)',
    ).toEqual({ blocked: false });
    expect(
      await runUserPromptSubmit([group(undefined, cmd('padded'))], 'hi', options, never()),
      'runUserPromptSubmit: additionalContext trimmed (guided step 3)',
    ).toEqual({ blocked: false, context: 'today is Friday' });
  });
});

describe('runStop (src/capstone/session-hooks.ts)', () => {
  test('exit code 2 or decision block asks the agent to go on with the reason; otherwise it may stop', async () => {
    const { root } = tempWorkspace();
    const { options, reports } = hookOptions(root);
    const viaExit = await runStop(
      [group(undefined, cmd('cat > stop.json; echo "the tests still fail" >&2; exit 2'))],
      'All done.',
      false,
      options,
      never(),
    );
    expect(viaExit, 'runStop: exit code 2 continues, with stderr as the reason (guided step 2)').toEqual({
      continue: true,
      reason: 'the tests still fail',
    });
    expect(
      readJson(root, 'stop.json'),
      'runStop: the hook reads stop_hook_active and the last answer (guided step 1)',
    ).toMatchObject({ hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'All done.' });
    const hooks = sessionHooks(
      config({
        Stop: [
          group(undefined, cmd(`cat > again.json; ${printJson({ decision: 'block', reason: 'run npm test first' })}`)),
        ],
      }),
      options,
    );
    expect(
      await hooks.onStop('Fixed it.', { stopHookActive: true }),
      'runStop: decision block continues with its reason (guided step 3)',
    ).toEqual({ continue: true, reason: 'run npm test first' });
    expect(
      readJson(root, 'again.json')?.stop_hook_active,
      'runStop: stop_hook_active as the caller says (guided step 1)',
    ).toBe(true);
    expect(
      await runStop([group(undefined, cmd('echo "looks done"'), cmd('exit 1'))], 'ok', false, options, never()),
      'runStop: plain output and a failed hook let it stop (guided step 4)',
    ).toEqual({ continue: false });
    expect(reports, 'the failed hook was reported').toHaveLength(1);
  });

  test('decision block with no reason, or a blank one, goes on with a sentence of your own', async () => {
    const { root } = tempWorkspace();
    const run = scripted({
      bare: jsonOut({ decision: 'block' }),
      blank: jsonOut({ decision: 'block', reason: ' \n ' }),
    });
    const { options } = hookOptions(root, { run });
    for (const [command, what] of [
      ['bare', 'no reason'],
      ['blank', 'a reason of only spaces'],
    ] as const) {
      const verdict = await runStop([group(undefined, cmd(command))], 'All done.', false, options, never());
      expect(verdict.continue, `runStop: decision block with ${what} asks to go on (guided step 3)`).toBe(true);
      expect(
        verdict.continue ? verdict.reason : '',
        `runStop: with ${what}, the reason is a sentence of your own (guided step 3)`,
      ).toMatch(/\w/);
    }
  });
});

describe('runSessionStart (src/capstone/session-hooks.ts)', () => {
  test('the output of the hooks whose matcher selects the source is context for the system prompt', async () => {
    const { root } = tempWorkspace();
    const { options, reports } = hookOptions(root);
    const groups = [
      group('startup', cmd('cat > start.json; echo "Project rules: be brief."')),
      group('resume', cmd('echo "Welcome back."')),
      group(
        undefined,
        cmd(printJson({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'On branch main.' } })),
      ),
      group('*', cmd('echo "cannot block" >&2; exit 2')),
    ];
    expect(
      await runSessionStart(groups, 'startup', options, never()),
      'runSessionStart: the startup hooks, plain and JSON context, joined by a blank line (guided steps 1-3)',
    ).toBe('Project rules: be brief.\n\nOn branch main.');
    expect(readJson(root, 'start.json'), 'runSessionStart: the hook reads the source (guided step 1)').toMatchObject({
      hook_event_name: 'SessionStart',
      source: 'startup',
    });
    expect(
      reports.join('\n'),
      'runSessionStart: exit code 2 cannot stop a session: it is reported (guided step 2)',
    ).toContain('cannot block');
    expect(reports, 'runSessionStart: only the hook that exited with code 2 is reported (guided step 2)').toHaveLength(
      1,
    );
    expect(
      await sessionHooks(config({ SessionStart: groups.slice(1, 3) }), options).onSessionStart('resume'),
      'runSessionStart: on resume, the resume hooks (guided step 1)',
    ).toBe('Welcome back.\n\nOn branch main.');
    expect(
      await runSessionStart([], 'clear', options, never()),
      "runSessionStart: '' when no hook says anything (guided step 3)",
    ).toBe('');
  });

  test('additionalContext is trimmed; JSON without it, a blank one and empty output add nothing; report is optional', async () => {
    const { root } = tempWorkspace();
    const run = scripted({
      quiet: jsonOut({ suppressOutput: true }),
      spaces: jsonOut({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '  \n ' } }),
      padded: jsonOut({
        hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: '\n  On branch main.  \n' },
      }),
      silent: {},
      rules: { stdout: 'Be brief.\n' },
      blocker: { exitCode: 2, stderr: 'cannot block' },
    });
    const { options } = hookOptions(root, { run });
    const groups = [
      group(
        undefined,
        cmd('quiet'),
        cmd('spaces'),
        cmd('silent'),
        cmd('padded'),
        cmd('silent'),
        cmd('rules'),
        cmd('silent'),
      ),
    ];
    expect(
      await runSessionStart(groups, 'startup', options, never()),
      'runSessionStart: additionalContext trimmed; no piece for JSON without it, a blank one, or no output (guided step 2)',
    ).toBe('On branch main.\n\nBe brief.');
    const unreported: CommandHookOptions = { cwd: root, sessionId: 'session-15', run };
    const text = await runSessionStart(
      [group(undefined, cmd('blocker'), cmd('rules'))],
      'startup',
      unreported,
      never(),
    ).catch((error: unknown) => {
      if (error instanceof Error && error.name === 'TodoError') throw error;
      return error;
    });
    expect(
      text,
      'runSessionStart: with no options.report, exit code 2 is reported to no one and the session starts (guided step 2)',
    ).toBe('Be brief.');
  });
});
