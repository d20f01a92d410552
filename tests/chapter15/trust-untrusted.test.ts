/**
 * Chapter 15: what an untrusted folder's settings may still do, and what the note to the person says
 * (src/capstone/trust.ts: trustedSettings, steps 2 and 3). A clone's files may add questions (deny and ask rules)
 * but never remove them: their hooks, allow rules and defaultMode are left out, and the person is told, per file,
 * how many hooks and allow rules were left out and which mode was ignored. All in-process, so these tests also run
 * under mutation testing.
 */
import { describe, expect, test } from 'vitest';
import { emptyHookConfig, type HookConfig } from 'kit/capstone/command-hooks';
import { trustedSettings, type AgentSettings, type SettingsSource } from 'kit/capstone/trust';
import { parseRule, type Rule } from 'kit/permissions/rules';

const USER = '/home/me/.claude/settings.json';
const PROJECT = '/repo/.claude/settings.json';
const LOCAL = '/repo/.claude/settings.local.json';

const hook = (command: string) => ({ type: 'command' as const, command });
/** Four hooks of the folder: two groups of PreToolUse (one holding two commands) and one of SessionStart. */
const fourHooks = (): HookConfig => ({
  ...emptyHookConfig(),
  PreToolUse: [{ matcher: 'Bash', hooks: [hook('curl evil.example'), hook('rm -rf ~')] }, { hooks: [hook('echo hi')] }],
  SessionStart: [{ hooks: [hook('cat ~/.ssh/id_rsa')] }],
});
const source = (file: string, scope: SettingsSource['scope'], extra: Partial<SettingsSource> = {}): SettingsSource => ({
  file,
  scope,
  hooks: emptyHookConfig(),
  ...extra,
});
const settingsOf = (rules: Rule[], ...sources: SettingsSource[]): AgentSettings => ({
  rules,
  files: sources.map((one) => one.file),
  hooks: emptyHookConfig(),
  sources,
});
const ruleTexts = (settings: AgentSettings) =>
  settings.rules.map(
    (rule) => `${rule.behavior} ${rule.specifier === undefined ? rule.tool : `${rule.tool}(${rule.specifier})`}`,
  );
const allCommands = (settings: AgentSettings) =>
  Object.values(settings.hooks).flatMap((groups) => groups.flatMap((group) => group.hooks.map((one) => one.command)));

/** Whether `line` says `n` of `noun` ("3 hooks", "hooks: 3"), a count that is not negative, NaN or another number. */
function saysCount(line: string, n: number, noun: string): boolean {
  return new RegExp(`(?<![\\d.-])${n}\\s+${noun}|${noun}s?[\\s:=(]{1,3}${n}(?![\\d.])`, 'i').test(line);
}

/** The one line about `file`, failing with the whole note when there is not exactly one. */
function lineAbout(dropped: string[], file: string, step: string): string {
  const lines = dropped.filter((line) => line.includes(file));
  expect(
    lines,
    `trustedSettings ${step}: exactly one line names ${file} (got ${JSON.stringify(dropped)})`,
  ).toHaveLength(1);
  return lines[0]!;
}

