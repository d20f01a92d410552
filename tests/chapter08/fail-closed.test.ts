/**
 * Fail closed: what the engine does not fully understand, it asks about. Each group is one principle, and each case
 * a way round the rules that a hostile review found in an earlier version of the kit, or a call Claude Code
 * refuses. Every case is judged by what would really run: `touch PWNED` hidden in the line, a file outside the
 * workspace or a protected file written, a secret read.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ToolCall } from 'kit/messages';
import { evaluate, type PermissionMode } from 'kit/permissions/evaluate';
import { parseRule, type Behavior } from 'kit/permissions/rules';
import { tempWorkspace } from '../helpers/workspace.js';

const { root, outside } = tempWorkspace({
  '.env': 'KEY=1\n',
  'src/a.ts': '',
  'notes.log': 'a\n',
  '.git/config': '[core]\n',
  'x.tar': '',
});
const home = path.join(path.dirname(root), 'home');
mkdirSync(path.join(home, '.ssh'), { recursive: true });
symlinkSync(outside, path.join(root, 'out'));
symlinkSync('.git/config', path.join(root, 'conf'));
symlinkSync('loop', path.join(root, 'loop'));
const ws = { root, home };

let ids = 0;
const call = (name: string, args: Record<string, unknown>): ToolCall => ({
  type: 'tool_call',
  id: `f${++ids}`,
  name,
  arguments: args,
});
const bash = (command: string) => call('bash', { command });
const rules = (...list: Array<[Behavior, string]>) =>
  list.map(([behavior, text]) => parseRule(text, behavior, '.claude/settings.json'));
const decide = (list: ReturnType<typeof rules>, mode: PermissionMode, c: ToolCall) => evaluate(list, mode, c, ws);

/** With `allowed` rules in default mode the call is asked about; in bypassPermissions a deny of touch and rm stops it. */
async function expectAsked(command: string, allowed: string[], where: string) {
  const decision = await decide(
    rules(...allowed.map((rule): [Behavior, string] => ['allow', rule])),
    'default',
    bash(command),
  );
  expect(decision.behavior, `${where}: ${JSON.stringify(command)} must be asked about, not allowed`).toBe('ask');
  return decision;
}

describe('judge only what is fully understood (walk, notUnderstood, shellCommands)', () => {
  const allowed = ['Bash(cat:*)', 'Bash(echo:*)', 'Bash(printf:*)', 'Bash(test:*)', 'Bash(declare:*)'];
  test.each([
    ['cat <<EOF\n`touch PWNED`\nEOF', 'backticks in a heredoc whose delimiter is not quoted'],
    ['cat <<EOF\n${x:-`touch PWNED`}\nEOF', 'a default value in a heredoc'],
    ['cat <<-EOF\n\t$(touch PWNED)\n\tEOF', 'a tab-indented substitution in a <<- heredoc'],
    ['cat <<EOF\nEO\\\nF\ntouch PWNED\nEOF', 'a heredoc end line split by a backslash (bash joins it)'],
    ['echo ${x:-`touch PWNED`}', 'backticks in a default value'],
    ['echo ${x:=$(touch PWNED)}', 'a substitution in an assigned default'],
    ['echo "`echo \\`touch PWNED\\``"', 'nested backticks'],
    ['echo ${x@P}', 'a prompt expansion (its value runs as a prompt)'],
    ['echo ${!x}', 'an indirect expansion'],
    ['echo ${x:0:$(touch PWNED)}', 'a substring offset holding a substitution'],
    ['echo ${a[$(touch PWNED)]}', 'an array subscript holding a substitution'],
    ["declare 'a[$(touch PWNED)]=1'", 'a declaration with a subscript'],
    ['declare -n r=PATH', 'a name reference'],
    ["printf -v 'a[$(touch PWNED)]' x", 'printf -v with a subscript'],
    ["test -v 'a[$(touch PWNED)]'", 'test -v with a subscript'],
  ])('%j is not understood: %s', async (command) => {
    const decision = await expectAsked(command, allowed, 'walk guided step 2 / notUnderstood (given)');
    expect(decision.reason, 'evaluate: the reason says the call is not understood (guided step 6)').toMatch(
      /not understood/,
    );
    expect(
      (await decide(rules(['deny', 'Bash(touch:*)']), 'bypassPermissions', bash(command))).behavior,
      'ruleMatches: a command not understood meets every Bash deny rule, in bypassPermissions too (guided step 2)',
    ).toBe('deny');
  });

  test('a quoted heredoc delimiter keeps the body plain, and ${name} is only a variable: both are judged', async () => {
    expect(
      (await decide(rules(['allow', 'Bash(cat:*)']), 'default', bash("cat <<'EOF'\n`touch PWNED` $(x)\nEOF"))).behavior,
      "notUnderstood (given): with <<'EOF' bash expands nothing in the body, so cat alone runs",
    ).toBe('allow');
    expect(
      (await decide(rules(['allow', 'Bash(echo:*)']), 'default', bash('echo ${HOME}'))).behavior,
      'notUnderstood (given): ${HOME} only reads a variable',
    ).toBe('allow');
  });
});

