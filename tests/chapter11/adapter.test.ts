import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { jsonSchemaInput, mcpToolName, toolResultText } from 'kit/mcp/adapter';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

/** The text toolResultText throws for an error result (fails the test when it does not throw). */
function thrown(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error(
    'toolResultText returned normally for a result with isError: true; guided step 4: it must throw, so the call becomes an error result',
  );
}

describe('mcpToolName (src/mcp/adapter.ts)', () => {
  test('a valid name is mcp__<server>__<tool>, unchanged', () => {
    expect(mcpToolName('everything', 'get-sum'), "mcpToolName: Claude Code's naming (guided step 1)").toBe(
      'mcp__everything__get-sum',
    );
    expect(mcpToolName('fs', 'read_text_file'), 'mcpToolName guided step 1').toBe('mcp__fs__read_text_file');
  });

  test('characters the providers refuse are replaced, and two names that clean up alike stay apart', () => {
    const dotted = mcpToolName('docs', 'search.pages');
    const spaced = mcpToolName('docs', 'search pages');
    expect(
      dotted,
      'mcpToolName: "." becomes "_" (the providers accept only letters, digits, "_" and "-") (guided step 2)',
    ).toMatch(/^mcp__docs__search_pages_[0-9a-f]{8}$/);
    expect(spaced, 'mcpToolName guided step 2').toMatch(VALID);
    expect(
      spaced,
      'mcpToolName: the hash of the original names keeps "search.pages" and "search pages" apart (guided step 3)',
    ).not.toBe(dotted);
    expect(mcpToolName('docs', 'search.pages'), 'mcpToolName: the same tool always gets the same name').toBe(dotted);
  });

  test('a name over 64 characters is cut to 64 with a hash; the server prefix is kept', () => {
    const long = 'a'.repeat(70);
    const one = mcpToolName('github-enterprise-server-for-the-company', `${long}1`);
    const two = mcpToolName('github-enterprise-server-for-the-company', `${long}2`);
    expect(one.length, 'mcpToolName: at most 64 characters (55, "_", 8 hex) (guided steps 2-3)').toBe(64);
    expect(one, 'mcpToolName: valid for both providers (guided step 3)').toMatch(VALID);
    expect(
      one.startsWith('mcp__github-enterprise-server-for-the-company__'),
      'mcpToolName: permission rules match the mcp__<server>__ prefix, so it must survive',
    ).toBe(true);
    expect(one, 'mcpToolName: two tools that differ only after the cut get different names (guided step 3)').not.toBe(
      two,
    );
    expect(
      mcpToolName('s', 'b'.repeat(56)),
      'mcpToolName: exactly 64 characters is still valid and kept as is (guided step 1)',
    ).toBe(`mcp__s__${'b'.repeat(56)}`);
    expect(mcpToolName('s', 'b'.repeat(57)), 'mcpToolName: 65 characters is one too many (guided steps 2-3)').toMatch(
      /^mcp__s__b{47}_[0-9a-f]{8}$/,
    );
  });
});

describe('jsonSchemaInput (src/mcp/adapter.ts)', () => {
  const schema = {
    type: 'object',
    properties: { path: { type: 'string' }, head: { type: 'number', minimum: 1 }, mode: { enum: ['a', 'b'] } },
    required: ['path'],
    additionalProperties: false,
  };

  test('arguments the schema accepts pass unchanged', () => {
    const parsed = jsonSchemaInput(schema).safeParse({ path: 'a.txt', head: 3, mode: 'b' });
    expect(
      parsed.success,
      `jsonSchemaInput: valid arguments must pass (${parsed.success ? '' : z.prettifyError(parsed.error)}) (guided step 2)`,
    ).toBe(true);
    expect(parsed.data, 'jsonSchemaInput: the arguments are passed on as they are').toEqual({
      path: 'a.txt',
      head: 3,
      mode: 'b',
    });
  });

  test('arguments the schema refuses fail with what is wrong and where', () => {
    const input = jsonSchemaInput(schema);
    const missing = input.safeParse({ head: 2 });
    expect(missing.success, 'jsonSchemaInput: a missing required field must fail (guided step 2)').toBe(false);
    expect(
      z.prettifyError(missing.error!),
      'jsonSchemaInput: the message says which field is missing (guided step 2)',
    ).toMatch(/path/);
    const wrong = input.safeParse({ path: 'x', head: 0, mode: 'c' });
    expect(wrong.success, 'jsonSchemaInput: minimum and enum are checked (guided step 2)').toBe(false);
    const issues = wrong.error!.issues;
    expect(
      issues.map((i) => i.path.join('.')).sort(),
      'jsonSchemaInput: one issue per error (allErrors), its path from instancePath (guided step 2)',
    ).toEqual(['head', 'mode']);
    expect(
      input.safeParse({ path: 'x', extra: 1 }).success,
      'jsonSchemaInput: additionalProperties: false is checked (guided step 2)',
    ).toBe(false);
  });

  test('arguments that are not an object fail, whatever the schema says', () => {
    const loose = jsonSchemaInput({ type: 'object' });
    for (const value of [null, [], 'path', 3, undefined]) {
      const parsed = loose.safeParse(value);
      expect(
        parsed.success,
        `jsonSchemaInput: ${JSON.stringify(value)} is not an arguments object (guided step 2)`,
      ).toBe(false);
      expect(parsed.error!.issues[0]!.message, 'jsonSchemaInput guided step 2').toMatch(/object/);
    }
    expect(
      loose.safeParse({}).success,
      'jsonSchemaInput: an empty object is fine for a schema without required fields',
    ).toBe(true);
  });

  test('a schema that does not compile refuses every call with a message, and does not throw', () => {
    let input: ReturnType<typeof jsonSchemaInput> | undefined;
    expect(
      () => (input = jsonSchemaInput({ type: 'object', properties: { a: { type: 'no-such-type' } } })),
      'jsonSchemaInput: a broken server schema must not crash the agent (guided step 1)',
    ).not.toThrow();
    const parsed = input!.safeParse({ a: 1 });
    expect(parsed.success, 'jsonSchemaInput: nothing passes a schema that cannot be checked (guided step 2)').toBe(
      false,
    );
    expect(
      parsed.error!.issues[0]!.message,
      "jsonSchemaInput: say the schema is invalid, and give Ajv's reason (guided steps 1-2)",
    ).toMatch(/schema is invalid: .*type/);
  });

  test('keywords and formats Ajv does not know are ignored, as JSON Schema says (strict: false)', () => {
    const input = jsonSchemaInput({
      type: 'object',
      'x-ui-widget': 'textarea',
      properties: { to: { type: 'string', format: 'email' } },
      required: ['to'],
    });
    const parsed = input.safeParse({ to: 'ada at example' });
    expect(
      parsed.success,
      `jsonSchemaInput: strict: false, so an unknown keyword is not an error (${parsed.success ? '' : z.prettifyError(parsed.error)}) (guided step 1)`,
    ).toBe(true);
    expect(input.safeParse({}).success, 'jsonSchemaInput: the rest of the schema still counts').toBe(false);
  });

  test('a $schema key of another draft does not stop the schema from compiling', () => {
    const input = jsonSchemaInput({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { n: { type: 'number' } },
    });
    expect(
      input.safeParse({ n: 1 }).success,
      'jsonSchemaInput: compile the schema without its $schema key (guided step 1)',
    ).toBe(true);
    expect(input.safeParse({ n: 'one' }).success, 'jsonSchemaInput guided step 1').toBe(false);
  });
});

