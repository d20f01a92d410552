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
      expect(toolKind(name), `toolKind step 1: ${name} → ${kind}`).toBe(kind);
  });

  test('an MCP tool, a made-up name and a near miss are "other"', () => {
    for (const name of ['mcp__everything__echo', 'delete_everything', 'Read', 'bash ', 'reader']) {
      expect(
        toolKind(name),
        `toolKind step 2: "${name}" is not one of the kit's tools (names match exactly) → other`,
      ).toBe('other');
    }
  });
});

describe('toolTitle (src/acp/tool-info.ts)', () => {
  test('files are named relative to the workspace, the verb first', () => {
    expect(toolTitle(call('read', { path: 'src/app.ts' }), cwd), 'toolTitle step 2').toBe('Read src/app.ts');
    expect(
      toolTitle(call('edit', { path: './src/app.ts' }), cwd),
      'toolTitle step 2: the path as it is relative to cwd',
    ).toBe('Edit src/app.ts');
    expect(
      toolTitle(call('write', { path: path.join(cwd, 'notes.md') }), cwd),
      'toolTitle step 2: an absolute path inside cwd is shown relative',
    ).toBe('Write notes.md');
    expect(
      toolTitle(call('read', { path: '../secret.txt' }), cwd),
      'toolTitle step 2: a path outside cwd is shown absolute',
    ).toBe(`Read ${path.resolve(cwd, '../secret.txt')}`);
    expect(toolTitle(call('read', { path: '.' }), cwd), "toolTitle step 2: cwd itself is '.'").toBe('Read .');
  });

  test('commands and searches are quoted in backticks, on one line', () => {
    expect(toolTitle(call('bash', { command: 'npm test' }), cwd), 'toolTitle step 3').toBe('Run `npm test`');
    expect(
      toolTitle(call('bash', { command: 'echo a\n  && echo b' }), cwd),
      'toolTitle step 3: a command on one line (oneLine)',
    ).toBe('Run `echo a && echo b`');
    const long = toolTitle(call('bash', { command: 'x'.repeat(200) }), cwd);
    expect(long.length, 'toolTitle step 3: a long command is clipped (oneLine clips to 80 characters)').toBeLessThan(
      100,
    );
    expect(toolTitle(call('glob', { pattern: '**/*.ts' }), cwd), 'toolTitle step 4').toBe('Find `**/*.ts`');
    expect(toolTitle(call('grep', { pattern: 'TODO' }), cwd), 'toolTitle step 4').toBe('Search for `TODO`');
    expect(
      toolTitle(call('grep', { pattern: 'TODO', path: 'src' }), cwd),
      'toolTitle step 4: with a path, " in <path>"',
    ).toBe('Search for `TODO` in src');
  });

  test('the planning tools, sub-agents and MCP tools read as what they do', () => {
    expect(toolTitle(call('todo_write', { todos: [] }), cwd), 'toolTitle step 5').toBe('Update the task list');
    expect(toolTitle(call('exit_plan_mode', { plan: 'x' }), cwd), 'toolTitle step 5').toBe('Hand in the plan');
    expect(toolTitle(call('task', { description: 'Find callers', prompt: '...' }), cwd), 'toolTitle step 5').toBe(
      'Sub-agent: Find callers',
    );
    expect(
      toolTitle(call('mcp__everything__get-sum', { a: 1 }), cwd),
      'toolTitle step 6: <tool> (MCP server <server>)',
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
      'toolTitle step 6: an MCP tool is named as one, whatever its arguments',
    ).toBe('run (MCP server srv)');
    for (const name of ['weird', 'xmcp__a__b']) {
      expect(
        toolTitle(call(name, { command: 'ls', pattern: 'x', description: 'd', path: 'p' }), cwd),
        `toolTitle step 7: ${name} is no kit tool (mcp__ only at the start) → its name, whatever the arguments`,
      ).toBe(name);
    }
    expect(
      toolTitle(call('constructor', { path: 'a.ts' }), cwd),
      'toolTitle step 7: a name that is not a kit tool (even one every object has) → the name',
    ).toBe('constructor');
    expect(toolTitle(call('toString', { command: 'ls' }), cwd), 'toolTitle step 7').toBe('toString');
    for (const name of ['read', 'edit', 'write', 'bash', 'glob', 'grep', 'task', 'weird']) {
      for (const args of bad) {
        expect(
          toolTitle(call(name, args), cwd),
          `toolTitle steps 1 and 7: ${name} with ${JSON.stringify(args)} → the tool's name`,
        ).toBe(name);
      }
    }
  });
});

describe('toolLocations (src/acp/tool-info.ts)', () => {
  test('read, edit and write point at their file as an absolute path; read with the line it starts at', () => {
    expect(toolLocations(call('read', { path: 'src/a.ts' }), cwd), 'toolLocations step 1').toEqual([
      { path: path.join(cwd, 'src/a.ts') },
    ]);
    expect(
      toolLocations(call('read', { path: 'src/a.ts', offset: 40 }), cwd),
      'toolLocations step 1: read with offset → line',
    ).toEqual([{ path: path.join(cwd, 'src/a.ts'), line: 40 }]);
    expect(
      toolLocations(call('read', { path: 'a', offset: 1 }), cwd),
      'toolLocations step 1: offset 1 is line 1',
    ).toEqual([{ path: path.join(cwd, 'a'), line: 1 }]);
    expect(
      toolLocations(call('edit', { path: 'b.ts', offset: 3 }), cwd),
      'toolLocations step 1: only read has a line',
    ).toEqual([{ path: path.join(cwd, 'b.ts') }]);
    expect(toolLocations(call('write', { path: '/tmp/x.txt' }), cwd), 'toolLocations step 1').toEqual([
      { path: path.resolve('/tmp/x.txt') },
    ]);
    for (const offset of [0, -2, 1.5, '12']) {
      expect(
        toolLocations(call('read', { path: 'a', offset }), cwd),
        `toolLocations step 1: offset ${JSON.stringify(offset)} is not a line (a whole number >= 1)`,
      ).toEqual([{ path: path.join(cwd, 'a') }]);
    }
  });

  test('glob and grep point at their folder, or the workspace; other tools and missing paths point nowhere', () => {
    expect(toolLocations(call('grep', { pattern: 'x', path: 'src' }), cwd), 'toolLocations step 2').toEqual([
      { path: path.join(cwd, 'src') },
    ]);
    expect(toolLocations(call('glob', { pattern: '*' }), cwd), 'toolLocations step 2: no path → cwd').toEqual([
      { path: cwd },
    ]);
    expect(
      toolLocations(call('bash', { command: 'ls', path: 'x' }), cwd),
      'toolLocations step 3: bash has no location',
    ).toEqual([]);
    expect(toolLocations(call('read', {}), cwd), 'toolLocations step 1: no string path → no location').toEqual([]);
    expect(
      toolLocations(call('edit', null), cwd),
      'toolLocations step 1: arguments that are not an object → no location',
    ).toEqual([]);
  });
});