describe('what a person cannot see is not judged (shellCommands)', () => {
  test.each([
    ['echo safe\u202e; touch PWNED', 'a right-to-left override'],
    ['echo a\u200b; touch PWNED', 'a zero-width space'],
    ['echo a\rtouch PWNED', 'a carriage return'],
    ['echo a\u001b[2K; touch PWNED', 'an escape sequence'],
  ])('%j holds %s: not understood', async (command) => {
    const decision = await expectAsked(command, ['Bash(echo:*)', 'Bash(touch:*)'], 'shellCommands (given)');
    expect(decision.reason, 'the reason says the call is not understood').toMatch(/not understood/);
  });

  test('a command longer than LIMITS.length (10,000 characters, as Claude Code) is asked about', async () => {
    await expectAsked(`echo ${'a'.repeat(10_001)}`, ['Bash(echo:*)'], 'shellCommands (given): LIMITS.length');
  });
});

describe('an earlier part of the line must not change what an allowed command runs (shellCommands)', () => {
  const allowed = ['Bash(npm test:*)', 'Bash(git status:*)', 'Bash(git diff:*)', 'Bash(export:*)', 'Bash(cd:*)'];
  test.each([
    'export NODE_OPTIONS=--require=./evil.js; npm test',
    'PATH=.:$PATH; npm test',
    'GIT_CONFIG_COUNT=1; git status',
    'export GIT_EXTERNAL_DIFF=./x && git diff',
    'declare -x NODE_OPTIONS=--require=./evil.js; npm test',
    'readonly PATH=.; npm test',
    'typeset -x A=1; npm test',
    'cd ../outside && git status',
    'alias npm=./evil; npm test',
  ])('%j is not understood', async (command) => {
    await expectAsked(
      command,
      [...allowed, 'Bash(alias:*)'],
      'shellCommands (given): a state change beside another command',
    );
  });

  test('an assignment in front of one command changes that command only: judged as written', async () => {
    expect(
      (await decide(rules(['allow', 'Bash(CI=1 npm test:*)']), 'default', bash('CI=1 npm test'))).behavior,
      'bashSubjects: CI=1 npm test is allowed as written (guided step 2)',
    ).toBe('allow');
    expect(
      (await decide(rules(['allow', 'Bash(npm test:*)']), 'default', bash('NODE_OPTIONS=x npm test'))).behavior,
      'evaluate: Bash(npm test:*) does not allow the command with an environment in front (guided step 5)',
    ).toBe('ask');
  });
});

