import { afterAll, describe, expect, test } from 'vitest';
import { McpConnection, type Transport } from 'kit/mcp/client';
import { McpServers } from 'kit/mcp/servers';
import { ToolSet } from 'kit/tool';
import { callTurn, fakeServer, resultOf, runAgent, text, toolInfo, within } from './fixtures.js';
import { HANG_MS, waitUntil } from '../helpers/wait.js';

const started: McpServers[] = [];
async function start(
  servers: Parameters<typeof McpServers.start>[0],
  options?: Parameters<typeof McpServers.start>[1],
) {
  const hub = await McpServers.start(servers, options);
  started.push(hub);
  return hub;
}
afterAll(async () => {
  for (const hub of started.splice(0)) await hub.close();
});

describe('MCP tools in the agent (src/mcp/adapter.ts: mcpTool)', () => {
  test("a server's tools become kit tools: namespaced name, its description, its schema as given, never readOnly", async () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 } },
      required: ['path'],
    };
    const docs = fakeServer([
      {
        info: {
          name: 'read',
          description: 'Read a page',
          inputSchema: schema as never,
          annotations: { readOnlyHint: true },
        },
      },
      { info: toolInfo('write', ['path'], { annotations: { readOnlyHint: false } }) },
      { info: toolInfo('touch', [], { description: '  ' }) },
      { info: toolInfo('bare', [], { description: undefined }) },
    ]);
    const hub = await start({ docs: docs.factory });
    const tools = await hub.tools();
    expect(
      tools.map((t) => t.name),
      "mcpTool: names are mcp__<server>__<tool>, in the server's order (guided step 1)",
    ).toEqual(['mcp__docs__read', 'mcp__docs__write', 'mcp__docs__touch', 'mcp__docs__bare']);
    expect(
      tools.map((t) => t.readOnly),
      'mcpTool: readOnly is false for every tool, even one whose server says readOnlyHint: true (a claim) (guided step 3)',
    ).toEqual([false, false, false, false]);
    expect(tools[3]!.description, 'mcpTool: a tool without a description gets one too (guided step 1)').toBe(
      'bare (from MCP server docs)',
    );
    expect(
      docs.state.client,
      'McpConnection.connect: the client introduces itself as build-a-coding-agent 1.0.0 (guided step 2)',
    ).toEqual({ name: 'build-a-coding-agent', version: '1.0.0' });
    expect(tools[0]!.description, "mcpTool: the server's description (guided step 1)").toBe('Read a page');
    expect(
      tools[2]!.description,
      'mcpTool: a blank description gets one that names the tool and the server (guided step 1)',
    ).toBe('touch (from MCP server docs)');
    const [definition] = new ToolSet(tools).definitions();
    expect(
      definition!.inputSchema,
      "mcpTool: the model is shown the server's schema as it is (minLength too), without $schema (guided step 2)",
    ).toEqual({
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 } },
      required: ['path'],
    });
  });

  test('the model calls a tool by its namespaced name; the server gets its own name and the arguments', async () => {
    const docs = fakeServer([
      { info: toolInfo('search', ['query']), handler: (args) => text(`3 pages about ${String(args.query)}`) },
    ]);
    const hub = await start({ docs: docs.factory });
    const { history, done } = await runAgent(await hub.tools(), [
      callTurn(['c1', 'mcp__docs__search', { query: 'zod' }]),
    ]);
    expect(
      docs.state.calls.map((c) => [c.name, c.arguments]),
      "mcpTool: call the server's tool by its own name, not the namespaced one (guided step 4)",
    ).toEqual([['search', { query: 'zod' }]]);
    expect(
      resultOf(history, 'c1'),
      "mcpTool: the result is the text of the server's answer (guided step 4)",
    ).toMatchObject({
      content: '3 pages about zod',
      isError: false,
    });
    expect(done.reason).toBe('end_turn');
    expect(history).toBeValidHistory('after an MCP tool call');
  });

  test('two servers with a tool of the same name: two tools, each call goes to its own server', async () => {
    const one = fakeServer([{ info: toolInfo('status'), handler: () => text('one is fine') }]);
    const two = fakeServer([{ info: toolInfo('status'), handler: () => text('two is fine') }]);
    const hub = await start({ one: one.factory, two: two.factory });
    const tools = new ToolSet(await hub.tools());
    expect(
      tools.names(),
      'mcpToolName: namespaced names keep the two apart (and ToolSet.add would throw on a clash)',
    ).toEqual(['mcp__one__status', 'mcp__two__status']);
    const { history } = await runAgent(tools, [callTurn(['a', 'mcp__two__status', {}], ['b', 'mcp__one__status', {}])]);
    expect(
      [resultOf(history, 'a').content, resultOf(history, 'b').content],
      'mcpTool: each tool calls its own connection (guided step 4)',
    ).toEqual(['two is fine', 'one is fine']);
    expect([one.state.calls.length, two.state.calls.length], 'each server got exactly its own call').toEqual([1, 1]);
  });

  test("arguments that do not fit the server's schema are refused before anything is sent", async () => {
    const fs = fakeServer([{ info: toolInfo('read', ['path']) }]);
    const hub = await start({ fs: fs.factory });
    const { history } = await runAgent(await hub.tools(), [
      callTurn(['c1', 'mcp__fs__read', { path: 7 }], ['c2', 'mcp__fs__read', {}]),
    ]);
    expect(
      fs.state.calls,
      'mcpTool guided step 2 (jsonSchemaInput): the server must never see arguments its schema refuses',
    ).toEqual([]);
    expect(resultOf(history, 'c1'), 'jsonSchemaInput: an error result that says what is wrong').toMatchObject({
      isError: true,
    });
    expect(resultOf(history, 'c1').content, 'jsonSchemaInput: the message names the field').toMatch(/path/);
    expect(resultOf(history, 'c2').content, 'jsonSchemaInput: a missing required field').toMatch(/path/);
    expect(history).toBeValidHistory('after refused arguments');
  });

  test("a server's error result stays an error result, with the server's text", async () => {
    const fs = fakeServer([
      {
        info: toolInfo('read', ['path']),
        handler: () => ({ content: [{ type: 'text', text: 'Access denied: /etc/shadow' }], isError: true }),
      },
    ]);
    const hub = await start({ fs: fs.factory });
    const { history, done } = await runAgent(await hub.tools(), [
      callTurn(['c1', 'mcp__fs__read', { path: '/etc/shadow' }]),
    ]);
    const result = resultOf(history, 'c1');
    expect(
      result.isError,
      'toolResultText: isError must not be dropped (throw, so executeToolCall makes an error result) (guided step 4)',
    ).toBe(true);
    expect(result.content, "the model reads the server's own words").toContain('Access denied: /etc/shadow');
    expect(done.reason, 'an error result is not the end of the run').toBe('end_turn');
    expect(history).toBeValidHistory('after a server error result');
  });
});

