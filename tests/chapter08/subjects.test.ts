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
      'bashSubjects: words joined by joinWords; the form without CI=1 is marked stripped; the file rm removes is a write subject (operand: true) (guided steps 2 and 4)',
    ).toEqual([
      { tool: 'bash', command: 'npm test' },
      { tool: 'bash', command: "CI=1 rm -f 'a b'" },
      { tool: 'bash', command: "rm -f 'a b'", stripped: true },
      { tool: 'write', path: path.join(root, 'a b'), operand: true, inside: true },
    ]);
  });

  test('a path: resolved against the workspace, and where its symlink leads, each with whether it is inside', async () => {
    const plain = await callSubjects(call('write', { path: 'src/../src/a.ts', content: '' }), ws);
    expect(plain, 'callSubjects: one subject when the path leads nowhere else (guided step 3)').toEqual([
      { tool: 'write', path: path.join(root, 'src/a.ts'), inside: true },
    ]);
    const linked = await callSubjects(call('read', { path: 'out/secret.txt' }), ws);
    expect(
      linked,
      'callSubjects: the path as resolved (inside) and where the symlink really leads (outside) (guided step 3)',
    ).toEqual([
      { tool: 'read', path: path.join(root, 'out/secret.txt'), inside: true },
      { tool: 'read', path: path.join(outside, 'secret.txt'), inside: false },
    ]);
  });

  test('glob and grep without a path look at the workspace root; a path that is not text counts as none', async () => {
    expect(
      await callSubjects(call('grep', { pattern: 'x' }), ws),
      'callSubjects: default path ".", searched (guided step 3)',
    ).toEqual([{ tool: 'grep', path: root, inside: true, searched: true }]);
    expect(
      await callSubjects(call('read', { path: 42 }), ws),
      'callSubjects: a field is text only when it is a string (guided step 1)',
    ).toEqual([{ tool: 'read', path: root, inside: true }]);
  });

  test('arguments that are not an object at all do not throw', async () => {
    expect(
      await callSubjects(call('bash', null), ws),
      'callSubjects: no command means no simple commands (guided step 1)',
    ).toEqual([]);
    expect(
      await callSubjects(call('bash', 'rm -rf /'), ws),
      'callSubjects: a string is not an arguments object (guided step 1)',
    ).toEqual([]);
  });

  test('web_fetch: the host of the URL, none for a URL that does not parse; other tools: the name only', async () => {
    expect(
      await callSubjects(call('web_fetch', { url: 'https://Example.com:8080/x' }), ws),
      'callSubjects: the hostname (guided step 4)',
    ).toEqual([{ tool: 'web_fetch', host: 'example.com' }]);
    expect(
      await callSubjects(call('web_fetch', { url: 'not a url' }), ws),
      'callSubjects: an invalid URL gives no host (guided step 4)',
    ).toEqual([{ tool: 'web_fetch', host: undefined }]);
    expect(
      await callSubjects(call('mcp__fs__list', { path: 'x', url: 'https://x.test' }), ws),
      'callSubjects: any other tool: the name only (guided step 5)',
    ).toStrictEqual([{ tool: 'mcp__fs__list' }]);
  });
});

