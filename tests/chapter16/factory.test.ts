/**
 * Chapter 16: the sandbox in the agent chapter 15's factory builds (src/sandbox/index.ts: sandboxFor, with your
 * sandboxPolicy, startSandbox, sandboxDecision and sandboxedBash). A command inside the sandbox runs without a
 * question; a sandbox that cannot start is said, and the agent asks as before.
 */
import { describe, expect, test } from 'vitest';
import { loadAgentSettings } from 'kit/capstone/agent-settings';
import { assistantText, assistantToolCalls } from 'kit/messages';
import { SANDBOXED_REASON, LEAVES_REASON } from 'kit/sandbox/decision';
import { sandboxFor } from 'kit/sandbox/index';
import { SandboxUnavailableError, UNAVAILABLE_NOTE } from 'kit/sandbox/start';
import type { PermissionRequest } from 'kit/permissions/gate';
import { build, resultText, runPrompt, workspace, writeFiles } from '../chapter15/factory-fixtures.js';
import { fakeRuntime } from './fixtures.js';

const bashCall = (id: string, command: string, extra: object = {}) =>
  assistantToolCalls([{ id, name: 'bash', arguments: { command, ...extra } }]);

/** A workspace whose person's settings turn the sandbox on, with `files` beside; the questions recorded. */
async function sandboxed(sandbox: object, files: Record<string, object> = {}, runtime = fakeRuntime()) {
  const { cwd, home } = workspace();
  writeFiles(home, { '.claude/settings.json': { sandbox } });
  writeFiles(cwd, files);
  const asked: PermissionRequest[] = [];
  const ask = async (request: PermissionRequest) => {
    asked.push(request);
    return 'allow_once' as const;
  };
  const settings = await loadAgentSettings(cwd, home);
  return { cwd, home, settings, ask, asked, runtime, sandbox: sandboxFor(runtime.runtime) };
}