describe('McpConnection: start, death, restart, timeouts, cancel, close (src/mcp/client.ts)', () => {
  test('a server that does not answer initialize in time is an error naming it, and it is stopped', async () => {
    const silent = fakeServer([], { silent: true });
    const connection = new McpConnection('slow', silent.factory, { startupTimeoutMs: 100 });
    const error = await within(
      connection.connect().then(
        () => undefined,
        (e: unknown) => e,
      ),
      'McpConnection.connect: pass { timeout: startupTimeoutMs } to client.connect; a server that never answers must fail the start, not hang (guided step 5)',
    );
    expect(
      error,
      'McpConnection.connect: a server that never answers must fail the start, not hang (guided step 5)',
    ).toBeInstanceOf(Error);
    expect((error as Error).message, 'McpConnection.connect: the message names the server (guided step 5)').toMatch(
      /^MCP server "slow" did not start:/,
    );
    expect(connection.state, 'McpConnection.connect: a failed start leaves the state stopped (guided step 5)').toBe(
      'stopped',
    );
  });

  test('McpServers.start: a server that fails is listed with its name; the others still work', async () => {
    const good = fakeServer([{ info: toolInfo('ping'), handler: () => text('pong') }]);
    const hub = await within(
      start({ good: good.factory, bad: fakeServer([], { silent: true }).factory }, { startupTimeoutMs: 100 }),
      'McpConnection.connect: a server that never answers the handshake must fail after startupTimeoutMs (100 ms here), not hang start-up (guided step 5)',
    );
    expect(
      hub.connections.map((c) => [c.name, c.state]),
      'McpConnection.connect: the good server is running (guided step 6)',
    ).toEqual([['good', 'running']]);
    expect(
      hub.failures.map((f) => f.name),
      'McpConnection.connect: the bad server failed to start (guided step 5)',
    ).toEqual(['bad']);
    expect(hub.failures[0]!.error, 'the failure says why').toMatch(/did not start/);
    expect((await hub.tools()).map((t) => t.name)).toEqual(['mcp__good__ping']);
  });

  test('a server that dies during a call: the call becomes an error result saying it stopped, at once', async () => {
    const box = fakeServer([{ info: toolInfo('work'), handler: () => new Promise(() => {}) }]);
    // The call's own limit is far beyond the test's wait: only a call that the death ended passes.
    const hub = await start({ box: box.factory }, { callTimeoutMs: 10 * HANG_MS });
    const tools = await hub.tools();
    // Killed once the call has reached it, on any machine.
    // A wrong solution may never send the call: then this wait gives up quietly and the `within` below fails the test.
    void waitUntil(() => box.state.calls.length > 0, 'the call must reach the server').then(
      () => box.kill(),
      () => {},
    );
    const { history, done } = await within(
      runAgent(tools, [callTurn(['c1', 'mcp__box__work', {}])]),
      'McpConnection.callTool: a server that died must not hold the call',
    );
    expect(resultOf(history, 'c1'), 'McpConnection.callTool: an error result (guided step 5)').toMatchObject({
      isError: true,
    });
    expect(
      resultOf(history, 'c1').content,
      'McpConnection.callTool: say the server stopped, and name it (guided step 5)',
    ).toMatch(/MCP server "box" stopped while running work/);
    expect(done.reason, 'the model goes on without the server').toBe('end_turn');
    expect(history).toBeValidHistory('after a server died mid-call');
  });

  test('after a server died, the next call starts it again (once) and runs', async () => {
    const box = fakeServer([{ info: toolInfo('ping'), handler: () => text('pong') }]);
    const hub = await start({ box: box.factory });
    const tools = await hub.tools();
    await box.kill();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(
      hub.connections[0]!.state,
      'McpConnection.connect: when the server closes, the state becomes stopped (guided step 4)',
    ).toBe('stopped');
    const { history } = await runAgent(tools, [callTurn(['c1', 'mcp__box__ping', {}])]);
    expect(
      resultOf(history, 'c1'),
      'McpConnection.callTool: restart a stopped server on the next call (guided step 2)',
    ).toMatchObject({ content: 'pong', isError: false });
    expect(box.state.connections, 'McpConnection.callTool: one new connection (guided step 2)').toBe(2);
    expect(hub.connections[0]!.restarts).toBe(1);
  });

  test('a server that dies again is not restarted a second time: calls say it stopped', async () => {
    const box = fakeServer([{ info: toolInfo('ping'), handler: () => text('pong') }]);
    const hub = await start({ box: box.factory });
    const tools = await hub.tools();
    await box.kill();
    const first = await runAgent(tools, [callTurn(['c1', 'mcp__box__ping', {}])]);
    expect(resultOf(first.history, 'c1').content, 'the first restart works').toBe('pong');
    await box.kill();
    const second = await runAgent(tools, [callTurn(['c2', 'mcp__box__ping', {}], ['c3', 'mcp__box__ping', {}])]);
    expect(
      box.state.connections,
      'McpConnection.callTool: restart once, never again (a crashing server would be started forever) (guided step 2)',
    ).toBe(2);
    for (const id of ['c2', 'c3']) {
      expect(
        resultOf(second.history, id),
        `McpConnection.callTool: call ${id} is an error result (guided step 2)`,
      ).toMatchObject({ isError: true });
      expect(resultOf(second.history, id).content, 'McpConnection.callTool: say it stopped (guided step 2)').toMatch(
        /MCP server "box" has stopped/,
      );
    }
    expect(second.history).toBeValidHistory('after a server died twice');
  });

  test('a restart that fails is an error result that says so', async () => {
    let starts = 0;
    const box = fakeServer([{ info: toolInfo('ping') }]);
    const silent = fakeServer([], { silent: true });
    const hub = await start(
      { box: () => (++starts === 1 ? box.factory() : silent.factory()) },
      { startupTimeoutMs: 100 },
    );
    const tools = await hub.tools();
    await box.kill();
    const { history } = await within(
      runAgent(tools, [callTurn(['c1', 'mcp__box__ping', {}])]),
      'McpConnection.callTool guided step 2 and connect guided step 5: a restart that never answers must time out (startupTimeoutMs), not hang the call',
    );
    expect(resultOf(history, 'c1'), 'McpConnection.callTool: an error result (guided step 2)').toMatchObject({
      isError: true,
    });
    expect(resultOf(history, 'c1').content, 'McpConnection.callTool: the restart failed (guided step 2)').toMatch(
      /MCP server "box" has stopped and could not be restarted/,
    );
    expect(history).toBeValidHistory('after a failed restart');
  });

  test('a call that takes longer than callTimeoutMs is an error result; the run does not hang', async () => {
    const box = fakeServer([{ info: toolInfo('slow'), handler: () => new Promise(() => {}) }]);
    const hub = await start({ box: box.factory }, { callTimeoutMs: 150 });
    const { history } = await within(
      runAgent(await hub.tools(), [callTurn(['c1', 'mcp__box__slow', {}])]),
      'McpConnection.callTool: pass { timeout: callTimeoutMs } to client.callTool; a stuck server must not hang the run (guided step 4)',
    );
    expect(
      resultOf(history, 'c1'),
      'McpConnection.callTool: a timeout is an error result (guided step 5)',
    ).toMatchObject({
      isError: true,
    });
    expect(
      resultOf(history, 'c1').content,
      'McpConnection.callTool: say it did not answer in time (guided step 5)',
    ).toMatch(/MCP server "box" did not answer slow within 150 ms/);
    expect(history).toBeValidHistory('after a timed-out call');
  });

  test('aborting the run cancels the call on the server too', async () => {
    const box = fakeServer([{ info: toolInfo('slow'), handler: () => new Promise(() => {}) }]);
    const hub = await start({ box: box.factory });
    const [tool] = await hub.tools();
    const controller = new AbortController();
    const pending = tool!.execute({}, { cwd: process.cwd(), signal: controller.signal });
    pending.catch(() => {});
    while (box.state.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(new Error('user pressed Ctrl-C'));
    const error = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, "McpConnection.callTool: an aborted call throws the signal's reason (guided step 5)").toBeInstanceOf(
      Error,
    );
    expect((error as Error).message).toBe('user pressed Ctrl-C');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(
      box.state.calls[0]!.signal.aborted,
      'McpConnection.callTool: pass the signal to client.callTool, so the server is told to stop (guided step 4)',
    ).toBe(true);
  });

  test('a server that fails a call with a protocol error: an error result that names the server and keeps its words', async () => {
    const box = fakeServer([
      {
        info: toolInfo('query'),
        handler: () => {
          throw new Error('database is locked');
        },
      },
    ]);
    const hub = await start({ box: box.factory });
    const { history } = await runAgent(await hub.tools(), [callTurn(['c1', 'mcp__box__query', {}])]);
    expect(
      resultOf(history, 'c1'),
      'McpConnection.callTool: any other failure is an error result (guided step 5)',
    ).toMatchObject({ isError: true });
    expect(
      resultOf(history, 'c1').content,
      'McpConnection.callTool: `MCP server "<name>": <text>` (guided step 5)',
    ).toMatch(/MCP server "box": .*database is locked/);
    expect(hub.connections[0]!.state, 'a failed call is not a dead server').toBe('running');
    const direct = await hub.connections[0]!.callTool('query', {}).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(direct?.message, 'McpConnection.callTool: a call without a signal fails the same way').toMatch(
      /^MCP server "box": .*database is locked/,
    );
    expect(history).toBeValidHistory('after a protocol error');
  });

  test('close() while the server is still starting: the start fails and the connection stays closed', async () => {
    const silent = fakeServer([], { silent: true });
    // The start's own limit is far beyond the test's wait: only a start that close() ended passes.
    const connection = new McpConnection('slow', silent.factory, { startupTimeoutMs: 10 * HANG_MS });
    const starting = connection.connect().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    await connection.close();
    const error = await within(
      starting,
      'McpConnection.connect guided step 2 and McpConnection.close guided steps 2 and 3: keep the client and the transport on this before connecting, and close both in close(): a start still asking server/discover has not given the transport to the client yet (McpConnection.close guided step 3)',
    );
    expect(error, 'McpConnection.connect: a start that was closed does not succeed').toBeInstanceOf(Error);
    expect(
      connection.state,
      'McpConnection.connect: a closed connection stays closed, it is not stopped (and so never restarted) (guided step 5)',
    ).toBe('closed');
  });

  test('close() while the start is finishing (the handshake is done, connect has not returned): it throws and stays closed', async () => {
    const box = fakeServer([{ info: toolInfo('ping'), handler: () => text('pong') }]);
    let closing: Promise<void> | undefined;
    const connection = new McpConnection('box', () => {
      const transport = box.factory();
      const send = transport.send.bind(transport);
      // The agent closes the connection right after the client sent the handshake's last message
      // (notifications/initialized), before client.connect() has returned: no timing involved.
      transport.send = async (message, options) => {
        await send(message, options);
        if ('method' in message && message.method === 'notifications/initialized') closing = connection.close();
      };
      return transport;
    });
    const error = await within(
      connection.connect().then(
        () => undefined,
        (e: unknown) => e as Error,
      ),
      'McpConnection.connect: a start that close() interrupted must end, not hang (guided step 6)',
    );
    await closing;
    expect(
      error,
      'McpConnection.connect: close() ran while the start was finishing; connect must throw, not come back running (guided step 6)',
    ).toBeInstanceOf(Error);
    expect(
      error!.message,
      'McpConnection.connect: a start that close() interrupted throws `MCP server "<name>" is closed` (guided step 6)',
    ).toBe('MCP server "box" is closed');
    expect(
      connection.state,
      'McpConnection.connect: check for `closed` after client.connect returns; setting `running` unconditionally makes a closed connection say it runs (guided step 6)',
    ).toBe('closed');
    expect(
      closing,
      'the test closes the connection during the handshake (notifications/initialized was sent)',
    ).toBeDefined();
    const call = await connection.callTool('ping', {}).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(
      call?.message,
      'McpConnection.connect: the connection stays closed; a call fails and starts nothing (guided step 6)',
    ).toBe('MCP server "box" is closed');
    expect(
      box.state.connections,
      'McpConnection.connect: a closed connection is never started again (guided step 6)',
    ).toBe(1);
  });

  test("a late onclose from an earlier start's client does not stop the server that runs now", async () => {
    const box = fakeServer([{ info: toolInfo('ping'), handler: () => text('pong') }]);
    // The first start fails (the server knows no server/discover, then fails initialize) and its transport reports
    // its close only when the test says so, as a stdio server's pipe can close long after its client was closed
    // (SIGKILL sent, a grandchild holding it).
    const first: Transport = {
      start: async () => {},
      send: async (message) => {
        if (!('method' in message) || !('id' in message)) return;
        const error =
          message.method === 'server/discover'
            ? { code: -32601, message: 'Method not found' }
            : { code: -32603, message: 'spawn missing-server ENOENT' };
        queueMicrotask(() => first.onmessage?.({ jsonrpc: '2.0', id: message.id, error }));
      },
      close: async () => {},
    };
    let starts = 0;
    const connection = new McpConnection('box', () => (++starts === 1 ? first : box.factory()));
    const failed = await connection.connect().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(
      failed?.message,
      'McpConnection.connect: a transport that fails to start fails the start (guided step 5)',
    ).toMatch(/^MCP server "box" did not start: .*ENOENT/);
    const pong = { content: [{ type: 'text', text: 'pong' }] };
    expect(
      await within(
        connection.callTool('ping', {}),
        'McpConnection.callTool: the restart must not hang (guided step 2)',
      ),
      'McpConnection.callTool: the next call starts it again and runs (guided step 2)',
    ).toMatchObject(pong);
    first.onclose?.(); // the first start's pipe closes only now
    expect(
      connection.state,
      "McpConnection.connect: only the current client's onclose counts; the first start's client closed late and the server that runs now was taken for dead (guided step 4)",
    ).toBe('running');
    const again = await connection.callTool('ping', {}).then(
      (result) => result,
      (e: unknown) => e as Error,
    );
    expect(
      again,
      'McpConnection.connect: a late onclose of a replaced client must not stop the server that runs now (its calls then fail as "already restarted once") (guided step 4)',
    ).toMatchObject(pong);
    expect(
      box.state.connections,
      'McpConnection.connect: the running server is used, not started again (guided step 4)',
    ).toBe(1);
    await connection.close();
  });

  test('after close() a call fails at once and the server is not started again', async () => {
    const box = fakeServer([{ info: toolInfo('ping'), handler: () => text('pong') }]);
    const hub = await start({ box: box.factory });
    const tools = await hub.tools();
    await hub.close();
    expect(hub.connections[0]!.state, 'McpConnection.close: closed (guided step 1)').toBe('closed');
    const { history } = await runAgent(tools, [callTurn(['c1', 'mcp__box__ping', {}])]);
    expect(
      resultOf(history, 'c1').content,
      'McpConnection.callTool: a closed server says so (and is not restarted) (guided step 1)',
    ).toBe('Error: MCP server "box" is closed');
    expect(box.state.connections, 'McpConnection.close: closing is not a crash; no restart').toBe(1);
    expect(
      hub.connections[0]!.restarts,
      'McpConnection.callTool: a closed connection is never restarted (guided step 1)',
    ).toBe(0);
    await expect(
      hub.connections[0]!.connect(),
      'McpConnection.connect: a closed connection cannot start again (guided step 1)',
    ).rejects.toThrow(/closed/);
    expect(box.state.connections, 'McpConnection.connect: throw before making a transport (guided step 1)').toBe(1);
    await expect(hub.connections[0]!.close(), 'McpConnection.close: safe to call twice').resolves.toBeUndefined();
  });
});

