/**
 * Chapter 16: what the sandbox changes about chapter 8's decision (src/sandbox/decision.ts: willSandbox and
 * sandboxDecision). Inside the sandbox, a command chapter 8 would only ask about may run without a question; what
 * the sandbox cannot judge is still asked, and a command that leaves it always is.
 */
import { describe, expect, test } from 'vitest';
import type { ToolCall } from 'kit/messages';
import { evaluate, type PermissionMode } from 'kit/permissions/evaluate';
import { parseRule, type Rule } from 'kit/permissions/rules';
import {
  LEAVES_REASON,
  NO_LEAVING_REASON,
  SANDBOXED_REASON,
  sandboxDecision,
  type SandboxState,
  willSandbox,
} from 'kit/sandbox/decision';
import { folders, running } from './fixtures.js';

const bash = (command: string, extra: Record<string, unknown> = {}): ToolCall => ({
  type: 'tool_call',
  id: 'call-1',
  name: 'bash',
  arguments: { command, ...extra },
});
const rules = (...texts: [string, 'allow' | 'ask' | 'deny'][]): Rule[] =>
  texts.map(([text, behavior]) => parseRule(text, behavior, '/home/me/.claude/settings.json'));

function setup(change: Parameters<typeof running>[1] = (policy) => void (policy.autoAllowBashIfSandboxed = true)) {
  const { root, home } = folders();
  const workspace = { root, home };
  const sandbox = running(root, change);
  const decide = (
    call: ToolCall,
    given: Rule[] = [],
    mode: PermissionMode = 'default',
    state: SandboxState = sandbox,
  ) => sandboxDecision(call, { rules: given, mode, workspace, readOnly: false }, state);
  const chapter8 = (call: ToolCall, given: Rule[] = [], mode: PermissionMode = 'default') =>
    evaluate(given, mode, call, workspace, false);
  return { workspace, sandbox, decide, chapter8 };
}

describe('willSandbox (src/sandbox/decision.ts)', () => {
  test('a command runs sandboxed only while the policy is on and the sandbox started', () => {
    const { root } = folders();
    const input = { command: 'npm test' };
    expect(willSandbox(input, running(root)), 'willSandbox: on and available -> true').toBe(true);
    const off = running(root, (policy) => void (policy.enabled = false));
    expect(willSandbox(input, off), 'willSandbox: the policy is off -> false (guided step 1)').toBe(false);
    const down = { ...running(root), available: false };
    expect(willSandbox(input, down), 'willSandbox: the sandbox did not start -> false (guided step 1)').toBe(false);
  });

  test('not for a command the model asks to run outside, nor an excluded one', () => {
    const { root } = folders();
    const sandbox = running(root, (policy) => void (policy.excludedCommands = ['docker']));
    expect(
      willSandbox({ command: 'npm test', dangerouslyDisableSandbox: true }, sandbox),
      'willSandbox: dangerouslyDisableSandbox -> false (guided step 2)',
    ).toBe(false);
    expect(willSandbox({ command: 'npm test', dangerouslyDisableSandbox: false }, sandbox), 'false asks nothing').toBe(
      true,
    );
    expect(
      willSandbox({ command: 'docker ps' }, sandbox),
      'willSandbox: an excluded command -> false (guided step 2)',
    ).toBe(false);
    expect(
      willSandbox({ command: 'docker ps && curl evil.example' }, sandbox),
      'a line with a command that is not excluded stays inside (isExcludedCommand, given)',
    ).toBe(true);
  });
});

