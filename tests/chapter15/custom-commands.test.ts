import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  commandLabel,
  expandCommand,
  loadCustomCommands,
  parseCommandFile,
  parseSlashLine,
  type CustomCommand,
} from 'kit/capstone/custom-commands';
import { settles } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

/** A project and a home folder (both temporary), each with the given files under its .claude/commands/. */
function folders(project: Record<string, string>, user: Record<string, string> = {}) {
  const under = (files: Record<string, string>) =>
    Object.fromEntries(Object.entries(files).map(([rel, text]) => [`.claude/commands/${rel}`, text]));
  const cwd = tempWorkspace(under(project)).root;
  const home = tempWorkspace(under(user)).root;
  return {
    cwd,
    home,
    projectDir: path.join(cwd, '.claude', 'commands'),
    userDir: path.join(home, '.claude', 'commands'),
  };
}

const load = (where: { cwd: string; home: string }) =>
  settles(loadCustomCommands(where), 'loadCustomCommands never rejects for a bad file (it reports it in problems)');

/** A command as loadCustomCommands would give it. */
const command = (name: string, template: string, extra: Partial<CustomCommand> = {}): CustomCommand => ({
  name,
  description: template.split('\n')[0]!,
  file: `/p/.claude/commands/${name}.md`,
  scope: 'project',
  template,
  ...extra,
});

/** Runs `parse` and returns what it threw; fails with `label` when it threw nothing (a TODO stays a TODO). */
function thrown(parse: () => unknown, label: string): Error {
  try {
    parse();
  } catch (error) {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return error as Error;
  }
  return expect.fail(`${label}: nothing was thrown`);
}

describe('parseCommandFile (src/capstone/custom-commands.ts)', () => {
  test('front matter gives the description and the argument hint; the rest is the prompt', () => {
    const file = [
      '---',
      'description: Review a pull request: bugs first',
      "argument-hint: '[pr-number] [priority]'",
      'allowed-tools: Bash(gh pr view:*)',
      '# a comment: not a key',
      'meta:',
      "  description: nested under meta, not the command's",
      '  - a list item',
      '',
      '---',
      '',
      'Review PR #$1 with priority $2.',
      '---',
      'Focus on security.',
      '',
    ].join('\n');
    const parsed = parseCommandFile(file);
    expect(parsed.description, 'parseCommandFile: split at the FIRST colon; the value trimmed (guided step 4)').toBe(
      'Review a pull request: bugs first',
    );
    expect(parsed.argumentHint, 'parseCommandFile: one pair of surrounding quotes removed (guided step 4)').toBe(
      '[pr-number] [priority]',
    );
    expect(
      parsed.template,
      'parseCommandFile: the lines after the closing ---, trimmed; a later --- is part of the prompt (guided step 5)',
    ).toBe('Review PR #$1 with priority $2.\n---\nFocus on security.');
    expect(
      Object.keys(parsed).sort(),
      'parseCommandFile: description, argumentHint and template, nothing else (guided step 6)',
    ).toEqual(['argumentHint', 'description', 'template']);
    expect(
      parseCommandFile('---\ndescription: "Say hi"\n---\nHi').description,
      'parseCommandFile: double quotes removed too (guided step 4)',
    ).toBe('Say hi');
    expect(
      parseCommandFile('---\ndescription: Say "hi"\n---\nHi').description,
      'parseCommandFile: quotes only at the end are kept (guided step 4)',
    ).toBe('Say "hi"');
    expect(
      parseCommandFile('---\ndescription: "Say" hi\n---\nHi').description,
      'parseCommandFile: quotes only at the start are kept (guided step 4)',
    ).toBe('"Say" hi');
    const keyed = parseCommandFile(
      '---\ndescription: Release notes\n---\nWrite the notes.\ndescription: one line per change\nargument-hint: none',
    );
    expect(
      keyed,
      'parseCommandFile: only the lines between the two --- are front matter; `key: value` lines of the prompt stay in the prompt (guided step 4)',
    ).toEqual({
      description: 'Release notes',
      template: 'Write the notes.\ndescription: one line per change\nargument-hint: none',
    });
  });

  test('without front matter the whole text is the prompt, and its first line is the description', () => {
    const parsed = parseCommandFile('\n\n  Explain $ARGUMENTS in three levels.  \nThen give an example.\n\n');
    expect(parsed.template, 'parseCommandFile: the whole text, trimmed (guided step 2)').toBe(
      'Explain $ARGUMENTS in three levels.  \nThen give an example.',
    );
    expect(
      parsed.description,
      'parseCommandFile: no description: the first line of the prompt that is not blank (guided step 6)',
    ).toBe('Explain $ARGUMENTS in three levels.');
    expect(
      'argumentHint' in parsed,
      'parseCommandFile: no argument-hint given, no argumentHint key (guided step 6)',
    ).toBe(false);
    expect(
      parseCommandFile('---\nargument-hint: [file]\ndescription:\n---\n\nFix $1\n').description,
      'parseCommandFile: an empty description falls back to the first line (guided step 6)',
    ).toBe('Fix $1');
    expect(
      parseCommandFile('Intro\n---\nmore').template,
      'parseCommandFile: --- on a later line is not front matter (guided step 2)',
    ).toBe('Intro\n---\nmore');
    expect(
      parseCommandFile('').description,
      "parseCommandFile: an empty file has the description '' (guided step 6)",
    ).toBe('');
  });

  test('Windows line ends and trailing spaces on the --- lines are read the same', () => {
    const parsed = parseCommandFile(
      '--- \r\ndescription: Commit\r\nargument-hint: [message]\r\n---\t\r\nCommit with message: $ARGUMENTS\r\n',
    );
    expect(
      parsed,
      'parseCommandFile: \\r dropped, --- lines compared without trailing spaces (guided steps 1-3)',
    ).toEqual({
      description: 'Commit',
      argumentHint: '[message]',
      template: 'Commit with message: $ARGUMENTS',
    });
  });

  test('front matter that is never closed is an error that says so', () => {
    const error = thrown(
      () => parseCommandFile('---\ndescription: Deploy\nDeploy to $1\n'),
      'parseCommandFile: an unclosed front matter must throw (guided step 3)',
    );
    expect(
      error.message,
      'parseCommandFile: the message says the front matter is never closed (guided step 3)',
    ).toMatch(/front matter/);
    expect(error.message, 'parseCommandFile: and what would close it (guided step 3)').toContain('---');
  });
});

