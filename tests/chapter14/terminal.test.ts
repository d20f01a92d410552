import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, test } from 'vitest';
import { assistantText, assistantToolCalls, type Message } from 'kit/messages';
import type { ClientTerminal, ClientTerminals } from 'kit/acp/client-terminal';
import { BASH_OUTPUT_LIMIT } from 'kit/tools/bash';
import { rejection, settles } from '../helpers/assert.js';
import { within } from '../helpers/wait.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { editor, testFactory, until, type TerminalScript } from './fixtures.js';

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const e of open.splice(0)) e.close();
});
const bashRound = (command: string, extra: Record<string, unknown> = {}) => [
  assistantToolCalls([{ id: 'c1', name: 'bash', arguments: { command, ...extra } }]),
  assistantText('Done.'),
];

function connect(script: ReturnType<typeof bashRound>, terminal: TerminalScript | undefined) {
  const factory = testFactory({ script });
  const e = editor({ openSession: factory.openSession }, terminal ? { terminal: () => terminal } : {});
  open.push(e);
  return { e, factory };
}
/** The result the model got for call c1. */
const resultOf = (history: readonly Message[]) =>
  history.find((message) => message.role === 'tool' && message.toolCallId === 'c1') as
    | Extract<Message, { role: 'tool' }>
    | undefined;
const historyOf = (e: ReturnType<typeof connect>['e'], sessionId: string) =>
  e.server.sessions.get(sessionId)!.handle.history;

/** ClientTerminals whose every create gives terminal t1 made of `parts` (kill and release do nothing unless given). */
const oneTerminal = (
  parts: Pick<ClientTerminal, 'waitForExit' | 'currentOutput'> & Partial<ClientTerminal>,
): ClientTerminals => ({
  create: async () => ({ id: 't1', kill: async () => {}, release: async () => {}, ...parts }),
});

