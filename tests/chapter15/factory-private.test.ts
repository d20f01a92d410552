/**
 * Chapter 15: what the factory hands the parts that write or report for the agent (src/capstone/factory.ts): the
 * command hooks learn the session file and the permission mode, as Claude Code's hooks do, and the output budget
 * scrubs the environment's secrets before it keeps a whole output on disk.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { emptyHookConfig, type HookRun } from 'kit/capstone/command-hooks';
import { assistantText, assistantToolCalls } from 'kit/messages';
import { OUTPUTS_DIR } from 'kit/output-budget';
import { sessionsDir } from 'kit/session/store';
import { build, noSettings, resultText, runPrompt, workspace } from './factory-fixtures.js';

const bashCall = (id: string, command: string) => assistantToolCalls([{ id, name: 'bash', arguments: { command } }]);

function recordingHooks() {
  const inputs: Array<Record<string, unknown>> = [];
  const runHook = async (_command: string, input: object): Promise<HookRun> => {
    inputs.push(input as Record<string, unknown>);
    return { exitCode: 0, stdout: '', stderr: '', timedOut: false };
  };
  const hooks = {
    ...emptyHookConfig(),
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' as const, command: 'audit' }] }],
  };
  return { inputs, runHook, settings: noSettings({ hooks }) };
}

describe('commandHooksFor and assembleAgent: what hooks and the budget are given (src/capstone/factory-steps.ts)', () => {
  test('a hook reads transcript_path, the session file, and permission_mode, the mode of the gate', async () => {
    const { cwd, home } = workspace();
    const { inputs, runHook, settings } = recordingHooks();
    const { built } = await build([bashCall('b1', 'echo hi'), assistantText('ok')], {
      cwd,
      home,
      settings,
      runHook,
      trust: { trusted: true },
      sessionId: 'hook-session',
      options: { permissionMode: 'acceptEdits' },
    });
    built.gate.setMode('bypassPermissions');
    await runPrompt(built, 'go');
    expect(
      inputs[0]?.transcript_path,
      'commandHooksFor: transcriptPath is the saved session file (store.file of its id)',
    ).toBe(path.join(sessionsDir(home, cwd), 'hook-session.jsonl'));
    expect(
      inputs[0]?.permission_mode,
      'commandHooksFor: permissionMode: () => gate.mode, read when the hook runs (the mode changed after building)',
    ).toBe('bypassPermissions');
  });

  test('without a saved session a hook gets no transcript_path', async () => {
    const { cwd, home } = workspace();
    const { inputs, runHook, settings } = recordingHooks();
    const { built } = await build([bashCall('b1', 'echo hi'), assistantText('ok')], {
      cwd,
      home,
      settings,
      runHook,
      trust: { trusted: true },
      options: { permissionMode: 'bypassPermissions', noSession: true },
    });
    await runPrompt(built, 'go');
    expect(inputs[0], 'commandHooksFor: a hook ran').toMatchObject({ permission_mode: 'bypassPermissions' });
    expect(inputs[0] && 'transcript_path' in inputs[0], 'commandHooksFor: no session, no transcript_path').toBe(false);
  });

  test("the whole output the budget keeps holds none of the environment's secrets", async () => {
    const { cwd, home } = workspace();
    const TOKEN = 'deploy-token-0123456789abcdef';
    const command = `printf 'token=%s\\n' ${TOKEN}; head -c 3000 /dev/zero | tr '\\0' a`;
    const { built } = await build([bashCall('b1', command), assistantText('ok')], {
      cwd,
      home,
      env: { DEPLOY_TOKEN: TOKEN },
      options: { permissionMode: 'bypassPermissions', outputBudget: 500, noSession: true },
    });
    await runPrompt(built, 'go');
    expect(resultText(built, 'b1'), 'assembleAgent: the result was cut (guided step 2)').toContain('.agent/outputs');
    const [kept] = readdirSync(path.join(cwd, OUTPUTS_DIR)).filter((name) => name.endsWith('.txt'));
    const text = readFileSync(path.join(cwd, OUTPUTS_DIR, kept!), 'utf8');
    expect(
      text.includes(TOKEN),
      "assembleAgent: the budget's redact is redactCredentials with secretsOf(env): no key on disk (guided step 2)",
    ).toBe(false);
    expect(text, 'assembleAgent: the rest of the output is kept (guided step 2)').toContain('token=[REDACTED]');
  });
});
