/**
 * npm run demo -- chapterN [--solution]
 *
 * A chapter's feature at work, offline: npm run agent on a small throw-away project, with a scripted model
 * (scripts/agent/scripted-provider.ts, through KIT_DEMO_SCRIPT) that does what shows the chapter's part: chapter 4's
 * tools, chapter 8's bash question, chapter 10's retry, chapter 11's MCP server call, and so on. No key, no network
 * (the MCP server of chapter 11 is a local process). Each demo says first what to look for.
 *
 * It runs the learner's code (starter/src, as npm run agent -- --starter) once the chapter's stubs are written, and
 * says so; before that, the reference solution, and says that instead. --solution always runs the reference. The
 * project and the agent's home (its sessions) are temporary folders, removed at the end.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DemoScript, ScriptedTurn } from './agent/scripted-provider.js';
import { parseScriptArgs } from './kit/args.js';
import { chapterStubs } from './kit/stubs.js';
import { CHAPTERS, parseChapter } from './lib/chapters.js';
import { ROOT } from './lib/paths.js';

export interface DemoRun {
  /** npm run agent's arguments before `-p <prompt>`. */
  args?: string[];
  prompt: string;
  /** Extra environment for the agent (the project folder is `{cwd}` in a value). */
  env?: Record<string, string>;
}

export interface Demo {
  /** What to look for, printed before the run. */
  look: string;
  /** The project's files (relative path → text); `{cwd}` in a text is the project folder. */
  files?: Record<string, string>;
  script: DemoScript;
  runs: DemoRun[];
  /** The runs keep their session (chapter 12); the others run with --no-session (the home is thrown away anyway). */
  sessions?: boolean;
  /**
   * The script is served as Anthropic's Messages API by a fake server on 127.0.0.1 (chapter 5): the agent uses its
   * real AnthropicProvider, and each request it sends is shown as it arrives.
   */
  wire?: 'anthropic';
  /** The runs talk to npm run acp as an editor does (chapter 14), over its stdin and stdout, not to npm run agent. */
  acp?: boolean;
}

const PROJECT: Record<string, string> = {
  'README.md': '# Tally\n\nA tiny command-line tally counter.\n',
  'notes.txt': 'buy milk\ncall the bank\nwater the plants\n',
  'src/app.ts':
    'export function tally(items: string[]): number {\n  // TODO: ignore blank items\n  return items.length;\n}\n\n// TODO: a --help flag\n',
  'src/util.ts': 'export const twice = (n: number) => n * 2;\n',
};

const say = (text: string): ScriptedTurn => ({ text });
const call = (text: string, ...calls: Array<[string, Record<string, unknown>]>): ScriptedTurn => ({
  text,
  calls: calls.map(([name, args]) => ({ name, arguments: args })),
});
const one = (turns: ScriptedTurn[], delayMs = 0): DemoScript => ({ conversations: [{ turns }], delayMs });

const require = createRequire(import.meta.url);
const filesystemServer = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist/index.js',
);