describe('the sandbox in the built agent (src/sandbox/index.ts: sandboxFor)', () => {
  test('with the sandbox on and auto-allow, a command runs wrapped and nobody is asked', async () => {
    const setup = await sandboxed({ enabled: true, autoAllowBashIfSandboxed: true });
    const { built } = await build([bashCall('c1', 'echo hi'), assistantText('done')], setup);
    const events = await runPrompt(built, 'go');
    expect(setup.asked, 'sandboxDecision allowed it inside the sandbox: no question').toEqual([]);
    expect(resultText(built, 'c1'), 'sandboxedBash ran the wrapped command').toContain('inside\nhi');
    const permission = events.flatMap((event) => (event.type === 'tool_call_decided' ? [event] : []));
    expect(JSON.stringify(permission), 'the decision says why: SANDBOXED_REASON').toContain(SANDBOXED_REASON);
    expect(setup.runtime.names().slice(0, 2), 'startSandbox checked and started the runtime').toEqual([
      'missing',
      'start',
    ]);
    await built.close();
    expect(setup.runtime.names().at(-1), "the build's close stops the sandbox").toBe('stop');
  });

  test("chapter 8's file deny rules hold inside the sandbox: denied reads hidden, denied edits read-only", async () => {
    const setup = await sandboxed(
      { enabled: true, autoAllowBashIfSandboxed: true },
      {
        '.claude/settings.json': {
          permissions: { deny: ['Read(./.env)', 'Read(~/.config/tokens/**)', 'Edit(dist/**)'] },
        },
      },
    );
    await build([assistantText('done')], setup);
    const start = setup.runtime.steps.find((one) => one.step === 'start');
    const { filesystem } = start?.step === 'start' ? start.policy : { filesystem: { denyRead: [], denyWrite: [] } };
    expect(filesystem.denyRead, 'sandboxFor: Read deny rules become denyRead (a /** pattern names its folder)').toEqual(
      expect.arrayContaining([`${setup.cwd}/.env`, `${setup.home}/.config/tokens`]),
    );
    expect(filesystem.denyWrite, 'an Edit deny rule becomes denyWrite').toContain(`${setup.cwd}/dist`);
  });

  test('the sandbox cannot start: the person is told once, and the command is asked about as chapter 8 asks', async () => {
    const runtime = fakeRuntime({ missing: ['bubblewrap (bwrap) not installed'] });
    const setup = await sandboxed({ enabled: true, autoAllowBashIfSandboxed: true }, {}, runtime);
    const { built } = await build([bashCall('c1', 'echo hi'), assistantText('done')], setup);
    const notes = built.warnings.filter((line) => line.startsWith(UNAVAILABLE_NOTE));
    expect(notes, 'startSandbox: one note that the sandbox is not running').toHaveLength(1);
    expect(notes[0], 'with the reason').toContain('bubblewrap (bwrap) not installed');
    await runPrompt(built, 'go');
    expect(
      setup.asked.map((request) => request.call.name),
      'not available: willSandbox is false, chapter 8 asks',
    ).toEqual(['bash']);
    expect(resultText(built, 'c1'), 'and nothing was wrapped: there is no sandbox to run it in').not.toContain(
      'inside',
    );
    expect(runtime.names(), 'the runtime was never started').toEqual(['missing']);
  });

  test('failIfUnavailable: the agent is not built', async () => {
    const runtime = fakeRuntime({ missing: ['socat not installed'] });
    const setup = await sandboxed({ enabled: true, failIfUnavailable: true }, {}, runtime);
    const error = await build([assistantText('never')], setup).catch((caught: unknown) => caught);
    expect(error, 'startSandbox threw SandboxUnavailableError, and buildAgent passes it on').toBeInstanceOf(
      SandboxUnavailableError,
    );
  });

  test("a committed project file cannot widen the person's sandbox, and each thing it tried is a warning", async () => {
    const setup = await sandboxed(
      { enabled: true },
      {
        '.claude/settings.json': {
          sandbox: { autoAllowBashIfSandboxed: true, network: { allowedDomains: ['evil.example'] } },
        },
      },
    );
    const { built } = await build([bashCall('c1', 'echo hi'), assistantText('done')], {
      ...setup,
      trust: { trusted: true },
    });
    const widened = built.warnings.filter((line) => line.includes('may not widen the sandbox'));
    expect(widened, 'sandboxPolicy: two lines, the switch and the host').toHaveLength(2);
    await runPrompt(built, 'go');
    expect(
      setup.asked.map((request) => request.call.name),
      'auto-allow came from the project file only: asked',
    ).toEqual(['bash']);
    const start = setup.runtime.steps.find((one) => one.step === 'start');
    expect(
      start?.step === 'start' && start.policy.network.allowedDomains,
      'the host is not in the started policy',
    ).toEqual([]);
  });

  test('a command that asks to leave is asked about even when a rule allows it, with the reason', async () => {
    const setup = await sandboxed(
      { enabled: true, autoAllowBashIfSandboxed: true },
      { '.claude/settings.local.json': { permissions: { allow: ['Bash(npm test:*)'] } } },
    );
    const { built } = await build(
      [bashCall('c1', 'npm test', { dangerouslyDisableSandbox: true }), assistantText('done')],
      { ...setup, trust: { trusted: true } },
    );
    await runPrompt(built, 'go');
    expect(
      setup.asked.map((request) => request.reason),
      'the gate asked, with LEAVES_REASON (sandboxDecision)',
    ).toEqual([LEAVES_REASON]);
    expect(
      setup.runtime.names().includes('wrap'),
      'the person said yes: it ran outside, not wrapped (willSandbox is false for it)',
    ).toBe(false);
  });

  test('a sandbox that is off, or no sandbox key at all, changes nothing: chapter 4 tool, no runtime touched', async () => {
    const off = await sandboxed({ enabled: false, autoAllowBashIfSandboxed: true });
    const { built } = await build([bashCall('c1', 'echo hi'), assistantText('done')], off);
    await runPrompt(built, 'go');
    expect(off.runtime.names(), 'sandboxPolicy gave a policy that is off: nothing is started or checked').toEqual([]);
    expect(
      off.asked.map((request) => request.call.name),
      'and the command is asked about as chapter 8 asks',
    ).toEqual(['bash']);
    const { cwd, home } = workspace();
    const runtime = fakeRuntime();
    const plain = await build([assistantText('done')], { cwd, home, sandbox: sandboxFor(runtime.runtime) });
    expect(runtime.names(), 'sandboxFor: no sandbox key -> no sandbox').toEqual([]);
    const schema = JSON.stringify(plain.built.tools.get('bash')?.input);
    expect(schema.includes('dangerouslyDisableSandbox'), "chapter 4's bash tool, as it was").toBe(false);
  });
});
