/**
 * `npm run acp` driven by a client the kit did not write: acpx (npm, pinned in .ci/acpx), a headless ACP client, as
 * a person runs it in a terminal. acpx starts `npm run acp` itself over stdio and speaks to it as it speaks to any
 * agent; the test only reads what acpx printed (`--format json`: the ACP messages, one a line) and what the model
 * received. The model is a fake OpenAI-compatible API on 127.0.0.1 (the real OpenAI SDK in the agent, a dummy key);
 * HOME and the workspace are temp folders. Issue 31's "done when": a real client drives session/list, a config
 * option, a slash command and a bash call run in the client's terminal.
 *
 * acpx needs Node >= 22.13 and the kit's floor is 20, so acpx is not one of the kit's dependencies: CI installs it
 * with `npm install --prefix .ci/acpx --no-save` (the committed lock's versions) in its Node 24 part, and on an
 * older Node (or without that folder) this file is skipped and says so.
 *
 * Each prompt is an `acpx exec` (a one-shot session, which the agent still saves): acpx's persistent prompts go
 * through a background queue owner that it gives a fixed few seconds to start, which a busy machine can miss.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rememberTrust } from '../../solution/src/capstone/trust.js';
import { fakeOpenAI, openaiAnswer, openaiToolCall, tempFolders } from './agent-process.js';
import { REPO, runToEnd } from './helpers.js';

const ACPX_DIR = path.join(REPO, '.ci/acpx');
const ACPX_CLI = path.join(ACPX_DIR, 'node_modules/acpx/dist/cli.js');
const ACPX_VERSION = (
  JSON.parse(readFileSync(path.join(ACPX_DIR, 'package.json'), 'utf8')) as { dependencies: { acpx: string } }
).dependencies.acpx;

/** Why this file cannot run here, and how to run it; undefined when it can. */
function whyNot(): string | undefined {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 13)) {
    return `Node ${process.version} is older than 22.13, which acpx needs: run it on Node >= 22.13 (CI's Node 24 part does) after npm install --prefix .ci/acpx --no-save`;
  }
  const installed = path.join(ACPX_DIR, 'node_modules/acpx/package.json');
  if (!existsSync(installed))
    return 'acpx is not installed: npm install --prefix .ci/acpx --no-save (with Node >= 22.13)';
  const { version } = JSON.parse(readFileSync(installed, 'utf8')) as { version: string };
  if (version !== ACPX_VERSION)
    return `.ci/acpx has acpx ${version}, not the pinned ${ACPX_VERSION}: npm install --prefix .ci/acpx --no-save`;
  return undefined;
}

const skipped = whyNot();
const title = `acpx ${ACPX_VERSION} drives npm run acp over stdio: a model picked, a bash call in its terminal, a slash command, the session list`;