describe('paths are checked where they land (fileOperands, bashSubjects)', () => {
  test.each([
    ['cat ../outside/secret.txt', 'Bash(cat:*)'],
    ['cat ~/.ssh/id_rsa', 'Bash(cat:*)'],
    ['cat out/secret.txt', 'Bash(cat:*)'],
    ['head -n 3 ../outside/secret.txt', 'Bash(head:*)'],
    ['grep -r KEY ~/.ssh', 'Bash(grep:*)'],
    ['tee ../outside/x', 'Bash(tee:*)'],
    ['cp notes.log ../outside/x', 'Bash(cp:*)'],
    ['cp -t ../outside notes.log', 'Bash(cp:*)'],
    ['cp --target-directory=../outside notes.log', 'Bash(cp:*)'],
    ['cp ~/.ssh/id_rsa src/key', 'Bash(cp:*)'],
    ['sort -o ../outside/x notes.log', 'Bash(sort:*)'],
    ['dd if=notes.log of=../outside/x', 'Bash(dd:*)'],
    ['cat < ../outside/secret.txt', 'Bash(cat:*)'],
    ['wc -l 0< ~/.ssh/id_rsa', 'Bash(wc:*)'],
    ['tar -cf ../outside/x.tar src', 'Bash(tar:*)'],
  ])('%j under %s reaches outside the workspace: asked', async (command, rule) => {
    await expectAsked(
      command,
      [rule],
      'bashSubjects: a file the command takes, outside the workspace, needs an allow of its own (guided step 4)',
    );
  });

  test.each([
    'timeout 5 cat ../outside/secret.txt',
    'bash -c "cat ../outside/secret.txt"',
    'env cat ~/.ssh/id_rsa',
    'bash -c "cat < ../outside/secret.txt"',
  ])('%j: the files of an inner command are held to the workspace too', async (command) => {
    await expectAsked(
      command,
      ['Bash(timeout:*)', 'Bash(bash:*)', 'Bash(env:*)', 'Bash(cat:*)'],
      'bashSubjects: fileOperands of every inner command, not only of the command as written (guided step 1)',
    );
  });

  test.each([
    ['cat src/a.ts', 'Bash(cat:*)'],
    ['grep -rn TODO src', 'Bash(grep:*)'],
    ['cp src/a.ts src/b.ts', 'Bash(cp:*)'],
    ['head -n 3 notes.log', 'Bash(head:*)'],
  ])('%j under %s stays inside: allowed', async (command, rule) => {
    expect(
      (await decide(rules(['allow', rule]), 'default', bash(command))).behavior,
      'evaluate: the files a command takes inside the workspace are covered by its own allow (guided step 5)',
    ).toBe('allow');
  });

  test.each(['cat .env', 'head .env', 'grep KEY .env', 'cat src/../.env'])(
    '%j meets deny Read(./.env), even in bypassPermissions',
    async (command) => {
      const list = rules(['deny', 'Read(./.env)'], ['allow', 'Bash(cat:*)'], ['allow', 'Bash(head:*)']);
      for (const mode of ['default', 'bypassPermissions'] as const) {
        expect(
          (await decide(list, mode, bash(command))).behavior,
          `bashSubjects: the file ${command} reads is a read subject, so Read deny rules apply (${mode}) (guided step 4)`,
        ).toBe('deny');
      }
    },
  );

  test.each(['cat ~/secret.txt', 'cat $HOME/secret.txt', 'cat ${HOME}/secret.txt', 'cat "$HOME"/secret.txt'])(
    'a user deny of Read(~/secret.txt) stops %j in bypassPermissions',
    async (command) => {
      expect(
        (await decide(rules(['deny', 'Read(~/secret.txt)']), 'bypassPermissions', bash(command))).behavior,
        'bashSubjects: resolveArg makes ~ the home folder (knownVariables, given, makes $HOME ~); the deny rule meets the read subject (guided step 4)',
      ).toBe('deny');
    },
  );

  test('a command not understood is asked about while a deny rule for files exists, in bypassPermissions too', async () => {
    const decision = await decide(
      rules(['deny', 'Read(~/.ssh/**)']),
      'bypassPermissions',
      bash('cat "$(printf %s ~/.ssh/id_rsa)"'),
    );
    expect(
      decision.behavior,
      'evaluate: the engine cannot tell which file a command it does not understand reads, so a Read deny rule could be walked round: ask (guided step 4)',
    ).toBe('ask');
    expect(
      (await decide(rules(['deny', 'Read(~/.ssh/**)']), 'bypassPermissions', bash('cat src/a.ts'))).behavior,
      'evaluate: a command that is understood and reads no denied file runs in bypassPermissions (guided step 4)',
    ).toBe('allow');
  });

  test.each(['echo hi > X', 'cat > X <<EOF\nhi\nEOF', 'echo hi >> notes.log'])(
    '%j writes a file inside the workspace: asked in default mode, as an edit is',
    async (command) => {
      await expectAsked(
        command,
        ['Bash(echo:*)', 'Bash(cat:*)'],
        'evaluate: a redirection needs an allow of its own (guided step 5)',
      );
      expect(
        (await decide(rules(['allow', 'Bash(echo:*)'], ['allow', 'Bash(cat:*)']), 'acceptEdits', bash(command)))
          .behavior,
        'evaluate: acceptEdits allows the write inside the workspace (guided step 5)',
      ).toBe('allow');
    },
  );

  test.each([
    ['cat $KEYS/id_rsa', 'a variable'],
    ['cat "$HOME/x"', 'a variable inside a string'],
    ['cat *', 'a glob'],
    ['cat {..,src}/secret.txt', 'a brace expansion'],
    ['cat ~+/../outside/secret.txt', '~+'],
  ])('%j: a path only known when it runs (%s) is not understood', async (command) => {
    const decision = await expectAsked(command, ['Bash(cat:*)'], 'fileOperands (given) / plainPath');
    expect(decision.reason, 'the reason says why').toMatch(/not understood/);
  });
});

