import { describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { defineTool, toolDefinition, ToolSet } from 'kit/tool';

describe('toolDefinition (src/tool.ts)', () => {
  const search = defineTool({
    name: 'search',
    description: 'Search the code',
    input: z.object({
      query: z.string().describe('What to look for'),
      limit: z.number().int().default(10).describe('How many results'),
      path: z.string().optional(),
    }),
    execute: async () => '',
  });

  test('derives a JSON Schema object from the zod schema, with field descriptions', () => {
    const def = toolDefinition(search);
    expect(def.name, 'the definition carries the tool name').toBe('search');
    expect(def.description, 'and its description').toBe('Search the code');
    expect(
      def.inputSchema,
      'inputSchema: the JSON Schema of the zod object, with each field and its description',
    ).toMatchObject({
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to look for' },
        limit: { type: 'integer', description: 'How many results' },
        path: { type: 'string' },
      },
    });
  });

  test('lists as required only what the model must send: not optional fields, not fields with defaults', () => {
    expect(
      toolDefinition(search).inputSchema.required,
      'use the input view of the schema (io: "input"): a field with a default is optional for the model',
    ).toEqual(['query']);
  });

  test('leaves out the $schema key', () => {
    expect(toolDefinition(search).inputSchema, 'drop the $schema key (guided step 2)').not.toHaveProperty('$schema');
  });
});

const named = (name: string) => defineTool({ name, description: name, input: z.object({}), execute: async () => name });

describe('ToolSet.get (src/tool.ts)', () => {
  test('finds a tool by its exact name', () => {
    const set = new ToolSet([named('read'), named('write')]);
    expect(set.get('write')?.name, 'get returns the tool with that name').toBe('write');
  });

  test('returns undefined for an unknown name, and does not fold case or trim', () => {
    const set = new ToolSet([named('read')]);
    expect(set.get('grep'), 'an unknown name gives undefined').toBeUndefined();
    expect(set.get('Read'), 'names are matched exactly').toBeUndefined();
    expect(set.get(' read'), 'names are matched exactly: no trimming').toBeUndefined();
  });

  test('returns undefined for names an object inherits (toString, constructor, __proto__)', () => {
    const set = new ToolSet([named('read')]);
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(
        set.get(name),
        `ToolSet.get: the model sent the tool name "${name}"; no tool has it, so get returns undefined (look it up in the set's Map, not in a plain object, which inherits "${name}") (guided step 1)`,
      ).toBeUndefined();
    }
  });
});

describe('ToolSet.add (src/tool.ts)', () => {
  test('refuses a second tool with the same name, naming it', () => {
    const set = new ToolSet([named('read')]);
    const first = set.get('read');
    const second = named('read');
    expect(() => set.add(second), 'adding a second tool named "read" must throw, naming it').toThrow(/read/);
    expect(set.size, 'still one tool').toBe(1);
    expect(
      set.get('read'),
      'check before storing: the first tool stays, the second never replaces it (guided step 1)',
    ).toBe(first);
  });

  test('add returns the set, so calls chain', () => {
    const set = new ToolSet();
    expect(
      set.add(named('a')).add(named('b')).names(),
      'add returns this, so both tools are in the set (guided step 2)',
    ).toEqual(['a', 'b']);
  });
});

describe('ToolSet.definitions (src/tool.ts)', () => {
  test('gives the definitions in the order the tools were added', () => {
    const set = new ToolSet([named('zeta'), named('alpha')]).add(named('mid'));
    expect(
      set.definitions().map((d) => d.name),
      'the model sees tools in insertion order',
    ).toEqual(['zeta', 'alpha', 'mid']);
    expect(set.definitions()[0], 'each definition is what toolDefinition gives for that tool').toEqual(
      toolDefinition(named('zeta')),
    );
  });

  test('reflects the set as it is at each call: a tool added or removed later', () => {
    const set = new ToolSet([named('read')]);
    expect(set.definitions().map((d) => d.name)).toEqual(['read']);
    set.add(named('write'));
    expect(
      set.definitions().map((d) => d.name),
      'ToolSet.definitions: map the tools in the set at every call; "write" was added after the first call (guided step 1)',
    ).toEqual(['read', 'write']);
    set.remove('read');
    expect(
      set.definitions().map((d) => d.name),
      'ToolSet.definitions: map the tools in the set at every call; "read" was removed (guided step 1)',
    ).toEqual(['write']);
  });

  test('definitions do not run any tool', () => {
    const execute = vi.fn(async () => '');
    new ToolSet([defineTool({ name: 'x', description: 'd', input: z.object({}), execute })]).definitions();
    expect(execute, 'definitions only describe the tools').not.toHaveBeenCalled();
  });
});