export const DEMOS: Record<number, Demo> = {
  1: {
    look: 'one prompt, one assistant turn: the run ends because the stop reason is end_turn, not tool_use',
    script: one([say('Hello! This is a scripted model: one turn, no tools, so the loop stops here.')]),
    runs: [{ prompt: 'Say hello.' }],
  },
  2: {
    look: 'the model calls the read tool; its result comes back with line numbers',
    script: one([call('Let me read notes.txt.', ['read', { path: 'notes.txt' }]), say('notes.txt has 3 lines.')]),
    runs: [{ prompt: 'What is in notes.txt?' }],
  },
  3: {
    look: 'the loop: a tool call, its result sent back, a second request, then the answer built on that result',
    script: one([
      call('I will read the file first.', ['read', { path: 'src/app.ts' }]),
      say('src/app.ts has two TODO comments: "ignore blank items" (line 2) and "a --help flag" (line 6).'),
    ]),
    runs: [{ prompt: 'What is left to do in src/app.ts?' }],
  },
  4: {
    look: 'the real toolbox: glob, grep, bash and edit, each with its result (the edit as a diff)',
    script: one([
      call('Let me look around.', ['glob', { pattern: '**/*.ts' }], ['grep', { pattern: 'TODO' }]),
      call(
        'Counting lines, then fixing the first TODO.',
        ['bash', { command: 'wc -l src/app.ts' }],
        [
          'edit',
          {
            path: 'src/app.ts',
            old_string: '  // TODO: ignore blank items\n  return items.length;',
            new_string: '  return items.filter((item) => item.trim() !== "").length;',
          },
        ],
      ),
      say('Done: tally() now ignores blank items; the --help flag is still to do.'),
    ]),
    runs: [{ args: ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash(wc:*)'], prompt: 'Fix a TODO.' }],
  },
  5: {
    look: "a real provider: the agent's AnthropicProvider speaks Anthropic's Messages API to a fake server on this machine, which shows each request as it arrives (the history in the API's shape: tool_use and tool_result blocks)",
    wire: 'anthropic',
    script: one([call('Let me read it.', ['read', { path: 'notes.txt' }]), say('notes.txt lists three chores.')]),
    runs: [{ prompt: 'What is in notes.txt?' }],
  },
  6: {
    look: 'the answer streams in word by word (on a terminal) instead of arriving whole',
    script: one(
      [
        say(
          'Streaming means you see each piece of the answer as the model writes it: the provider yields text deltas, the agent hands each one to the screen at once, and the whole turn is put together from the same pieces when the finish event arrives.',
        ),
      ],
      40,
    ),
    runs: [{ prompt: 'What is streaming?' }],
  },
  7: {
    look: 'the events of a run, one JSON object a line (--output-format stream-json): the tool call, its result, the text, the result of the run',
    script: one([call('Reading it.', ['read', { path: 'notes.txt' }]), say('Three things to do.')]),
    runs: [{ args: ['--output-format', 'stream-json'], prompt: 'What is in notes.txt?' }],
  },
  8: {
    look: 'the bash question, with the rule Bash(ls:*) allowed: `ls -la` is covered and runs; `ls && rm -rf build` is two commands, the rule covers only the first, so it would need a yes (with -p nobody can give one: refused)',
    script: one([
      call('Listing, then cleaning up.', ['bash', { command: 'ls -la' }], ['bash', { command: 'ls && rm -rf build' }]),
      say('I listed the folder; removing build was not allowed.'),
    ]),
    files: { 'build/out.js': 'console.log(1);\n' },
    runs: [{ args: ['--allowedTools', 'Bash(ls:*)'], prompt: 'Clean the build folder.' }],
  },
  9: {
    look: 'two read-only calls at once, then a result longer than the budget (30000 characters): cut, with a note saying where the whole text is kept, and the end of it read back from there',
    files: {
      'build.log': Array.from(
        { length: 1500 },
        (_, i) => `step ${i + 1}: compiled module ${i + 1} of 1500 without warnings`,
      ).join('\n'),
    },
    script: one([
      call('Two reads side by side.', ['read', { path: 'README.md' }], ['read', { path: 'notes.txt' }]),
      call('Now the long log.', ['read', { path: 'build.log', limit: 1500 }]),
      // The third call of the conversation: its whole result is kept as .agent/outputs/demo_0_3.txt.
      call('Its end, from the file the note names.', [
        'read',
        { path: '.agent/outputs/demo_0_3.txt', offset: 910, limit: 5 },
      ]),
      say('The log was cut to the budget; the whole of it was kept in a file the read tool pages through.'),
    ]),
    runs: [{ prompt: 'Read both files, then the build log.' }],
  },
  10: {
    look: 'the model is overloaded (HTTP 529) twice: the agent says it retries, waits, and the third try answers',
    script: one([{ text: 'Answered on the third try.', fail: { status: 529, message: 'Overloaded', times: 2 } }]),
    runs: [{ prompt: 'Are you there?' }],
  },
  11: {
    look: "an MCP server's tool (server-filesystem's list_directory) offered to the model and called like a built-in",
    files: {
      '.mcp.json': JSON.stringify({
        mcpServers: { fs: { command: process.execPath, args: [filesystemServer, '{cwd}'] } },
      }),
    },
    script: one([
      call('Asking the filesystem server.', ['mcp__fs__list_directory', { path: '{cwd}' }]),
      say('The MCP server listed the folder.'),
    ]),
    runs: [{ args: ['--trust-workspace', '--allowedTools', 'mcp__fs'], prompt: 'List this folder through MCP.' }],
  },
  12: {
    look: 'a session kept on disk and gone on with: the second run (--continue) sends the first exchange again',
    script: one([say('Noted: the launch is on Friday.'), say('You told me the launch is on Friday.')]),
    runs: [{ prompt: 'Remember: the launch is on Friday.' }, { args: ['--continue'], prompt: 'When is the launch?' }],
    sessions: true,
  },
  13: {
    look: 'a sub-agent: the task tool runs a second conversation with its own tools, and only its answer comes back',
    script: {
      conversations: [
        {
          when: 'Count the TODO comments',
          turns: [call('Reading.', ['read', { path: 'src/app.ts' }]), say('2 TODO comments in src/app.ts.')],
        },
        {
          turns: [
            call('I will hand this to a sub-agent.', [
              'task',
              { description: 'Count TODOs', prompt: 'Count the TODO comments in src/app.ts.' },
            ]),
            say('The sub-agent found 2 TODO comments.'),
          ],
        },
      ],
    },
    runs: [{ prompt: 'How many TODOs are there? Delegate it.' }],
  },
  14: {
    look: "the agent as an ACP server (npm run acp): an editor's side of the talk, JSON-RPC over stdin and stdout: initialize, session/new, session/prompt, and the session/update notifications (the tool call as a card, its result, the answer in chunks)",
    wire: 'anthropic',
    acp: true,
    script: one([call('Let me read it.', ['read', { path: 'notes.txt' }]), say('notes.txt lists three chores.')]),
    runs: [{ prompt: 'What is in notes.txt?' }],
  },
  15: {
    look: "a project's settings at work: a PreToolUse command hook (.claude/settings.json) refuses `rm` with its own reason, which goes back to the model",
    files: {
      '.claude/settings.json': JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                {
                  type: 'command',
                  command:
                    "cat > /dev/null; echo 'rm is not allowed in this project: move files to trash/ instead' >&2; exit 2",
                },
              ],
            },
          ],
        },
      }),
    },
    script: one([
      call('Removing the notes.', ['bash', { command: 'rm notes.txt' }]),
      say("The project's hook refused rm; I left notes.txt where it is."),
    ]),
    runs: [{ args: ['--trust-workspace', '--allowedTools', 'Bash(rm:*)'], prompt: 'Delete notes.txt.' }],
  },
  16: {
    look: 'the sandbox, turned on by the local settings of a folder the person trusted: a command inside the project runs without a question, and a write outside it is refused by the operating system, which the model reads (where bubblewrap cannot run here, one line says so and the commands are asked about as before)',
    files: {
      '.claude/settings.local.json': JSON.stringify({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true } }),
    },
    script: one([
      call(
        'Writing inside the project, then outside it.',
        ['bash', { command: 'echo made > made.txt' }],
        ['bash', { command: 'echo leaked > /tmp/kit-demo-leaked.txt' }],
      ),
      say('Inside the project I could write without asking; outside it, the sandbox refused.'),
    ]),
    runs: [{ args: ['--trust-workspace'], prompt: 'Write a file inside the project and one outside it.' }],
  },
};