describe('protected paths are compared where they land, without case (isProtected, pathSubjects)', () => {
  test.each([
    'echo x >> .gi?/config',
    'echo x > .clau[d]e/settings.local.json',
    'echo x >> CLAUD?.md',
    'cp notes.log .gi?/config',
    'tee -a .gi*/config',
    'echo x > conf',
    'cp notes.log conf',
    'echo x > .GIT/config',
    'echo x > .Claude/settings.json',
    'echo x > .MCP.json',
    'echo x > .vscode/tasks.json',
    'echo x > .husky/pre-commit',
    'ln -s .git/hooks/pre-commit hook && echo x > hook',
    'cp -s .git/config c && echo x > c',
    'gunzip .git/config.gz',
  ])('%j writes a protected file: asked in acceptEdits, with every rule allowing it', async (command) => {
    const list = rules(
      ['allow', 'Bash(echo:*)'],
      ['allow', 'Bash(cp:*)'],
      ['allow', 'Bash(tee:*)'],
      ['allow', 'Write'],
    );
    expect(
      (await decide(list, 'acceptEdits', bash(command))).behavior,
      `${JSON.stringify(command)}: a glob in a target is not understood; a symlink is followed; names compare without case`,
    ).toBe('ask');
  });

  test.each([
    '.vscode/tasks.json',
    '.vscode/settings.json',
    '.husky/pre-commit',
    '.devcontainer/devcontainer.json',
    '.idea/workspace.xml',
    '.GIT/config',
    '.Claude/settings.json',
    '.MCP.json',
    'Claude.md',
  ])(
    'the write tool on %s is asked about in acceptEdits: it runs code when the folder is next opened',
    async (file) => {
      expect(
        (await decide(rules(['allow', 'Write']), 'acceptEdits', call('write', { path: file, content: '{}' }))).behavior,
        'isProtected (given): the folders an editor or a tool runs from, compared without case',
      ).toBe('ask');
    },
  );
});

describe('recursive removal is judged on every target, however it is spelled (safetyConcern, fileOperands)', () => {
  test.each([
    'rm --r ../outside',
    'rm --recur ../outside',
    'rm --rec -f ../outside',
    'rm -rf $d',
    'rm -rf $PWD/../x',
    'rm -rf ~+/../x',
    'rm -rf {..,build}/x',
    'rm -rf $HOME',
    'rm -rf "$HOME"',
    'rm -rf ${HOME}/',
    'rm -rf build ../outside',
  ])('%j is asked about, in acceptEdits with Bash(rm:*) allowed', async (command) => {
    expect(
      (await decide(rules(['allow', 'Bash(rm:*)']), 'acceptEdits', bash(command))).behavior,
      `safetyConcern guided step 3 / fileOperands: ${JSON.stringify(command)} removes outside the workspace or where the engine cannot tell`,
    ).toBe('ask');
  });
});

describe('a recursive removal is asked about in bypassPermissions too, on every target (safetyConcern)', () => {
  test.each(['rm -rf build ~', 'rm -r src ../outside', 'rm -rf notes.log "$HOME"'])(
    '%j is asked about',
    async (command) => {
      expect(
        (await decide([], 'bypassPermissions', bash(command))).behavior,
        `safetyConcern: every target of a recursive rm is checked, not only the first: ${JSON.stringify(command)} removes outside the workspace (guided step 3)`,
      ).toBe('ask');
    },
  );
});

