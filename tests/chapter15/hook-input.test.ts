/**
 * Chapter 15: what a hook written for Claude Code reads on stdin (src/capstone/command-hooks.ts). Claude Code sends
 * every hook `transcript_path` and `permission_mode`; its file tools name the file `file_path` (absolute), and its
 * Bash result has `stdout` and `stderr`. A script that reads those must find them in the kit's input too.
 */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { runHook, runPostToolUse, runPreToolUse } from 'kit/capstone/command-hooks';
import { toolResult, type ToolCall } from 'kit/messages';
import { cmd, fakeRunner, group, hookOptions, never } from './hook-fixtures.js';

const ROOT = '/work/app';
const writeCall: ToolCall = {
  type: 'tool_call',
  id: 'w1',
  name: 'write',
  arguments: { path: 'src/a.ts', content: 'export {};\n' },
};
const bashCall: ToolCall = { type: 'tool_call', id: 'b1', name: 'bash', arguments: { command: 'npm test' } };

describe('runHook (src/capstone/command-hooks.ts): the common input', () => {
  test('every hook gets transcript_path and the permission mode at the time it runs', async () => {
    const { run, calls } = fakeRunner();
    let mode = 'default';
    const { options } = hookOptions(ROOT, {
      run,
      transcriptPath: '/home/me/.coding-agent/sessions/app/s1.jsonl',
      permissionMode: () => mode,
    });
    await runHook('UserPromptSubmit', cmd('true'), { prompt: 'hi' }, options, never());
    mode = 'plan';
    await runHook('Stop', cmd('true'), { stop_hook_active: false }, options, never());
    expect(
      calls[0]?.input,
      'runHook: transcript_path (the session file) and permission_mode come after session_id, as in Claude Code (guided step 2)',
    ).toEqual({
      session_id: 'session-15',
      transcript_path: '/home/me/.coding-agent/sessions/app/s1.jsonl',
      cwd: ROOT,
      permission_mode: 'default',
      hook_event_name: 'UserPromptSubmit',
      prompt: 'hi',
    });
    expect(
      calls[1]?.input.permission_mode,
      'runHook: call options.permissionMode() for each hook: the mode changed to plan in between (guided step 2)',
    ).toBe('plan');
  });

  test('without a saved session or a mode to read, the input has neither field', async () => {
    const { run, calls } = fakeRunner();
    const { options } = hookOptions(ROOT, { run });
    await runHook('Stop', cmd('true'), {}, options, never());
    expect(Object.keys(calls[0]?.input ?? {}), 'runHook: only the options given (guided step 2)').toEqual([
      'session_id',
      'cwd',
      'hook_event_name',
    ]);
  });
});

describe('runPreToolUse (src/capstone/command-hooks.ts): tool_input as Claude Code names it', () => {
  test("a write's tool_input has Claude Code's absolute file_path beside the kit's path", async () => {
    const { run, calls } = fakeRunner();
    const { options } = hookOptions(ROOT, { run });
    await runPreToolUse([group('Write', cmd('check-path'))], writeCall, options, never());
    expect(
      calls[0]?.input.tool_input,
      'runPreToolUse: tool_input is hookToolInput(call.name, args, options.cwd): a script reads .tool_input.file_path (guided step 2)',
    ).toEqual({ path: 'src/a.ts', file_path: path.join(ROOT, 'src/a.ts'), content: 'export {};\n' });
  });

  test('an updatedInput that moves file_path moves the write; one that keeps it leaves path alone', async () => {
    const moved = fakeRunner({
      stdout: JSON.stringify({
        hookSpecificOutput: {
          permissionDecision: 'allow',
          updatedInput: { file_path: '/work/app/src/b.ts', content: 'export const b = 1;\n' },
        },
      }),
    });
    const decision = await runPreToolUse(
      [group('Write', cmd('redirect'))],
      writeCall,
      hookOptions(ROOT, { run: moved.run }).options,
      never(),
    );
    expect(
      decision,
      "runPreToolUse: the updatedInput goes through kitToolInput: its file_path becomes the kit's path (guided step 4)",
    ).toEqual({ type: 'change', arguments: { path: '/work/app/src/b.ts', content: 'export const b = 1;\n' } });

    const kept = fakeRunner({
      stdout: JSON.stringify({
        hookSpecificOutput: {
          updatedInput: { path: 'src/a.ts', file_path: path.join(ROOT, 'src/a.ts'), content: 'changed\n' },
        },
      }),
    });
    const second = await runPreToolUse(
      [group('Write', cmd('rewrite'))],
      writeCall,
      hookOptions(ROOT, { run: kept.run }).options,
      never(),
    );
    expect(second, 'runPreToolUse: a file_path sent back unchanged is dropped, the path kept (guided step 4)').toEqual({
      type: 'change',
      arguments: { path: 'src/a.ts', content: 'changed\n' },
    });
  });
});

describe('runPostToolUse (src/capstone/command-hooks.ts): tool_response as Claude Code shapes it', () => {
  test("a bash result gives the hook Claude Code's stdout and stderr beside the kit's content", async () => {
    const { run, calls } = fakeRunner();
    const { options } = hookOptions(ROOT, { run });
    const content = 'exit code: 1\n--- stdout ---\n2 passed\n1 failed\n--- stderr ---\n(empty)';
    await runPostToolUse([group('Bash', cmd('log'))], bashCall, toolResult(bashCall, content), options, never());
    expect(
      calls[0]?.input.tool_response,
      'runPostToolUse: tool_response is hookToolResponse(call.name, result): .tool_response.stdout is the output (guided step 1)',
    ).toEqual({ content, isError: false, stdout: '2 passed\n1 failed', stderr: '', interrupted: false });
    expect(calls[0]?.input.tool_input, 'runPostToolUse: the input as PreToolUse sends it (guided step 1)').toEqual({
      command: 'npm test',
    });
  });

  test("a write's PostToolUse input names the file as Claude Code does", async () => {
    const { run, calls } = fakeRunner();
    const { options } = hookOptions(ROOT, { run });
    await runPostToolUse(
      [group('Write|Edit', cmd('format'))],
      writeCall,
      toolResult(writeCall, 'wrote src/a.ts'),
      options,
      never(),
    );
    expect(
      (calls[0]?.input.tool_input as { file_path?: string } | undefined)?.file_path,
      'runPostToolUse: tool_input is hookToolInput(...): a formatter hook reads .tool_input.file_path (guided step 1)',
    ).toBe(path.join(ROOT, 'src/a.ts'));
    expect(
      calls[0]?.input.tool_response,
      'runPostToolUse: a result that is not bash is as it was (guided step 1)',
    ).toEqual({
      content: 'wrote src/a.ts',
      isError: false,
    });
  });
});
