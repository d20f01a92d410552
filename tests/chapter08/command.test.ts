import { describe, expect, test } from 'vitest';
import { bashSubjects } from 'kit/permissions/evaluate';
import {
  innerCommands,
  joinWords,
  LIMITS,
  NotUnderstood,
  safetyConcern,
  shellCommands,
  suggestBashRule,
  type SimpleCommand,
} from 'kit/permissions/command';

/** The simple commands a line runs, as written (assignments, then words), in any order. */
const commandsOf = (line: string) =>
  shellCommands(line)
    .commands.map((c) => [...c.assignments, ...c.words].join(' '))
    .sort();
const only = (line: string): SimpleCommand => shellCommands(line).commands[0]!;

describe('walk and readCommand: every simple command a line runs (src/permissions/command.ts)', () => {
  test.each([
    ['npm test', ['npm test']],
    ['npm test && rm -rf /', ['npm test', 'rm -rf /']],
    ['make || rm -rf /', ['make', 'rm -rf /']],
    ['ls; rm x', ['ls', 'rm x']],
    ['cat a | sh', ['cat a', 'sh']],
    ['sleep 1 & rm x', ['rm x', 'sleep 1']],
    ['ls\nrm x', ['ls', 'rm x']],
    ['echo "a && b; c | d"', ['echo a && b; c | d']],
    ["echo 'x; rm y'", ['echo x; rm y']],
    ['echo \\; rm x', ['echo ; rm x']],
    ['echo $(rm x)', ['echo $(rm x)', 'rm x']],
    ['echo "now: $(rm x)"', ['echo "now: $(rm x)"', 'rm x']],
    ['diff <(cat a) b', ['cat a', 'diff <(cat a) b']],
    ['npm test 2>&1 | tee log', ['npm test', 'tee log']],
    ['echo $(echo $(rm x))', ['echo $(echo $(rm x))', 'echo $(rm x)', 'rm x']],
    ['CI=1 npm run lint', ['CI=1 npm run lint']],
    ['(rm -rf out)', ['rm -rf out']],
    ["cat <<'EOF'\n$(rm x) `rm y`\nEOF", ['cat']],
    ['echo ${x}', ['echo ${x}']],
    ['A=1 B=$(rm x)', ['rm x']],
    ['if true; then rm x; fi', ['rm x', 'true']],
    ['for f in a b; do rm "$f"; done', ['rm "$f"']],
    ['while read l; do rm x; done < list', ['read l', 'rm x']],
    ['case $x in a) rm y;; esac', ['rm y']],
    ['! rm x', ['rm x']],
    ['{ rm x; }', ['rm x']],
    ['f() { rm -rf x; }; f', ['f', 'rm -rf x']],
    ['cat <<< "$(rm z)"', ['cat', 'rm z']],
  ])('%j runs %j', (line, commands) => {
    expect(
      commandsOf(line),
      `walk guided steps 2-4 / readCommand: ${JSON.stringify(line)} runs exactly these simple commands (substitutions and commands inside if/for/while/case/{ }/functions too)`,
    ).toEqual([...commands].sort());
  });

  test('a comment hides nothing: the commands on the lines after it run', () => {
    expect(
      commandsOf("echo hi #'\ntouch PWNED\n#'"),
      'walk: a comment ends at the end of its line; `touch PWNED` on the next line runs (walk every named child, do not stop at a comment) (guided step 4)',
    ).toContain('touch PWNED');
  });

  test("$'...' quoting hides nothing: the command after the ; runs", () => {
    expect(
      commandsOf("echo $'\\'' ; touch PWNED ; echo $'\\''"),
      "walk: `$'\\''` is one quoted word, so `; touch PWNED ;` is outside it",
    ).toContain('touch PWNED');
  });

  test('the words: quotes removed, escapes undone, a word only known at run time kept as written', () => {
    expect(only('rm -f "a b" \'c d\' e\\ f').words, 'readCommand: literal() of each argument (guided step 3)').toEqual([
      'rm',
      '-f',
      'a b',
      'c d',
      'e f',
    ]);
    expect(
      only('cat $HOME/x').words,
      'readCommand: an argument with no literal value keeps its text (guided step 3)',
    ).toEqual(['cat', '$HOME/x']);
    expect(
      only('A=1 B="2 3" env').assignments,
      'readCommand: the assignments in front, as written (guided step 1)',
    ).toEqual(['A=1', 'B="2 3"']);
    expect(only('ls').computed, 'readCommand: a plain name is not computed (guided step 2)').toBe(false);
  });

  test.each(['$x a', '$(echo rm) x', '"$CMD" x', '/bin/r? x', 'r* x'])(
    'the name of %j is only known when it runs: computed',
    (line) => {
      expect(
        only(line).computed,
        `readCommand: the name of ${JSON.stringify(line)} is not a literal word (or is a glob), so it is computed (guided step 2)`,
      ).toBe(true);
    },
  );

  test.each([
    ['[[ -f x ]] && rm y', 'test_command'],
    ['echo $((1+2))', 'arithmetic_expansion'],
    ['for ((i=0; i<3; i++)); do ls; done', 'c_style_for_statement'],
    ['coproc { rm x; }', 'coproc (which the grammar misreads)'],
  ])('%j holds a node the walk does not know: the whole command is not understood', (line, kind) => {
    expect(
      () => shellCommands(line),
      `walk: a ${kind} node is not in CONTAINER_KINDS or INERT_KINDS; throw NotUnderstood, never skip it (guided step 3)`,
    ).toThrow(NotUnderstood);
  });

  test.each(['echo "unclosed', 'ls &&', 'echo )', 'if true; then'])(
    '%j has a syntax error: one subject, not understood',
    async (line) => {
      expect(
        await bashSubjects(line, { root: '/work/project', home: '/home/ada' }),
        'bashSubjects: shellCommands throws NotUnderstood for a syntax error; catch it and return one subject with the whole text and the reason as unknown (guided step 1)',
      ).toEqual([{ tool: 'bash', command: line, unknown: expect.stringMatching(/syntax/) }]);
    },
  );

  test('a command nested deeper than LIMITS.depth is not understood, and never overflows the stack', () => {
    const deep = `echo ${'$(echo '.repeat(80)}x${')'.repeat(80)}`;
    expect(() => shellCommands(deep), 'walk: past LIMITS.depth throw NotUnderstood (guided step 1)').toThrow(
      NotUnderstood,
    );
    const huge = `echo ${'$('.repeat(20_000)}x${')'.repeat(20_000)}`;
    expect(
      () => shellCommands(huge),
      'a command too big to judge is not understood (a NotUnderstood, not a RangeError)',
    ).toThrow(NotUnderstood);
    expect(
      commandsOf(`echo ${'$(echo '.repeat(10)}x${')'.repeat(10)}`),
      'walk: ten levels are well within the limit (guided step 1)',
    ).toHaveLength(11);
  });

  test('the depth limit is exact: a part exactly LIMITS.depth levels down is still understood', () => {
    // `ls` is program > command > command_name > word: its word is three levels below where the walk starts.
    expect(
      () => shellCommands('ls', LIMITS.depth - 3),
      'walk: only a node deeper than LIMITS.depth is not understood (depth > LIMITS.depth); one exactly at the limit is walked (guided step 1)',
    ).not.toThrow();
    expect(
      () => shellCommands('ls', LIMITS.depth - 2),
      'walk: one level past LIMITS.depth is not understood (guided step 1)',
    ).toThrow(NotUnderstood);
    expect(
      only('$x a').words,
      'readCommand: a computed name keeps its text (as written) as the first word (guided step 2)',
    ).toEqual(['$x', 'a']);
  });

  test('redirections that write: their targets, quotes removed; reading, duplicating and /dev/null write nothing', () => {
    expect(
      shellCommands('echo x > out 2>&1 < in').writes,
      'walk: `> out` writes out; `2>&1` and `< in` write no file (guided step 2)',
    ).toEqual(['out']);
    expect(
      shellCommands('echo x >> "a b/log" &> all 2>/dev/null').writes,
      'walk: every writing redirection, quotes removed (guided step 2)',
    ).toEqual(['a b/log', 'all']);
    expect(
      shellCommands('(echo x) > sub; { ls; } >> grp').writes,
      'walk: a redirection of a subshell or a group writes too (guided step 2)',
    ).toEqual(['sub', 'grp']);
    expect(
      shellCommands('cat <<< x > here').writes,
      'walk: a file_redirect inside a command node (guided step 2)',
    ).toEqual(['here']);
    expect(
      () => shellCommands('echo x > $TARGET'),
      'redirectTarget (given): a target only known at run time is not understood',
    ).toThrow(NotUnderstood);
  });
});