describe('ruleMatches (src/permissions/evaluate.ts)', () => {
  const rule = (text: string) => parseRule(text, 'allow', 'test');
  const matches = (text: string, subject: Subject) => ruleMatches(rule(text), subject, ws);

  test('a rule without a specifier matches every call of its kit tools, and only those', () => {
    expect(matches('Read', { tool: 'glob', path: root }), 'ruleMatches: Read covers glob (guided steps 1-2)').toBe(
      true,
    );
    expect(
      matches('Read', { tool: 'write', path: root }),
      'ruleMatches: Read does not cover write (guided step 1)',
    ).toBe(false);
    expect(
      matches('WebSearch', { tool: 'web_fetch', host: 'x.test' }),
      'ruleMatches: a Claude Code tool the kit lacks matches nothing (guided step 1)',
    ).toBe(false);
  });

  test('MCP names match by server, on the whole server name', () => {
    expect(
      matches('mcp__fs', { tool: 'mcp__fs__list' }),
      'ruleMatches: mcp__fs covers mcp__fs__list (guided step 1)',
    ).toBe(true);
    expect(matches('mcp__fs', { tool: 'mcp__fs' }), 'ruleMatches: the name itself (guided step 1)').toBe(true);
    expect(matches('mcp__fs', { tool: 'mcp__fsx__list' }), 'ruleMatches: mcp__fs is not mcp__fsx (guided step 1)').toBe(
      false,
    );
    expect(
      matches('mcp__fs__list', { tool: 'mcp__fs__list_all' }),
      'ruleMatches: a tool rule is not a prefix (guided step 1)',
    ).toBe(false);
  });

  test('command specifiers: exact, prefix with a word boundary, star anywhere', () => {
    expect(matches('Bash(ls)', { tool: 'bash', command: 'ls' }), 'ruleMatches: exact (guided step 3)').toBe(true);
    expect(
      matches('Bash(ls)', { tool: 'bash', command: 'ls -la' }),
      'ruleMatches: exact means exact (guided step 3)',
    ).toBe(false);
    expect(
      matches('Bash(ls:*)', { tool: 'bash', command: 'ls -la' }),
      'ruleMatches: prefix and more (guided step 3)',
    ).toBe(true);
    expect(matches('Bash(ls:*)', { tool: 'bash', command: 'lsof' }), 'ruleMatches: word boundary (guided step 3)').toBe(
      false,
    );
    expect(
      matches('Bash(ls:*)', { tool: 'bash', command: 'echo ls' }),
      'ruleMatches: anchored at the start (guided step 3)',
    ).toBe(false);
    expect(
      matches('Bash(* --version)', { tool: 'bash', command: 'node --version' }),
      'ruleMatches: a star at the start (guided step 3)',
    ).toBe(true);
    expect(
      matches('Bash(* --version)', { tool: 'bash', command: 'node --version; rm x' }),
      'ruleMatches: anchored at the end (guided step 3)',
    ).toBe(false);
    expect(
      matches('Bash(cat a.txt)', { tool: 'bash', command: 'cat a.txt' }),
      'ruleMatches: escaped text still matches itself (guided step 3)',
    ).toBe(true);
    expect(
      matches('Bash(echo:*)', { tool: 'bash', command: 'echo a\nb' }),
      'ruleMatches: a command may hold a new line (inside quotes): use the s flag (guided step 3)',
    ).toBe(true);
  });

  test('path specifiers match the path or a folder above it, never a path that only starts the same', () => {
    expect(
      matches('Edit(src)', { tool: 'edit', path: path.join(root, 'src/a/b.ts') }),
      'ruleMatches: a folder above (guided step 4)',
    ).toBe(true);
    expect(
      matches('Edit(src)', { tool: 'edit', path: path.join(root, 'src2/b.ts') }),
      'ruleMatches: src is not src2 (guided step 4)',
    ).toBe(false);
    expect(
      matches('Edit(src/*.ts)', { tool: 'edit', path: path.join(root, 'src/a.ts') }),
      'ruleMatches: the path itself (guided step 4)',
    ).toBe(true);
    expect(
      matches('Edit(*.ts)', { tool: 'edit', path: path.join(root, 'a.tsx') }),
      'ruleMatches: the glob is anchored (guided step 4)',
    ).toBe(false);
  });

  test('a specifier for another kind of subject matches nothing', () => {
    expect(
      matches('WebFetch(domain:example.com)', { tool: 'web_fetch' }),
      'ruleMatches: no host, no match (guided step 5)',
    ).toBe(false);
    expect(
      matches('WebFetch(domain:*.example.com)', { tool: 'web_fetch' }),
      'ruleMatches: no host, no match (and no crash) (guided step 5)',
    ).toBe(false);
    expect(
      matches('WebFetch(domain:example.com)', { tool: 'web_fetch', host: 'example.com.evil.test' }),
      'ruleMatches: the host must equal the domain (guided step 5)',
    ).toBe(false);
  });
});
