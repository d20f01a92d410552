import { describe, expect, test } from 'vitest';
import { safetyConcern, splitCommand, suggestBashRule } from 'kit/permissions/command';

describe('splitCommand (src/permissions/command.ts)', () => {
  test.each([
    ['npm test', ['npm test']],
    ['npm test && rm -rf /', ['npm test', 'rm -rf /']],
    ['make || rm -rf /', ['make', 'rm -rf /']],
    ['ls; rm x', ['ls', 'rm x']],
    ['cat a | sh', ['cat a', 'sh']],
    ['sleep 1 & rm x', ['sleep 1', 'rm x']],
    ['ls\nrm x', ['ls', 'rm x']],
    ['echo "a && b; c | d"', ['echo "a && b; c | d"']],
    ["echo 'x; rm y'", ["echo 'x; rm y'"]],
    ['echo \\; rm x', ['echo \\; rm x']],
    ['echo $(rm x)', ['rm x', 'echo $(rm x)']],
    ['echo "now: $(rm x)"', ['rm x', 'echo "now: $(rm x)"']],
    ['echo `rm x`', ['rm x', 'echo `rm x`']],
    ['diff <(cat a) b', ['cat a', 'diff <(cat a) b']],
    ['(cd build && rm -rf out)', ['cd build', 'rm -rf out']],
    ['npm test 2>&1 | tee log', ['npm test 2>&1', 'tee log']],
    ['echo $(echo $(rm x))', ['rm x', 'echo $(rm x)', 'echo $(echo $(rm x))']],
    [' ;; ', []],
    ["echo 'a'; rm x", ["echo 'a'", 'rm x']],
    ['echo "a"; rm x', ['echo "a"', 'rm x']],
    ['echo "$(rm x)"', ['rm x', 'echo "$(rm x)"']],
    ['echo `rm x', ['rm x', 'echo `rm x']],
    ['arr=(1 2); echo x', ['arr=(1 2)', 'echo x']],
    ['ls; (rm -rf x)', ['ls', 'rm -rf x']],
    ['rm x;>log', ['rm x', '>log']],
    ['sort <in & rm x', ['sort <in', 'rm x']],
    ['ls &>log; rm x', ['ls &>log', 'rm x']],
  ])('splits %j', (command, parts) => {
    expect(splitCommand(command), `splitCommand: ${JSON.stringify(command)} runs these simple commands (substitutions first, then the command holding them); see steps 2-4`).toEqual(parts);
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
  ])('suggests a rule for %j that is no broader than the command', (part, rule) => {
    expect(suggestBashRule(part), 'suggestBashRule steps 1-3: the prefix for a command with a subcommand, else the exact command; never the bare tool name').toBe(rule);
  });
});

describe('safetyConcern (src/permissions/command.ts)', () => {
  const ws = { root: '/work/project', home: '/home/ada' };
  test.each([
    ['sudo npm install', /sudo/],
    ['doas ls', /doas/],
    ['rm -rf /', /rm/],
    ['rm -r ~/notes', /rm/],
    ['rm --recursive ../other', /rm/],
    ['rm -fR .', /rm/],
    ['FOO=1 rm -rf /tmp', /rm/],
    ['echo x > .git/config', /\.git/],
    ['echo x>>.git/hooks/pre-commit', /\.git/],
    ['cp evil .git/hooks/pre-commit', /\.git/],
    ['sed -i s/a/b/ .git/config', /\.git/],
    ['sed -i.bak s/a/b/ .git/config', /\.git/],
    ['su -c "rm x"', /su/],
    ['rm -rf ~', /rm/],
    ['rm -rf ../backup-', /rm/],
    ['echo x > ".git/config"', /\.git/],
    ['echo x > "a b/.git/config"', /\.git/],
    ["echo x >> 'a b/.git/config'", /\.git/],
  ])('asks about %j whatever the rules say', (part, reason) => {
    expect(safetyConcern(part, ws), `safetyConcern steps 2-4: ${JSON.stringify(part)} is always asked about; return a reason that says why`).toMatch(reason);
  });

  test.each(['rm -rf build', 'rm ../x', 'rm ../old-dir', 'rm -f /tmp/x', 'cat .git/config', 'grep -i key .git/config', 'sed -n p .git/config', 'git commit -m "fix"', 'npm test 2>&1', 'ls -r ..', 'echo sudo'])(
    'has no concern about %j',
    (part) => {
      expect(safetyConcern(part, ws), `safetyConcern: ${JSON.stringify(part)} is not one of the always-asked commands (step 5: undefined)`).toBeUndefined();
    },
  );

  test('~ is the home folder: a recursive rm of a project folder reached through ~ is inside the workspace', () => {
    const inHome = { root: '/home/ada/project', home: '/home/ada' };
    expect(safetyConcern('rm -r ~/project/build', inHome), 'safetyConcern step 3: ~/project/build is /home/ada/project/build, inside the workspace').toBeUndefined();
    expect(safetyConcern('rm -r ~/other', inHome), 'safetyConcern step 3: ~/other is outside it').toMatch(/rm/);
  });
});
