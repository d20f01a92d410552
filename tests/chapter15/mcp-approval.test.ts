/**
 * Chapter 15: which MCP servers start (mcpServerList in src/capstone/factory-pieces.ts, mcpFor in
 * src/capstone/factory.ts). Everything runs in this process: the project's server is an MCP server over HTTP on
 * 127.0.0.1 (so "it never started" means "it never received a request"), the editor's a linked in-memory pair.
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadAgentSettings, mcpServerList } from 'kit/capstone/factory';
import { questionLines } from 'kit/capstone/question';
import { parseMcpConfig } from 'kit/mcp/config';
import { fakeServer, toolInfo } from '../chapter11/fixtures.js';
import { build, workspace, writeFiles } from './factory-fixtures.js';

let requests = 0;
let http: HttpServer;
let url = '';
beforeAll(async () => {
  http = createServer(async (req, res) => {
    requests++;
    const server = new Server({ name: 'web', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [toolInfo('look', [], { annotations: { readOnlyHint: true } })],
    }));
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'looked' }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});
afterAll(() => {
  http.closeAllConnections();
  http.close();
});

/** mcpServerList, with a TODO let through and any other rejection a failure naming the stub. */
async function list(...args: Parameters<typeof mcpServerList>) {
  return mcpServerList(...args).catch((error: unknown) => {
    if (error instanceof Error && error.name === 'TodoError') throw error;
    return expect.fail(
      `mcpServerList: these sources are all readable, yet it threw: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
}

describe('mcpServerList: approval and skipped servers (src/capstone/factory-pieces.ts)', () => {
  const stdio = (command: string) => ({ type: 'stdio' as const, command, args: [], env: {} });

  test('only the servers approve() rejects are skipped; a later source replaces a .mcp.json server of the same name', async () => {
    const { cwd } = workspace();
    writeFiles(cwd, {
      '.mcp.json': {
        mcpServers: {
          kept: { command: 'kept' },
          refused: { command: 'refused' },
          byFlag: { command: 'project-flag' },
          byEditor: { command: 'project-editor' },
        },
      },
      'more.json': { mcpServers: { byFlag: { command: 'from-flag' }, flagOnly: { command: 'flag-only' } } },
    });
    const approve = (name: string) => name !== 'refused';
    const result = await list(
      cwd,
      ['more.json'],
      {},
      { byEditor: stdio('from-editor'), editorOnly: stdio('editor-only') },
      approve,
    );
    expect(
      result.skipped,
      'mcpServerList: `skipped` names only the .mcp.json servers approve(name) rejected (guided step 2)',
    ).toEqual(['refused']);
    expect(
      Object.keys(result.servers).sort(),
      'mcpServerList: the approved servers of every source, the refused one left out (guided steps 2 and 4)',
    ).toEqual(['byEditor', 'byFlag', 'editorOnly', 'flagOnly', 'kept']);
    expect(
      result.servers.byFlag,
      'mcpServerList: a server named in .mcp.json and in --mcp-config is the --mcp-config one (guided step 2)',
    ).toMatchObject({ command: 'from-flag' });
    expect(
      result.servers.byEditor,
      'mcpServerList: a server named in .mcp.json and in extra is the extra one (guided step 4)',
    ).toMatchObject({ command: 'from-editor' });
  });

  test('with every .mcp.json server approved nothing is skipped; unapproved, none of them is kept', async () => {
    const { cwd } = workspace();
    writeFiles(cwd, {
      '.mcp.json': { mcpServers: { one: { command: 'one' } } },
      'more.json': { mcpServers: { two: { command: 'two' } } },
    });
    const all = await list(cwd, [], {}, {}, () => true);
    expect(
      all.skipped,
      'mcpServerList: `skipped` is left out when approve() accepted every server (guided step 2)',
    ).toBeUndefined();
    expect(Object.keys(all.servers), 'mcpServerList: the approved .mcp.json server is kept (guided step 2)').toEqual([
      'one',
    ]);
    const flagged = await list(cwd, ['more.json'], {}, { three: stdio('three') }, () => false);
    expect(
      { servers: Object.keys(flagged.servers), skipped: flagged.skipped },
      "mcpServerList: approve() only filters .mcp.json (--mcp-config and extra servers are the person's) (guided step 2)",
    ).toEqual({ servers: ['two', 'three'], skipped: ['one'] });
  });

  test('an http server is kept as parseMcpConfig gives it: only a stdio server gets a cwd', async () => {
    const { cwd } = workspace();
    const entry = { mcpServers: { web: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } };
    writeFiles(cwd, { 'web.json': entry });
    const result = await list(cwd, ['web.json'], {});
    expect(
      result.servers.web,
      "mcpServerList: a stdio server's cwd is resolved; an http server has no cwd, so it is copied as it is (guided step 2)",
    ).toEqual(parseMcpConfig(entry, {}, 'web.json').web);
  });

  test.each([
    ['null', null],
    ['a string', 'abc'],
    ['left out', undefined],
  ])(
    'a .mcp.json whose mcpServers is %s is one problem that says what is wrong, and nothing is skipped',
    async (_label, value) => {
      const { cwd } = workspace();
      const json = value === undefined ? {} : { mcpServers: value };
      writeFiles(cwd, { '.mcp.json': json });
      let reason = '';
      try {
        parseMcpConfig(json, {}, '.mcp.json');
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
      }
      const result = await list(cwd, [], {}, {}, () => true);
      expect(
        result.problems,
        'mcpServerList: only an mcpServers object is filtered by approve(); anything else goes to parseMcpConfig, whose reason (with "(its servers are not started)") is the problem (guided steps 2-3)',
      ).toEqual([`${reason} (its servers are not started)`]);
      expect(
        result.skipped,
        'mcpServerList: a file without an mcpServers object has no servers to skip (guided step 2)',
      ).toBeUndefined();
    },
  );
});

describe("mcpFor: the project's .mcp.json servers (src/capstone/factory-steps.ts)", () => {
  test("an untrusted folder's .mcp.json servers never start, and one warning names each of them", async () => {
    const { cwd, home } = workspace();
    writeFiles(cwd, {
      '.mcp.json': { mcpServers: { web: { type: 'http', url }, alpha: { command: 'alpha-server' } } },
    });
    const before = requests;
    const { built } = await build([], { cwd, home });
    expect(
      requests - before,
      'buildAgent: no config.trust is untrusted, so the .mcp.json server must not be contacted at all (guided steps 1 and 7)',
    ).toBe(0);
    expect(built.tools.get('mcp__web__look'), 'mcpFor: an unapproved server has no tools in the agent').toBeUndefined();
    const lines = built.warnings.filter((line) => /\bweb\b/.test(line) && /\balpha\b/.test(line));
    expect(
      lines,
      `mcpFor: one warning names the skipped servers, each by its own name (got ${JSON.stringify(built.warnings)})`,
    ).toHaveLength(1);
    expect(lines[0], 'mcpFor: the skipped-servers warning says they need the folder trusted').toMatch(/trust/i);
    expect(
      built.warnings.some((line) => /failed/.test(line)),
      'mcpFor: a skipped server is not started, so it cannot fail either',
    ).toBe(false);
  });

  test("trusted and approved, the .mcp.json server starts; no server's readOnlyHint makes its tool read-only, the editor's neither", async () => {
    const { cwd, home } = workspace();
    writeFiles(cwd, { '.mcp.json': { mcpServers: { web: { type: 'http', url } } } });
    const editor = fakeServer([{ info: toolInfo('peek', [], { annotations: { readOnlyHint: true } }) }]);
    const { built } = await build([], {
      cwd,
      home,
      trust: { trusted: true, servers: ['web'] },
      mcpServers: { editor: editor.factory },
    });
    const web = built.tools.get('mcp__web__look');
    expect(
      web,
      `mcpFor: approve(name) is mcpServerApproved(name, trust, settings), so a server the person approved starts (warnings: ${JSON.stringify(built.warnings)})`,
    ).toBeDefined();
    expect(
      built.warnings.join('\n'),
      'mcpFor: nothing was skipped, so there is no skipped-servers warning',
    ).not.toMatch(/trust/i);
    expect(
      [web?.readOnly, built.tools.get('mcp__editor__peek')?.readOnly],
      "mcpFor: a server's readOnlyHint is a claim wherever the server was configured (.mcp.json, an editor): its tools are asked about",
    ).toEqual([false, false]);
  });

  test("after the person trusted the folder, the folder's own settings files cannot approve its .mcp.json servers", async () => {
    const { cwd, home } = workspace();
    const approves = { enabledMcpjsonServers: ['web'], enableAllProjectMcpServers: true };
    writeFiles(cwd, {
      '.mcp.json': { mcpServers: { web: { type: 'http', url } } },
      '.claude/settings.json': approves,
      '.claude/settings.local.json': approves,
    });
    const settings = await loadAgentSettings(cwd, home);
    const before = requests;
    // The person trusted the folder when it had no server (their answer approved none).
    const { built } = await build([], { cwd, home, settings, trust: { trusted: true, servers: [] } });
    expect(
      requests - before,
      "mcpFor (mcpServerApproved, given): enabledMcpjsonServers and enableAllProjectMcpServers in the folder's .claude/settings.json or settings.local.json approve nothing: the server must not be contacted",
    ).toBe(0);
    expect(
      built.warnings.filter((line) => /\bweb\b/.test(line) && /approve/.test(line)),
      `mcpFor: the skipped server is named in the warning (got ${JSON.stringify(built.warnings)})`,
    ).toHaveLength(1);
  });

  test("the person's own ~/.claude/settings.json may approve a trusted folder's server", async () => {
    const { cwd, home } = workspace();
    writeFiles(cwd, { '.mcp.json': { mcpServers: { web: { type: 'http', url } } } });
    writeFiles(home, { '.claude/settings.json': { enabledMcpjsonServers: ['web'] } });
    const settings = await loadAgentSettings(cwd, home);
    const { built } = await build([], { cwd, home, settings, trust: { trusted: true, servers: [] } });
    expect(
      built.tools.get('mcp__web__look'),
      `mcpFor (mcpServerApproved, given): a server the person's own settings approve starts in a trusted folder (warnings: ${JSON.stringify(built.warnings)})`,
    ).toBeDefined();
  });
});

describe('questionLines (src/capstone/question.ts)', () => {
  test('a bash call without arguments (a model may send none) still gets its question', () => {
    const call = { id: 'c1', name: 'bash', arguments: undefined as unknown as Record<string, unknown> };
    let lines: string[] = [];
    try {
      lines = questionLines({ call, reason: 'no rule' } as never, { cwd: '/work' });
    } catch (error) {
      if (error instanceof Error && error.name === 'TodoError') throw error;
      expect.fail(
        `questionLines: arguments that are not an object (here none at all) are read as no fields, then shown as their JSON; it threw: ${error instanceof Error ? error.message : String(error)} (guided step 2)`,
      );
    }
    expect(lines.join('\n'), 'questionLines: the question names the tool (guided step 1)').toContain('Allow bash?');
  });
});