describe('innerCommands: what a command runs through a wrapper (src/permissions/command.ts)', () => {
  const inner = (line: string) => innerCommands(only(line).words, 0).commands.map((c) => joinWords(c.words));
  test.each([
    ['/bin/rm x', 'the basename (guided step 2)'],
    ['env FOO=1 rm x', 'env skips NAME=value (guided step 3)'],
    ['command rm x', 'a wrapper (guided step 3)'],
    ['time rm x', 'a wrapper (guided step 3)'],
    ['nice -n 5 rm x', 'a wrapper with an option that takes a value (guided step 3)'],
    ['timeout -s KILL 5 rm x', 'timeout skips its duration (guided step 3)'],
    ['nohup rm x', 'a wrapper (guided step 3)'],
    ['xargs -I {} rm x', 'xargs runs the command after its options (guided step 3)'],
    ['find . -name y -exec rm x ;', 'find -exec (guided step 3)'],
    ['bash -c "rm x"', 'the script of bash -c, parsed (guided step 3)'],
    ['sh -ec "ls; rm x"', 'sh with -c among its options (guided step 3)'],
    ['eval rm x', 'eval parses its arguments (guided step 3)'],
    ['timeout 5 env /bin/rm x', 'look through every inner command again (guided step 4)'],
    ['bash -c "sudo nice rm x"', "the script's commands are looked through too (guided step 4)"],
    ['sh -c "bash -c \'rm x\'"', 'a shell inside a shell (guided step 4)'],
  ])('%j runs `rm x`', (line, step) => {
    expect(inner(line), `innerCommands ${step}: ${JSON.stringify(line)} runs rm x`).toContain('rm x');
  });

  test('find -delete deletes: it counts as rm', () => {
    expect(
      inner('find . -name "*.log" -delete'),
      'innerCommands: findCommands (given) gives rm for -delete (guided step 3)',
    ).toContain('rm');
  });

  test("a script's computed names and writes come back too; a broken script is not understood", () => {
    const found = innerCommands(only(`bash -c '$x y > out'`).words, 0);
    expect(
      found.commands.some((c) => c.computed),
      'innerCommands: the commands of the script, computed ones included (guided step 3)',
    ).toBe(true);
    expect(found.writes, 'innerCommands: the writes of the script (guided step 3)').toEqual(['out']);
    expect(
      () => innerCommands(['bash', '-c', 'echo "unclosed'], 0),
      'innerCommands: shellCommands of a broken script throws NotUnderstood (guided step 3)',
    ).toThrow(NotUnderstood);
    expect(
      () => innerCommands(['eval', '[[', '-f', 'x', ']]'], 0),
      'innerCommands: eval of a construct the walk does not know (guided step 3)',
    ).toThrow(NotUnderstood);
  });

  test('a command that wraps nothing runs nothing else', () => {
    expect(inner('ls -la'), 'innerCommands: ls is no wrapper').toEqual([]);
    expect(
      inner('env'),
      'innerCommands: a wrapper with nothing after its options runs nothing (guided step 3)',
    ).toEqual([]);
    expect(
      inner('bash script.sh'),
      'innerCommands: a shell without -c runs a file, not a script string (guided step 3)',
    ).toEqual([]);
  });

  test('only find runs -exec and -delete; an inner command is known words with no assignments', () => {
    expect(
      inner('echo -exec rm x \\;'),
      'innerCommands: findCommands only for find (echo prints -exec, it runs nothing) (guided step 3)',
    ).toEqual([]);
    expect(inner('grep -delete x'), 'innerCommands: findCommands only for find (guided step 3)').toEqual([]);
    expect(
      innerCommands(['nohup', 'rm', 'x'], 0).commands,
      'innerCommands: each inner command of guided step 2 or 3 is { assignments: [], words, computed: false }',
    ).toEqual([{ assignments: [], words: ['rm', 'x'], computed: false }]);
  });

  test('the depth limit is exact, and a shell script is read one level deeper', () => {
    expect(
      () => innerCommands(['ls'], LIMITS.depth),
      'innerCommands: exactly at LIMITS.depth is still understood (depth > LIMITS.depth throws) (guided step 1)',
    ).not.toThrow();
    expect(
      () => innerCommands(['ls'], LIMITS.depth + 1),
      'innerCommands: past LIMITS.depth throw NotUnderstood with a reason that says why (guided step 1)',
    ).toThrow(/\w/);
    // shellCommands('ls', d) is understood up to d = LIMITS.depth - 3 (see the walk's test above).
    expect(
      () => innerCommands(['sh', '-c', 'ls'], LIMITS.depth - 4),
      'innerCommands: a script read at depth + 1 from LIMITS.depth - 4 is within the limit (guided step 3)',
    ).not.toThrow();
    expect(
      () => innerCommands(['sh', '-c', 'ls'], LIMITS.depth - 3),
      'innerCommands: the script is read with shellCommands at depth + 1, one level deeper than the command that runs it (guided step 3)',
    ).toThrow(NotUnderstood);
  });

  test('wrappers nested past LIMITS.depth are not understood', () => {
    expect(
      () => innerCommands([...Array<string>(100).fill('nohup'), 'rm', 'x'], 0),
      'innerCommands: past LIMITS.depth throw NotUnderstood (guided step 1)',
    ).toThrow(NotUnderstood);
    expect(
      () => innerCommands(['sh', '-c', 'sh -c "sh -c ls"'], 70),
      'innerCommands: the depth counts from where it started (guided step 1)',
    ).toThrow(NotUnderstood);
  });
});

