/**
 * The worst calls a model could make, each against the rule or mode it tries to get past. Every test here is a way
 * round the permission engine that once worked.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ToolCall } from 'kit/messages';
import { callSubjects, evaluate, ruleMatches, type PermissionMode } from 'kit/permissions/evaluate';
import { createPermissionGate, type AskPermission, type PermissionRequest } from 'kit/permissions/gate';
import { parseRule, RuleSyntaxError, type Behavior } from 'kit/permissions/rules';
import { tempWorkspace } from '../helpers/workspace.js';

const { root, outside } = tempWorkspace({ '.env': 'KEY=1\n', 'src/a.ts': '', 'secrets/key': 'k', 'notes.log': '' });
const home = path.join(path.dirname(root), 'home');
mkdirSync(home);
symlinkSync(outside, path.join(root, 'out'));
const ws = { root, home };

let ids = 0;
const call = (name: string, args: Record<string, unknown>): ToolCall => ({
  type: 'tool_call',
  id: `h${++ids}`,
  name,
  arguments: args,
});
const bash = (command: string) => call('bash', { command });
const rules = (...list: Array<[Behavior, string]>) =>
  list.map(([behavior, text]) => parseRule(text, behavior, 'settings.json'));
const decide = async (list: ReturnType<typeof rules>, mode: PermissionMode, c: ToolCall) => evaluate(list, mode, c, ws);

describe('allow rules are not walked around by syntax (bashSubjects, walk)', () => {
  const allowed = () => rules(['allow', 'Bash(echo:*)'], ['allow', 'Bash(npm test:*)']);
  test.each([
    "echo hi #'\ntouch PWNED\n#'",
    "echo $'\\'' ; touch PWNED ; echo $'\\''",
    "npm test #'\ntouch PWNED\n#'",
    'echo "$(touch PWNED)"',
    'echo hi\\\n; touch PWNED',
  ])('with Bash(echo:*) and Bash(npm test:*) allowed, %j is not allowed: it also runs touch PWNED', async (command) => {
    const decision = await decide(allowed(), 'default', bash(command));
    expect(
      decision.behavior,
      `bashSubjects / walk: ${JSON.stringify(command)} runs touch PWNED, which no rule allows; it must be asked about`,
    ).toBe('ask');
  });

  test('the hidden command meets the deny rule and the always-ask check too', async () => {
    expect(
      (await decide(rules(['deny', 'Bash(rm:*)']), 'bypassPermissions', bash("echo hi #'\nrm x\n#'"))).behavior,
      'walk: rm x after the comment meets the deny rule (guided step 4)',
    ).toBe('deny');
    expect(
      (await decide(rules(['allow', 'Bash(*)']), 'acceptEdits', bash("echo $'\\'' ; rm -rf ~ ; echo $'\\''"))).reason,
      'bashSubjects: rm -rf ~ is always asked about (guided step 3)',
    ).toMatch(/rm/);
  });

  test.each(['[[ -f x ]] && rm y', 'echo $((1+2))', 'echo "unclosed', 'a[0]=1'])(
    '%j is not understood: no allow rule matches it, not even Bash(*) or Bash',
    async (command) => {
      for (const rule of ['Bash(*)', 'Bash']) {
        const decision = await decide(rules(['allow', rule]), 'default', bash(command));
        expect(
          decision.behavior,
          `ruleMatches: a subject with unknown set matches no allow rule (${rule}) (guided step 2)`,
        ).toBe('ask');
        expect(decision.reason, 'evaluate: the reason says the command is not understood (guided step 6)').toMatch(
          /not understood/,
        );
      }
      expect(
        (await decide([], 'acceptEdits', call('bash', { command }))).behavior,
        'evaluate: acceptEdits allows no command it cannot read (guided step 5)',
      ).toBe('ask');
    },
  );

  test('a command not understood is denied by any Bash deny rule it could match, and refused when nobody can answer', async () => {
    expect(
      (await decide(rules(['deny', 'Bash(git push:*)']), 'bypassPermissions', bash('[[ -f x ]] && git push'))).behavior,
      'ruleMatches: unknown matches every deny rule of its tool (guided step 2)',
    ).toBe('deny');
    const gate = createPermissionGate({ workspace: ws, rules: rules(['allow', 'Bash(*)']) });
    const decision = await gate.beforeToolCall(bash('[[ -f x ]] && rm y'), {
      signal: new AbortController().signal,
    } as never);
    expect(
      decision.type,
      'beforeToolCall: with nobody to ask, a command not understood is refused (guided step 5)',
    ).toBe('block');
  });

  test('a command nested 20,000 levels deep is not understood, an answer the model reads, not a crash', async () => {
    const command = `echo ${'$('.repeat(20_000)}x${')'.repeat(20_000)}`;
    const decision = await decide(rules(['allow', 'Bash(echo:*)']), 'default', bash(command));
    expect(decision.behavior, 'the limits (LIMITS) make a command too big to judge not understood').toBe('ask');
    const deep = `echo ${'$(echo '.repeat(200)}x${')'.repeat(200)}`;
    expect(
      (await decide(rules(['allow', 'Bash(echo:*)']), 'default', bash(deep))).reason,
      'walk: 200 levels is past LIMITS.depth (guided step 1)',
    ).toMatch(/not understood/);
  });
});

describe('deny rules see through wrappers and computed names (innerCommands, bashSubjects)', () => {
  const denyRm = () => rules(['deny', 'Bash(rm:*)']);
  test.each([
    '/bin/rm x',
    'bash -c "rm x"',
    "sh -c 'rm x'",
    'eval rm x',
    'eval "rm x"',
    'ls | xargs rm',
    'find . -delete',
    'find . -exec rm {} \\;',
    'time rm x',
    'nice rm x',
    'timeout 5 rm x',
    'env -i rm x',
    'command rm x',
    'nohup rm x &',
    '{ rm x; }',
    'if true; then rm x; fi',
    'for f in x; do rm $f; done',
    'while false; do rm x; done',
    '! rm x',
    '$(echo rm) x',
    'x=rm; $x x',
    '"$X" x',
    'sudo rm x',
    'bash -c "eval \'rm x\'"',
    'case a in *) rm x;; esac',
    'f() { rm x; }; f',
    '(rm x)',
    'echo `rm x`',
  ])('in bypassPermissions with Bash(rm:*) denied, %j is denied', async (command) => {
    const decision = await decide(denyRm(), 'bypassPermissions', bash(command));
    expect(
      decision.behavior,
      `innerCommands / bashSubjects: ${JSON.stringify(command)} runs rm (or a command whose name is only known when it runs); the deny rule must see it`,
    ).toBe('deny');
  });

  test('what runs inside a wrapper is judged for deny and ask, and needs an allow of its own', async () => {
    expect(
      (await decide(rules(['allow', 'Bash(timeout:*)']), 'default', bash('timeout 5 npm test'))).behavior,
      'bashSubjects: npm test is another command the wrapper runs, so it needs an allow of its own: allowing timeout is not allowing everything it can run (guided step 2)',
    ).toBe('ask');
    expect(
      (
        await decide(
          rules(['allow', 'Bash(timeout:*)'], ['allow', 'Bash(npm test:*)']),
          'default',
          bash('timeout 5 npm test'),
        )
      ).behavior,
      'bashSubjects: with the wrapper and the command it runs both allowed, the call is allowed (guided step 2)',
    ).toBe('allow');
    expect(
      (await decide(rules(['allow', 'Bash(npm test:*)']), 'default', bash('timeout 5 npm test'))).behavior,
      'evaluate: an inner command cannot be allowed on its own (the wrapper runs too) (guided step 5)',
    ).toBe('ask');
    expect(
      (await decide(rules(['ask', 'Bash(git push:*)'], ['allow', 'Bash(*)']), 'default', bash('env GIT_X=1 git push')))
        .behavior,
      'bashSubjects: ask rules see the inner command (guided step 2)',
    ).toBe('ask');
  });

  test('a computed name is never allowed, and an allowed command cannot smuggle one through a script', async () => {
    expect(
      (await decide(rules(['allow', 'Bash(*)']), 'default', bash('$CMD x'))).behavior,
      'bashSubjects: a computed name is unknown; no allow rule matches it (guided step 3)',
    ).toBe('ask');
    expect(
      (await decide(rules(['deny', 'Bash(git push:*)']), 'bypassPermissions', bash('bash -c "$(echo git) push"')))
        .behavior,
      'innerCommands: the computed name inside a -c script meets every deny rule (guided step 3)',
    ).toBe('deny');
  });
});

describe('redirections write: judged like Write(path) (walk, bashSubjects)', () => {
  const echo = () => rules(['allow', 'Bash(echo:*)'], ['allow', 'Bash(npm test:*)']);
  test.each([
    ['echo x > ../outside/secret.txt', 'a file outside the workspace'],
    ['echo x >> ../outside/secret.txt', 'an append outside the workspace'],
    ['echo x &> /tmp/x', 'an absolute path outside'],
    ['echo x > out/secret.txt', 'a symlink that leads outside'],
    ['echo x > $HOME/x', 'a target only known when it runs'],
    ['echo x | tee ../outside/secret.txt', 'tee writes too (tee is no redirection, but no rule allows it)'],
  ])('with Bash(echo:*) allowed, %j is asked about (%s)', async (command) => {
    expect(
      (await decide(echo(), 'default', bash(command))).behavior,
      `bashSubjects: the redirection in ${JSON.stringify(command)} writes outside the workspace; ask (guided step 4)`,
    ).toBe('ask');
  });

  test.each([
    ['npm test > ~/.bashrc'],
    ['echo x > .mcp.json'],
    ['echo x >> .git/hooks/pre-commit'],
    ['echo x > CLAUDE.md'],
    ['echo x > .claude/settings.json'],
  ])('%j writes a protected file: always asked, in acceptEdits too', async (command) => {
    const decision = await decide(echo(), 'acceptEdits', bash(command));
    expect(
      decision.behavior,
      `bashSubjects guided step 4 / pathSubjects: ${JSON.stringify(command)} writes a protected path`,
    ).toBe('ask');
    expect(decision.reason, 'the reason names the protected path').toMatch(/protected/);
  });

  test('a redirection inside the workspace is a write that needs an allow of its own, /dev/null writes nothing, and Edit rules apply to it', async () => {
    expect(
      (await decide(echo(), 'default', bash('echo x > notes.txt 2>/dev/null'))).behavior,
      'evaluate: a redirection writes a file as an edit does; Bash(echo:*) allows echo, not the write, so default mode asks (guided step 5)',
    ).toBe('ask');
    expect(
      (await decide(echo(), 'acceptEdits', bash('echo x > notes.txt 2>/dev/null'))).behavior,
      'evaluate: acceptEdits allows the write inside the workspace, and the rule allows echo (guided step 5)',
    ).toBe('allow');
    expect(
      (await decide(echo(), 'default', bash('echo x 2>/dev/null'))).behavior,
      'redirectTarget (given): /dev/null writes no file, so Bash(echo:*) is all the call needs',
    ).toBe('allow');
    expect(
      (await decide([...rules(['deny', 'Edit(./.env)']), ...echo()], 'default', bash('echo KEY=2 > .env'))).behavior,
      'bashSubjects: the write is a write subject, so Edit deny rules apply (guided step 4)',
    ).toBe('deny');
    expect(
      (await decide([...rules(['allow', 'Write(//tmp/**)']), ...echo()], 'default', bash('echo x > /tmp/kit-x')))
        .behavior,
      'evaluate: a Write allow rule can allow a write outside (guided step 5)',
    ).toBe('allow');
  });

  test.each([['> src/a.ts'], ['>> notes.txt'], ['2> log.txt']])(
    '%j is only a redirection: it writes, so it is judged as the write it is',
    async (command) => {
      const step = `evaluate: ${JSON.stringify(command)} truncates or writes a file and has no command of its own; the redirect is a subject that needs its own allow (guided step 5)`;
      expect(
        (await decide([], 'default', bash(command))).behavior,
        `${step}: in default mode no rule allows it, ask`,
      ).toBe('ask');
      expect((await decide(echo(), 'default', bash(command))).behavior, `${step}: Bash(echo:*) does not cover it`).toBe(
        'ask',
      );
      expect(
        (await decide(rules(['allow', 'Write(**)']), 'default', bash(command))).behavior,
        `${step}: a Write allow rule for the file covers it`,
      ).toBe('allow');
      expect(
        (await decide([], 'acceptEdits', bash(command))).behavior,
        `${step}: acceptEdits allows a write inside the workspace`,
      ).toBe('allow');
      expect(
        (await decide([], 'bypassPermissions', bash(command))).behavior,
        `${step}: bypassPermissions allows it`,
      ).toBe('allow');
    },
  );

  test('the write subjects: resolved, with where a symlink leads', async () => {
    const subjects = await callSubjects(bash('echo x > out/s.txt'), ws);
    expect(
      subjects.filter((s) => s.redirect),
      'bashSubjects: pathSubjects of the target, tool write, redirect: true (guided step 4)',
    ).toEqual([
      { tool: 'write', path: path.join(root, 'out/s.txt'), redirect: true, inside: true },
      { tool: 'write', path: path.join(outside, 's.txt'), redirect: true, inside: false },
    ]);
  });
});

describe('folder rules, Read rules for every reader, MCP server rules (ruleMatches, parseRule)', () => {
  test.each([['Edit(src/)'], ['Edit(./src/)'], ['Edit(/src/)']])(
    'deny %s stops a write inside src/, and nothing else',
    async (rule) => {
      const denied = rules(['deny', rule]);
      expect(
        (await decide(denied, 'bypassPermissions', call('write', { path: 'src/a.ts', content: '' }))).behavior,
        'rulePathGlob (given): a trailing / names the folder and everything in it',
      ).toBe('deny');
      expect(
        (await decide(denied, 'bypassPermissions', call('write', { path: 'src2/a.ts', content: '' }))).behavior,
        'src/ is not src2/',
      ).toBe('allow');
    },
  );

  test.each([
    ['grep', { pattern: 'TOKEN' }],
    ['grep', { pattern: 'KEY', path: 'secrets' }],
    ['glob', { pattern: '**/*' }],
    ['grep', { pattern: 'x', path: 'out/..' }],
  ])('with Read(./.env) and Read(./secrets/**) denied, %s %j is denied: it would read them', async (tool, args) => {
    const denied = rules(['deny', 'Read(./.env)'], ['deny', 'Read(./secrets/**)']);
    expect(
      (await decide(denied, 'default', call(tool, args))).behavior,
      'ruleMatches: a searched folder that holds a denied path meets the deny rule (globReachesInto) (guided step 5)',
    ).toBe('deny');
  });

  test('a search that cannot reach the protected files is allowed, and an allow rule for one file does not allow searching above it', async () => {
    const denied = rules(['deny', 'Read(./.env)'], ['deny', 'Read(./secrets/**)']);
    expect(
      (await decide(denied, 'default', call('grep', { pattern: 'x', path: 'src' }))).behavior,
      'ruleMatches: src holds neither .env nor secrets/ (guided step 5)',
    ).toBe('allow');
    const allowOne = rules(['allow', 'Read(./src/a.ts)']);
    expect(
      ruleMatches(allowOne[0]!, { tool: 'grep', path: root, inside: true, searched: true }, ws),
      'ruleMatches: only deny and ask rules reach into a searched folder (guided step 5)',
    ).toBe(false);
  });

  test('mcp__server__* is read as every tool of that server; a tool rule is exact', async () => {
    const rule = parseRule('mcp__github__*', 'allow', 'settings.json');
    expect(
      ruleMatches(rule, { tool: 'mcp__github__get_issue' }, ws),
      'parseRule guided step 2 / ruleMatches guided step 1: mcp__github__* covers the server',
    ).toBe(true);
    expect(
      ruleMatches(rule, { tool: 'mcp__github2__get_issue' }, ws),
      'ruleMatches: not another server (guided step 1)',
    ).toBe(false);
    const tool = parseRule('mcp__srv__get', 'allow', 'session');
    expect(
      ruleMatches(tool, { tool: 'mcp__srv__get__delete_everything' }, ws),
      'ruleMatches: a tool rule matches that tool only (guided step 1)',
    ).toBe(false);
    expect(ruleMatches(tool, { tool: 'mcp__srv__get' }, ws), 'ruleMatches: the tool itself (guided step 1)').toBe(true);
    expect(() => parseRule('mcp__*', 'allow', 'x'), 'parseRule: a server name is needed (guided step 2)').toThrow(
      RuleSyntaxError,
    );
  });

  test.each(['toString', '__proto__', 'constructor', 'hasOwnProperty', 'toString(x)'])(
    '%j is no tool: refused as a rule, and matches nothing as data',
    async (name) => {
      expect(
        () => parseRule(name, 'deny', 'settings.json'),
        'parseRule: look names up as data (Object.hasOwn), not through the prototype (guided step 2)',
      ).toThrow(RuleSyntaxError);
      const raw = { behavior: 'allow' as const, tool: name.replace(/\(.*/, ''), source: 'x' };
      expect(
        ruleMatches(raw, { tool: 'bash', command: 'ls' }, ws),
        'ruleMatches: CLAUDE_TOOLS has no such key (guided step 1)',
      ).toBe(false);
      expect(
        (await decide([], 'default', call(name, {}))).behavior,
        'evaluate: a tool with such a name is asked about, without a crash',
      ).toBe('ask');
    },
  );
});

