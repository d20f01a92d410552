/**
 * `npm run agent` (scripts/agent.ts, chapter 15's program) in a real terminal: each test runs the agent in a pane of a
 * private tmux server (tests/kit/tmux.ts), types as a person does and reads the screen. The model is the offline
 * stand-in or a fake OpenAI-compatible API on 127.0.0.1 (one per test); nothing reaches the network, HOME is a temp
 * folder, and the environment is given in full (nothing of the real one's ANTHROPIC_, OPENAI_, CLAUDE_ or KIT_).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AGENT,
  agentWorkspace,
  openaiAnswer,
  openaiChunk,
  openaiData,
  openaiToolCall,
  scriptedApi,
  tempFolders,
} from './agent-process.js';
import { KIT_HANG_MS, REPO } from './helpers.js';
import { tmuxServer, type Pane } from './tmux.js';

const require = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const tempFolder = tempFolders('kit-agent-tty-');
const tmux = tmuxServer();

/** A workspace with these files, and a HOME of its own. */
const setup = (files: Record<string, string> = {}) => agentWorkspace(tempFolder, files);

/** `npm run agent -- <args>` in a new pane, from the repo root like npm, with INIT_CWD the workspace. */
function agentPane(args: string[], where: { cwd: string; home: string }, env: Record<string, string> = {}): Pane {
  return tmux.start([process.execPath, '--import', 'tsx', AGENT, ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: where.home, INIT_CWD: where.cwd, ...env },
  });
}

/** The text of the last user message of a request (what the person's prompt became). */
const lastUserText = (body: any) => body?.messages.filter((m: any) => m.role === 'user').at(-1)?.content;
/** The tool message answering call `id` in a request. */
const toolMessage = (body: any, id: string) =>
  body?.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === id);
/** Where `needle` is on the screen, failing with the screen when it is not there. */
function position(screen: string, needle: string): number {
  const at = screen.indexOf(needle);
  if (at === -1) throw new Error(`expected the screen to show ${JSON.stringify(needle)}; it shows:\n${screen}`);
  return at;
}

