import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { CANCELLED_RESULT, executeToolCall } from 'kit/safe-call';
import type { ToolCall } from 'kit/messages';
import { defineTool, ToolSet, type ToolContext } from 'kit/tool';
import { settles } from '../helpers/assert.js';
import { loopTools } from './fixtures.js';

const call = (name: string, args: unknown, id = 'call_7'): ToolCall => ({
  type: 'tool_call',
  id,
  name,
  arguments: args,
});
const ctx = { cwd: process.cwd() };
/** A tool that records each context it gets and never settles, like a command that hangs and ignores the cancel. */
function hangingTool() {
  const contexts: ToolContext[] = [];
  const hang = defineTool({
    name: 'hang',
    description: 'Never finishes',
    input: z.object({}),
    execute: (_input, ctx) => {
      contexts.push(ctx);
      return new Promise<string>(() => {});
    },
  });
  return { tools: new ToolSet([hang]), contexts };
}

/** The promise's value, or 'still waiting' if it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const never =
  'executeToolCall must never throw: an unknown tool, bad arguments or a failing tool is an error result, not a throw';

describe('executeToolCall (src/safe-call.ts)', () => {
  test('runs the tool and pairs the result with the call id and tool name', async () => {
    const { tools } = loopTools();
    expect(await settles(executeToolCall(tools, call('echo', { text: 'hi' }), ctx), never)).toEqual({
      role: 'tool',
      toolCallId: 'call_7',
      toolName: 'echo',
      content: 'hi',
      isError: false,
    });
  });

  test('passes the parsed input to the tool, with defaults filled in', async () => {
    const { tools, calls } = loopTools();
    await settles(executeToolCall(tools, call('echo', { text: 'ab', times: 2 }), ctx), never);
    await settles(executeToolCall(tools, call('echo', { text: 'c' }), ctx), never);
    expect(
      calls.map((c) => c.input),
      'execute must get schema.safeParse(...).data, not the raw arguments',
    ).toEqual([
      { text: 'ab', times: 2 },
      { text: 'c', times: 1 },
    ]);
  });

  test('turns an unknown tool into an error result that names it and lists the real tools', async () => {
    const { tools } = loopTools();
    const result = await settles(executeToolCall(tools, call('delete_everything', {}), ctx), never);
    expect(result.isError, 'an unknown tool is an error result, not a throw').toBe(true);
    expect(result.toolCallId).toBe('call_7');
    expect(result.content).toContain('delete_everything');
    expect(result.content, 'list the available tools, comma-separated, so the model can pick a real one').toContain(
      'echo, fail, slow',
    );
  });

  test('turns arguments that fail the schema into an error result, without running the tool', async () => {
    const { tools, calls } = loopTools();
    const result = await settles(executeToolCall(tools, call('echo', { text: 42 }), ctx), never);
    expect(result.isError).toBe(true);
    expect(result.content, 'say which argument is wrong').toMatch(/text/);
    expect(calls, 'a tool must never run on unchecked input').toEqual([]);
  });

  test('turns arguments that are not an object into an error result', async () => {
    const { tools } = loopTools();
    const result = await settles(executeToolCall(tools, call('echo', '{"text": "unterminated'), ctx), never);
    expect(result.isError).toBe(true);
    expect(result.toolName).toBe('echo');
  });

  test('turns a throwing tool into an error result carrying its message', async () => {
    const { tools } = loopTools();
    const result = await settles(executeToolCall(tools, call('fail', {}), ctx), never);
    expect(result).toMatchObject({ toolCallId: 'call_7', toolName: 'fail', isError: true });
    expect(result.content).toContain('disk on fire');
  });

  test('handles a tool that throws something that is not an Error', async () => {
    const { tools } = loopTools();
    const odd = { ...tools.get('echo')!, execute: async () => Promise.reject('plain string') };
    tools.get = (name: string) => (name === 'odd' ? odd : undefined);
    const result = await settles(executeToolCall(tools, call('odd', { text: 'x' }), ctx), never);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('plain string');
  });

  test('stops waiting for a tool that never settles as soon as the signal aborts, and returns the cancelled result', async () => {
    const { tools, contexts } = hangingTool();
    const controller = new AbortController();
    const pending = executeToolCall(tools, call('hang', {}), { cwd: process.cwd(), signal: controller.signal });
    pending.catch(() => {}); // awaited below
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('user pressed Esc'));
    const result = await within(pending, 500);
    expect(
      result,
      'run the tool through untilAborted(ctx.signal, ...): after an abort, executeToolCall must stop waiting for a tool that never settles (guided step 3)',
    ).not.toBe('still waiting');
    expect(
      result,
      'when untilAborted gives ABORTED, the result is an error result holding CANCELLED_RESULT, paired with the call (guided step 3)',
    ).toEqual({
      role: 'tool',
      toolCallId: 'call_7',
      toolName: 'hang',
      content: CANCELLED_RESULT,
      isError: true,
    });
    expect(
      contexts[0]?.signal,
      'the tool still gets ctx (with its signal), so it can stop by itself (guided step 3)',
    ).toBe(controller.signal);
  });

  test('does not start a tool once the signal has aborted', async () => {
    const { tools, contexts } = hangingTool();
    const controller = new AbortController();
    controller.abort(new Error('cancelled before the call'));
    const result = await within(
      executeToolCall(tools, call('hang', {}), { cwd: process.cwd(), signal: controller.signal }),
      500,
    );
    expect(
      result,
      'an aborted signal gives the cancelled result at once (untilAborted does not start the work) (guided step 3)',
    ).toMatchObject({
      toolCallId: 'call_7',
      content: CANCELLED_RESULT,
      isError: true,
    });
    expect(contexts, 'a tool must not start after the run was cancelled (guided step 3)').toEqual([]);
  });

  test("with a signal that does not abort, the tool's own result and errors come back as usual", async () => {
    const { tools } = loopTools();
    const signal = new AbortController().signal;
    const ok = await settles(
      executeToolCall(tools, call('slow', { ms: 5, text: 'late but fine' }), { cwd: process.cwd(), signal }),
      never,
    );
    expect(
      ok,
      "a signal that never aborts changes nothing: the tool's text is the result (guided step 3)",
    ).toMatchObject({
      content: 'late but fine',
      isError: false,
    });
    const failed = await settles(executeToolCall(tools, call('fail', {}), { cwd: process.cwd(), signal }), never);
    expect(failed, "a throw is still an error result with the tool's message (guided step 3)").toMatchObject({
      isError: true,
    });
    expect(failed.content).toContain('disk on fire');
  });
});
