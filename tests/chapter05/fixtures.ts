/**
 * Shared material for the chapter 5 tests: a conversation with two tool rounds, answers shaped like the real APIs,
 * and one-line views of what was sent, so that a failing test shows which message is wrong instead of a wall of JSON.
 */
import type { Message } from 'kit/messages';
import type { ToolDefinition } from 'kit/provider';

export const ANTHROPIC_URL = 'https://api.anthropic.com/v1/messages';
export const OPENAI_URL = 'https://api.openai.com/v1/chat/completions';

/** Keys that look real enough to be found if they leak into an error message. */
export const ANTHROPIC_KEY = 'sk-ant-api03-TESTKEY-0123456789abcdef';
export const OPENAI_KEY = 'sk-proj-TESTKEY-0123456789abcdef';

export const anthropicEnv = { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_MODEL: 'claude-test-model' };
export const openaiEnv = { OPENAI_API_KEY: OPENAI_KEY, OPENAI_MODEL: 'gpt-test-model' };

/**
 * A user prompt; a turn with thinking, text and two parallel calls; their two results (the second an error);
 * a turn with one more call; its result.
 */
export const history: Message[] = [
  { role: 'user', content: 'Fix the bug in a.ts' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Read both files first.', signature: 'sig-abc' },
      { type: 'text', text: 'Reading both files.' },
      { type: 'tool_call', id: 'toolu_A', name: 'read', arguments: { path: 'a.ts' } },
      { type: 'tool_call', id: 'toolu_B', name: 'read', arguments: { path: 'b.ts', offset: 2 } },
    ],
    stopReason: 'tool_use',
  },
  { role: 'tool', toolCallId: 'toolu_A', toolName: 'read', content: 'export const a = 1;', isError: false },
  { role: 'tool', toolCallId: 'toolu_B', toolName: 'read', content: 'Error: ENOENT: b.ts', isError: true },
  {
    role: 'assistant',
    content: [{ type: 'tool_call', id: 'toolu_C', name: 'edit', arguments: { path: 'a.ts', old: '1', new: '2' } }],
    stopReason: 'tool_use',
  },
  { role: 'tool', toolCallId: 'toolu_C', toolName: 'edit', content: 'Edited a.ts', isError: false },
];

export const tools: ToolDefinition[] = [
  {
    name: 'read',
    description: 'Read a file',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'edit',
    description: 'Replace text in a file',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, old: { type: 'string' }, new: { type: 'string' } },
    },
  },
];

/** A Messages API response, as api.anthropic.com sends it. */
export function anthropicResponse(
  content: unknown[],
  stop_reason = 'end_turn',
  usage: Record<string, number> = { input_tokens: 25, output_tokens: 12 },
) {
  return {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    type: 'message',
    role: 'assistant',
    model: 'claude-test-model',
    content,
    stop_reason,
    stop_sequence: null,
    usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard', ...usage },
  };
}

/** A Chat Completions response, as api.openai.com sends it. */
export function openaiResponse(
  message: { content?: string | null; tool_calls?: unknown[]; [key: string]: unknown },
  finish_reason = 'stop',
  usage: Record<string, unknown> = { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
) {
  return {
    id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
    object: 'chat.completion',
    created: 1741570283,
    model: 'gpt-test-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null, annotations: [], ...message },
        logprobs: null,
        finish_reason,
      },
    ],
    usage,
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
  };
}

type Block = { type: string; [key: string]: any };

/** Anthropic messages, one line each: `user "text"`, `assistant text + tool_use read#toolu_A`, `user tool_result#toolu_A`. */
export function anthropicShape(
  messages: ReadonlyArray<{ role: string; content: string | readonly Block[] }>,
): string[] {
  return messages.map((message) => {
    if (typeof message.content === 'string') return `${message.role} ${JSON.stringify(message.content)}`;
    const parts = message.content.map((block) => {
      if (block.type === 'tool_use') return `tool_use ${block.name}#${block.id}`;
      if (block.type === 'tool_result') return `tool_result#${block.tool_use_id}${block.is_error ? ' error' : ''}`;
      return block.type;
    });
    return `${message.role} ${parts.join(' + ') || '(empty)'}`;
  });
}

/** Chat Completions messages, one line each: `system`, `assistant "text" + call read#call_1`, `tool#call_1`. */
export function openaiShape(messages: ReadonlyArray<{ role: string; [key: string]: any }>): string[] {
  return messages.map((message) => {
    if (message.role === 'tool') return `tool#${message.tool_call_id}`;
    const calls = (message.tool_calls ?? []).map((call: any) => `call ${call.function?.name}#${call.id}`);
    const text = typeof message.content === 'string' && message.content !== '' ? [JSON.stringify(message.content)] : [];
    return [message.role, [...text, ...calls].join(' + ')].filter(Boolean).join(' ');
  });
}