describe('suggestBashRule (src/permissions/command.ts)', () => {
  test.each([
    ['npm run test:unit -- --watch', 'Bash(npm run test:unit:*)'],
    ['npm test', 'Bash(npm test:*)'],
    ['git diff HEAD~1', 'Bash(git diff:*)'],
    ['npm run -s build', 'Bash(npm run:*)'],
    ['git -C /tmp status', 'Bash(git -C /tmp status)'],
    ['rm  build/x.o', 'Bash(rm build/x.o)'],
    ['ls', 'Bash(ls)'],
    ['CI=1 npm run lint', 'Bash(CI=1 npm run lint:*)'],
    ['cat notes', 'Bash(cat notes)'],
    ['make build/out.o', 'Bash(make build/out.o)'],
  ])('suggests a rule for %j that is no broader than the command', (line, rule) => {
    expect(
      suggestBashRule(only(line)),
      'suggestBashRule: the prefix for a command with a subcommand, else the exact command; never the bare tool name (guided steps 1-3)',
    ).toBe(rule);
  });

  test.each([
    ['rm *.log', 'Bash(rm \\*.log)'],
    ['cat *', 'Bash(cat \\*)'],
    ['rm "a b"', "Bash(rm 'a b')"],
    ['echo a\\\\b', "Bash(echo 'a\\\\b')"],
    ['X=* npm test', 'Bash(X=\\* npm test:*)'],
  ])('text from the call is never a pattern: %j suggests %j', (line, rule) => {
    expect(
      suggestBashRule(only(line)),
      'suggestBashRule: join with joinWords and escape with escapeCommand, so a * from the call is a plain * (guided step 3)',
    ).toBe(rule);
  });
});

