/**
 * `npm run acp` (scripts/acp.ts) as an editor runs it: a child process spoken to over its stdin and stdout by the
 * SDK's own client, with a temp HOME and no API key (the offline provider), or with a fake OpenAI API on 127.0.0.1.
 * Nothing reaches the network.
 */
import * as acp from '@agentclientprotocol/sdk';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeOpenAI, openaiAnswer, openaiToolCall, stubbedTree, tempFolders } from './agent-process.js';
import { changes, REPO } from './helpers.js';

const tempFolder = tempFolders('kit-acp-');

/** What the editor offers and says at initialize. */
const INITIALIZE: acp.InitializeRequest = {
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: {},
  clientInfo: { name: 'kit-test', version: '0' },
};

/** A picture as an editor attaches it: a PNG's first bytes, base64. */
const PNG = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' } satisfies acp.ContentBlock;

/** A workspace with a README.md. */
function workspace(): string {
  const dir = tempFolder();
  writeFileSync(path.join(dir, 'README.md'), '# Demo\n\nA demo project.\n');
  return dir;
}

/**
 * `npm run acp` as an editor starts it: node on scripts/acp.ts from the repository, with HOME `home`, no provider
 * variables but `env`. `out.stdout` is every byte it wrote there (a tee of the stream the client reads), `exited`
 * its exit code once it has ended.
 */
function startAcp(home: string, env: Record<string, string> = {}) {
  const base: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const name of Object.keys(base)) if (/^(ANTHROPIC|OPENAI|CLAUDE|KIT)_/.test(name)) delete base[name];
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO, 'scripts/acp.ts')],
    { cwd: REPO, env: { ...base, ...env } },
  );
  const out = { stdout: '', stderr: '' };
  child.stderr.on('data', (chunk) => (out.stderr += chunk));
  const [forClient, forTest] = (Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>).tee();
  const copied = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of forTest) out.stdout += decoder.decode(chunk, { stream: true });
  })();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), forClient);
  /** Closes the child's stdin, as an editor does when it is done with the agent (the SDK's close leaves it open). */
  const closeStdin = () => child.stdin.end();
  return { child, out, stream, closeStdin, exited: exited.then(async (code) => (await copied, code)) };
}

/** The SDK's client, recording every session/update and permission question, answering each with `answer`. */
function editor(answer: () => string = () => 'allow_once') {
  const updates: acp.SessionNotification[] = [];
  const updated = changes();
  const questions: acp.RequestPermissionRequest[] = [];
  const client = acp
    .client({ name: 'kit-test' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
      updated.changed();
    })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      questions.push(params);
      return { outcome: { outcome: 'selected', optionId: answer() } };
    });
  return { client, updates, questions, until: updated.until };
}

const kinds = (updates: acp.SessionNotification[]) => updates.map(({ update }) => update.sessionUpdate);
/** The text of every chunk of `kind` (agent_message_chunk, user_message_chunk), joined. */
const text = (updates: acp.SessionNotification[], kind: string) =>
  updates
    .flatMap(({ update }) => {
      const content = update.sessionUpdate === kind ? (update as acp.ContentChunk).content : undefined;
      return content?.type === 'text' ? [content.text] : [];
    })
    .join('');

/** Every line a child wrote on stdout: one JSON-RPC 2.0 message each. */
function expectOnlyFrames(stdout: string): void {
  const lines = stdout.split('\n').filter((line) => line !== '');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    const message = JSON.parse(line) as Record<string, unknown>;
    expect(message.jsonrpc, line).toBe('2.0');
    expect('method' in message || 'result' in message || 'error' in message, line).toBe(true);
  }
  expect(stdout.endsWith('\n')).toBe(true);
}

/**
 * The records of session `id`, saved under `home` (~/.coding-agent/sessions/<project>/<id>.jsonl), after checking
 * that the session was closed: its last record says ended, and its lock is gone.
 */
function closedSession(home: string, id: string): Array<Record<string, any>> {
  const dir = path.join(home, '.coding-agent', 'sessions');
  const found = existsSync(dir)
    ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).find((name) => path.basename(name) === `${id}.jsonl`)
    : undefined;
  expect(found, `no ${id}.jsonl under ${dir}`).toBeDefined();
  const file = path.join(dir, found!);
  const records = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(records.at(-1)).toMatchObject({ type: 'status', status: 'ended' });
  expect(existsSync(`${file}.lock`), 'the lock is released').toBe(false);
  return records;
}