const USAGE = 'npm run demo -- chapterN [--solution]';

async function main(): Promise<number> {
  const { values, positionals } = parseScriptArgs(USAGE, {
    allowPositionals: true,
    options: { solution: { type: 'boolean' } },
  });
  const chapter = positionals.length === 1 ? parseChapter(positionals[0]!) : undefined;
  const demo = chapter === undefined ? undefined : DEMOS[chapter];
  if (!demo) {
    console.error(
      `${chapter === undefined ? 'Name one chapter' : CHAPTERS.some((c) => c.number === chapter) ? `Chapter ${chapter} has no demo yet` : `There is no chapter ${chapter}`}. The demos:\n\n${Object.keys(
        DEMOS,
      )
        .map((n) => `  chapter${n}`.padEnd(13) + CHAPTERS.find((c) => c.number === Number(n))!.title)
        .join('\n')}\n\nUsage: ${USAGE}`,
    );
    return 2;
  }
  const unfinished = chapterStubs(ROOT, chapter!).filter((stub) => stub.todo);
  const starter = !values.solution && unfinished.length === 0;
  const title = CHAPTERS.find((c) => c.number === chapter)!.title;
  console.log(`Chapter ${chapter}, ${title}: ${demo.look}.`);
  console.log(
    values.solution
      ? 'Running the reference solution (solution/src), with a scripted model: no key, no network.'
      : starter
        ? 'Running your code (starter/src, as npm run agent -- --starter), with a scripted model: no key, no network.'
        : `Running the reference solution: chapter ${chapter} is not finished in starter/src yet (${unfinished.map((s) => s.name).join(', ')}); once it is, this runs your code.`,
  );
  const cwd = mkdtempSync(path.join(tmpdir(), 'kit-demo-'));
  const home = mkdtempSync(path.join(tmpdir(), 'kit-demo-home-'));
  const fill = (text: string) => text.replaceAll('{cwd}', cwd);
  try {
    for (const [rel, text] of Object.entries({ ...PROJECT, ...demo.files })) {
      mkdirSync(path.dirname(path.join(cwd, rel)), { recursive: true });
      writeFileSync(path.join(cwd, rel), fill(text));
    }
    const scriptFile = path.join(home, 'demo-script.json');
    writeFileSync(scriptFile, fill(JSON.stringify(demo.script)));
    const api = demo.wire ? await anthropicApi(JSON.parse(fill(JSON.stringify(demo.script))) as DemoScript) : undefined;
    let code = 0;
    for (const run of demo.runs) {
      console.log(
        demo.acp
          ? '\n$ npm run acp   (spoken to by this demo as an editor would)\n'
          : `\n$ npm run agent -- ${[...(run.args ?? []), '-p', JSON.stringify(run.prompt)].join(' ')}\n`,
      );
      if (demo.acp) {
        code = await editor(run.prompt, { cwd, home, starter, env: api?.env ?? {} });
        if (code !== 0) break;
        continue;
      }
      const own = [...(starter ? ['--starter'] : []), ...(demo.sessions ? [] : ['--no-session'])];
      code = await agent([...own, ...(run.args ?? []), '-p', run.prompt], {
        cwd,
        home,
        scriptFile,
        env: {
          ...Object.fromEntries(Object.entries(run.env ?? {}).map(([k, v]) => [k, fill(v)])),
          ...(api?.env ?? {}),
        },
        scripted: !api,
      });
      if (code !== 0) break;
    }
    await api?.close();
    return code;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Runs npm run acp (scripts/acp.ts) and speaks to it as an editor: initialize, session/new, one session/prompt,
 * then closes its stdin. Each message is shown in short; a request from the agent (a permission, say) is refused.
 */
function editor(
  prompt: string,
  options: { cwd: string; home: string; starter: boolean; env: Record<string, string> },
): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/^(ANTHROPIC|OPENAI|CLAUDE|KIT)_/.test(name)) delete env[name];
  Object.assign(env, options.env, { HOME: options.home });
  const args = ['--import', 'tsx', path.join(ROOT, 'scripts/acp.ts'), ...(options.starter ? ['--starter'] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'inherit'] });
  const pending = new Map<number, (message: Record<string, any>) => void>();
  let next = 0;
  let chunks = '';
  const flushChunks = () => {
    if (chunks) console.log(`← session/update agent_message_chunk…: ${JSON.stringify(chunks)}`);
    chunks = '';
  };
  const send = (message: Record<string, unknown>) =>
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, any>>((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      console.log(`→ ${method} ${JSON.stringify(params)}`);
      send({ id, method, params });
    });
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (!line) continue;
      const message = JSON.parse(line) as Record<string, any>;
      if (message.method === 'session/update') {
        const { sessionUpdate, ...rest } = message.params.update as Record<string, any>;
        if (sessionUpdate === 'agent_message_chunk') {
          chunks += rest.content?.text ?? '';
          continue;
        }
        flushChunks();
        const { toolCallId, title, kind, status, content } = rest;
        const shown = Object.fromEntries(
          Object.entries({ toolCallId, title, kind, status, content }).filter(([, v]) => v !== undefined),
        );
        const text = JSON.stringify(Object.keys(shown).length ? shown : rest);
        console.log(`← session/update ${sessionUpdate}: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`);
      } else if (message.method !== undefined && message.id !== undefined) {
        console.log(`← ${message.method} (a request of the agent's: this editor says no)`);
        send({ id: message.id, error: { code: -32601, message: 'not offered by the demo editor' } });
      } else if (message.id !== undefined) {
        flushChunks();
        const text = JSON.stringify(message.result ?? message.error);
        console.log(`← answer ${message.id}: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`);
        pending.get(message.id)?.(message);
      }
    }
  });
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  return (async () => {
    const init = await request('initialize', {
      protocolVersion: 1,
      clientCapabilities: {},
      clientInfo: { name: 'kit-demo', version: '0' },
    });
    const created = init.error ? init : await request('session/new', { cwd: options.cwd, mcpServers: [] });
    const answer = created.error
      ? created
      : await request('session/prompt', {
          sessionId: created.result.sessionId,
          prompt: [{ type: 'text', text: prompt }],
        });
    child.stdin.end();
    const code = await exited;
    return answer.error ? 1 : code;
  })();
}