describe('loadCustomCommands (src/capstone/custom-commands.ts)', () => {
  test("the person's and the project's commands, with name, scope, file, description, hint and prompt", async () => {
    const where = folders(
      {
        'review.md':
          '---\ndescription: Review the diff\nargument-hint: [focus]\n---\nReview the diff. Focus: $ARGUMENTS',
        'notes.txt': 'not a command',
      },
      { 'explain.md': 'Explain $ARGUMENTS simply.' },
    );
    const { commands, problems } = await load(where);
    expect(problems, 'loadCustomCommands: two good files, no problems').toEqual([]);
    expect(
      commands,
      'loadCustomCommands: the user command, then the project command; only .md files (guided steps 1-5)',
    ).toEqual([
      {
        name: 'explain',
        description: 'Explain $ARGUMENTS simply.',
        file: path.join(where.userDir, 'explain.md'),
        scope: 'user',
        template: 'Explain $ARGUMENTS simply.',
      },
      {
        name: 'review',
        description: 'Review the diff',
        argumentHint: '[focus]',
        file: path.join(where.projectDir, 'review.md'),
        scope: 'project',
        template: 'Review the diff. Focus: $ARGUMENTS',
      },
    ]);
  });

  test('a file in a subfolder is named by its file name; its folders are its namespace', async () => {
    const where = folders(
      { 'frontend/component.md': 'Make a component $1', 'web/forms/field.md': 'A field' },
      { 'git/wip.md': 'Commit as WIP' },
    );
    const { commands } = await load(where);
    const seen = commands.map((c) => `${c.name} ${commandLabel(c)}`);
    expect(
      seen,
      'loadCustomCommands: the name is the file name; the folders, joined with :, are the namespace (guided step 2)',
    ).toEqual(['wip user:git', 'component project:frontend', 'field project:web:forms']);
    expect(commands[1]!.file, 'loadCustomCommands: the file is the full path (guided step 2)').toBe(
      path.join(where.projectDir, 'frontend', 'component.md'),
    );
    const top = await load(folders({ 'a.md': 'A' }));
    expect(
      'namespace' in top.commands[0]!,
      'loadCustomCommands: a file at the top has no namespace (guided step 2)',
    ).toBe(false);
  });

  test("on a name clash the person's own command wins over the repository's; the project's other commands stay", async () => {
    const where = folders({ 'review.md': 'Project review', 'lint.md': 'Lint' }, { 'review.md': 'My review' });
    const { commands, problems } = await load(where);
    expect(
      commands.map((c) => `${c.name} ${c.scope} ${c.template}`),
      "loadCustomCommands: the person's commands first, so /review is the person's own (a cloned .claude/commands/review.md must not replace it); the project's /lint stays (guided steps 1 and 3)",
    ).toEqual(['review user My review', 'lint project Lint']);
    expect(
      problems,
      'loadCustomCommands: a project command hidden by a user command is not a problem (guided step 3)',
    ).toEqual([]);
  });

  test('the same name twice in one scope: the first found is used, the other is reported', async () => {
    const where = folders({ 'component.md': 'Top', 'a/component.md': 'In a', 'b/component.md': 'In b' });
    const { commands, problems } = await load(where);
    expect(
      commands.map((c) => c.template),
      'loadCustomCommands: the top file comes first (markdownFiles order) and is used (guided step 2)',
    ).toEqual(['Top']);
    expect(
      problems.map((p) => p.file),
      'loadCustomCommands: one problem for each file left out, naming it (guided step 3)',
    ).toEqual([path.join(where.projectDir, 'a', 'component.md'), path.join(where.projectDir, 'b', 'component.md')]);
    expect(problems[0]!.message, 'loadCustomCommands: the problem says which file is used (guided step 3)').toContain(
      path.join(where.projectDir, 'component.md'),
    );
  });

  test('a file that cannot be read or parsed is reported by name, and the others still load', async () => {
    const where = folders(
      { 'good.md': 'Good', 'open.md': '---\ndescription: never closed\nDo it' },
      { 'fine.md': 'Fine' },
    );
    symlinkSync(path.join(where.cwd, 'nowhere.md'), path.join(where.projectDir, 'gone.md'));
    const { commands, problems } = await load(where);
    expect(
      commands.map((c) => c.name),
      'loadCustomCommands: the good files of both places still load (guided step 4)',
    ).toEqual(['fine', 'good']);
    const byFile = Object.fromEntries(problems.map((p) => [path.basename(p.file), p.message]));
    expect(
      Object.keys(byFile).sort(),
      'loadCustomCommands: a problem for the unreadable file and for the unclosed one (guided step 4)',
    ).toEqual(['gone.md', 'open.md']);
    const unclosed = thrown(
      () => parseCommandFile('---\ndescription: never closed\nDo it'),
      'parseCommandFile: an unclosed front matter must throw (guided step 3)',
    );
    expect(byFile['open.md'], "loadCustomCommands: the problem's message is the error's message (guided step 4)").toBe(
      unclosed.message,
    );
    expect(byFile['gone.md'], "loadCustomCommands: the read error's message (guided step 4)").toMatch(
      /ENOENT|no such file/,
    );
  });

  test("a project command linked out of the project, or that is not a regular file, is refused: its target's text never becomes a prompt", async () => {
    const where = folders({ 'fine.md': 'Fine' });
    const outside = path.join(path.dirname(where.cwd), 'outside', 'secret.txt');
    symlinkSync(outside, path.join(where.projectDir, 'leak.md'));
    mkdirSync(path.join(where.projectDir, 'dir.md'));
    const { commands, problems } = await load(where);
    expect(
      commands.map((c) => c.name),
      'loadCustomCommands: only the regular file inside the project loads; read each file with readConfigFile and the place as its root (guided step 4)',
    ).toEqual(['fine']);
    expect(
      commands.some((c) => c.template.includes('top secret')),
      "loadCustomCommands: the linked file's text (outside the project) must never be read into a command (guided step 4)",
    ).toBe(false);
    expect(
      problems.map((p) => path.basename(p.file)),
      'loadCustomCommands: the refused link is a problem naming it (guided step 4)',
    ).toContain('leak.md');
  });

  test('no commands folders at all: nothing, and no problems', async () => {
    const cwd = tempWorkspace().root;
    const home = tempWorkspace().root;
    mkdirSync(path.join(home, '.claude'));
    writeFileSync(path.join(home, '.claude', 'settings.json'), '{}');
    expect(await load({ cwd, home }), 'loadCustomCommands: missing folders are not problems').toEqual({
      commands: [],
      problems: [],
    });
  });
});