/**
 * One `npm run acp` for a describe: started in beforeAll with a temp HOME (and `env()`, read then) beside a fresh
 * workspace, the `recorded` editor connected to it; killed in afterAll if it is still running.
 */
function oneChild(recorded: ReturnType<typeof editor>, env: () => Record<string, string> = () => ({})) {
  const child = {
    home: '',
    cwd: '',
    acp: undefined as unknown as ReturnType<typeof startAcp>,
    connection: undefined as unknown as acp.ClientConnection,
  };
  beforeAll(() => {
    child.home = tempFolder();
    child.cwd = workspace();
    child.acp = startAcp(child.home, env());
    child.connection = recorded.client.connect(child.acp.stream);
  });
  afterAll(() => void child.acp.child.kill());
  return child;
}

describe('npm run acp on the offline provider: initialize, a prompt, the session saved and loaded again', () => {
  const recorded = editor();
  const served = oneChild(recorded);
  let sessionId = '';

  it('initialize answers with the agent, its version, and loadSession', async () => {
    const init = await served.connection.agent.request(acp.methods.agent.initialize, INITIALIZE);
    expect(init.protocolVersion).toBe(acp.PROTOCOL_VERSION);
    expect(init.agentInfo).toEqual({
      name: 'coding-agent',
      version: JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')).version,
    });
    expect(init.agentCapabilities?.loadSession).toBe(true);
    expect(
      init.agentCapabilities?.promptCapabilities?.image ?? false,
      'the offline stand-in reads no pictures, so the editor offers none',
    ).toBe(false);
  });

  it('session/new and a prompt: the read call as a card that completes, the answer in chunks, end_turn', async () => {
    const { cwd, connection } = served;
    const created = await connection.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    sessionId = created.sessionId;
    expect(created.modes?.currentModeId).toBe('default');
    const answer = await connection.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'read README.md' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    const updates = recorded.updates.map(({ update }) => update);
    const call = updates.find((update) => update.sessionUpdate === 'tool_call');
    expect(
      call,
      "the card is drawn as soon as the model starts writing the call: the tool's name, pending",
    ).toMatchObject({ kind: 'read', title: 'read', status: 'pending' });
    const whole = updates.find(
      (update) =>
        update.sessionUpdate === 'tool_call_update' &&
        update.toolCallId === (call as { toolCallId: string }).toolCallId &&
        update.rawInput !== undefined,
    );
    expect(whole, 'the whole call fills that card in').toMatchObject({
      title: 'Read README.md',
      status: 'pending',
      locations: [{ path: path.join(cwd, 'README.md') }],
    });
    const done = updates.find((update) => update.sessionUpdate === 'tool_call_update' && update.status === 'completed');
    expect(done).toMatchObject({ toolCallId: (call as { toolCallId: string }).toolCallId });
    expect(JSON.stringify(done)).toContain('A demo project.');
    expect(kinds(recorded.updates).lastIndexOf('agent_message_chunk')).toBeGreaterThan(
      kinds(recorded.updates).indexOf('tool_call'),
    );
    expect(text(recorded.updates, 'agent_message_chunk')).toContain('Offline mode');
    expect(recorded.updates.every((update) => update.sessionId === sessionId)).toBe(true);
  });

  it('a prompt with a picture is refused as invalid params, and the session is left as it was', async () => {
    const before = recorded.updates.length;
    const error = await served.connection.agent
      .request(acp.methods.agent.session.prompt, { sessionId, prompt: [PNG, { type: 'text', text: 'what is this?' }] })
      .then(
        () => undefined,
        (thrown: unknown) => thrown as { code?: number; message?: string },
      );
    expect(
      error,
      'the offline stand-in reads no pictures: the prompt must be refused, not run without its picture',
    ).toBeDefined();
    expect(error).toMatchObject({ code: -32602 });
    expect(error!.message).toMatch(/image/);
    expect(recorded.updates.length, 'a refused prompt sends no update').toBe(before);
  });

  it('when the client closes stdin the process exits 0, having written only JSON-RPC on stdout and saved the session', async () => {
    served.connection.close();
    served.acp.closeStdin();
    expect(await served.acp.exited, served.acp.out.stderr).toBe(0);
    expectOnlyFrames(served.acp.out.stdout);
    expect(served.acp.out.stderr).toContain('offline stand-in');
    expect(closedSession(served.home, sessionId)[0]).toMatchObject({ type: 'session', id: sessionId, cwd: served.cwd });
  });

  it('session/load in a new process replays the saved conversation, the request first', async () => {
    const again = startAcp(served.home);
    const replay = editor();
    const loaded = await replay.client.connectWith(again.stream, async (agent) => {
      await agent.request(acp.methods.agent.initialize, INITIALIZE);
      return agent.request(acp.methods.agent.session.load, { sessionId, cwd: served.cwd, mcpServers: [] });
    });
    again.closeStdin();
    expect(loaded.modes?.currentModeId).toBe('default');
    expect(kinds(replay.updates)[0]).toBe('user_message_chunk');
    expect(text(replay.updates, 'user_message_chunk')).toBe('read README.md');
    expect(replay.updates.map(({ update }) => update)).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'tool_call', kind: 'read', status: 'completed' }),
    );
    expect(text(replay.updates, 'agent_message_chunk')).toContain('Offline mode');
    expect(await again.exited, again.out.stderr).toBe(0);
    expectOnlyFrames(again.out.stdout);
  });
});

