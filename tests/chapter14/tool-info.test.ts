import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { toolKind, toolLocations, toolTitle } from 'kit/acp/tool-info';

const cwd = path.resolve('/work/project');
const call = (name: string, args: unknown) => ({ name, arguments: args });

describe('toolKind (src/acp/tool-info.ts)', () => {
  test("each of the kit's tools gets the kind that picks its icon in the editor", () => {
    const expected: Record<string, string> = {
      read: 'read',
      edit: 'edit',
      write: 'edit',
      bash: 'execute',
      glob: 'search',
      grep: 'search',
      web_fetch: 'fetch',
      todo_write: 'think',
      task: 'think',
      exit_plan_mode: 'switch_mode',
    };
    for (const [name, kind] of Object.entries(expected))
      expect(toolKind(name), `toolKind: ${name} → ${kind} (guided step 1)`).toBe(kind);
  });

  test('an MCP tool, a made-up name and a near miss are "other"', () => {
    for (const name of ['mcp__everything__echo', 'delete_everything', 'Read', 'bash ', 'reader']) {
      expect(
        toolKind(name),
        `toolKind: "${name}" is not one of the kit's tools (names match exactly) → other (guided step 2)`,
      ).toBe('other');
    }
  });
});

describe('toolTitle (src/acp/tool-info.ts)', () => {
  test('files are named relative to the workspace, the verb first', () => {
    expect(toolTitle(call('read', { path: 'src/app.ts' }), cwd), 'toolTitle guided step 2').toBe('Read src/app.ts');
    expect(
      toolTitle(call('edit', { path: './src/app.ts' }), cwd),
      'toolTitle: the path as it is relative to cwd (guided step 2)',
    ).toBe('Edit src/app.ts');
    expect(
      toolTitle(call('write', { path: path.join(cwd, 'notes.md') }), cwd),
      'toolTitle: an absolute path inside cwd is shown relative (guided step 2)',
    ).toBe('Write notes.md');
    expect(
      toolTitle(call('read', { path: '../secret.txt' }), cwd),
      'toolTitle: a path outside cwd is shown absolute (guided step 2)',
    ).toBe(`Read ${path.resolve(cwd, '../secret.txt')}`);
    expect(toolTitle(call('read', { path: '.' }), cwd), "toolTitle: cwd itself is '.' (guided step 2)").toBe('Read .');
  });

  test('commands and searches are quoted in backticks, on one line', () => {
    expect(toolTitle(call('bash', { command: 'npm test' }), cwd), 'toolTitle guided step 3').toBe('Run `npm test`');
    expect(
      toolTitle(call('bash', { command: 'echo a\n  && echo b' }), cwd),
      'toolTitle: a command on one line (oneLine) (guided step 3)',
    ).toBe('Run `echo a && echo b`');
    const long = toolTitle(call('bash', { command: 'x'.repeat(200) }), cwd);
    expect(
      long.length,
      'toolTitle: a long command is clipped (oneLine clips to 80 characters) (guided step 3)',
    ).toBeLessThan(100);
    expect(toolTitle(call('glob', { pattern: '**/*.ts' }), cwd), 'toolTitle guided step 4').toBe('Find `**/*.ts`');
    expect(toolTitle(call('grep', { pattern: 'TODO' }), cwd), 'toolTitle guided step 4').toBe('Search for `TODO`');
    expect(
      toolTitle(call('grep', { pattern: 'TODO', path: 'src' }), cwd),
      'toolTitle: with a path, " in <path>" (guided step 4)',
    ).toBe('Search for `TODO` in src');
  });

  test('the planning tools, sub-agents and MCP tools read as what they do', () => {
    expect(toolTitle(call('todo_write', { todos: [] }), cwd), 'toolTitle guided step 5').toBe('Update the task list');
    expect(toolTitle(call('exit_plan_mode', { plan: 'x' }), cwd), 'toolTitle guided step 5').toBe('Hand in the plan');
    expect(
      toolTitle(call('task', { description: 'Find callers', prompt: '...' }), cwd),
      'toolTitle guided step 5',
    ).toBe('Sub-agent: Find callers');
    expect(
      toolTitle(call('mcp__everything__get-sum', { a: 1 }), cwd),
      'toolTitle: <tool> (MCP server <server>) (guided step 6)',
    ).toBe('get-sum (MCP server everything)');
  });

  test('arguments the model got wrong never throw: the title falls back to the tool name', () => {
    const bad: unknown[] = [
      undefined,
      null,
      'a string',
      42,
      [],
      { path: 7 },
      { command: ['ls'] },
      { pattern: null },
      { description: {} },
    ];
    expect(
      toolTitle(call('mcp__srv__run', { command: 'ls', pattern: 'x', description: 'd' }), cwd),
      'toolTitle: an MCP tool is named as one, whatever its arguments (guided step 6)',
    ).toBe('run (MCP server srv)');
    for (const name of ['weird', 'xmcp__a__b']) {
      expect(
        toolTitle(call(name, { command: 'ls', pattern: 'x', description: 'd', path: 'p' }), cwd),
        `toolTitle: ${name} is no kit tool (mcp__ only at the start) → its name, whatever the arguments (guided step 7)`,
      ).toBe(name);
    }
    expect(
      toolTitle(call('constructor', { path: 'a.ts' }), cwd),
      'toolTitle: a name that is not a kit tool (even one every object has) → the name (guided step 7)',
    ).toBe('constructor');
    expect(toolTitle(call('toString', { command: 'ls' }), cwd), 'toolTitle guided step 7').toBe('toString');
    for (const name of ['read', 'edit', 'write', 'bash', 'glob', 'grep', 'task', 'weird']) {
      for (const args of bad) {
        expect(
          toolTitle(call(name, args), cwd),
          `toolTitle: ${name} with ${JSON.stringify(args)} → the tool's name (guided steps 1 and 7)`,
        ).toBe(name);
      }
    }
  });
});