describe('protected paths: asked about in every mode', () => {
  test.each([
    '.mcp.json',
    'CLAUDE.md',
    'AGENTS.md',
    '.claude/settings.json',
    '.claude/commands/x.md',
    '.git/hooks/pre-commit',
    '.bashrc',
    'sub/.zshrc',
    '.envrc',
  ])('writing %s is asked about in acceptEdits, even with an allow rule', async (file) => {
    for (const tool of ['write', 'edit']) {
      const decision = await decide(
        rules(['allow', 'Edit']),
        'acceptEdits',
        call(tool, { path: file, content: 'x', old: 'a', new: 'b' }),
      );
      expect(
        decision.behavior,
        `pathSubjects (given) and evaluate guided step 4: ${tool} of ${file} changes what runs next time; always ask`,
      ).toBe('ask');
    }
    expect(
      (await decide([], 'bypassPermissions', call('write', { path: file, content: 'x' }))).behavior,
      'evaluate: the checks that always ask hold in bypassPermissions too: a protected file stays protected (guided step 4)',
    ).toBe('ask');
  });
});

describe('"always" stores a rule no wider than the call (gate, suggestBashRule)', () => {
  const signal = new AbortController().signal;
  async function always(options: { rules?: ReturnType<typeof rules> }, c: ToolCall) {
    const asked: PermissionRequest[] = [];
    const ask: AskPermission = async (request) => (asked.push(request), 'allow_always');
    const gate = createPermissionGate({ workspace: ws, ask, ...options });
    await gate.beforeToolCall(c, { signal } as never);
    const stored = [...(options.rules ?? []), ...gate.sessionRules];
    return { asked, stored, next: (other: ToolCall) => evaluate(stored, 'default', other, ws) };
  }

  test.each([
    ['echo *.log', 'echo -rf src notes.log'],
    ['printf *', 'printf ~/.ssh/id_rsa'],
    ['rm "a b"', 'rm a b'],
    ['echo src/*', 'echo src/../../outside'],
  ])('"always" for %j does not allow %j', async (first, broader) => {
    const { stored, next } = await always({}, bash(first));
    expect(stored.length, 'beforeToolCall: a rule was stored (guided step 6)').toBeGreaterThan(0);
    expect((await next(bash(first))).behavior, 'the same call is allowed next time').toBe('allow');
    expect(
      (await next(bash(broader))).behavior,
      `suggestBashRule: the stored rule (${stored.map((r) => r.specifier).join(', ')}) must not match ${JSON.stringify(broader)}: escape the call's text (guided step 3)`,
    ).toBe('ask');
  });

  test('a file named ** stores a rule for that file only', async () => {
    const { stored, next } = await always({}, call('write', { path: '**', content: 'x' }));
    expect(
      (await next(call('write', { path: '**', content: 'y' }))).behavior,
      'the same file is allowed next time',
    ).toBe('allow');
    expect(
      (await next(call('write', { path: 'src/a.ts', content: 'y' }))).behavior,
      `suggestRules (given): ${stored.map((r) => r.specifier).join(', ')} must not be a glob over every file`,
    ).toBe('ask');
  });

  test('an MCP tool stores an exact rule', async () => {
    const { next } = await always({}, call('mcp__srv__get', {}));
    expect((await next(call('mcp__srv__get', {}))).behavior, 'the same tool is allowed next time').toBe('allow');
    expect(
      (await next(call('mcp__srv__get__delete_everything', {}))).behavior,
      'ruleMatches: mcp__srv__get is a tool rule, not a server rule (guided step 1)',
    ).toBe('ask');
  });

  test.each(['[[ -f x ]] && rm y', 'cat *.log', 'rm -rf $d'])(
    '%j is not understood: it stores no rule',
    async (command) => {
      const { stored } = await always({}, bash(command));
      expect(
        stored,
        'suggestRules (given): nothing narrow can be written for a command that is not understood',
      ).toEqual([]);
    },
  );

  test('when an ask rule still wins, the request says which, and the next call is asked again', async () => {
    const { asked, next } = await always({ rules: rules(['ask', 'Bash(npm publish:*)']) }, bash('npm publish'));
    expect(
      asked[0]?.stillAsks ?? '(no stillAsks)',
      'beforeToolCall: stillAsks names the rule that keeps asking (guided step 4)',
    ).toMatch(/npm publish:\*/);
    expect((await next(bash('npm publish'))).behavior, 'the ask rule still wins over the session allow rule').toBe(
      'ask',
    );
    const plain = await always({}, bash('npm run build'));
    expect(
      plain.asked[0]?.stillAsks,
      'beforeToolCall: when "always" will allow the next call, no stillAsks (guided step 4)',
    ).toBeUndefined();
  });
});