describe('npm run acp against an OpenAI-compatible API: permission questions in the editor, a close mid-prompt', () => {
  const api = fakeOpenAI(() => openaiAnswer('(nothing scripted)'));
  beforeAll(api.start);
  afterAll(api.stop);
  let choice = 'reject_once';
  const recorded = editor(() => choice);
  // Another base URL than OpenAI's reads no pictures unless OPENAI_IMAGE_INPUT says it does (chapter 5).
  const served = oneChild(recorded, () => ({
    OPENAI_API_KEY: 'dummy-key',
    OPENAI_BASE_URL: api.url,
    OPENAI_MODEL: 'fake-model',
    OPENAI_IMAGE_INPUT: 'true',
  }));
  let sessionId = '';
  let init: acp.InitializeResponse | undefined;
  beforeAll(async () => {
    init = await served.connection.agent.request(acp.methods.agent.initialize, INITIALIZE);
    ({ sessionId } = await served.connection.agent.request(acp.methods.agent.session.new, {
      cwd: served.cwd,
      mcpServers: [],
    }));
  });

  it('a bash call in default mode asks the editor; reject_once means the command did not run, and the model reads why', async () => {
    api.scripts.push(openaiToolCall('bash', { command: 'touch ran.txt' }), openaiAnswer('I will not run it.'));
    const answer = await served.connection.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'make ran.txt' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    expect(recorded.questions).toHaveLength(1);
    expect(recorded.questions[0]!.toolCall).toMatchObject({ kind: 'execute', rawInput: { command: 'touch ran.txt' } });
    expect(recorded.questions[0]!.options.map((option) => option.optionId)).toEqual([
      'allow_once',
      'allow_always',
      'reject_once',
      'reject_always',
    ]);
    expect(existsSync(path.join(served.cwd, 'ran.txt')), 'the rejected command ran').toBe(false);
    expect(recorded.updates.map(({ update }) => update)).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'tool_call_update', status: 'failed' }),
    );
    const toolMessage = api.requests[1].messages.find((message: { role: string }) => message.role === 'tool');
    expect(toolMessage.content).toContain('rejected');
    expect(text(recorded.updates, 'agent_message_chunk')).toBe('I will not run it.');
  });

  it("a session is built by chapter 15's factory: the workspace's settings hooks run, and a blocked call is never asked about", async () => {
    const settings = {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "no shell in this project" >&2; exit 2' }] },
        ],
      },
    };
    mkdirSync(path.join(served.cwd, '.claude'), { recursive: true });
    writeFileSync(path.join(served.cwd, '.claude/settings.json'), JSON.stringify(settings));
    // The person trusted this folder before (in npm run agent): its hooks act.
    mkdirSync(path.join(served.home, '.coding-agent'), { recursive: true });
    writeFileSync(
      path.join(served.home, '.coding-agent/trust.json'),
      JSON.stringify({ folders: { [realpathSync(served.cwd)]: { trusted: true, at: new Date().toISOString() } } }),
    );
    const hooked = await served.connection.agent.request(acp.methods.agent.session.new, {
      cwd: served.cwd,
      mcpServers: [],
    });
    rmSync(path.join(served.cwd, '.claude'), { recursive: true, force: true });
    const asked = recorded.questions.length;
    api.requests.length = 0;
    api.scripts.push(openaiToolCall('bash', { command: 'touch hooked.txt' }), openaiAnswer('The hook said no.'));
    const answer = await served.connection.agent.request(acp.methods.agent.session.prompt, {
      sessionId: hooked.sessionId,
      prompt: [{ type: 'text', text: 'make hooked.txt' }],
    });
    expect(answer.stopReason).toBe('end_turn');
    expect(recorded.questions.length, 'the PreToolUse hook blocks before the gate, so the editor is not asked').toBe(
      asked,
    );
    expect(existsSync(path.join(served.cwd, 'hooked.txt')), 'the blocked command did not run').toBe(false);
    const toolMessage = api.requests[1].messages.find((message: { role: string }) => message.role === 'tool');
    expect(toolMessage.content, "the model reads the hook's stderr").toContain('no shell in this project');
  });

  it('with OPENAI_IMAGE_INPUT=true the editor may attach a picture, and it reaches the API as a data URL before the text', async () => {
    expect(
      init?.agentCapabilities?.promptCapabilities?.image,
      "npm run acp takes promptCapabilities.image from the provider's imageInput",
    ).toBe(true);
    api.scripts.push(openaiAnswer('A logo.'));
    const prompt: acp.ContentBlock[] = [{ type: 'text', text: 'what is this?' }, PNG];
    const answer = await served.connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt });
    expect(answer.stopReason).toBe('end_turn');
    const sent = api.requests.at(-1).messages.at(-1);
    expect(sent).toEqual({
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.data}` } },
        { type: 'text', text: 'what is this?' },
      ],
    });
    expect(text(recorded.updates, 'agent_message_chunk')).toContain('A logo.');
  });

  it('closing stdin while a command runs cancels the run, saves the session whole, and exits 0', async () => {
    choice = 'allow_once';
    api.scripts.push(openaiToolCall('bash', { command: 'sleep 300' }, 'call_sleep'));
    const prompt = served.connection.agent
      .request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'wait a while' }] })
      .catch(() => undefined);
    await recorded.until(
      () =>
        recorded.updates.some(
          ({ update }) =>
            update.sessionUpdate === 'tool_call_update' &&
            update.toolCallId === 'call_sleep' &&
            update.status === 'in_progress',
        ),
      'the sleep call in progress',
    );
    served.connection.close();
    served.acp.closeStdin();
    expect(await served.acp.exited, served.acp.out.stderr).toBe(0);
    await prompt;
    expectOnlyFrames(served.acp.out.stdout);
    // The run ended (cancelled, the call given its result) before the session was closed and the process exited.
    const records = closedSession(served.home, sessionId);
    expect(records).toContainEqual(expect.objectContaining({ type: 'status', reason: 'cancelled' }));
    expect(records).toContainEqual(
      expect.objectContaining({
        type: 'message',
        message: expect.objectContaining({ role: 'tool', toolCallId: 'call_sleep' }),
      }),
    );
  });
});

describe('npm run acp --starter: a chapter the learner has not finished', () => {
  it('is left out, said in one line on stderr, and a stub reached answers as an error that names the chapter to finish', async () => {
    const tree = stubbedTree(tempFolder(), (region) => region.chapter >= 13);
    const acpProcess = startAcp(tempFolder(), { KIT_SRC: tree });
    const outcome = await editor().client.connectWith(acpProcess.stream, (agent) =>
      agent.request(acp.methods.agent.initialize, INITIALIZE).catch((error: unknown) => error),
    );
    acpProcess.closeStdin();
    expect(outcome).toBeInstanceOf(acp.RequestError);
    expect((outcome as acp.RequestError).message).toContain('finish chapter 14 first');
    expect((outcome as acp.RequestError).message).toContain('AcpServer.initialize');
    expect(
      acpProcess.out.stderr,
      'one line (stderr: stdout is the protocol) says chapters 13 and 16 are left out',
    ).toMatch(
      /^\(your code, without planning tools \(13\), the sandbox \(16: [^)]*\) until those chapters are done; /m,
    );
    expect(await acpProcess.exited, acpProcess.out.stderr).toBe(0);
    expectOnlyFrames(acpProcess.out.stdout);
  });
});