describe('a script run by a shell writes and reads like any line (innerCommands)', () => {
  test.each([
    ["bash -c 'echo x > .git/config'", 'acceptEdits'],
    ["sh -c 'echo x > ../outside/x'", 'acceptEdits'],
    ["eval 'cat < ../outside/secret.txt'", 'default'],
  ])('%j is asked about in %s', async (command, mode) => {
    const list = rules(
      ['allow', 'Bash(bash:*)'],
      ['allow', 'Bash(sh:*)'],
      ['allow', 'Bash(eval:*)'],
      ['allow', 'Bash(echo:*)'],
      ['allow', 'Bash(cat:*)'],
    );
    expect(
      (await decide(list, mode as PermissionMode, bash(command))).behavior,
      'innerCommands: keep the writes of the script and its reads, not only its commands (guided step 3)',
    ).toBe('ask');
  });
});

describe('deny rules see through every spelling of a wrapper (innerCommands, afterWrapper, shellScript)', () => {
  test.each([
    'bash -c -- "rm x"',
    'sh -c -- "rm x"',
    'bash -o pipefail -c "rm x"',
    'env -iu X rm x',
    'env -iC . rm x',
    "env -vS'rm x'",
    'echo x | xargs --replace rm x',
    'echo x | xargs --max-lines rm x',
    'echo rm x | sh',
    "sh <<< 'rm x'",
    "bash -s <<< 'rm x'",
    ". /dev/stdin <<< 'rm x'",
    'source <(echo rm x)',
    'busybox rm x',
    'watch -n 1 rm x',
    'flock /tmp/l rm x',
    'fakeroot rm x',
    "script -qc 'rm x' /dev/null",
    'chroot / rm x',
  ])('in bypassPermissions with Bash(rm:*) denied, %j is denied', async (command) => {
    expect(
      (await decide(rules(['deny', 'Bash(rm:*)']), 'bypassPermissions', bash(command))).behavior,
      `innerCommands: ${JSON.stringify(command)} runs rm x, or reads a script the walk cannot see`,
    ).toBe('deny');
  });

  test.each(['git -C . push', 'git -c core.x=y push', 'git --git-dir=.git push', 'git --no-pager push origin'])(
    'with Bash(git push:*) denied, %j is denied',
    async (command) => {
      expect(
        (await decide(rules(['deny', 'Bash(git push:*)']), 'bypassPermissions', bash(command))).behavior,
        'innerCommands: git without its options before the subcommand is a view of the same command (guided step 2)',
      ).toBe('deny');
    },
  );

  test('the views of a command are not asked of again: git -C . status under Bash(git status:*) still asks, as written', async () => {
    expect(
      (await decide(rules(['allow', 'Bash(git status:*)']), 'default', bash('git -C . status'))).behavior,
      'evaluate: only the command as written can be allowed, and -C is an option that changes where git works (guided step 5)',
    ).toBe('ask');
  });
});

