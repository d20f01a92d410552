/** Small tools for the loop tests. Each records how it was called. */
import { z } from 'zod';
import { defineTool, ToolSet } from 'kit/tool';

export function loopTools() {
  const calls: Array<{ tool: string; input: unknown }> = [];
  const echo = defineTool({
    name: 'echo',
    description: 'Repeat the text back',
    input: z.object({ text: z.string(), times: z.number().int().default(1) }),
    execute: async (input) => {
      calls.push({ tool: 'echo', input });
      return input.text.repeat(input.times);
    },
  });
  const fail = defineTool({
    name: 'fail',
    description: 'Always fails',
    input: z.object({}),
    execute: async () => {
      calls.push({ tool: 'fail', input: {} });
      throw new Error('disk on fire');
    },
  });
  const slow = defineTool({
    name: 'slow',
    description: 'Answers after a delay',
    input: z.object({ ms: z.number(), text: z.string() }),
    execute: async ({ ms, text }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      calls.push({ tool: 'slow', input: { ms, text } });
      return text;
    },
  });
  return { tools: new ToolSet([echo, fail, slow]), calls };
}
