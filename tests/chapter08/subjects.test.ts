import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ToolCall } from 'kit/messages';
import { callSubjects, ruleMatches, type Subject } from 'kit/permissions/evaluate';
import { parseRule } from 'kit/permissions/rules';
import { tempWorkspace } from '../helpers/workspace.js';

const { root, outside } = tempWorkspace({ '.env': 'KEY=1\n', 'src/a.ts': '' });
const home = path.join(path.dirname(root), 'home');
mkdirSync(home);
symlinkSync(outside, path.join(root, 'out'));
const ws = { root, home };
const call = (name: string, args: unknown): ToolCall => ({ type: 'tool_call', id: 'c1', name, arguments: args });

describe('callSubjects (src/permissions/evaluate.ts)', () => {
  test('a compound command: one subject per simple command, plus the stripped form where it differs', async () => {
    const subjects = await callSubjects(call('bash', { command: 'npm  test && CI=1 rm -f "a b"' }), ws);
    expect(
      subjects,
      'bashSubjects steps 2 and 4: words joined by joinWords; the form without CI=1 is marked stripped; the file rm removes is a write subject (operand: true)',
    ).toEqual([
      { tool: 'bash', command: 'npm test' },
      { tool: 'bash', command: "CI=1 rm -f 'a b'" },
      { tool: 'bash', command: "rm -f 'a b'", stripped: true },
      { tool: 'write', path: path.join(root, 'a b'), operand: true, inside: true },
    ]);
  });

  test('a path: resolved against the workspace, and where its symlink leads, each with whether it is inside', async () => {
    const plain = await callSubjects(call('write', { path: 'src/../src/a.ts', content: '' }), ws);
    expect(plain, 'callSubjects step 3: one subject when the path leads nowhere else').toEqual([
      { tool: 'write', path: path.join(root, 'src/a.ts'), inside: true },
    ]);
    const linked = await callSubjects(call('read', { path: 'out/secret.txt' }), ws);
    expect(
      linked,
      'callSubjects step 3: the path as resolved (inside) and where the symlink really leads (outside)',
    ).toEqual([
      { tool: 'read', path: path.join(root, 'out/secret.txt'), inside: true },
      { tool: 'read', path: path.join(outside, 'secret.txt'), inside: false },
    ]);
  });

  test('glob and grep without a path look at the workspace root; a path that is not text counts as none', async () => {
    expect(
      await callSubjects(call('grep', { pattern: 'x' }), ws),
      'callSubjects step 3: default path ".", searched',
    ).toEqual([{ tool: 'grep', path: root, inside: true, searched: true }]);
    expect(
      await callSubjects(call('read', { path: 42 }), ws),
      'callSubjects step 1: a field is text only when it is a string',
    ).toEqual([{ tool: 'read', path: root, inside: true }]);
  });

  test('arguments that are not an object at all do not throw', async () => {
    expect(
      await callSubjects(call('bash', null), ws),
      'callSubjects step 1: no command means no simple commands',
    ).toEqual([]);
    expect(
      await callSubjects(call('bash', 'rm -rf /'), ws),
      'callSubjects step 1: a string is not an arguments object',
    ).toEqual([]);
  });

  test('web_fetch: the host of the URL, none for a URL that does not parse; other tools: the name only', async () => {
    expect(
      await callSubjects(call('web_fetch', { url: 'https://Example.com:8080/x' }), ws),
      'callSubjects step 4: the hostname',
    ).toEqual([{ tool: 'web_fetch', host: 'example.com' }]);
    expect(
      await callSubjects(call('web_fetch', { url: 'not a url' }), ws),
      'callSubjects step 4: an invalid URL gives no host',
    ).toEqual([{ tool: 'web_fetch', host: undefined }]);
    expect(
      await callSubjects(call('mcp__fs__list', { path: 'x', url: 'https://x.test' }), ws),
      'callSubjects step 5: any other tool: the name only',
    ).toStrictEqual([{ tool: 'mcp__fs__list' }]);
  });
});

