import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { clientReadTool, clientWriteTool, type ClientFiles } from 'kit/acp/client-files';
import { askThroughClient } from 'kit/acp/permission';
import { promptText } from 'kit/acp/prompt';
import { mcpServersFromAcp, systemPromptFromMeta } from 'kit/acp/session-setup';
import { rejection } from '../helpers/assert.js';
import { tempWorkspace } from '../helpers/workspace.js';

const fails = (run: () => unknown, message: string) => rejection(Promise.resolve().then(run), message);

describe('promptText (src/acp/prompt.ts)', () => {
  test('text, a file mention and an embedded file become one message, in order, each attachment marked', () => {
    const file = path.resolve('/work/project/src/app.ts');
    const text = promptText([
      { type: 'text', text: 'Why does this fail?' },
      { type: 'resource_link', name: 'app.ts', uri: pathToFileURL(file).href },
      { type: 'resource', resource: { uri: pathToFileURL(file).href, text: 'export const x = 1;' } },
      { type: 'text', text: '' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'text', text: 'Be brief.' },
    ]);
    expect(
      text,
      'promptText: the pieces in order, joined by a blank line, empty ones (and images, which promptImages takes) left out (guided steps 1-2)',
    ).toBe(
      `Why does this fail?\n\n[@app.ts](${pathToFileURL(file).href})\n\n<context ref="${file}">\nexport const x = 1;\n</context>\n\nBe brief.`,
    );
    expect(
      promptText([{ type: 'resource', resource: { uri: 'zed://untitled-1', text: 'draft' } }]),
      'promptText: a URI that is not a file stays as it is (guided step 1)',
    ).toBe('<context ref="zed://untitled-1">\ndraft\n</context>');
  });

  test('audio, binary resources and empty prompts (an image alone too) are refused as invalid params that say why', async () => {
    const cases: Array<[unknown[], RegExp]> = [
      [
        [
          { type: 'text', text: 'look' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        ],
        /audio/,
      ],
      [[{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], /empty/],
      [[{ type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAAA' } }], /resource.*blob/],
      [[], /empty/],
      [[{ type: 'text', text: '   ' }], /empty/],
    ];
    for (const [blocks, words] of cases) {
      const error = await fails(
        () => promptText(blocks as never),
        `promptText: ${JSON.stringify(blocks)} must be refused`,
      );
      expect(
        error,
        `promptText: ${JSON.stringify(blocks).slice(0, 60)} → RequestError.invalidParams (-32602) (guided steps 1 and 3)`,
      ).toMatchObject({ code: -32602 });
      expect(
        (error as Error).message,
        'promptText: the message names the block type, or says the prompt is empty',
      ).toMatch(words);
    }
  });
});

describe('mcpServersFromAcp (src/acp/session-setup.ts)', () => {
  test("the editor's servers become chapter 11's configuration, lists made records", () => {
    const servers = mcpServersFromAcp([
      {
        name: 'everything',
        command: 'node',
        args: ['server.js', 'stdio'],
        env: [
          { name: 'DEBUG', value: '1' },
          { name: 'TOKEN', value: 'x' },
        ],
      },
      {
        type: 'http',
        name: 'docs',
        url: 'http://127.0.0.1:9/mcp',
        headers: [{ name: 'Authorization', value: 'Bearer t' }],
      },
      { type: 'stdio', name: 'typed', command: 'npx', args: ['srv'], env: [] } as never,
    ]);
    expect(servers, 'mcpServersFromAcp guided step 2').toEqual({
      everything: { type: 'stdio', command: 'node', args: ['server.js', 'stdio'], env: { DEBUG: '1', TOKEN: 'x' } },
      docs: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer t' } },
      typed: { type: 'stdio', command: 'npx', args: ['srv'], env: {} },
    });
    expect(Object.keys(servers), 'mcpServersFromAcp: in the order given (guided step 3)').toEqual([
      'everything',
      'docs',
      'typed',
    ]);
    expect(mcpServersFromAcp([]), 'no servers → {}').toEqual({});
  });

  test('SSE servers, bad names and a name given twice are refused, naming the server', async () => {
    const stdio = (name: string) => ({ name, command: 'node', args: [], env: [] });
    const cases: Array<[unknown[], string]> = [
      [[{ type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] }], 'old'],
      [[stdio('a__b')], 'a__b'],
      [[stdio('')], '""'],
      [[stdio('twice'), stdio('twice')], 'twice'],
    ];
    for (const [list, name] of cases) {
      const error = await fails(
        () => mcpServersFromAcp(list as never),
        `mcpServersFromAcp must refuse ${JSON.stringify(list)}`,
      );
      expect(error, 'mcpServersFromAcp: RequestError.invalidParams (-32602) (guided steps 1-2)').toMatchObject({
        code: -32602,
      });
      expect(
        (error as Error).message,
        `mcpServersFromAcp: the message names the server ${name} (guided steps 1-2)`,
      ).toContain(name);
    }
  });
});

describe('systemPromptFromMeta (src/acp/session-setup.ts)', () => {
  test('a string replaces, { append } adds, nothing is nothing', () => {
    expect(systemPromptFromMeta({ systemPrompt: 'You are terse.' }), 'systemPromptFromMeta guided step 2').toEqual({
      replace: 'You are terse.',
    });
    expect(
      systemPromptFromMeta({ systemPrompt: { append: 'Use tabs.' } }),
      'systemPromptFromMeta guided step 2',
    ).toEqual({
      append: 'Use tabs.',
    });
    expect(
      systemPromptFromMeta({ systemPrompt: '' }),
      'systemPromptFromMeta: an empty string still replaces (guided step 2)',
    ).toEqual({ replace: '' });
    for (const meta of [undefined, null, {}, { other: 1 }, { systemPrompt: null }]) {
      expect(
        systemPromptFromMeta(meta as never),
        `systemPromptFromMeta: ${JSON.stringify(meta)} → undefined (guided step 1)`,
      ).toBeUndefined();
    }
  });

  test('any other shape is refused with what is accepted', async () => {
    for (const value of [42, ['a'], { append: 3 }, { replace: 3, append: 'x' }, {}, true]) {
      const error = await fails(
        () => systemPromptFromMeta({ systemPrompt: value }),
        `systemPromptFromMeta must refuse ${JSON.stringify(value)}`,
      );
      expect(error, 'systemPromptFromMeta: invalidParams (guided step 3)').toMatchObject({ code: -32602 });
      expect((error as Error).message, 'systemPromptFromMeta: says what is accepted (guided step 3)').toMatch(/append/);
    }
  });
});

describe('askThroughClient (src/acp/permission.ts)', () => {
  const call = { type: 'tool_call' as const, id: 'call_9', name: 'bash', arguments: { command: 'npm test' } };
  const ask = (reply: RequestPermissionResponse['outcome'], cwd = path.resolve('/work/p')) => {
    const sent: RequestPermissionRequest[] = [];
    const fn = askThroughClient('sess-1', cwd, async (request) => (sent.push(request), { outcome: reply }));
    return { fn, sent };
  };

  test('the question names the call as a pending tool call and offers the four options', async () => {
    const { fn, sent } = ask({ outcome: 'selected', optionId: 'allow_once' });
    await fn(
      { call, reason: 'bash needs approval', suggestedRules: ['Bash(npm test:*)'] },
      new AbortController().signal,
    );
    expect(
      sent[0]?.toolCall.content,
      'askThroughClient: a command is no diff: its content is the command in a codeBlock (guided step 1)',
    ).toEqual([{ type: 'content', content: { type: 'text', text: '```sh\nnpm test\n```' } }]);
    expect(sent, 'askThroughClient: one request_permission per question (guided step 2)').toHaveLength(1);
    expect(sent[0]!.sessionId, 'askThroughClient: for this session (guided step 2)').toBe('sess-1');
    expect(
      sent[0]!.toolCall,
      'askThroughClient: the call id, title, kind, pending, raw input (guided step 1)',
    ).toMatchObject({
      toolCallId: 'call_9',
      title: 'Run `npm test`',
      kind: 'execute',
      status: 'pending',
      rawInput: { command: 'npm test' },
    });
    expect(
      sent[0]!.options.map((o) => `${o.optionId}/${o.kind}`),
      'askThroughClient: permissionOptions, ids equal to kinds (guided step 2)',
    ).toEqual([
      'allow_once/allow_once',
      'allow_always/allow_always',
      'reject_once/reject_once',
      'reject_always/reject_always',
    ]);
    expect(sent[0]!.options[1]!.name, 'the "always" option names the rule it adds').toContain('Bash(npm test:*)');
  });

  test("each option the person picks is the gate's answer; a cancelled question or an unknown id is a rejection", async () => {
    for (const answer of ['allow_once', 'allow_always', 'reject_once', 'reject_always']) {
      const { fn } = ask({ outcome: 'selected', optionId: answer });
      expect(
        await fn({ call, reason: 'r', suggestedRules: [] }, new AbortController().signal),
        `askThroughClient: ${answer} picked → ${answer} (guided step 3)`,
      ).toBe(answer);
    }
    const cancelled = ask({ outcome: 'cancelled' });
    expect(
      await cancelled.fn({ call, reason: 'r', suggestedRules: [] }, new AbortController().signal),
      'askThroughClient: cancelled → reject_once (guided step 3)',
    ).toBe('reject_once');
    const unknown = ask({ outcome: 'selected', optionId: 'allow_forever' });
    expect(
      await unknown.fn({ call, reason: 'r', suggestedRules: [] }, new AbortController().signal),
      'askThroughClient: an id never offered → reject_once, never allow (guided step 3)',
    ).toBe('reject_once');
  });

  test("an edit's question shows the diff, and the run's signal goes with the request", async () => {
    const signals: AbortSignal[] = [];
    const sent: RequestPermissionRequest[] = [];
    const fn = askThroughClient(
      's',
      path.resolve('/w'),
      async (request, signal) => (
        sent.push(request), signals.push(signal), { outcome: { outcome: 'selected', optionId: 'reject_once' } }
      ),
    );
    const controller = new AbortController();
    await fn(
      {
        call: {
          type: 'tool_call',
          id: 'e1',
          name: 'edit',
          arguments: { path: 'a.ts', old_string: 'a', new_string: 'b' },
        },
        reason: 'r',
        suggestedRules: [],
      },
      controller.signal,
    );
    expect(sent[0]!.toolCall.content, 'askThroughClient: content [diff] for an edit (guided step 1)').toEqual([
      { type: 'diff', path: path.resolve('/w/a.ts'), oldText: 'a', newText: 'b' },
    ]);
    expect(
      signals[0],
      'askThroughClient: pass the signal, so a cancelled run withdraws the question (guided step 2)',
    ).toBe(controller.signal);
  });
});

describe('clientReadTool / clientWriteTool (src/acp/client-files.ts)', () => {
  function clientFiles(files: Record<string, string>) {
    const asked: string[] = [];
    const client: ClientFiles = {
      async readTextFile({ path: file, line = 1, limit }) {
        asked.push(`read ${file} ${line} ${limit}`);
        if (!(file in files)) throw new Error(`no such file ${file}`);
        const lines = files[file]!.split('\n');
        return lines.slice(line - 1, limit === undefined ? undefined : line - 1 + limit).join('\n');
      },
      async writeTextFile({ path: file, content }) {
        asked.push(`write ${file}`);
        files[file] = content;
      },
    };
    return { client, asked, files };
  }

  test('read asks the client for the window (absolute path, one line more) and numbers the lines like read does', async () => {
    const { root } = tempWorkspace();
    const file = path.join(root, 'src/a.ts');
    const { client, asked } = clientFiles({ [file]: 'one\ntwo\nthree\nfour\n' });
    const tool = clientReadTool(client);
    expect(
      await tool.execute({ path: 'src/a.ts', offset: 2, limit: 2 }, { cwd: root }),
      'clientReadTool.execute: lines 2-3 numbered, then where to read on (guided step 4)',
    ).toBe('     2\ttwo\n     3\tthree\n(more lines; read again with offset=4)');
    expect(asked, 'clientReadTool.execute: the absolute path, from offset, limit + 1 lines (guided step 2)').toEqual([
      `read ${file} 2 3`,
    ]);
    expect(
      await tool.execute({ path: 'src/a.ts', offset: 3, limit: 10 }, { cwd: root }),
      'clientReadTool.execute: the last lines, no note (a final newline starts no line) (guided steps 3-4)',
    ).toBe('     3\tthree\n     4\tfour');
    expect(
      await tool.execute({ path: 'src/a.ts', offset: 3, limit: 2 }, { cwd: root }),
      'clientReadTool.execute: exactly `limit` lines came back, so nothing follows: no note (guided step 4)',
    ).toBe('     3\tthree\n     4\tfour');
  });

  test('read of an empty file, and past the end; read and write refuse a path outside the workspace without asking', async () => {
    const { root, outside } = tempWorkspace();
    const { client, asked } = clientFiles({
      [path.join(root, 'empty.txt')]: '',
      [path.join(outside, 'secret.txt')]: 'top secret',
    });
    expect(
      await clientReadTool(client).execute({ path: 'empty.txt' }, { cwd: root }),
      'clientReadTool.execute guided step 3',
    ).toBe('(empty file)');
    const past = await rejection(
      clientReadTool(client).execute({ path: 'empty.txt', offset: 5 }, { cwd: root }),
      'clientReadTool.execute: an offset past the end throws (guided step 3)',
    );
    expect(
      String((past as Error).message),
      'clientReadTool.execute: the message gives the offset and the file (guided step 3)',
    ).toMatch(/5.*empty\.txt/);
    asked.length = 0;
    await rejection(
      clientReadTool(client).execute({ path: '../outside/secret.txt' }, { cwd: root }),
      'clientReadTool.execute: a path outside the workspace must throw (guided step 1)',
    );
    expect(
      asked,
      'clientReadTool.execute: the client is never asked to read a path outside the workspace (guided step 1)',
    ).toEqual([]);
    await rejection(
      clientWriteTool(client).execute({ path: path.join(outside, 'x.txt'), content: 'x' }, { cwd: root }),
      'clientWriteTool.execute: a path outside the workspace must throw (guided step 1)',
    );
    expect(
      asked,
      'clientWriteTool.execute: the client is never asked to write a path outside the workspace (guided step 1)',
    ).toEqual([]);
  });

  test("what the client sends is held to read's size rules: long lines cut, the output capped, where to read on", async () => {
    const { root } = tempWorkspace();
    const file = path.join(root, 'big.txt');
    const line = 'x'.repeat(300);
    const { client } = clientFiles({
      [file]: `${'y'.repeat(5000)}\n${Array.from({ length: 400 }, () => line).join('\n')}`,
    });
    const out = await clientReadTool(client).execute({ path: 'big.txt' }, { cwd: root });
    const shown = out.split('\n');
    expect(shown[0], 'clientReadTool.execute: clipWindow cuts a long line and says so (guided step 4)').toMatch(
      /^ {5}1\ty{2000} \[line cut after 2000 bytes\]$/,
    );
    const text = shown
      .slice(0, -1)
      .map((numbered) => numbered.replace(/^ *\d+\t/, ''))
      .join('\n');
    expect(
      Buffer.byteLength(text),
      "clientReadTool.execute: at most MAX_READ_BYTES (50,000) of the file's text (guided step 4)",
    ).toBeLessThanOrEqual(50_000);
    expect(
      Buffer.byteLength(text),
      'clientReadTool.execute: and as much of it as fits (guided step 4)',
    ).toBeGreaterThan(49_000);
    const last = shown.at(-1)!;
    const next = shown.length; // lines 1..length-1 shown, so the next is `length`
    expect(last, 'clientReadTool.execute: a capped window says so, and where to read on (guided step 4)').toBe(
      `(output capped at 50000 bytes; more lines; read again with offset=${next})`,
    );
  });

  test("write hands the whole content to the client and reports like chapter 4's write", async () => {
    const { root } = tempWorkspace();
    const { client, files, asked } = clientFiles({});
    const out = await clientWriteTool(client).execute({ path: 'docs/é.md', content: 'héllo\nworld\n' }, { cwd: root });
    expect(asked, 'clientWriteTool.execute: one write, the absolute path (guided step 2)').toEqual([
      `write ${path.join(root, 'docs/é.md')}`,
    ]);
    expect(files[path.join(root, 'docs/é.md')], 'clientWriteTool.execute: the content unchanged (guided step 2)').toBe(
      'héllo\nworld\n',
    );
    expect(
      out,
      'clientWriteTool.execute: UTF-8 bytes, lines as read counts them, the path relative (guided step 3)',
    ).toBe('Wrote 13 bytes (2 lines) to docs/é.md');
    expect(
      await clientWriteTool(client).execute({ path: 'e.txt', content: '' }, { cwd: root }),
      "clientWriteTool.execute: '' has 0 lines (guided step 3)",
    ).toBe('Wrote 0 bytes (0 lines) to e.txt');
    expect(
      await clientWriteTool(client).execute({ path: 'f.txt', content: 'a\nb' }, { cwd: root }),
      'clientWriteTool.execute: no final newline, still 2 lines (guided step 3)',
    ).toBe('Wrote 3 bytes (2 lines) to f.txt');
  });
});
