import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { evaluate } from 'kit/permissions/evaluate';
import { RuleSyntaxError } from 'kit/permissions/rules';
import { loadSettings, SettingsError } from 'kit/permissions/settings';
import { rejection, settles } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

/** A workspace and a HOME with the given settings files (text, or an object written as JSON). */
function setup(files: { user?: unknown; project?: unknown; local?: unknown }) {
  const { root } = tempWorkspace();
  const home = path.join(path.dirname(root), 'home');
  const paths = {
    user: path.join(home, '.claude', 'settings.json'),
    project: path.join(root, '.claude', 'settings.json'),
    local: path.join(root, '.claude', 'settings.local.json'),
  };
  for (const key of ['user', 'project', 'local'] as const) {
    const content = files[key];
    if (content === undefined) continue;
    mkdirSync(path.dirname(paths[key]), { recursive: true });
    writeFileSync(paths[key], typeof content === 'string' ? content : JSON.stringify(content));
  }
  return { root, home, paths };
}

describe('loadSettings (src/permissions/settings.ts)', () => {
  test('reads the user, project and local files, each rule with its file as its source', async () => {
    const { root, home, paths } = setup({
      user: { permissions: { allow: ['Bash(git status)'] } },
      project: { permissions: { allow: ['Bash(npm run test:*)'], deny: ['Read(./.env)'] } },
      local: { permissions: { ask: ['Bash(git push:*)'] } },
    });
    const settings = await settles(loadSettings(root, home), 'loadSettings must read three valid files');
    const seen = settings.rules.map((r) => `${r.behavior} ${r.tool}(${r.specifier}) ${r.source}`);
    expect(
      seen,
      'loadSettings: every rule of every file, parsed with parseRule and its file as the source, user file first (guided step 4)',
    ).toEqual([
      `allow Bash(git status) ${paths.user}`,
      `allow Bash(npm run test:*) ${paths.project}`,
      `deny Read(./.env) ${paths.project}`,
      `ask Bash(git push:*) ${paths.local}`,
    ]);
    expect(settings.files, 'loadSettings: the files that were read, in order (guided step 5)').toEqual([
      paths.user,
      paths.project,
      paths.local,
    ]);
  });

  test('defaultMode: the local file beats the project file, which beats the user file', async () => {
    const all = setup({
      user: { permissions: { defaultMode: 'plan' } },
      project: { permissions: { defaultMode: 'acceptEdits' } },
      local: { permissions: { defaultMode: 'bypassPermissions' } },
    });
    expect(
      (await loadSettings(all.root, all.home)).defaultMode,
      'loadSettings: the most local file that sets defaultMode wins (guided step 4)',
    ).toBe('bypassPermissions');
    const two = setup({
      user: { permissions: { defaultMode: 'plan' } },
      project: { permissions: { defaultMode: 'acceptEdits' } },
      local: { permissions: {} },
    });
    expect(
      (await loadSettings(two.root, two.home)).defaultMode,
      'loadSettings: a file without defaultMode keeps the one before (guided step 4)',
    ).toBe('acceptEdits');
  });

  test('a deny in the user file wins over an allow in the local file', async () => {
    const { root, home } = setup({
      user: { permissions: { deny: ['Bash(rm:*)'] } },
      local: { permissions: { allow: ['Bash'] } },
    });
    const settings = await loadSettings(root, home);
    const decision = await evaluate(
      settings.rules,
      'default',
      { type: 'tool_call', id: 'c1', name: 'bash', arguments: { command: 'rm -f x' } },
      { root, home },
    );
    expect(
      decision.behavior,
      'loadSettings: the rule lists of all files are merged (not replaced), so a deny anywhere still denies',
    ).toBe('deny');
  });

  test('no files at all: no rules and no mode', async () => {
    const { root, home } = setup({});
    const settings = await settles(
      loadSettings(root, home),
      'loadSettings: a missing file is skipped, not an error (guided step 1)',
    );
    expect(settings, 'loadSettings: nothing found means no rules').toEqual({ rules: [], files: [] });
  });

  test('other keys of a Claude Code settings file are left alone', async () => {
    const { root, home } = setup({
      project: {
        model: 'opus',
        env: { A: '1' },
        hooks: {},
        permissions: { allow: ['Bash(ls)'], additionalDirectories: ['../x'] },
      },
    });
    const settings = await settles(
      loadSettings(root, home),
      'loadSettings: the schema only checks what the kit reads (guided step 3)',
    );
    expect(settings.rules.length, 'the one rule is read').toBe(1);
  });

  test.each([
    ['not JSON', '{ "permissions": { "allow": ["Bash"] ', 'project', /JSON/],
    ['a list that is a string', { permissions: { allow: 'Bash(ls)' } }, 'local', /allow/],
    ['an unknown mode', { permissions: { defaultMode: 'yolo' } }, 'user', /defaultMode/],
  ])('a file with %s is a SettingsError naming the file', async (_what, content, which, detail) => {
    const { root, home, paths } = setup({ [which]: content });
    const error = await rejection(
      loadSettings(root, home),
      'loadSettings: a broken settings file must be an error, never ignored (guided steps 2-3)',
    );
    expect(error, 'loadSettings: throw a SettingsError (guided steps 2-3)').toBeInstanceOf(SettingsError);
    expect((error as Error).message, 'the message names the file').toContain(paths[which as 'user']);
    expect((error as Error).message, 'the message says what is wrong').toMatch(detail);
  });

  test('a settings path that cannot be read (a folder) is an error, not a file to skip', async () => {
    const { root, home, paths } = setup({});
    mkdirSync(paths.project, { recursive: true });
    const error = await rejection(
      loadSettings(root, home),
      'loadSettings: only a file that does not exist (ENOENT) is skipped (guided step 1)',
    );
    expect((error as NodeJS.ErrnoException).code, 'loadSettings: other read errors are thrown (guided step 1)').toBe(
      'EISDIR',
    );
  });

  test('a rule that cannot be read is an error naming the file and the rule', async () => {
    const { root, home, paths } = setup({ project: { permissions: { allow: ['Bash(npm test:*)', 'Bash(rm'] } } });
    const error = await rejection(
      loadSettings(root, home),
      'loadSettings: a malformed rule must not be skipped (guided step 4)',
    );
    expect(error, 'loadSettings: parseRule with the file as the source (guided step 4)').toBeInstanceOf(
      RuleSyntaxError,
    );
    expect((error as Error).message, 'the message names the file').toContain(paths.project);
    expect((error as Error).message, 'the message quotes the rule').toContain('"Bash(rm"');
  });
});