describe('an allow rule allows a command, not everything it can be made to do (beyondRule)', () => {
  test.each([
    ['find . -exec touch PWNED \\;', 'Bash(find:*)'],
    ['find . -execdir touch PWNED \\;', 'Bash(find:*)'],
    ['find ../outside -delete', 'Bash(find:*)'],
    ['find . -fprintf .git/config x', 'Bash(find:*)'],
    ['awk \'BEGIN{system("touch PWNED")}\'', 'Bash(awk:*)'],
    ['awk \'{print | "sh"}\' notes.log', 'Bash(awk:*)'],
    ["sed -n '1e touch PWNED' notes.log", 'Bash(sed:*)'],
    ["sed 's/a/b/w out.txt' notes.log", 'Bash(sed:*)'],
    ['tar --checkpoint-action=exec=touch -cf x.tar src', 'Bash(tar:*)'],
    ['tar --to-com=sh -xf x.tar', 'Bash(tar:*)'],
    ["git -c core.pager='touch PWNED' log", 'Bash(git:*)'],
    ['git log --output=../outside/x', 'Bash(git log:*)'],
    ['sort --compress-program=sh notes.log', 'Bash(sort:*)'],
    ["rg --pre 'touch PWNED' x", 'Bash(rg:*)'],
    ["man -P 'touch PWNED' ls", 'Bash(man:*)'],
    ["git grep -O'touch PWNED' x", 'Bash(git grep:*)'],
    ['tar -xf x.tar', 'Bash(tar:*)'],
    ['tar xzf x.tar', 'Bash(tar:*)'],
    ['unzip -o x.zip', 'Bash(unzip:*)'],
    ['patch -p1 < x.patch', 'Bash(patch:*)'],
    ['npm test --script-shell=./evil.sh', 'Bash(npm test:*)'],
    ['npm test --prefix ../outside', 'Bash(npm test:*)'],
    ['make -f ../outside/Makefile', 'Bash(make:*)'],
    ['make CC=./evil', 'Bash(make:*)'],
    ['pytest -p evil_plugin', 'Bash(pytest:*)'],
    ['xargs -a ../outside/secret.txt echo', 'Bash(xargs:*)'],
    ['docker run -v /:/host alpine', 'Bash(docker run:*)'],
  ])('%j is not allowed by %s', async (command, rule) => {
    const decision = await expectAsked(command, [rule], 'beyondRule: an option of RISKY_OPTIONS');
    expect(decision.behavior).toBe('ask');
  });

  test.each([
    ['find . -name "*.ts"', 'Bash(find:*)'],
    ["awk '{print $1}' notes.log", 'Bash(awk:*)'],
    ['sed -n 1p notes.log', 'Bash(sed:*)'],
    ['git log --oneline', 'Bash(git log:*)'],
    ['tar -tf x.tar', 'Bash(tar:*)'],
    ['npm test -- --watch=false', 'Bash(npm test:*)'],
    ['make test', 'Bash(make:*)'],
  ])('%j is allowed by %s: nothing in it runs another program', async (command, rule) => {
    expect(
      (await decide(rules(['allow', rule]), 'default', bash(command))).behavior,
      'beyondRule: only the listed options (and script patterns) take a command beyond its rule',
    ).toBe('allow');
  });

  test('beyond a rule is not denied: a deny or ask rule still judges the command by its text', async () => {
    expect(
      (await decide(rules(['deny', 'Bash(find:*)']), 'bypassPermissions', bash('find . -exec ls \\;'))).behavior,
      'ruleMatches: a subject beyond its rule still meets deny rules',
    ).toBe('deny');
    expect(
      (await decide(rules(['deny', 'Bash(rm:*)']), 'bypassPermissions', bash('find . -exec ls \\;'))).behavior,
      'ruleMatches: beyond is not unknown: it matches no allow rule, but only the deny rules its text matches',
    ).toBe('allow');
  });
});

describe('what the person asked for holds in every mode (evaluate, ruleMatches)', () => {
  test('an ask rule asks in bypassPermissions', async () => {
    expect(
      (await decide(rules(['ask', 'Bash(git push:*)']), 'bypassPermissions', bash('git push'))).behavior,
      'evaluate: ask rules apply in every mode (guided step 4)',
    ).toBe('ask');
  });

  test('allowing Edit allows editing a file, not creating one with the write tool; denying Edit denies both', async () => {
    expect(
      (await decide(rules(['allow', 'Edit']), 'default', call('write', { path: 'new.txt', content: 'x' }))).behavior,
      'ruleMatches: ruleTools (given) narrows an allow rule for Edit to the edit tool (guided step 1)',
    ).toBe('ask');
    expect(
      (await decide(rules(['allow', 'Edit']), 'default', call('edit', { path: 'notes.log', old: 'a', new: 'b' })))
        .behavior,
      'ruleMatches: Edit allows the edit tool (guided step 1)',
    ).toBe('allow');
    expect(
      (await decide(rules(['deny', 'Edit']), 'bypassPermissions', call('write', { path: 'new.txt', content: 'x' })))
        .behavior,
      'ruleMatches: a deny of Edit covers the write tool too (guided step 1)',
    ).toBe('deny');
  });
});

describe('a path the checks cannot follow is an answer, not a crash (pathSubjects)', () => {
  test.each([
    ['read', { path: 'a\0b' }],
    ['read', { path: 'loop/x' }],
    ['write', { path: `${'n'.repeat(5000)}.txt`, content: 'x' }],
    ['bash', { command: 'cat loop/x' }],
  ])('%s %j is asked about, never thrown', async (name, args) => {
    const decision = await decide(rules(['allow', 'Bash(cat:*)']), 'default', call(name, args));
    expect(
      decision.behavior,
      'pathSubjects (given): a path that cannot be followed is unknown, so it is asked about',
    ).toBe('ask');
  });
});

