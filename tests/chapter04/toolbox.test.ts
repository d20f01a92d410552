import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SimpleAgent } from 'kit/simple-agent';
import { assistantText, assistantToolCalls, type ToolResultMessage } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { builtinTools, grepLimits } from 'kit/tools/index';
import { TEST_TIMEOUT_MS } from '../helpers/limits.js';
import { requestOn, shape } from '../helpers/transcript.js';
import { tempWorkspace } from '../helpers/workspace.js';

const call = (id: string, name: string, args: Record<string, unknown>) =>
  assistantToolCalls([{ id, name, arguments: args }]);

/** The tool results the agent sent back on its last request, by call id. */
function resultsSent(provider: MockProvider): Map<string, ToolResultMessage> {
  const messages = provider.requests.at(-1)?.messages ?? [];
  return new Map(messages.flatMap((m) => (m.role === 'tool' ? [[m.toolCallId, m] as const] : [])));
}

// grep's time limit is real time: on a loaded machine a correct search may reach the default; the test of the limit
// sets its own.
const defaultTimeMs = grepLimits.timeMs;
beforeEach(() => {
  grepLimits.timeMs = 10 * TEST_TIMEOUT_MS;
});
afterEach(() => {
  grepLimits.timeMs = defaultTimeMs;
});

describe('builtinTools (src/tools/index.ts)', () => {
  test('offers all six tools to the model, each input field described', async () => {
    const { root } = tempWorkspace({ 'src/a.ts': 'export const a = 1;\n' });
    const provider = new MockProvider([call('g1', 'glob', { pattern: '**/*.ts' }), assistantText('found it')]);
    await new SimpleAgent({ provider, tools: builtinTools(), cwd: root }).run('where is the code?');
    const offered = requestOn(provider, 1).tools ?? [];
    expect(offered.map((t) => t.name).sort(), 'add write, edit, bash, glob and grep to builtinTools()').toEqual([
      'bash',
      'edit',
      'glob',
      'grep',
      'read',
      'write',
    ]);
    for (const tool of offered) {
      const properties = tool.inputSchema.properties as Record<string, { description?: string }>;
      for (const [field, schema] of Object.entries(properties)) {
        expect(schema.description, `${tool.name}.${field} needs .describe(...): the model reads it`).toBeTruthy();
      }
    }
    expect(resultsSent(provider).get('g1')?.content).toBe('src/a.ts');
  });

  test('the model can find, change, check and search a file with them', async () => {
    const { root } = tempWorkspace({ 'src/greet.ts': "export const greet = () => 'hello';\n" });
    const provider = new MockProvider([
      call('c1', 'glob', { pattern: 'src/*.ts' }),
      call('c2', 'edit', { path: 'src/greet.ts', old_string: "'hello'", new_string: "'hi'" }),
      call('c3', 'write', { path: 'src/notes.md', content: 'greet says hi\n' }),
      call('c4', 'grep', { pattern: 'hi', path: 'src' }),
      call('c5', 'bash', { command: 'cat src/greet.ts; exit 1' }),
      assistantText('done'),
    ]);
    expect(await new SimpleAgent({ provider, tools: builtinTools(), cwd: root }).run('say hi instead')).toBe('done');
    expect(
      shape(requestOn(provider, 6).messages).filter((line) => line.startsWith('tool')),
      'no tool may fail in this script',
    ).toEqual(['tool glob#c1', 'tool edit#c2', 'tool write#c3', 'tool grep#c4', 'tool bash#c5']);
    const results = resultsSent(provider);
    expect(results.get('c2')?.content).toBe('Edited src/greet.ts: replaced 1 occurrence');
    expect(results.get('c4')?.content).toBe(
      "src/greet.ts:1: export const greet = () => 'hi';\nsrc/notes.md:1: greet says hi",
    );
    expect(results.get('c5')?.content, 'a non-zero exit is a normal result, with the code and the output').toBe(
      "exit code: 1\n--- stdout ---\nexport const greet = () => 'hi';\n--- stderr ---\n(empty)",
    );
    expect(readFileSync(path.join(root, 'src/greet.ts'), 'utf8')).toBe("export const greet = () => 'hi';\n");
  });

  test('a refused path becomes an error result the model can read, and the run goes on', async () => {
    const { root, outside } = tempWorkspace();
    const provider = new MockProvider([
      call('c1', 'write', { path: '../outside/secret.txt', content: 'pwned' }),
      call('c2', 'edit', { path: 'nowhere.txt', old_string: 'a', new_string: 'b' }),
      assistantText('I will stay inside'),
    ]);
    expect(await new SimpleAgent({ provider, tools: builtinTools(), cwd: root }).run('go')).toBe('I will stay inside');
    const results = resultsSent(provider);
    expect(results.get('c1')?.isError, 'the tool threw, so the result is an error').toBe(true);
    expect(results.get('c1')?.content).toMatch(/outside the workspace/);
    expect(results.get('c2')?.content).toBe('Error: File not found: nowhere.txt');
    expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
    expect(requestOn(provider, 3).messages).toBeValidHistory('after two refused tool calls');
  });

  test('a regex that backtracks and a pattern that leaves the folder come back as errors the model can act on', async () => {
    const { root } = tempWorkspace({ 'a.txt': `${'a'.repeat(28)}!\n` });
    const saved = grepLimits.timeMs;
    grepLimits.timeMs = 150;
    try {
      const provider = new MockProvider([
        call('c1', 'grep', { pattern: '^(a+)+$' }),
        call('c2', 'glob', { pattern: '../**/*' }),
        assistantText('I will use simpler patterns'),
      ]);
      expect(await new SimpleAgent({ provider, tools: builtinTools(), cwd: root }).run('search')).toBe(
        'I will use simpler patterns',
      );
      const results = resultsSent(provider);
      expect(results.get('c1')?.isError, 'grep: the RegexTimeoutError becomes an error result (guided step 5)').toBe(
        true,
      );
      expect(results.get('c1')?.content, 'the model reads why, and what to do instead').toMatch(
        /took longer than 150 ms.*[Ss]implify/s,
      );
      expect(results.get('c2')?.isError, 'glob: the pattern is refused (guided step 2)').toBe(true);
      expect(requestOn(provider, 3).messages).toBeValidHistory('after a grep that timed out and a refused glob');
    } finally {
      grepLimits.timeMs = saved;
    }
  });
});