describe('expandCommand (src/capstone/custom-commands.ts)', () => {
  test('$ARGUMENTS is everything typed, trimmed, at every place it appears', () => {
    expect(
      expandCommand('Fix issue #$ARGUMENTS. Then close $ARGUMENTS.', '  123 high-priority '),
      'expandCommand: every $ARGUMENTS, not only the first (guided step 2)',
    ).toBe('Fix issue #123 high-priority. Then close 123 high-priority.');
    expect(
      expandCommand('Look at $ARGUMENTS', ''),
      'expandCommand: no arguments: an empty string (guided step 2)',
    ).toBe('Look at ');
  });

  test('$1 to $9 are the words; a quoted phrase is one word without its quotes; a missing word is empty', () => {
    const template = 'Review PR #$1 with priority $2 and assign to $3.';
    expect(expandCommand(template, '456 high alice'), 'expandCommand: $1 is the first word (guided step 2)').toBe(
      'Review PR #456 with priority high and assign to alice.',
    );
    expect(
      expandCommand(template, '"fix the login bug" \'very high\' bob'),
      'expandCommand: a phrase in double or single quotes is one word (guided step 1)',
    ).toBe('Review PR #fix the login bug with priority very high and assign to bob.');
    expect(
      expandCommand(template, '456'),
      'expandCommand: fewer words than places: the others are empty (guided step 2)',
    ).toBe('Review PR #456 with priority  and assign to .');
    expect(expandCommand('$9|$1$2', 'a b c d e f g h i j'), 'expandCommand: $9 is the ninth word (guided step 2)').toBe(
      'i|ab',
    );
    expect(expandCommand('[$10]', 'a b'), 'expandCommand: $10 is $1 then a 0 (guided step 2)').toBe('[a0]');
    expect(
      expandCommand('$1 / $ARGUMENTS', '"a b"  c'),
      'expandCommand: $ARGUMENTS keeps the quotes as typed (guided step 1)',
    ).toBe('a b / "a b"  c');
  });

  test('what is put in is never read again: $1 or $& in the arguments stay as typed', () => {
    expect(
      expandCommand('Say: $ARGUMENTS (first: $1)', 'pay $1 now'),
      'expandCommand: one pass; the $1 inside the arguments is not filled in (guided step 2)',
    ).toBe('Say: pay $1 now (first: pay)');
    expect(
      expandCommand('<$ARGUMENTS>', "$& and $' and $$"),
      'expandCommand: a replacement function, so $& is not the match (guided step 2)',
    ).toBe("<$& and $' and $$>");
    expect(
      expandCommand('$1', '$ARGUMENTS'),
      'expandCommand: a word that is $ARGUMENTS stays as typed (guided step 2)',
    ).toBe('$ARGUMENTS');
  });

  test('arguments for a template with no placeholder are added at the end', () => {
    expect(
      expandCommand('Run the tests and fix what fails.', ' only unit '),
      'expandCommand: a blank line, then ARGUMENTS: and the arguments (guided step 3)',
    ).toBe('Run the tests and fix what fails.\n\nARGUMENTS: only unit');
    expect(expandCommand('Run the tests.', '   '), 'expandCommand: no arguments, nothing added (guided step 3)').toBe(
      'Run the tests.',
    );
    expect(
      expandCommand('Check $2 only.', 'a b'),
      'expandCommand: a template with $2 has a placeholder: nothing added (guided step 3)',
    ).toBe('Check b only.');
  });
});

