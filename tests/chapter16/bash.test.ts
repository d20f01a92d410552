/**
 * Chapter 16: the bash tool inside the sandbox (src/sandbox/bash.ts: sandboxedBash). Chapter 4's tool runs the
 * command the runtime wrapped; what the sandbox refused comes back in the result, for the model to read.
 */
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { type Tool, toolDefinition } from 'kit/tool';
import { bashTool } from 'kit/tools/bash';
import { READ_ONLY_NOTE, sandboxedBash } from 'kit/sandbox/bash';
import { fakeRuntime, folders, running } from './fixtures.js';

/** A bash tool that runs nothing: it records the input it was given and answers `ran: <command>`. */
function recordingBash(fail?: Error) {
  const inputs: unknown[] = [];
  const tool: Tool = {
    name: 'bash',
    description: 'Run a command.',
    input: z.object({ command: z.string(), timeout_ms: z.number().optional() }),
    readOnly: false,
    async execute(input) {
      inputs.push(input);
      if (fail) throw fail;
      return `ran: ${(input as { command: string }).command}`;
    },
  };
  return { tool, inputs };
}

describe('sandboxedBash (src/sandbox/bash.ts)', () => {
  test('a sandboxed command runs through chapter 4 wrapped, its id the same from the wrap to the clean-up', async () => {
    const { root } = folders();
    const fake = fakeRuntime();
    const tool = sandboxedBash(bashTool, running(root), fake.runtime);
    const signal = new AbortController().signal;
    const result = await tool.execute({ command: 'echo hello' }, { cwd: root, signal });
    expect(result, 'sandboxedBash: chapter 4 ran what runtime.wrap gave (guided steps 3 and 4)').toContain(
      '--- stdout ---\ninside\nhello',
    );
    expect(
      fake.names(),
      'sandboxedBash: wrap, then the violations of the result, then afterCommand (guided steps 3-5)',
    ).toEqual(['wrap', 'violations', 'afterCommand']);
    const [wrap, violations, after] = fake.steps as unknown as [
      { command: string; id: string; signal?: AbortSignal },
      { id: string; output: string },
      { id: string },
    ];
    expect(wrap.command, 'the command as the model wrote it is what is wrapped (guided step 3)').toBe('echo hello');
    expect(wrap.signal, "the call's signal goes to the wrap (guided step 3)").toBe(signal);
    expect(wrap.id.length, 'an id from newCommandId (guided step 3)').toBeGreaterThanOrEqual(22);
    expect(violations.id, 'the violations are asked for under the same id (guided step 4)').toBe(wrap.id);
    expect(violations.output, "of chapter 4's whole result (guided step 4)").toBe(result);
    expect(after.id, 'afterCommand with the same id (guided step 5)').toBe(wrap.id);
  });

  test('each command has an id of its own, even when the text is the same', async () => {
    const { root } = folders();
    const fake = fakeRuntime();
    const tool = sandboxedBash(recordingBash().tool, running(root), fake.runtime);
    await tool.execute({ command: 'npm test' }, { cwd: root });
    await tool.execute({ command: 'npm test' }, { cwd: root });
    const ids = fake.steps.flatMap((one) => (one.step === 'wrap' ? [one.id] : []));
    expect(new Set(ids).size, 'sandboxedBash: a new id for every command (guided step 3)').toBe(2);
  });

  test('what the sandbox refused is appended for the model to read', async () => {
    const { root } = folders();
    const fake = fakeRuntime({ refused: true });
    const tool = sandboxedBash(recordingBash().tool, running(root), fake.runtime);
    const result = await tool.execute({ command: 'curl https://example.org' }, { cwd: root });
    const id = fake.steps.find((one) => one.step === 'wrap')!.id;
    expect(result, 'sandboxedBash: the result went through withViolations (guided step 4)').toBe(
      `ran: echo inside; curl https://example.org\n[violations of ${id}]`,
    );
  });

  test('a write the filesystem refused gets READ_ONLY_NOTE', async () => {
    const { root } = folders();
    const fake = fakeRuntime({ wrap: async (command) => command });
    const tool = sandboxedBash(bashTool, running(root), fake.runtime);
    const result = await tool.execute(
      { command: "echo 'bash: /etc/x: Read-only file system' >&2; exit 1" },
      { cwd: root },
    );
    expect(
      result.endsWith(`\n${READ_ONLY_NOTE}`),
      `sandboxedBash: withViolations adds READ_ONLY_NOTE (guided step 4):\n${result}`,
    ).toBe(true);
  });

  test('a command that fails inside chapter 4 (a timeout) keeps its output and the violations, and is cleaned up', async () => {
    const { root } = folders();
    const fake = fakeRuntime({ refused: true });
    const tool = sandboxedBash(
      recordingBash(new Error('Command timed out after 5 ms and was stopped.')).tool,
      running(root),
      fake.runtime,
    );
    const error = await tool.execute({ command: 'sleep 9' }, { cwd: root }).catch((caught: unknown) => caught);
    const id = fake.steps.find((one) => one.step === 'wrap')!.id;
    expect(error, 'sandboxedBash: an error of inner is thrown again (guided step 4)').toBeInstanceOf(Error);
    expect((error as Error).message, 'its message went through withViolations (guided step 4)').toBe(
      `Command timed out after 5 ms and was stopped.\n[violations of ${id}]`,
    );
    expect(fake.names().at(-1), 'sandboxedBash: afterCommand runs however the command ended (guided step 5)').toBe(
      'afterCommand',
    );
  });

  test('a wrap that fails runs nothing, and is cleaned up', async () => {
    const { root } = folders();
    const fake = fakeRuntime({
      wrap: async () => {
        throw new Error('the sandbox could not be set up for this command');
      },
    });
    const inner = recordingBash();
    const tool = sandboxedBash(inner.tool, running(root), fake.runtime);
    const error = await tool.execute({ command: 'ls' }, { cwd: root }).catch((caught: unknown) => caught);
    expect(inner.inputs, 'sandboxedBash: nothing runs unwrapped when the wrap fails (guided step 3)').toEqual([]);
    expect(String((error as Error | undefined)?.message), "sandboxedBash: the wrap's failure is the call's").toContain(
      'could not be set up',
    );
    expect(fake.names(), 'afterCommand runs after a failed wrap too (guided step 5)').toEqual(['wrap', 'afterCommand']);
  });

  test('a command that does not run sandboxed goes to the tool as it is, without dangerouslyDisableSandbox', async () => {
    const { root } = folders();
    const state = running(root, (policy) => void (policy.excludedCommands = ['docker']));
    const cases: [string, object, typeof state][] = [
      ['asked to leave', { command: 'npm test', dangerouslyDisableSandbox: true, timeout_ms: 5000 }, state],
      ['excluded', { command: 'docker ps' }, state],
      ['not available', { command: 'npm test' }, { ...state, available: false }],
    ];
    for (const [why, input, sandbox] of cases) {
      const fake = fakeRuntime();
      const inner = recordingBash();
      const tool = sandboxedBash(inner.tool, sandbox, fake.runtime);
      const result = await tool.execute(input as never, { cwd: root });
      const { dangerouslyDisableSandbox: _left, ...rest } = input as Record<string, unknown>;
      expect(fake.names(), `sandboxedBash: ${why} -> not wrapped (willSandbox, guided step 2)`).toEqual([]);
      expect(inner.inputs, `${why}: the input without dangerouslyDisableSandbox (guided steps 1 and 2)`).toEqual([
        rest,
      ]);
      expect(result, `${why}: the tool's own result`).toBe(`ran: ${rest.command}`);
    }
  });

  test('dangerouslyDisableSandbox: offered to the model under the same tool name, taken out even when false; the rest is passed on', async () => {
    const { root } = folders();
    const fake = fakeRuntime();
    const inner = recordingBash();
    const tool = sandboxedBash(inner.tool, running(root), fake.runtime);
    await tool.execute({ command: 'npm test', timeout_ms: 1234, dangerouslyDisableSandbox: false }, { cwd: root });
    expect(inner.inputs, 'sandboxedBash: inner gets { ...rest, command: wrapped } (guided steps 1 and 4)').toEqual([
      { command: 'echo inside; npm test', timeout_ms: 1234 },
    ]);
    const definition = toolDefinition(tool);
    expect(definition.name, 'the same name: the rules written for bash still apply').toBe('bash');
    const properties = (definition.inputSchema as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(properties).sort(), 'the model is offered dangerouslyDisableSandbox').toEqual([
      'command',
      'dangerouslyDisableSandbox',
      'timeout_ms',
    ]);
    expect(tool.input.safeParse({ command: 'ls', dangerouslyDisableSandbox: 'yes' }).success, 'a boolean only').toBe(
      false,
    );
  });
});