describe('notifications/tools/list_changed (src/mcp/servers.ts: McpServers.refreshTools)', () => {
  test('the next model call is shown the new tools, and they run; the removed ones are gone', async () => {
    const docs = fakeServer([{ info: toolInfo('old') }]);
    const other = fakeServer([{ info: toolInfo('keep') }]);
    const hub = await start({ docs: docs.factory, other: other.factory });
    const tools = new ToolSet(await hub.tools());
    const changer = {
      afterToolCall: async () => {
        if (docs.state.calls.length === 1)
          await docs.changeTools([
            { info: toolInfo('fresh', ['q']), handler: (args) => text(`fresh ${String(args.q)}`) },
          ]);
      },
    };
    const { history, provider } = await runAgent(
      tools,
      [callTurn(['c1', 'mcp__docs__old', {}]), callTurn(['c2', 'mcp__docs__fresh', { q: 'x' }])],
      [changer, hub.hooks()],
    );
    const names = (turn: number) => provider.requests[turn - 1]!.tools.map((t) => t.name);
    expect(names(1), 'before the change').toEqual(['mcp__docs__old', 'mcp__other__keep']);
    expect(
      names(2),
      "McpServers.refreshTools: the request shows the server's new tools instead of the old ones; other servers' tools stay (guided step 3)",
    ).toEqual(['mcp__other__keep', 'mcp__docs__fresh']);
    expect(
      tools.names(),
      "McpServers.refreshTools: the run's ToolSet is swapped too, so the new tool can run (guided step 3)",
    ).toEqual(['mcp__other__keep', 'mcp__docs__fresh']);
    expect(resultOf(history, 'c2'), 'the new tool ran').toMatchObject({ content: 'fresh x', isError: false });
    expect(hub.connections[0]!.toolsChanged, 'McpServers.refreshTools: the flag is cleared (guided step 2)').toBe(
      false,
    );
    expect(history).toBeValidHistory('after a tool list change');
  });

  test('a server whose new list cannot be read offers nothing until it changes again; the others keep theirs', async () => {
    const docs = fakeServer([{ info: toolInfo('old') }]);
    const other = fakeServer([{ info: toolInfo('keep') }]);
    const hub = await start({ docs: docs.factory, other: other.factory });
    const tools = new ToolSet(await hub.tools());
    docs.state.listFails = 'index is rebuilding';
    await docs.changeTools([{ info: toolInfo('new') }]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const changed = await hub.refreshTools(
      { system: undefined, messages: [], tools: tools.definitions() },
      { signal: new AbortController().signal, turn: 1, history: [], emit: () => {}, tools },
    );
    expect(
      changed?.tools.map((t) => t.name),
      'McpServers.refreshTools: a listing that fails leaves the server with no tools, not with stale ones (guided step 2)',
    ).toEqual(['mcp__other__keep']);
    expect(tools.names(), 'McpServers.refreshTools guided step 3').toEqual(['mcp__other__keep']);
  });

  test("a stopped server's tools stay as they were (a call may restart it); it is not listed", async () => {
    const docs = fakeServer([{ info: toolInfo('old') }]);
    const hub = await start({ docs: docs.factory });
    const tools = new ToolSet(await hub.tools());
    hub.connections[0]!.toolsChanged = true;
    await docs.kill();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const ctx = { signal: new AbortController().signal, turn: 1, history: [], emit: () => {}, tools };
    expect(
      await hub.refreshTools({ system: undefined, messages: [], tools: tools.definitions() }, ctx),
      'McpServers.refreshTools: only running servers are refreshed (guided step 2)',
    ).toBeUndefined();
    expect(tools.names(), 'McpServers.refreshTools: a stopped server keeps its tools (guided step 2)').toEqual([
      'mcp__docs__old',
    ]);
  });

  test('without a change the hook changes nothing and lists nothing', async () => {
    const docs = fakeServer([{ info: toolInfo('a') }]);
    const hub = await start({ docs: docs.factory });
    const tools = new ToolSet(await hub.tools());
    const request = { system: undefined, messages: [], tools: tools.definitions() };
    const ctx = { signal: new AbortController().signal, turn: 1, history: [], emit: () => {}, tools };
    expect(
      await hub.refreshTools(request, ctx),
      'McpServers.refreshTools: nothing changed, return undefined (guided step 4)',
    ).toBeUndefined();
    hub.connections[0]!.toolsChanged = true;
    const changed = await hub.refreshTools(
      {
        ...request,
        tools: [{ name: 'read', description: 'built-in', inputSchema: { type: 'object' } }, ...request.tools],
      },
      ctx,
    );
    expect(
      changed?.tools.map((t) => t.name),
      'McpServers.refreshTools: built-in tools stay where they are (guided step 3)',
    ).toEqual(['read', 'mcp__docs__a']);
    hub.connections[0]!.toolsChanged = true;
    expect(
      await hub.refreshTools({ ...request }, { ...ctx, tools: undefined }),
      'McpServers.refreshTools: no ToolSet, nothing to do (guided step 1)',
    ).toBeUndefined();
  });
});
