import { describe, expect, test } from 'vitest';
import { executeToolCall } from 'kit/execute-tool';
import type { ToolCall } from 'kit/messages';
import { settles } from '../helpers/assert.js';
import { loopTools } from './fixtures.js';

const call = (name: string, args: unknown, id = 'call_7'): ToolCall => ({ type: 'tool_call', id, name, arguments: args });
const ctx = { cwd: process.cwd() };
const never = 'executeToolCall must never throw: an unknown tool, bad arguments or a failing tool is an error result, not a throw';

describe('executeToolCall (src/execute-tool.ts)', () => {
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
    expect(calls.map((c) => c.input), 'execute must get schema.safeParse(...).data, not the raw arguments').toEqual([
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
    expect(result.content, 'list the available tools, comma-separated, so the model can pick a real one').toContain('echo, fail, slow');
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
});