/** One word of a command line for acpx's --agent (which splits it as a shell would): quoted. */
const quoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * `npm run acp` as acpx starts it: npm in the repository (acpx starts the agent in the session's folder), the
 * reference solution, the OpenAI provider.
 */
const AGENT = ['npm', '--prefix', REPO, 'run', '--silent', 'acp', '--', '--provider', 'openai'].map(quoted).join(' ');

/** One ACP message as acpx printed it. */
type Frame = { id?: number | string | null; method?: string; params?: any; result?: any; error?: any };

interface AcpxRun {
  code: number | null;
  stdout: string;
  stderr: string;
  frames: Frame[];
}

describe.skipIf(skipped !== undefined)(skipped ? `${title}: SKIPPED, ${skipped}` : title, () => {
  const tempFolder = tempFolders('kit-acpx-');
  const api = fakeOpenAI(() => openaiAnswer('(nothing scripted)'));
  const where = { home: '', cwd: '' };
  /** The sessions acpx opened (their ids from session/new), with the prompt each was given. */
  const opened: Array<{ sessionId: string; prompt: string }> = [];

  /**
   * Runs `acpx <args>` in the workspace as a person would, with the fake API's variables and no real key: every
   * process (acpx, npm, the agent) on this Node. Waits for it to end; only a hang reaches KIT_RUN_MS.
   */
  async function acpx(args: string[]): Promise<AcpxRun> {
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: where.home, NO_COLOR: '1' };
    for (const name of Object.keys(env)) if (/^(ANTHROPIC|OPENAI|CLAUDE|KIT|ACPX)_/.test(name)) delete env[name];
    Object.assign(env, { OPENAI_API_KEY: 'dummy-key', OPENAI_BASE_URL: api.url, OPENAI_MODEL: 'fake-model' });
    env.PATH = [path.dirname(process.execPath), env.PATH].join(path.delimiter);
    const {
      status: code,
      stdout,
      stderr,
    } = await runToEnd(process.execPath, [ACPX_CLI, ...args], { cwd: where.cwd, env });
    const frames = stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Frame);
    return { code, stdout, stderr, frames };
  }

  /** `acpx exec <prompt>` with every tool call approved, its session remembered for the list. */
  async function exec(prompt: string, options: string[] = []): Promise<AcpxRun> {
    const run = await acpx(['--format', 'json', '--approve-all', '--agent', AGENT, ...options, 'exec', prompt]);
    expect(run.code, `acpx exec exits 0; stderr:\n${run.stderr}`).toBe(0);
    const created = run.frames.find((frame) => typeof frame.result?.sessionId === 'string');
    expect(created, `acpx printed the answer to session/new; stdout:\n${run.stdout}`).toBeDefined();
    opened.push({ sessionId: created!.result.sessionId, prompt });
    expect(run.frames.at(-1)?.result, 'the turn ended').toEqual(expect.objectContaining({ stopReason: 'end_turn' }));
    return run;
  }

  /** The session/update notifications acpx printed, by kind. */
  const updates = (run: AcpxRun, kind: string) =>
    run.frames
      .filter((frame) => frame.method === 'session/update' && frame.params.update.sessionUpdate === kind)
      .map((frame) => frame.params.update);
  /** The user messages of a request the fake model received. */
  const userTexts = (request: any): string[] =>
    request.messages
      .filter((message: { role: string }) => message.role === 'user')
      .map((message: { content: unknown }) =>
        typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
      );

  beforeAll(async () => {
    await api.start();
    where.home = tempFolder();
    where.cwd = tempFolder();
    writeFileSync(path.join(where.cwd, 'README.md'), '# Demo\n');
    // A project command, offered because the person trusted this folder before (in npm run agent).
    mkdirSync(path.join(where.cwd, '.claude/commands'), { recursive: true });
    writeFileSync(
      path.join(where.cwd, '.claude/commands/check.md'),
      '---\ndescription: Check a part of the project\nargument-hint: [part]\n---\nCheck $ARGUMENTS and report what you find.\n',
    );
    rememberTrust(where.home, where.cwd, { trusted: true });
  });
  afterAll(() => api.stop());

  it("a model picked with acpx --model reaches the model; the bash call runs in acpx's terminal and its output reaches the model", async () => {
    api.requests.length = 0;
    api.scripts.push(
      openaiToolCall('bash', { command: 'echo "sum: $((6 * 7))"' }, 'call_sum'),
      openaiAnswer('The sum is 42.'),
    );
    const run = await exec('add six sevens in the shell', ['--model', 'gpt-4.1']);

    const picked = run.frames.find((frame) => frame.method === 'session/set_config_option');
    expect(picked?.params, "acpx sets the model through the agent's model config option").toEqual(
      expect.objectContaining({ configId: 'model', value: 'gpt-4.1' }),
    );
    expect(
      api.requests.map((request) => request.model),
      'both requests of the turn go to the model picked',
    ).toEqual(['gpt-4.1', 'gpt-4.1']);

    const create = run.frames.find((frame) => frame.method === 'terminal/create');
    expect(create?.params, `the agent asks acpx for a terminal; stderr:\n${run.stderr}`).toEqual(
      expect.objectContaining({ command: 'bash', args: ['-c', 'echo "sum: $((6 * 7))"'], cwd: where.cwd }),
    );
    const terminalId = run.frames.find((frame) => typeof frame.result?.terminalId === 'string')?.result.terminalId;
    expect(terminalId, 'acpx started the terminal').toBeDefined();
    expect(updates(run, 'tool_call_update'), "the call's card shows the terminal").toContainEqual(
      expect.objectContaining({ toolCallId: 'call_sum', content: [{ type: 'terminal', terminalId }] }),
    );
    const output = run.frames.find((frame) => typeof frame.result?.output === 'string');
    expect(output?.result.output, 'acpx ran the command: its terminal/output has what bash printed').toContain(
      'sum: 42',
    );
    expect(
      run.frames.some((frame) => frame.method === 'terminal/release' && frame.params.terminalId === terminalId),
      'the terminal is released',
    ).toBe(true);

    const result = api.requests[1].messages.find(
      (message: { role: string; tool_call_id?: string }) =>
        message.role === 'tool' && message.tool_call_id === 'call_sum',
    );
    expect(result?.content, "the model reads the terminal's output and exit code").toMatch(
      /exit code: 0[\s\S]*sum: 42/,
    );
  });

  it("/check typed in acpx runs the trusted workspace's command: the model gets its prompt, never the slash line", async () => {
    api.requests.length = 0;
    api.scripts.push(openaiAnswer('Checked.'));
    const run = await exec('/check the parser');
    const offered = updates(run, 'available_commands_update')
      .at(-1)
      ?.availableCommands.map((command: { name: string }) => command.name);
    expect(offered, "acpx is told of the built-ins and the workspace's command").toEqual(
      expect.arrayContaining(['help', 'check']),
    );
    expect(api.requests, 'one request for one turn').toHaveLength(1);
    const asked = userTexts(api.requests[0]);
    expect(asked.at(-1), "the command's template with the arguments in it").toBe(
      'Check the parser and report what you find.',
    );
    expect(
      asked.some((text) => text.includes('/check')),
      'the slash line itself never reaches the model',
    ).toBe(false);
    expect(api.requests[0].model, 'a session acpx set no model for starts on the configured one').toBe('fake-model');
  });

  it('/help typed in acpx is answered by the agent without the model', async () => {
    api.requests.length = 0;
    const run = await exec('/help');
    expect(api.requests, 'no request reached the model').toHaveLength(0);
    const said = updates(run, 'agent_message_chunk')
      .map((update) => update.content.text)
      .join('');
    expect(said, "the answer lists the workspace's command").toContain('/check');
  });

  it('acpx sessions list shows the sessions saved for this folder, each with its title', async () => {
    const run = await acpx(['--format', 'json', '--agent', AGENT, 'sessions', 'list']);
    expect(run.code, `stderr:\n${run.stderr}`).toBe(0);
    const listed = JSON.parse(run.stdout) as {
      source: string;
      sessions: Array<{ sessionId: string; cwd: string; title: string | null }>;
    };
    expect(listed.source, "the list comes from the agent (session/list), not from acpx's own records").toBe('agent');
    const byId = new Map(listed.sessions.map((session) => [session.sessionId, session]));
    expect(opened.length).toBe(3);
    const [bash, command] = opened;
    expect(byId.get(bash!.sessionId), 'the first session, titled by its prompt').toEqual(
      expect.objectContaining({ cwd: where.cwd, title: 'add six sevens in the shell' }),
    );
    expect(byId.get(command!.sessionId), "a slash command's session is titled by the prompt it became").toEqual(
      expect.objectContaining({ cwd: where.cwd, title: 'Check the parser and report what you find.' }),
    );
  });
});