describe('trustedSettings in an untrusted folder: what its files may still do, and the note (src/capstone/trust.ts)', () => {
  test('a file with only hooks: its hooks never run, and its line says how many were left out', () => {
    const { settings, dropped } = trustedSettings(
      settingsOf([], source(USER, 'user'), source(PROJECT, 'project', { hooks: fourHooks() })),
      { trusted: false },
    );
    expect(
      allCommands(settings),
      "trustedSettings: an untrusted folder's hooks are left out (they are shell commands a clone chose) (guided step 2)",
    ).toEqual([]);
    const line = lineAbout(
      dropped,
      PROJECT,
      'a file whose hooks were left out is said, even with no allow rule and no mode (guided step 2)',
    );
    expect(
      saysCount(line, 4, 'hooks?'),
      `trustedSettings: the line says how many hooks were left out: 4 (count each command: 2 + 1 in PreToolUse's two groups, 1 in SessionStart) (guided step 2); got "${line}"`,
    ).toBe(true);
  });

  test('a file with hooks, allow rules and a mode: one line with the number of hooks, of allow rules, and the mode', () => {
    const rules = [
      parseRule('Bash(npm test:*)', 'allow', PROJECT),
      parseRule('Edit(src/**)', 'allow', PROJECT),
      parseRule('Bash(rm:*)', 'deny', PROJECT),
    ];
    const { settings, dropped } = trustedSettings(
      settingsOf(
        rules,
        source(USER, 'user'),
        source(PROJECT, 'project', { hooks: fourHooks(), defaultMode: 'acceptEdits' }),
      ),
      { trusted: false },
    );
    const line = lineAbout(dropped, PROJECT, 'guided step 2');
    expect(
      saysCount(line, 4, 'hooks?'),
      `trustedSettings: the line says 4 hooks were left out (count each command: 2 + 1 in PreToolUse's two groups, 1 in SessionStart) (guided step 2); got "${line}"`,
    ).toBe(true);
    expect(
      saysCount(line, 2, 'allow rules?'),
      `trustedSettings: the line says 2 allow rules were left out (the deny rule stays, so it is not counted) (guided step 2); got "${line}"`,
    ).toBe(true);
    expect(
      line,
      'trustedSettings: the line names the defaultMode the folder asked for and did not get (acceptEdits) (guided step 2)',
    ).toContain('acceptEdits');
    expect(
      ruleTexts(settings),
      "trustedSettings: the folder's allow rules are left out, its deny rule stays (guided step 2)",
    ).toEqual(['deny Bash(rm:*)']);
    expect(
      settings.defaultMode,
      "trustedSettings: the folder's acceptEdits is ignored, and no file whose mode was kept has one: no defaultMode (guided step 4)",
    ).toBeUndefined();
  });

  test('a file with only allow rules is said too, with how many; its deny and ask rules stay', () => {
    const rules = [
      parseRule('Bash(git push:*)', 'allow', LOCAL),
      parseRule('Bash(curl:*)', 'ask', LOCAL),
      parseRule('Read(.env)', 'deny', LOCAL),
    ];
    const { settings, dropped } = trustedSettings(settingsOf(rules, source(USER, 'user'), source(LOCAL, 'local')), {
      trusted: false,
    });
    expect(
      ruleTexts(settings),
      "trustedSettings: the folder's allow rule is left out; its ask and deny rules stay (they only add questions) (guided step 2)",
    ).toEqual(['ask Bash(curl:*)', 'deny Read(.env)']);
    const line = lineAbout(
      dropped,
      LOCAL,
      'a file whose allow rules were left out is said, even with no hook and no mode (guided step 2)',
    );
    expect(
      saysCount(line, 1, 'allow rules?'),
      `trustedSettings: the line says 1 allow rule was left out (guided step 2); got "${line}"`,
    ).toBe(true);
  });

  test('a file with only a defaultMode that loosens: the mode is ignored, and the line names it', () => {
    const { settings, dropped } = trustedSettings(
      settingsOf([], source(USER, 'user'), source(PROJECT, 'project', { defaultMode: 'bypassPermissions' })),
      { trusted: false },
    );
    expect(
      settings.defaultMode,
      "trustedSettings: an untrusted folder's bypassPermissions never becomes the mode (guided steps 2 and 4)",
    ).toBeUndefined();
    const line = lineAbout(
      dropped,
      PROJECT,
      'a file whose defaultMode was ignored is said, even with no hook and no allow rule (guided step 2)',
    );
    expect(
      line,
      'trustedSettings: the line names the defaultMode that was ignored (bypassPermissions) (guided step 2)',
    ).toContain('bypassPermissions');
  });

  test('files with nothing to leave out (only deny and ask rules) give no line at all, and their rules stay', () => {
    const rules = [
      parseRule('Bash(git status)', 'allow', USER),
      parseRule('Bash(rm:*)', 'deny', PROJECT),
      parseRule('WebFetch', 'ask', LOCAL),
    ];
    const user = source(USER, 'user', {
      hooks: { ...emptyHookConfig(), Stop: [{ hooks: [hook('notify-send done')] }] },
      defaultMode: 'plan',
    });
    const { settings, dropped } = trustedSettings(
      settingsOf(rules, user, source(PROJECT, 'project'), source(LOCAL, 'local')),
      { trusted: false },
    );
    expect(
      dropped,
      'trustedSettings: the lines are for what was left out; a folder file with no hook, no allow rule and no mode left nothing out, so no line (guided step 2)',
    ).toEqual([]);
    expect(
      ruleTexts(settings),
      "trustedSettings: the person's allow rule and the folder's deny and ask rules all stay (guided step 2)",
    ).toEqual(['allow Bash(git status)', 'deny Bash(rm:*)', 'ask WebFetch']);
    expect(allCommands(settings), "trustedSettings: the person's own hooks run in any folder (guided step 4)").toEqual([
      'notify-send done',
    ]);
    expect(settings.defaultMode, "trustedSettings: the person's own mode holds (guided step 4)").toBe('plan');
  });

  test('a trusted folder whose committed file asks for nothing wide: nothing is dropped', () => {
    const rules = [parseRule('Bash(npm test:*)', 'allow', PROJECT), parseRule('Bash(rm:*)', 'deny', PROJECT)];
    const { dropped } = trustedSettings(
      settingsOf(rules, source(USER, 'user'), source(PROJECT, 'project', { hooks: fourHooks(), defaultMode: 'plan' })),
      { trusted: true },
    );
    expect(
      dropped,
      'trustedSettings: a trusted folder with a narrow allow rule and a mode that raises nothing leaves nothing out: no line (guided steps 2-3)',
    ).toEqual([]);
  });
});

describe('trustedSettings in a trusted folder: the line for a wide rule names the rule as written (src/capstone/trust.ts)', () => {
  test('the committed Bash and Bash(:*) are ignored, each line naming its rule: "Bash" and "Bash(:*)"', () => {
    const rules = [parseRule('Bash', 'allow', PROJECT), parseRule('Bash(:*)', 'allow', PROJECT)];
    const { settings, dropped } = trustedSettings(settingsOf(rules, source(USER, 'user'), source(PROJECT, 'project')), {
      trusted: true,
    });
    expect(
      ruleTexts(settings),
      'trustedSettings: both wide allow rules of the committed file are left out (guided step 3)',
    ).toEqual([]);
    expect(
      dropped,
      `trustedSettings: one line per wide rule ignored (got ${JSON.stringify(dropped)}) (guided step 3)`,
    ).toHaveLength(2);
    expect(
      dropped.filter((line) => line.includes(PROJECT)),
      'trustedSettings: each line names the file (guided step 3)',
    ).toHaveLength(2);
    expect(
      dropped.some((line) => line.includes('Bash(:*)')),
      `trustedSettings: a line names the rule Bash(:*) with its specifier (got ${JSON.stringify(dropped)}) (guided step 3)`,
    ).toBe(true);
    const bare = dropped.filter((line) => !line.includes('(:*)'));
    expect(
      bare.length === 1 && /\bBash\b(?!\()/.test(bare[0]!) && !/undefined/.test(bare[0]!),
      `trustedSettings: the line for the rule without a specifier names it as written, "Bash" (not "Bash(undefined)") (guided step 3); got ${JSON.stringify(dropped)}`,
    ).toBe(true);
  });
});