describe('clientBashTool.execute (src/acp/client-terminal.ts)', () => {
  test("the command runs in the editor's terminal, shown in the call's card, and the terminal is released last", async () => {
    const { e } = connect(bashRound('npm test'), { output: 'ok 3 tests\n', exitCode: 0 });
    const { root } = tempWorkspace();
    const { sessionId } = await e.open(root);
    await e.prompt(sessionId, 'run the tests');
    expect(
      e.terminalLog,
      'clientBashTool.execute: create (bash -c, the workspace, the output limit), wait, output, then release (guided steps 2-5)',
    ).toEqual([
      `create t1 bash -c npm test in ${root} limit ${BASH_OUTPUT_LIMIT}`,
      'wait t1',
      'output t1',
      'release t1',
    ]);
    const card = e
      .of(sessionId)
      .find(
        (update) =>
          update.sessionUpdate === 'tool_call_update' &&
          (update.content ?? []).some((item) => item.type === 'terminal'),
      );
    expect(
      card,
      "clientBashTool.execute: callId: ctx.callId, so the terminal is shown in call c1's card (guided step 2)",
    ).toMatchObject({ toolCallId: 'c1', content: [{ type: 'terminal', terminalId: 't1' }] });
    expect(
      resultOf(historyOf(e, sessionId)),
      'clientBashTool.execute: exit code, then the output (terminalText) (guided step 6)',
    ).toMatchObject({ isError: false, content: 'exit code: 0\n--- output ---\nok 3 tests' });
  });

  test('a failing command is a normal result, and its terminal is released', async () => {
    const { e } = connect(bashRound('false'), { output: 'boom\n', exitCode: 1 });
    const { sessionId } = await e.open(tempWorkspace().root);
    await e.prompt(sessionId, 'go');
    expect(
      resultOf(historyOf(e, sessionId)),
      'clientBashTool.execute: a non-zero exit code is a result, not an error (guided step 6)',
    ).toMatchObject({ isError: false, content: 'exit code: 1\n--- output ---\nboom' });
    expect(e.openTerminals(), 'clientBashTool.execute: released (guided step 3)').toEqual([]);
  });

  test('when the editor fails to give the output, the call fails and the terminal is still released', async () => {
    const { e } = connect(bashRound('ls'), { output: 'x', exitCode: 0, failOn: 'output' });
    const { sessionId } = await e.open(tempWorkspace().root);
    await e.prompt(sessionId, 'go');
    expect(
      resultOf(historyOf(e, sessionId))?.isError,
      'clientBashTool.execute: a request that fails fails the call',
    ).toBe(true);
    expect(
      e.terminalLog.at(-1),
      'clientBashTool.execute: release in a finally: on the error path too (guided step 3)',
    ).toBe('release t1');
    expect(e.openTerminals(), 'clientBashTool.execute: no terminal is left with the editor (guided step 3)').toEqual(
      [],
    );
  });

  test('a command that outlives its time limit is killed, read, released, and the call says it timed out', async () => {
    const { e } = connect(bashRound('sleep 1000', { timeout_ms: 20 }), { output: 'started\n', never: true });
    const { sessionId } = await e.open(tempWorkspace().root);
    await e.prompt(sessionId, 'go');
    expect(
      e.terminalLog,
      'clientBashTool.execute: stopped by the time limit: kill, then read the output, then release (guided step 4)',
    ).toEqual([expect.stringMatching(/^create t1/), 'wait t1', 'kill t1', 'output t1', 'release t1']);
    const result = resultOf(historyOf(e, sessionId));
    expect(result?.isError, 'clientBashTool.execute: a timeout is an error result (guided step 6)').toBe(true);
    expect(
      result?.content,
      'clientBashTool.execute: it says it timed out after the limit, with the output so far (guided step 6)',
    ).toMatch(/timed out after 20 ms[\s\S]*started/);
  });

  test('cancel while the command runs: killed and released, the prompt answers cancelled', async () => {
    const { e } = connect(bashRound('npm run watch'), { output: 'watching\n', never: true });
    const { sessionId } = await e.open(tempWorkspace().root);
    const running = e.prompt(sessionId, 'go');
    await until(() => e.terminalLog.includes('wait t1'), 'the command should be running in the terminal');
    await e.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    const answer = await within(running, 'clientBashTool.execute: a cancel must stop the wait (guided step 4)');
    expect(answer.stopReason, 'the prompt answers cancelled').toBe('cancelled');
    expect(e.terminalLog.slice(1), 'clientBashTool.execute: aborted: kill, then release (guided steps 3-4)').toEqual(
      expect.arrayContaining(['kill t1', 'release t1']),
    );
    expect(
      e.terminalLog.indexOf('kill t1'),
      'clientBashTool.execute: kill before release (guided step 4)',
    ).toBeLessThan(e.terminalLog.indexOf('release t1'));
    expect(e.openTerminals(), 'clientBashTool.execute: no terminal is left with the editor (guided step 3)').toEqual(
      [],
    );
  });

  test("output beyond the cap is cut for the model even when the editor sends it all, and the editor's own cut is said", async () => {
    const { e } = connect(bashRound('yes'), { output: 'y\n'.repeat(BASH_OUTPUT_LIMIT), truncated: true, exitCode: 0 });
    const { sessionId } = await e.open(tempWorkspace().root);
    await e.prompt(sessionId, 'go');
    const content = resultOf(historyOf(e, sessionId))!.content;
    expect(
      content.length,
      'clientBashTool.execute: terminalText caps what the model reads (guided step 5)',
    ).toBeLessThan(BASH_OUTPUT_LIMIT + 500);
    expect(content, 'terminalText: the middle is cut, and the note says the terminal kept only the end').toMatch(
      /characters cut[\s\S]*the terminal kept only the last/,
    );
  });

  test('without the terminal capability, bash runs in a shell of its own: the editor is asked for nothing', async () => {
    const { e } = connect(bashRound('echo hi'), undefined);
    const { sessionId } = await e.open(tempWorkspace().root);
    await settles(e.prompt(sessionId, 'go'), 'the prompt must answer');
    expect(e.terminalLog, 'setupFor: no terminal capability, no terminal requests').toEqual([]);
    expect(resultOf(historyOf(e, sessionId))?.content, "chapter 4's bash ran the command").toMatch(
      /^exit code: 0\n--- stdout ---\nhi/,
    );
  });

  test('a cancel while the command runs is reported as aborted (not as a timeout), with the output so far', async () => {
    const { clientBashTool } = await import('kit/acp/client-terminal');
    const log: string[] = [];
    const controller = new AbortController();
    let killed!: () => void;
    const exit = new Promise<void>((resolve) => (killed = resolve));
    const tool = clientBashTool(
      oneTerminal({
        // The command runs until it is killed; the run is cancelled while the tool waits for it.
        waitForExit: async () => (
          log.push('wait'),
          setImmediate(() => controller.abort(new Error('cancelled'))),
          await exit,
          { exitCode: null, signal: 'SIGKILL' }
        ),
        kill: async () => void (log.push('kill'), killed()),
        currentOutput: async () => (log.push('output'), { output: 'watching\n', truncated: false }),
        release: async () => void log.push('release'),
      }),
    );
    const error = (await rejection(
      tool.execute({ command: 'npm run watch' }, { cwd: '/w', callId: 'c1', signal: controller.signal }),
      'clientBashTool.execute: a cancelled command must throw (guided step 6)',
    )) as Error;
    expect(
      error.message,
      'clientBashTool.execute: stopped by the signal, not the time limit: `Command aborted. Output so far:\n<text>` (guided step 6)',
    ).toBe('Command aborted. Output so far:\n--- output ---\nwatching');
    expect(log, 'clientBashTool.execute: aborted: kill, read the output, then release (guided steps 3-4)').toEqual([
      'wait',
      'kill',
      'output',
      'release',
    ]);
  });

  test('a context without a signal (ToolContext.signal is optional) runs the command', async () => {
    const { clientBashTool } = await import('kit/acp/client-terminal');
    const tool = clientBashTool(
      oneTerminal({
        waitForExit: async () => ({ exitCode: 0, signal: null }),
        currentOutput: async () => ({ output: 'hi\n', truncated: false }),
      }),
    );
    const output = await settles(
      tool.execute({ command: 'echo hi' }, { cwd: '/w', callId: 'c1' }),
      'clientBashTool.execute: no signal means nothing can cancel the run, so the command must run (check ctx.signal?.aborted) (guided step 1)',
    );
    expect(output, 'clientBashTool.execute: exit line, then the output (guided step 6)').toBe(
      'exit code: 0\n--- output ---\nhi',
    );
  });

  test('a call cancelled before it starts asks the editor for nothing', async () => {
    const { clientBashTool } = await import('kit/acp/client-terminal');
    const asked: string[] = [];
    const tool = clientBashTool({
      create: async () => (asked.push('create'), Promise.reject(new Error('not expected'))),
    });
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const error = await tool.execute({ command: 'ls' }, { cwd: '/w', signal: controller.signal }).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error?.message, 'clientBashTool.execute: an Error saying the command was not run (guided step 1)').toMatch(
      /not run/,
    );
    expect(asked, 'clientBashTool.execute: no terminal is created for a cancelled run (guided step 1)').toEqual([]);
  });
});