describe('parseSlashLine (src/capstone/custom-commands.ts)', () => {
  const builtins = ['help', 'clear', 'compact', 'usage', 'mode', 'resume'];
  const commands = [
    command('review', 'Review $ARGUMENTS'),
    command('clear', 'Clear the cache in $1', { scope: 'user' }),
    command('deploy', 'Deploy $1 to $2'),
  ];

  test('a built-in command, with its arguments trimmed', () => {
    expect(
      parseSlashLine('/compact  keep the plan  ', commands, builtins),
      'parseSlashLine: the name up to the first space, the rest trimmed (guided steps 1-2)',
    ).toEqual({ kind: 'builtin', name: 'compact', args: 'keep the plan' });
    expect(parseSlashLine('  /help', commands, builtins), "parseSlashLine: no arguments: '' (guided step 1)").toEqual({
      kind: 'builtin',
      name: 'help',
      args: '',
    });
    expect(
      parseSlashLine('/mode\tplan', commands, builtins),
      'parseSlashLine: a tab also ends the name (guided step 1)',
    ).toEqual({ kind: 'builtin', name: 'mode', args: 'plan' });
  });

  test('a built-in wins over a custom command of the same name', () => {
    expect(
      parseSlashLine('/clear', commands, builtins),
      'parseSlashLine: /clear is the built-in, though a custom /clear exists (guided step 2)',
    ).toEqual({ kind: 'builtin', name: 'clear', args: '' });
  });

  test('a custom command comes back with its prompt filled in', () => {
    const line = parseSlashLine('/deploy staging "eu west"', commands, builtins);
    expect(line, 'parseSlashLine: the command and expandCommand(template, args) (guided step 3)').toEqual({
      kind: 'custom',
      command: commands[2],
      prompt: 'Deploy staging to eu west',
    });
    expect(parseSlashLine('/review', commands, builtins), 'parseSlashLine: no arguments (guided step 3)').toEqual({
      kind: 'custom',
      command: commands[0],
      prompt: 'Review ',
    });
  });

  test('an unknown name suggests a known one a single edit away, and nothing further', () => {
    expect(
      parseSlashLine('/compct now', commands, builtins),
      'parseSlashLine: one letter dropped from compact (guided step 4)',
    ).toEqual({ kind: 'unknown', name: 'compct', suggestion: 'compact' });
    expect(
      parseSlashLine('/reviews', commands, builtins),
      'parseSlashLine: one letter added to a custom command (guided step 4)',
    ).toEqual({ kind: 'unknown', name: 'reviews', suggestion: 'review' });
    expect(
      parseSlashLine('/modes', commands, builtins),
      'parseSlashLine: one letter added to a built-in (guided step 4)',
    ).toEqual({ kind: 'unknown', name: 'modes', suggestion: 'mode' });
    expect(parseSlashLine('/deplay', commands, builtins), 'parseSlashLine: one letter changed (guided step 4)').toEqual(
      {
        kind: 'unknown',
        name: 'deplay',
        suggestion: 'deploy',
      },
    );
    const far = parseSlashLine('/cmpct', commands, builtins);
    expect(far, 'parseSlashLine: two edits away: unknown, with no suggestion (guided step 4)').toEqual({
      kind: 'unknown',
      name: 'cmpct',
    });
    expect('suggestion' in far, 'parseSlashLine: no suggestion key at all (guided step 4)').toBe(false);
    expect(
      parseSlashLine('/Help', commands, builtins),
      'parseSlashLine: names are matched exactly (Help is one edit from help) (guided step 2)',
    ).toEqual({ kind: 'unknown', name: 'Help', suggestion: 'help' });
  });

  test('built-ins are suggested before custom commands', () => {
    const close = [command('mods', 'Mods')];
    expect(
      parseSlashLine('/mod', close, builtins),
      'parseSlashLine: mode (built-in) and mods (custom) are both one edit away: the built-in first (guided step 4)',
    ).toEqual({ kind: 'unknown', name: 'mod', suggestion: 'mode' });
  });
});