/**
 * A fake Anthropic Messages API on 127.0.0.1 that answers from `script` (its first conversation, the turn by how
 * many assistant messages the request holds) as the API does: streamed events for `stream: true`, else one message.
 * Each request is shown as it arrives: the model, the tools offered, and the history in the API's own shape.
 */
async function anthropicApi(script: DemoScript): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const turns = script.conversations[0]?.turns ?? [];
  let count = 0;
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const body = JSON.parse(raw || '{}') as {
        model?: string;
        stream?: boolean;
        tools?: Array<{ name: string }>;
        messages?: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
      };
      const messages = body.messages ?? [];
      const shape = messages.map((m) => {
        const blocks =
          typeof m.content === 'string'
            ? [{ type: 'text', text: m.content }]
            : m.content.map((b) => {
                const { type, id, name, tool_use_id, input, text, content } = b as Record<string, unknown>;
                return Object.fromEntries(
                  Object.entries({ type, id, name, tool_use_id, input, text, content }).filter(
                    ([, v]) => v !== undefined,
                  ),
                );
              });
        return { role: m.role, content: blocks };
      });
      const clip = (text: string) => (text.length > 900 ? `${text.slice(0, 900)}…` : text);
      console.log(
        `\n⇢ request ${++count} to POST ${request.url}: model ${body.model}, ${body.stream ? 'streamed' : 'not streamed'}, tools ${(body.tools ?? []).map((t) => t.name).join(', ')}\n  messages: ${clip(JSON.stringify(shape))}\n`,
      );
      const turn = turns[messages.filter((m) => m.role === 'assistant').length] ?? { text: '(no more turns)' };
      const content: Array<Record<string, unknown>> = [
        ...(turn.text ? [{ type: 'text', text: turn.text }] : []),
        ...(turn.calls ?? []).map((c, i) => ({
          type: 'tool_use',
          id: `toolu_demo_${count}_${i + 1}`,
          name: c.name,
          input: c.arguments,
        })),
      ];
      const stopReason = turn.calls?.length ? 'tool_use' : 'end_turn';
      const usage = { input_tokens: 12, output_tokens: 8 };
      const message = { id: `msg_demo_${count}`, type: 'message', role: 'assistant', model: body.model };
      if (!body.stream) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ...message, content, stop_reason: stopReason, stop_sequence: null, usage }));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (data: Record<string, unknown>) =>
        response.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
      send({
        type: 'message_start',
        message: {
          ...message,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 0 },
        },
      });
      content.forEach((block, index) => {
        if (block.type === 'text') {
          send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
          send({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
        } else {
          send({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
          send({
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
          });
        }
        send({ type: 'content_block_stop', index });
      });
      send({
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 8 },
      });
      send({ type: 'message_stop' });
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    env: {
      ANTHROPIC_API_KEY: 'sk-ant-demo-not-a-key',
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
      ANTHROPIC_MODEL: 'claude-demo',
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Runs npm run agent (scripts/agent.ts) in the project with the scripted model; its output goes to ours. */
function agent(
  args: string[],
  options: { cwd: string; home: string; scriptFile: string; env: Record<string, string>; scripted: boolean },
): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/^(ANTHROPIC|OPENAI|CLAUDE|KIT)_/.test(name)) delete env[name];
  Object.assign(env, options.env, { HOME: options.home, INIT_CWD: options.cwd });
  if (options.scripted) env.KIT_DEMO_SCRIPT = options.scriptFile;
  return new Promise((resolve, reject) => {
    // Started from the kit's folder (where tsx is installed); INIT_CWD makes the project the agent's workspace, as
    // npm does for a person who runs npm run agent in it.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/agent.ts'), ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('scripts/demo.ts'))
  process.exitCode = await main();