describe('ruleMatches (src/permissions/evaluate.ts)', () => {
  const rule = (text: string) => parseRule(text, 'allow', 'test');
  const matches = (text: string, subject: Subject) => ruleMatches(rule(text), subject, ws);

  test('a rule without a specifier matches every call of its kit tools, and only those', () => {
    expect(matches('Read', { tool: 'glob', path: root }), 'ruleMatches steps 1-2: Read covers glob').toBe(true);
    expect(matches('Read', { tool: 'write', path: root }), 'ruleMatches step 1: Read does not cover write').toBe(false);
    expect(
      matches('WebSearch', { tool: 'web_fetch', host: 'x.test' }),
      'ruleMatches step 1: a Claude Code tool the kit lacks matches nothing',
    ).toBe(false);
  });

  test('MCP names match by server, on the whole server name', () => {
    expect(matches('mcp__fs', { tool: 'mcp__fs__list' }), 'ruleMatches step 1: mcp__fs covers mcp__fs__list').toBe(
      true,
    );
    expect(matches('mcp__fs', { tool: 'mcp__fs' }), 'ruleMatches step 1: the name itself').toBe(true);
    expect(matches('mcp__fs', { tool: 'mcp__fsx__list' }), 'ruleMatches step 1: mcp__fs is not mcp__fsx').toBe(false);
    expect(
      matches('mcp__fs__list', { tool: 'mcp__fs__list_all' }),
      'ruleMatches step 1: a tool rule is not a prefix',
    ).toBe(false);
  });

  test('command specifiers: exact, prefix with a word boundary, star anywhere', () => {
    expect(matches('Bash(ls)', { tool: 'bash', command: 'ls' }), 'ruleMatches step 3: exact').toBe(true);
    expect(matches('Bash(ls)', { tool: 'bash', command: 'ls -la' }), 'ruleMatches step 3: exact means exact').toBe(
      false,
    );
    expect(matches('Bash(ls:*)', { tool: 'bash', command: 'ls -la' }), 'ruleMatches step 3: prefix and more').toBe(
      true,
    );
    expect(matches('Bash(ls:*)', { tool: 'bash', command: 'lsof' }), 'ruleMatches step 3: word boundary').toBe(false);
    expect(
      matches('Bash(ls:*)', { tool: 'bash', command: 'echo ls' }),
      'ruleMatches step 3: anchored at the start',
    ).toBe(false);
    expect(
      matches('Bash(* --version)', { tool: 'bash', command: 'node --version' }),
      'ruleMatches step 3: a star at the start',
    ).toBe(true);
    expect(
      matches('Bash(* --version)', { tool: 'bash', command: 'node --version; rm x' }),
      'ruleMatches step 3: anchored at the end',
    ).toBe(false);
    expect(
      matches('Bash(cat a.txt)', { tool: 'bash', command: 'cat a.txt' }),
      'ruleMatches step 3: escaped text still matches itself',
    ).toBe(true);
    expect(
      matches('Bash(echo:*)', { tool: 'bash', command: 'echo a\nb' }),
      'ruleMatches step 3: a command may hold a new line (inside quotes): use the s flag',
    ).toBe(true);
  });

  test('path specifiers match the path or a folder above it, never a path that only starts the same', () => {
    expect(
      matches('Edit(src)', { tool: 'edit', path: path.join(root, 'src/a/b.ts') }),
      'ruleMatches step 4: a folder above',
    ).toBe(true);
    expect(
      matches('Edit(src)', { tool: 'edit', path: path.join(root, 'src2/b.ts') }),
      'ruleMatches step 4: src is not src2',
    ).toBe(false);
    expect(
      matches('Edit(src/*.ts)', { tool: 'edit', path: path.join(root, 'src/a.ts') }),
      'ruleMatches step 4: the path itself',
    ).toBe(true);
    expect(
      matches('Edit(*.ts)', { tool: 'edit', path: path.join(root, 'a.tsx') }),
      'ruleMatches step 4: the glob is anchored',
    ).toBe(false);
  });

  test('a specifier for another kind of subject matches nothing', () => {
    expect(
      matches('WebFetch(domain:example.com)', { tool: 'web_fetch' }),
      'ruleMatches step 5: no host, no match',
    ).toBe(false);
    expect(
      matches('WebFetch(domain:*.example.com)', { tool: 'web_fetch' }),
      'ruleMatches step 5: no host, no match (and no crash)',
    ).toBe(false);
    expect(
      matches('WebFetch(domain:example.com)', { tool: 'web_fetch', host: 'example.com.evil.test' }),
      'ruleMatches step 5: the host must equal the domain',
    ).toBe(false);
  });
});