describe('toolLocations (src/acp/tool-info.ts)', () => {
  test('read, edit and write point at their file as an absolute path; read with the line it starts at', () => {
    expect(toolLocations(call('read', { path: 'src/a.ts' }), cwd), 'toolLocations guided step 1').toEqual([
      { path: path.join(cwd, 'src/a.ts') },
    ]);
    expect(
      toolLocations(call('read', { path: 'src/a.ts', offset: 40 }), cwd),
      'toolLocations: read with offset → line (guided step 1)',
    ).toEqual([{ path: path.join(cwd, 'src/a.ts'), line: 40 }]);
    expect(
      toolLocations(call('read', { path: 'a', offset: 1 }), cwd),
      'toolLocations: offset 1 is line 1 (guided step 1)',
    ).toEqual([{ path: path.join(cwd, 'a'), line: 1 }]);
    expect(
      toolLocations(call('edit', { path: 'b.ts', offset: 3 }), cwd),
      'toolLocations: only read has a line (guided step 1)',
    ).toEqual([{ path: path.join(cwd, 'b.ts') }]);
    expect(toolLocations(call('write', { path: '/tmp/x.txt' }), cwd), 'toolLocations guided step 1').toEqual([
      { path: path.resolve('/tmp/x.txt') },
    ]);
    for (const offset of [0, -2, 1.5, '12']) {
      expect(
        toolLocations(call('read', { path: 'a', offset }), cwd),
        `toolLocations: offset ${JSON.stringify(offset)} is not a line (a whole number >= 1) (guided step 1)`,
      ).toEqual([{ path: path.join(cwd, 'a') }]);
    }
  });

  test('glob and grep point at their folder, or the workspace; other tools and missing paths point nowhere', () => {
    expect(toolLocations(call('grep', { pattern: 'x', path: 'src' }), cwd), 'toolLocations guided step 2').toEqual([
      { path: path.join(cwd, 'src') },
    ]);
    expect(toolLocations(call('glob', { pattern: '*' }), cwd), 'toolLocations: no path → cwd (guided step 2)').toEqual([
      { path: cwd },
    ]);
    expect(
      toolLocations(call('bash', { command: 'ls', path: 'x' }), cwd),
      'toolLocations: bash has no location (guided step 3)',
    ).toEqual([]);
    expect(toolLocations(call('read', {}), cwd), 'toolLocations: no string path → no location (guided step 1)').toEqual(
      [],
    );
    expect(
      toolLocations(call('edit', null), cwd),
      'toolLocations: arguments that are not an object → no location (guided step 1)',
    ).toEqual([]);
  });
});