describe('toolResultText (src/mcp/adapter.ts)', () => {
  test('text blocks are joined with newlines', () => {
    expect(
      toolResultText({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      }),
      'toolResultText guided steps 1 and 3',
    ).toBe('one\ntwo');
  });

  test('images and audio are described with their type and size, never pasted as base64', () => {
    const png = Buffer.alloc(300, 7).toString('base64');
    const out = toolResultText({
      content: [
        { type: 'text', text: 'here:' },
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
      ],
    });
    expect(out, 'toolResultText: an image is described (guided step 1)').toBe(
      'here:\n[image: image/png, 300 bytes]\n[audio: audio/wav, 3 bytes]',
    );
    expect(out, 'toolResultText: the base64 data must not reach the model').not.toContain(png.slice(0, 20));
  });

  test('resources: text shown under its uri, blobs described, links named', () => {
    const out = toolResultText({
      content: [
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'alpha' } },
        {
          type: 'resource',
          resource: { uri: 'file:///b.bin', blob: Buffer.alloc(2048).toString('base64'), mimeType: 'application/zip' },
        },
        { type: 'resource_link', uri: 'file:///c.md', name: 'c.md' },
        { type: 'resource', resource: { uri: 'mem://d', blob: 'AAAA' } },
      ],
    });
    expect(out, 'toolResultText: every resource is shown or described (guided step 1)').toBe(
      '[resource file:///a.txt]\nalpha\n[resource file:///b.bin: application/zip, 2.0 kB]\n[resource link: c.md file:///c.md]\n[resource mem://d: binary, 3 bytes]',
    );
  });

  test('a block of a type the kit does not know is named, not dropped; a result without content is not an error', () => {
    expect(
      toolResultText({ content: [{ type: 'widget', id: 3 } as never, { type: 'text', text: 'ok' }] }),
      'toolResultText: anything else is `[<type> content]` (guided step 1)',
    ).toBe('[widget content]\nok');
    expect(
      toolResultText({ structuredContent: { n: 1 } } as never),
      'toolResultText: content may be missing (treat it as []) (guided step 1)',
    ).toBe('{"n":1}');
  });

  test('structuredContent is the text when there is no text block, and only then', () => {
    expect(
      toolResultText({ content: [], structuredContent: { temperature: 21, unit: 'C' } }),
      'toolResultText: JSON of structuredContent (guided step 2)',
    ).toBe('{"temperature":21,"unit":"C"}');
    expect(
      toolResultText({ content: [{ type: 'text', text: '21 C' }], structuredContent: { temperature: 21 } }),
      'toolResultText: with text, the text is enough (guided step 2)',
    ).toBe('21 C');
    expect(
      toolResultText({
        content: [{ type: 'image', data: 'AAAA', mimeType: 'image/gif' }],
        structuredContent: { n: 1 },
      }),
      'toolResultText: an image is not text (guided step 2)',
    ).toBe('[image: image/gif, 3 bytes]\n{"n":1}');
    expect(toolResultText({ content: [] }), 'toolResultText: nothing at all (guided step 3)').toBe('(no content)');
  });

  test('an error result throws its text, so it stays an error result', () => {
    expect(
      thrown(() => toolResultText({ content: [{ type: 'text', text: 'Access denied: /etc' }], isError: true })),
      'toolResultText guided step 4',
    ).toBe('Access denied: /etc');
    expect(
      toolResultText({ content: [{ type: 'text', text: 'fine' }], isError: false }),
      'toolResultText: isError false is a normal result (guided step 4)',
    ).toBe('fine');
  });
});
