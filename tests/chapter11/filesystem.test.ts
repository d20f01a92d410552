/**
 * The learner's client against @modelcontextprotocol/server-filesystem over stdio (started once for the file, on a
 * temp folder), and the life of a child process: a server that cannot start, and close() ending it.
 */
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { McpConnection } from 'kit/mcp/client';
import { tempWorkspace } from '../helpers/workspace.js';
import { processesRunning } from '../helpers/processes.js';
import { HANG_MS, waitUntil } from '../helpers/wait.js';
import { callTurn, gone, resultOf, runAgent, sharedServers, within } from './fixtures.js';

const require = createRequire(import.meta.url);
const bin = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist/index.js',
);
const { root, outside } = tempWorkspace({ 'notes.txt': 'alpha\nbeta\n', 'src/main.ts': 'export {};\n' });

const filesystem = sharedServers({ fs: { type: 'stdio', command: process.execPath, args: [bin, root], env: {} } });

describe('server-filesystem over stdio (src/mcp/client.ts, src/mcp/adapter.ts)', () => {
  test('read_text_file and list_directory work on the folder it was given', async () => {
    const { tools } = await filesystem();
    const { history } = await runAgent(tools, [
      callTurn(
        ['c1', 'mcp__fs__read_text_file', { path: path.join(root, 'notes.txt') }],
        ['c2', 'mcp__fs__list_directory', { path: root }],
      ),
    ]);
    expect(resultOf(history, 'c1'), 'read_text_file returns the file').toMatchObject({
      content: 'alpha\nbeta\n',
      isError: false,
    });
    expect(resultOf(history, 'c2').content.split('\n').sort(), 'list_directory lists the folder').toEqual([
      '[DIR] src',
      '[FILE] notes.txt',
    ]);
    expect(
      tools.find((t) => t.name === 'mcp__fs__write_file')?.readOnly,
      'mcpTool: write_file is not read-only (guided step 3)',
    ).toBe(false);
    expect(history).toBeValidHistory('after filesystem calls');
  });

  test("a path outside its folder is the server's error, kept as an error result", async () => {
    const { tools } = await filesystem();
    const { history, done } = await runAgent(tools, [
      callTurn(['c1', 'mcp__fs__read_text_file', { path: path.join(outside, 'secret.txt') }]),
    ]);
    const result = resultOf(history, 'c1');
    expect(result.isError, 'toolResultText: the server said isError; so must the result (guided step 4)').toBe(true);
    expect(result.content, "the server's words reach the model").toMatch(/Access denied/i);
    expect(result.content, 'and nothing of the file').not.toContain('top secret');
    expect(done.reason).toBe('end_turn');
    expect(history).toBeValidHistory('after a refused read');
  });

  test("close() ends the server's process", async () => {
    const { hub } = await filesystem();
    const pid = hub.connections[0]!.pid!;
    expect(pid, 'a running stdio server has a pid').toBeGreaterThan(0);
    await hub.close();
    expect(await gone(pid), 'McpConnection.close: close the client, which ends the child process (guided step 2)').toBe(
      true,
    );
    expect(hub.connections[0]!.state, 'McpConnection.close guided step 1').toBe('closed');
  });
});

describe('a server that cannot start (src/mcp/client.ts: McpConnection.connect)', () => {
  test('a command that does not exist: an error naming the server, at once', async () => {
    const connection = new McpConnection(
      'ghost',
      { type: 'stdio', command: path.join(root, 'no-such-server'), args: [], env: {} },
      { startupTimeoutMs: 10 * HANG_MS },
    );
    await expect(
      within(
        connection.connect(),
        'McpConnection.connect: the spawn error ends the start at once; do not wait for the timeout (guided step 5)',
      ),
      "McpConnection.connect: the spawn error, with the server's name (guided step 5)",
    ).rejects.toThrow(/^MCP server "ghost" did not start: .*ENOENT/);
  });

  test('a server that exits at once: its stderr is in the error', async () => {
    const connection = new McpConnection(
      'crashy',
      {
        type: 'stdio',
        command: process.execPath,
        args: ['-e', 'console.error("fatal: GITHUB_TOKEN is not set"); process.exit(1)'],
        env: {},
      },
      { startupTimeoutMs: 10 * HANG_MS },
    );
    const error = await within(
      connection.connect().then(
        () => undefined,
        (e: unknown) => e as Error,
      ),
      'McpConnection.connect: a server that exited ends the start at once (guided step 5)',
    );
    expect(error?.message, 'McpConnection.connect: the message names the server (guided step 5)').toMatch(
      /^MCP server "crashy" did not start/,
    );
    expect(
      error?.message,
      "McpConnection.connect: add stderrNote(): the person needs the server's own words (guided step 5)",
    ).toContain('fatal: GITHUB_TOKEN is not set');
  });

  test('a server that never answers is stopped after the start-up timeout, and its process does not live on', async () => {
    const pidFile = path.join(mkdtempSync(path.join(tmpdir(), 'kit-mcp-')), 'pid');
    // Reads stdin and never answers; exits when its stdin closes (as well-behaved servers do), so closing the client ends it.
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.stdin.resume(); process.stdin.on('end', () => process.exit(0))`;
    const connection = new McpConnection(
      'mute',
      { type: 'stdio', command: process.execPath, args: ['-e', script], env: {} },
      { startupTimeoutMs: 300 },
    );
    const error = await within(
      connection.connect().then(
        () => undefined,
        (e: unknown) => e as Error,
      ),
      'McpConnection.connect: pass { timeout: startupTimeoutMs } to client.connect (guided step 5)',
    );
    expect(error?.message, 'McpConnection.connect: time out the handshake (guided step 5)').toMatch(
      /^MCP server "mute" did not start/,
    );
    // Found by its command line (which holds pidFile): on a loaded machine the time-out may come before it wrote anything.
    await waitUntil(
      () => processesRunning(pidFile).length === 0,
      'McpConnection.connect: close the half-started server: no child process may be left (guided step 5)',
    );
  });
});