describe('the edges of the new checks (beyondRule, innerCommands, safetyConcern, bashSubjects, evaluate)', () => {
  test('after -- the words are operands: an option there is a path, but a program there is still a program', async () => {
    expect(
      (await decide(rules(['allow', 'Bash(git log:*)']), 'default', bash('git log -- -c'))).behavior,
      'beyondRule: -c after -- is a path named -c, not the option (guided step 2)',
    ).toBe('allow');
    expect(
      (await decide(rules(['allow', 'Bash(awk:*)']), 'default', bash('awk -- \'BEGIN{system("touch PWNED")}\'')))
        .behavior,
      'beyondRule: the program after -- is still tested against the script pattern (guided step 3)',
    ).toBe('ask');
    expect(
      (await decide(rules(['allow', 'Bash(awk:*)']), 'default', bash("awk -F'|' '{print $1}' notes.log"))).behavior,
      'beyondRule: an option (-F|) is not the program, even when its value holds a pipe (guided step 3)',
    ).toBe('allow');
  });

  test('a command spelled another way is a view of it: it is judged by the command as written', async () => {
    expect(
      (await decide(rules(['allow', 'Bash(/bin/ls:*)']), 'default', bash('/bin/ls src'))).behavior,
      'bashSubjects: the basename form is a view (stripped): only /bin/ls src as written needs the allow (guided step 2)',
    ).toBe('allow');
    for (const command of ['/bin/ls src', 'git -C . status']) {
      expect(
        (await decide(rules(['deny', 'Bash(rm:*)']), 'bypassPermissions', bash(command))).behavior,
        `innerCommands: a view of ${command} has a name known before it runs (computed: false), so it meets only the deny rules its text matches (guided step 2)`,
      ).toBe('allow');
    }
  });

  test('GNU abbreviations of --recursive count, other words do not, in bypassPermissions too', async () => {
    for (const command of ['rm --r ../outside', 'rm --rec ../outside']) {
      expect(
        (await decide([], 'bypassPermissions', bash(command))).behavior,
        `safetyConcern: ${command} is recursive (a prefix of --recursive of three characters or more) (guided step 3)`,
      ).toBe('ask');
    }
    expect(
      (await decide([], 'bypassPermissions', bash('rm -- ../outside/x'))).behavior,
      'safetyConcern: -- is no option, so rm -- removes one file: bypassPermissions allows it (guided step 3)',
    ).toBe('allow');
  });

  test('a recursive search meets the deny rules of what it searches', async () => {
    expect(
      (await decide(rules(['deny', 'Read(./.env)'], ['allow', 'Bash(grep:*)']), 'default', bash('grep -r KEY .')))
        .behavior,
      'bashSubjects: a searched operand (grep -r .) is marked searched, so the deny rule for .env inside it applies (guided step 4)',
    ).toBe('deny');
  });

  test('the question for a command not understood is about commands, and only where a deny rule for files exists', async () => {
    const secret = bash('cat "$(printf %s ~/.ssh/id_rsa)"');
    const both = rules(['deny', 'Read(~/.ssh/**)'], ['allow', 'Bash(echo:*)']);
    const decision = await decide(both, 'bypassPermissions', secret);
    expect(decision.behavior, 'evaluate: any deny rule for files among the rules is enough (guided step 4)').toBe(
      'ask',
    );
    expect(decision.reason, 'evaluate: the reason says the command is not understood (guided step 4)').toMatch(
      /not understood/,
    );
    expect(
      (await decide(rules(['allow', 'Read(src/**)']), 'bypassPermissions', secret)).behavior,
      'evaluate: an allow rule for files is no deny rule for files: bypassPermissions runs it (guided step 4)',
    ).toBe('allow');
    expect(
      (
        await decide(
          rules(['deny', 'Read(./.env)']),
          'bypassPermissions',
          call('write', { path: 'a\0b', content: 'x' }),
        )
      ).behavior,
      'evaluate: a path tool whose path cannot be followed is judged by its own rules and the mode (the tool refuses the path itself) (guided step 4)',
    ).toBe('allow');
  });
});