describe.concurrent('npm run agent in a terminal (tmux)', () => {
  it('answers a typed prompt on the offline provider: its text, each tool call and its result, the usage line; Ctrl-D exits with 0', async () => {
    const where = setup({
      'README.md': '# Tiny project\n\nA folder for the terminal test.\n',
      'src/main.ts': 'export {}\n',
    });
    const pane = agentPane([], where);
    const banner = await pane.waitForPrompt('the agent starts');
    expect(banner, 'the banner names the provider and the workspace (INIT_CWD)').toContain(
      `offline stand-in (no API key found; no network) · reference solution · workspace ${where.cwd}`,
    );
    expect(banner).toContain('Type a request; /help lists the commands.');
    expect(banner, 'the banner says where the session is kept, from ~').toMatch(
      /session [0-9a-f-]+, kept in ~\/\.coding-agent\/sessions\/[^ ]+\.jsonl/,
    );

    pane.type('what is in this folder?');
    const screen = await pane.waitForPrompt('the answer ends and the prompt comes back', 2);
    const order = [
      'Let me list the files at the top, and one level down.',
      '● glob(*)',
      '  ⎿ ok',
      '● read(README.md)',
      'At the top level',
      'Its title is "Tiny project".',
      'Offline mode: no API key is set',
      '↑ 0 in · ↓ 0 out · cost unknown',
    ].map((needle) => [needle, position(screen, needle)] as const);
    for (let i = 1; i < order.length; i++) {
      expect(
        order[i]![1],
        `${JSON.stringify(order[i]![0])} comes after ${JSON.stringify(order[i - 1]![0])}:\n${screen}`,
      ).toBeGreaterThan(order[i - 1]![1]);
    }
    expect(screen, 'the read result shows the file under its call').toMatch(
      /● read\(README\.md\)\n {2}⎿ ok\n +1\s+# Tiny project/,
    );

    pane.press('C-d');
    expect(await pane.exitCode(), 'Ctrl-D at the prompt exits with 0').toBe(0);
    expect(pane.screen(), 'the session is saved and named at exit').toMatch(
      /resume with: npm run agent -- --resume [0-9a-f-]{36}/,
    );
  });

  it('asks before a bash command: y runs it (the file exists), n does not (the model reads that it was rejected)', async () => {
    const where = setup();
    const api = await scriptedApi(
      openaiToolCall('bash', { command: 'touch made.txt' }, 'call_yes'),
      openaiAnswer('Made it.'),
      openaiToolCall('bash', { command: 'touch refused.txt' }, 'call_no'),
      openaiAnswer('Fine, I made nothing.'),
    );
    const pane = agentPane([], where, api.openaiEnv);
    await pane.waitForPrompt('the agent starts');

    pane.type('make a file');
    const asked = await pane.waitFor('[y]es / [n]o / [a]lways', 'the permission question for the first command');
    expect(asked, 'the question names the tool and why, shows the command, and offers the three answers').toMatch(
      / {2}Allow bash\? \(.+\)\n {4}touch made\.txt\n {2}\[y\]es \/ \[n\]o \/ \[a\]lways/,
    );
    expect(existsSync(path.join(where.cwd, 'made.txt')), 'nothing runs before the answer').toBe(false);
    pane.press('y');
    let screen = await pane.waitForPrompt('the turn ends after "y"', 2);
    expect(screen).toContain('● bash(touch made.txt)');
    expect(screen).toContain('Made it.');
    expect(existsSync(path.join(where.cwd, 'made.txt')), 'y ran the command in the workspace').toBe(true);
    expect(api.requests.length, 'two requests: the call, then its result (one key answered, no Enter)').toBe(2);
    expect(toolMessage(api.requests[1], 'call_yes')?.content, "the model got the command's result").toMatch(
      /^exit code: 0/,
    );

    pane.type('make another file');
    await pane.waitFor(/Allow bash\? .*\n {4}touch refused\.txt/, 'the permission question for the second command');
    pane.press('n');
    screen = await pane.waitForPrompt('the turn ends after "n"', 3);
    expect(screen, 'the refusal is shown under the call').toMatch(/● bash\(touch refused\.txt\)\n {2}⎿ rejected: /);
    expect(screen).toContain('Fine, I made nothing.');
    expect(existsSync(path.join(where.cwd, 'refused.txt')), 'n did not run the command').toBe(false);
    expect(api.requests.length, 'two more requests: the call, then the refusal').toBe(4);
    expect(
      JSON.stringify(api.requests[2]),
      'the answer key is not left in the prompt: the next request is the text typed, not "y" in front of it',
    ).toContain('"make another file"');
    const refused = toolMessage(api.requests[3], 'call_no')?.content;
    expect(refused, 'the model read that the person rejected the call, not its output').toMatch(
      /^The person rejected this bash call\./,
    );
    pane.press('C-d');
    expect(await pane.exitCode()).toBe(0);
  });

  /**
   * Limits for the waits of the question tests: only a hang reaches them. The agent's start alone took 16 s on the
   * 2-core machine at load average 30.
   */
  const LONG = { timeoutMs: 90_000 };

  it(
    'the question shows the whole command, wrapped and with its escape codes visible; an answer that is no key asks again; output cannot clear the screen',
    async () => {
      const where = setup({ 'notes.txt': 'first line\n\x1b[2J\x1b]0;pwned-title\x07after the codes\n' });
      const hidden = `echo ${'word '.repeat(40)}\x1b[2K\rAllow bash(npm test)? && touch PWNED`;
      const api = await scriptedApi(
        openaiToolCall('read', { path: 'notes.txt' }, 'call_read'),
        openaiToolCall('bash', { command: hidden }, 'call_hidden'),
        openaiAnswer('I did not run it.'),
      );
      const pane = agentPane([], where, api.openaiEnv);
      await pane.waitForPrompt('the agent starts', 1, LONG);
      pane.type('look at the notes');
      const asked = await pane.waitFor('[y]es / [n]o / [a]lways', 'the question about the long command', LONG);
      expect(asked, "the file's escape codes are shown under the read, not obeyed").toContain(
        '␛[2J␛]0;pwned-title␇after the codes',
      );
      const question = asked.slice(asked.lastIndexOf('Allow bash?'));
      const command = question
        .split('\n')
        .filter((line) => line.startsWith('    '))
        .map((line) => line.slice(4))
        .join('');
      expect(
        command,
        'the whole command is on screen, its pieces put together: its end (touch PWNED) is not cut at the edge',
      ).toBe(hidden.replace('\x1b', '␛').replace('\r', '␍'));
      expect(command, "the model's escape codes are visible, so they cannot redraw the line").toContain(
        '␛[2K␍Allow bash(npm test)? && touch PWNED',
      );
      expect(
        question.split('\n').filter((line) => line.startsWith('    ')).length,
        'the command is wrapped over several lines of the 120-column pane',
      ).toBeGreaterThan(1);
      // The command's lines are the program's own wrapping (the first line, with the reason, may be longer: the
      // terminal folds it, and it holds nothing the person approves).
      expect(
        question.split('\n').filter((line) => line.startsWith('    ') && line.length > 120),
        'no line of the command is wider than the pane',
      ).toEqual([]);

      pane.press('m');
      await pane.waitFor('Answer with one key:', 'a key that is none of the answers asks again', LONG);
      expect(api.requests.length, '"m" is no answer: the model is not told anything yet').toBe(2);
      expect(existsSync(path.join(where.cwd, 'PWNED')), 'nothing ran').toBe(false);
      pane.press('n');
      await pane.waitForPrompt('the turn ends after "n"', 2, LONG);
      expect(existsSync(path.join(where.cwd, 'PWNED')), '"n" did not run the command').toBe(false);
      expect(
        toolMessage(api.requests[2], 'call_hidden')?.content,
        'the model read that the person rejected the call',
      ).toMatch(/^The person rejected this bash call\./);
      pane.press('C-d');
      expect(await pane.exitCode(LONG)).toBe(0);
    },
    LONG.timeoutMs * 3,
  );

  /** One OpenAI turn that starts two sub-agents side by side. */
  const twoTasks = () => [
    openaiChunk({
      role: 'assistant',
      tool_calls: [
        {
          index: 0,
          id: 'call_t1',
          type: 'function',
          function: {
            name: 'task',
            arguments: JSON.stringify({ description: 'first', prompt: 'make the first file' }),
          },
        },
        {
          index: 1,
          id: 'call_t2',
          type: 'function',
          function: {
            name: 'task',
            arguments: JSON.stringify({ description: 'second', prompt: 'make the second file' }),
          },
        },
      ],
    }),
    openaiChunk({}, 'tool_calls'),
    openaiData('[DONE]'),
  ];
  /**
   * The agent in a pane, asked to make two files: two sub-agents each call bash (touch one.txt, touch two.txt) and
   * then answer `childAnswer`, the model `lastAnswer`. Resolves with the screen of the first question, once both
   * children have had their command from the model.
   */
  async function twoAsking(childAnswer: string, lastAnswer: string) {
    const where = setup();
    const api = await scriptedApi(
      twoTasks(),
      openaiToolCall('bash', { command: 'touch one.txt' }, 'call_b1'),
      openaiToolCall('bash', { command: 'touch two.txt' }, 'call_b2'),
      openaiAnswer(childAnswer),
      openaiAnswer(childAnswer),
      openaiAnswer(lastAnswer),
    );
    const pane = agentPane([], where, api.openaiEnv);
    await pane.waitForPrompt('the agent starts', 1, LONG);
    pane.type('make two files');
    const first = await pane.waitFor(
      (screen) => screen.includes('[y]es / [n]o / [a]lways') && api.requests.length >= 3,
      'the first question, once both sub-agents have asked the model',
      LONG,
    );
    return { where, pane, first };
  }
  /** The command of the last question on the screen. */
  const lastAsked = (screen: string) =>
    /Allow bash\? .*\n {4}touch (one|two)\.txt/.exec(screen.slice(screen.lastIndexOf('Allow bash?')))?.[1];

  it(
    'two sub-agents asking at once: one question at a time, in order, each answer to its own call',
    async () => {
      const { where, pane, first } = await twoAsking('A child is done.', 'Both children are done.');
      expect(first.split('[y]es / [n]o / [a]lways').length - 1, `one question on screen at a time:\n${first}`).toBe(1);
      const yes = lastAsked(first);
      expect(yes, `the question shows the command:\n${first}`).toBeDefined();
      pane.press('y');
      const second = await pane.waitFor(
        (screen) => screen.split('[y]es / [n]o / [a]lways').length - 1 === 2,
        'the second question, after the first is answered',
        LONG,
      );
      const no = lastAsked(second);
      expect(no, "the second question is about the other sub-agent's command").toBe(yes === 'one' ? 'two' : 'one');
      pane.press('n');
      const screen = await pane.waitForPrompt('the turn ends once both questions are answered', 2, LONG);
      expect(screen).toContain('Both children are done.');
      expect(existsSync(path.join(where.cwd, `${yes}.txt`)), '"y" ran the command it was asked about').toBe(true);
      expect(existsSync(path.join(where.cwd, `${no}.txt`)), '"n" did not run the other one').toBe(false);
      pane.press('C-d');
      expect(await pane.exitCode(LONG)).toBe(0);
    },
    LONG.timeoutMs * 3,
  );

  it(
    'Ctrl-D while two sub-agents wait for an answer: both calls are refused, the turn ends, and the program exits with 0 and its summary',
    async () => {
      const { where, pane } = await twoAsking('Nobody answered.', 'Nothing was made.');
      pane.press('C-d');
      expect(
        await pane.exitCode(LONG),
        'Ctrl-D during a question ends the program normally (not 13: no question is left waiting)',
      ).toBe(0);
      const screen = pane.screen();
      expect(screen, "the turn ended with the model's last answer").toContain('Nothing was made.');
      expect(screen, 'the exit summary is printed').toMatch(/resume with: npm run agent -- --resume [0-9a-f-]{36}/);
      expect(
        existsSync(path.join(where.cwd, 'one.txt')) || existsSync(path.join(where.cwd, 'two.txt')),
        'nothing ran',
      ).toBe(false);
    },
    LONG.timeoutMs * 3,
  );

  it('streams the answer as it comes; Ctrl-C during a slow turn stops it ("(stopped)") and the prompt comes back; Ctrl-C at the prompt exits with 130', async () => {
    const where = setup();
    const api = await scriptedApi(
      [
        openaiChunk({ role: 'assistant', content: 'Thinking very slowly' }),
        { wait: 60_000 },
        openaiChunk({}, 'stop'),
        openaiData('[DONE]'),
      ],
      openaiAnswer('A quick answer.'),
    );
    const pane = agentPane([], where, api.openaiEnv);
    await pane.waitForPrompt('the agent starts');
    pane.type('take your time');
    const streaming = await pane.waitFor(
      'Thinking very slowly',
      'the first words of the answer show while the API still holds the stream open',
    );
    expect(streaming, 'the turn is still running: no usage line, no prompt yet').not.toMatch(/↑ \d+ in|\n>$/);
    pane.press('C-c');
    const stopped = await pane.waitForPrompt('Ctrl-C stops the turn at once (the API holds the stream 60 s)', 2);
    expect(stopped).toMatch(/Thinking very slowly\n\(stopped\)\n/);

    pane.type('and now quickly');
    await pane.waitForPrompt('the next prompt is answered as usual', 3);
    expect(pane.screen()).toContain('A quick answer.');
    expect(api.requests.length, 'one request for each prompt').toBe(2);

    pane.press('C-c');
    expect(await pane.exitCode(), 'Ctrl-C at the prompt exits with 130').toBe(130);
  });

  it('Ctrl-C twice during a turn exits with 130 at once', async () => {
    const where = setup();
    const api = await scriptedApi([
      openaiChunk({ role: 'assistant', content: 'Thinking very slowly' }),
      { wait: 60_000 },
      openaiChunk({}, 'stop'),
      openaiData('[DONE]'),
    ]);
    const pane = agentPane([], where, api.openaiEnv);
    await pane.waitForPrompt('the agent starts');
    pane.type('take your time');
    await pane.waitFor('Thinking very slowly', 'the first words of the slow answer');
    pane.press('C-c');
    pane.press('C-c');
    // "At once" means well before the server's 60 s answer. 15 s, not 5: on a loaded CI machine the exit once took
    // longer than 5 s after its summary was printed (seen once in many runs; the cause was not found).
    expect(await pane.exitCode(), 'Ctrl-C twice exits with 130').toBe(130);
  });

  it('slash commands: /help lists the built-ins and a custom command, which sends its text with $ARGUMENTS filled in; /mode acceptEdits changes the mode', async () => {
    const where = setup({
      '.claude/commands/greet.md':
        '---\ndescription: Greet someone warmly\nargument-hint: [name]\n---\nSay hello to $ARGUMENTS, in one short sentence.\n',
    });
    const api = await scriptedApi(
      openaiAnswer('Hello, Ada Lovelace!'),
      openaiToolCall('write', { path: 'notes.txt', content: 'written without asking\n' }, 'call_w'),
      openaiAnswer('Wrote notes.txt.'),
    );
    const pane = agentPane([], where, api.openaiEnv);
    expect(await pane.waitForPrompt('the agent starts')).toContain('permissions: default mode');
    pane.type('/help');
    const help = await pane.waitForPrompt('/help prints its list', 2);
    for (const name of ['help', 'clear', 'compact', 'usage', 'mode', 'resume', 'exit'])
      expect(help, `/help lists /${name}`).toMatch(new RegExp(`^ {2}/${name} +\\S`, 'm'));
    expect(help, 'and the project command, with its description and where it comes from').toMatch(
      /^ {2}\/greet +Greet someone warmly \(project\)$/m,
    );

    pane.type('/greet Ada Lovelace');
    expect(await pane.waitForPrompt('the custom command is answered', 3)).toContain('Hello, Ada Lovelace!');
    expect(api.requests.length, 'the command became one request').toBe(1);
    expect(lastUserText(api.requests[0]), 'its text, with $ARGUMENTS filled in').toBe(
      'Say hello to Ada Lovelace, in one short sentence.',
    );
    pane.type('/greeet');
    expect(
      await pane.waitForPrompt('an unknown command is answered', 4),
      'a typo gets a suggestion, not a request',
    ).toContain('Unknown command /greeet. Did you mean /greet?');
    expect(api.requests.length).toBe(1);

    pane.type('/mode');
    expect(await pane.waitForPrompt('/mode shows the mode', 5)).toContain(
      'mode: default (modes: default, acceptEdits, plan, bypassPermissions)',
    );
    pane.type('/mode acceptEdits');
    expect(await pane.waitForPrompt('/mode acceptEdits answers', 6)).toContain('  mode: default → acceptEdits');
    pane.type('write the notes');
    const screen = await pane.waitForPrompt('in acceptEdits mode the write runs without a question', 7);
    expect(screen).not.toContain('Allow write(');
    expect(screen).toMatch(/● write\(notes\.txt\)\n {2}⎿ ok\n {4}\+ written without asking/);
    expect(readFileSync(path.join(where.cwd, 'notes.txt'), 'utf8')).toBe('written without asking\n');
    pane.type('/exit');
    expect(await pane.exitCode(), '/exit leaves with 0').toBe(0);
  });

  it('--resume ID goes on with the earlier conversation: the model receives the earlier messages', async () => {
    const where = setup();
    const api = await scriptedApi(openaiAnswer('Noted: PLUM.'), openaiAnswer('The word was PLUM.'));
    const first = agentPane([], where, api.openaiEnv);
    await first.waitForPrompt('the first session starts');
    first.type('Remember the word PLUM.');
    await first.waitForPrompt('the first prompt is answered', 2);
    first.press('C-d');
    expect(await first.exitCode()).toBe(0);
    const id = /resume with: npm run agent -- --resume ([0-9a-f-]{36})/.exec(first.screen())?.[1];
    expect(id, `the first session names its id at exit:\n${first.screen()}`).toBeDefined();

    const second = agentPane(['--resume', id!], where, api.openaiEnv);
    expect(
      await second.waitForPrompt('the resumed session starts'),
      'the banner says it goes on with 2 messages',
    ).toContain(`session ${id} resumed (2 messages)`);
    second.type('Which word was it?');
    expect(await second.waitForPrompt('the resumed session answers', 2)).toContain('The word was PLUM.');
    expect(api.requests.length, 'one request for each session').toBe(2);
    const messages = api.requests[1].messages
      .filter((m: any) => m.role !== 'system')
      .map((m: any) => [m.role, m.content]);
    expect(messages, 'the request holds the earlier conversation, then the new prompt').toEqual([
      ['user', 'Remember the word PLUM.'],
      ['assistant', 'Noted: PLUM.'],
      ['user', 'Which word was it?'],
    ]);
    second.press('C-d');
    expect(await second.exitCode()).toBe(0);
    expect(second.screen(), 'the same session is saved again').toContain(
      `resume with: npm run agent -- --resume ${id}`,
    );
  });

  it('starts the MCP server of .mcp.json (server-everything), names it in the banner, and runs its echo tool', async () => {
    const marker = `kit-terminal-mcp-${process.pid}-${Date.now()}`;
    const where = setup({
      '.mcp.json': JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { MCP_TEST_MARKER: marker } },
        },
      }),
    });
    const api = await scriptedApi(
      openaiToolCall('mcp__everything__echo', { message: 'hello from the terminal' }, 'call_echo'),
      openaiAnswer('The server echoed it.'),
    );
    const pane = agentPane(['--trust-workspace'], where, api.openaiEnv);
    const banner = await pane.waitForPrompt('the agent starts with the MCP server', 1);
    expect(banner, 'the banner names the server and its tool count').toMatch(/^mcp: everything \(\d+ tools\)$/m);
    expect(serverProcesses(marker).length, 'the server runs while the agent does').toBeGreaterThan(0);
    expect(api.requests.length).toBe(0);

    pane.type('echo something');
    // A server's tools are asked about like any other (its readOnlyHint is only a claim): one key answers.
    await pane.waitFor('[y]es / [n]o / [a]lways', 'the question about the MCP tool');
    pane.press('y');
    const screen = await pane.waitForPrompt('the MCP call is answered', 2);
    expect(screen).toMatch(
      /● mcp__everything__echo\(message: "hello from the terminal"\)\n {2}⎿ ok\n {4}Echo: hello from the terminal/,
    );
    expect(screen).toContain('The server echoed it.');
    expect(api.requests.length, 'two requests: the call, then its result (one key answered, no Enter)').toBe(2);
    expect(
      api.requests[0].tools.map((t: any) => t.function.name),
      "the server's tools are offered, namespaced",
    ).toContain('mcp__everything__echo');
    expect(toolMessage(api.requests[1], 'call_echo')?.content, "the server's answer went back to the model").toBe(
      'Echo: hello from the terminal',
    );
    pane.press('C-d');
    expect(await pane.exitCode()).toBe(0);
    const deadline = Date.now() + KIT_HANG_MS;
    while (serverProcesses(marker).length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(serverProcesses(marker), 'the server ends with the agent').toEqual([]);
  });
});

/** The pids of the processes whose environment holds `marker`. */
function serverProcesses(marker: string): string[] {
  return readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/environ`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
}