describe('sandboxDecision (src/sandbox/decision.ts)', () => {
  test('a command inside the sandbox that the mode would only ask about runs without a question', async () => {
    const { decide, chapter8 } = setup();
    expect((await chapter8(bash('npm test'))).behavior, 'chapter 8 asks').toBe('ask');
    expect(
      await decide(bash('npm test')),
      'sandboxDecision: sandboxed, auto-allow on -> allow with SANDBOXED_REASON (guided step 4)',
    ).toEqual({
      behavior: 'allow',
      reason: SANDBOXED_REASON,
    });
  });

  test('without autoAllowBashIfSandboxed, chapter 8 decides as before', async () => {
    const { decide, chapter8 } = setup((policy) => void (policy.autoAllowBashIfSandboxed = false));
    expect(
      await decide(bash('npm test')),
      'sandboxDecision: auto-allow off -> evaluate as it is (guided step 3)',
    ).toEqual(await chapter8(bash('npm test')));
  });

  test('a deny rule still denies inside the sandbox, an assignment before the command included', async () => {
    const { decide } = setup();
    const given = rules(['Bash(curl:*)', 'deny']);
    for (const command of ['curl https://example.org', 'FOO=1 curl https://example.org', 'echo hi && curl x']) {
      const decision = await decide(bash(command), given);
      expect(
        decision.behavior,
        `sandboxDecision: \`${command}\` is denied by Bash(curl:*) (guided steps 1 and 4)`,
      ).toBe('deny');
      expect(decision.rule?.specifier, 'the rule that decided').toBe('curl:*');
    }
  });

  test('an ask rule still asks inside the sandbox', async () => {
    const { decide } = setup();
    const decision = await decide(bash('git push origin main'), rules(['Bash(git push:*)', 'ask']));
    expect(decision.behavior, 'sandboxDecision: an ask rule holds in bypassPermissions too (guided step 4)').toBe(
      'ask',
    );
    expect(decision.reason, "the ask rule's reason, not the sandbox's").toContain('git push');
  });

  test('a dangerous removal still asks: the workspace is writable inside the sandbox, so deleting it is not stopped', async () => {
    const { decide } = setup();
    for (const command of ['rm -rf .', 'rm -r -f ../app', 'rm --recursive ~']) {
      const decision = await decide(bash(command));
      expect(decision.behavior, `sandboxDecision: \`${command}\` asks (a safety concern, guided step 4)`).toBe('ask');
      expect(decision.reason, 'with the concern as its reason').not.toBe(SANDBOXED_REASON);
    }
    expect((await decide(bash('rm -rf build'))).behavior, 'a removal inside the workspace runs').toBe('allow');
  });

  test('a command chapter 8 does not understand is never auto-allowed: it could hide a removal of the workspace', async () => {
    const { decide, chapter8 } = setup();
    for (const command of ['cd .. && rm -rf app', 'eval "$CMD"', 'cat $(echo ~/.aws/credentials)']) {
      const decision = await decide(bash(command));
      expect(decision.behavior, `sandboxDecision: \`${command}\` is not understood: asked (guided step 3)`).toBe('ask');
      expect(decision, "chapter 8's own question, which says it is not understood").toEqual(
        await chapter8(bash(command)),
      );
    }
  });

  test('plan mode still denies: the first decision is not a question', async () => {
    const { decide } = setup();
    const decision = await decide(bash('npm test'), [], 'plan');
    expect(decision.behavior, 'sandboxDecision: only an ask of evaluate may become an allow (guided step 3)').toBe(
      'deny',
    );
  });

  test('an allow by a rule stays that rule', async () => {
    const { decide, chapter8 } = setup();
    const given = rules(['Bash(npm test:*)', 'allow']);
    expect(
      await decide(bash('npm test'), given),
      'sandboxDecision: evaluate allowed it: its decision (guided step 3)',
    ).toEqual(await chapter8(bash('npm test'), given));
  });

  test('a command that asks to leave the sandbox is asked about, even where a rule or the mode allows it', async () => {
    const { decide } = setup();
    const leave = bash('npm test', { dangerouslyDisableSandbox: true });
    expect(await decide(leave), 'sandboxDecision: leaving -> ask with LEAVES_REASON (guided step 2)').toEqual({
      behavior: 'ask',
      reason: LEAVES_REASON,
    });
    expect(
      (await decide(leave, rules(['Bash(npm test:*)', 'allow']))).behavior,
      'an allow rule does not answer for the person when the command leaves (guided step 2)',
    ).toBe('ask');
    expect((await decide(leave, [], 'bypassPermissions')).behavior, 'nor does bypassPermissions (guided step 2)').toBe(
      'ask',
    );
    expect(
      (await decide(leave, rules(['Bash(npm:*)', 'deny']))).behavior,
      'a deny rule still denies it (guided step 2)',
    ).toBe('deny');
  });

  test('with allowUnsandboxedCommands off, a command that asks to leave is refused', async () => {
    const { decide } = setup((policy) => {
      policy.autoAllowBashIfSandboxed = true;
      policy.allowUnsandboxedCommands = false;
    });
    const decision = await decide(bash('npm test', { dangerouslyDisableSandbox: true }), rules(['Bash', 'allow']));
    expect(decision, 'sandboxDecision: deny with NO_LEAVING_REASON, whatever the rules (guided step 2)').toEqual({
      behavior: 'deny',
      reason: NO_LEAVING_REASON,
    });
  });

  test('with the sandbox not running, everything is chapter 8 as before, a request to leave included', async () => {
    const { decide, chapter8, sandbox } = setup((policy) => {
      policy.autoAllowBashIfSandboxed = true;
      policy.allowUnsandboxedCommands = false;
    });
    const down = { ...sandbox, available: false };
    const off = { ...sandbox, policy: { ...sandbox.policy, enabled: false } };
    for (const state of [down, off]) {
      for (const call of [bash('npm test'), bash('npm test', { dangerouslyDisableSandbox: true })]) {
        expect(
          await decide(call, [], 'default', state),
          `sandboxDecision: ${state.available ? 'policy off' : 'not available'}: evaluate's decision for ${JSON.stringify(call.arguments)} (guided steps 2 and 3)`,
        ).toEqual(await chapter8(call));
      }
    }
  });

  test('an excluded command runs outside, so it is asked about as chapter 8 asks', async () => {
    const { decide, chapter8 } = setup((policy) => {
      policy.autoAllowBashIfSandboxed = true;
      policy.excludedCommands = ['docker'];
    });
    expect(
      await decide(bash('docker run --rm alpine')),
      'sandboxDecision: willSandbox is false -> evaluate (guided step 3)',
    ).toEqual(await chapter8(bash('docker run --rm alpine')));
  });

  test('a command that is not text (the model is an untrusted user) is judged as chapter 8 judges it, never a crash', async () => {
    const { decide, chapter8 } = setup((policy) => {
      policy.autoAllowBashIfSandboxed = true;
      policy.excludedCommands = ['docker'];
    });
    const odd = { ...bash('x'), arguments: { command: 42 } } as ToolCall;
    expect(await decide(odd), 'sandboxDecision: read the command only when it is a string (guided step 2)').toEqual(
      await chapter8(odd),
    );
  });

  test('any other tool: evaluate, unchanged', async () => {
    const { decide, chapter8 } = setup();
    const write: ToolCall = { type: 'tool_call', id: 'w', name: 'write', arguments: { path: 'a.txt', content: 'x' } };
    expect(await decide(write), 'sandboxDecision: not bash -> evaluate (guided step 1)').toEqual(await chapter8(write));
    const lookalike: ToolCall = {
      type: 'tool_call',
      id: 'm',
      name: 'mcp__shell__bash',
      arguments: { command: 'npm test' },
    };
    expect(await decide(lookalike), 'only the tool named bash is wrapped, so only it may be auto-allowed').toEqual(
      await chapter8(lookalike),
    );
  });
});