describe('safetyConcern (src/permissions/command.ts)', () => {
  const ws = { root: '/work/project', home: '/home/ada' };
  const concern = (line: string) => safetyConcern(only(line).words, ws);
  test.each([
    ['sudo npm install', /sudo/],
    ['doas ls', /doas/],
    ['rm -rf /', /rm/],
    ['rm -r ~/notes', /rm/],
    ['rm --recursive ../other', /rm/],
    ['rm -fR .', /rm/],
    ['cp evil .git/hooks/pre-commit', /\.git/],
    ['sed -i s/a/b/ .git/config', /\.git/],
    ['sed -i.bak s/a/b/ .git/config', /\.git/],
    ['sed -Ei s/a/b/ .git/config', /\.git/],
    ['sed -n -i s/a/b/ .git/config', /\.git/],
    ['sed --in-place s/a/b/ .git/config', /\.git/],
    ['sed --in-place=.bak s/a/b/ .git/config', /\.git/],
    ['su -c "rm x"', /su/],
    ['rm -rf ~', /rm/],
    ['rm -rf ../backup-', /rm/],
    ['tee .mcp.json', /\.mcp\.json/],
    ['cp x ~/.bashrc', /bashrc/],
    ['mv notes CLAUDE.md', /CLAUDE\.md/],
    ['touch .claude/settings.json', /\.claude/],
  ])('asks about %j whatever the rules say', (line, reason) => {
    expect(
      concern(line) ?? 'undefined (no concern)',
      `safetyConcern: ${JSON.stringify(line)} is always asked about; return a reason that names what it touches (guided steps 2-4)`,
    ).toMatch(reason);
  });

  test.each([
    'rm -rf build',
    'rm ../x',
    'rm ../old-dir',
    'rm -f /tmp/x',
    'cat .git/config',
    'grep -i key .git/config',
    'sed -n p .git/config',
    'sed -E s/a/b/ .git/config',
    'sed -n s/a-i/b/p .git/config',
    'git commit -m "fix"',
    'ls -r ..',
    'echo sudo',
    'cat .mcp.json',
  ])('has no concern about %j', (line) => {
    expect(
      concern(line),
      `safetyConcern: ${JSON.stringify(line)} is not one of the always-asked commands (step 5: undefined)`,
    ).toBeUndefined();
  });

  test('~ is the home folder: a recursive rm of a project folder reached through ~ is inside the workspace', () => {
    const inHome = { root: '/home/ada/project', home: '/home/ada' };
    expect(
      safetyConcern(['rm', '-r', '~/project/build'], inHome),
      'safetyConcern: ~/project/build is /home/ada/project/build, inside the workspace (guided step 3)',
    ).toBeUndefined();
    expect(
      safetyConcern(['rm', '-r', '~/other'], inHome),
      'safetyConcern: ~/other is outside it (guided step 3)',
    ).toMatch(/rm/);
  });
});
