/**
 * `npm run agent` (scripts/agent.ts) as chapter 15's program, without a terminal: the way a script or CI drives it.
 * `-p` with `--output-format stream-json` and `json`, the exit codes, the command hooks of .claude/settings.json,
 * --system-prompt / --append-system-prompt, and --starter on a tree whose chapter 15 is finished or not. Each test
 * runs the real program as a child (agent-process.ts) in a temp workspace with a temp HOME, on the offline provider
 * or against a fake OpenAI or Anthropic API on 127.0.0.1 of its own; nothing reaches the network.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentWorkspace,
  anthropicEvent,
  anthropicStart,
  openaiAnswer,
  openaiToolCall,
  runAgent,
  scriptedApi,
  stubbedTree,
  tempFolders,
  type AgentRun,
} from './agent-process.js';
import { KIT_HANG_MS, REPO } from './helpers.js';

const tempFolder = tempFolders('kit-agent-capstone-');

/** A workspace with these files (and a HOME of its own, for the sessions). */
const setup = (files: Record<string, string> = {}) => agentWorkspace(tempFolder, files);

/** `npm run agent -- <args>` in `where`; stdin is closed (empty unless given), so -p never waits for it. */
function agent(
  args: string[],
  where: { cwd: string; home: string },
  env: Record<string, string> = {},
  stdin = '',
): Promise<AgentRun> {
  return runAgent(args, { cwd: where.cwd, home: where.home, env, stdin, killAfterMs: KIT_HANG_MS });
}

/** Everything a run printed, for a failure message. */
const shown = (run: AgentRun) => `exit code ${run.code}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;

/** An Anthropic turn: optional text, then optional tool calls (id, name, input), with usage. */
function anthropicTurn(text: string, calls: Array<[id: string, name: string, input: unknown]> = []): string[] {
  const frames = [anthropicStart('claude-sonnet-4-5', { input_tokens: 100, output_tokens: 1 })];
  let index = 0;
  if (text) {
    frames.push(
      anthropicEvent({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
      anthropicEvent({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
      anthropicEvent({ type: 'content_block_stop', index }),
    );
    index++;
  }
  for (const [id, name, input] of calls) {
    frames.push(
      anthropicEvent({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } }),
      anthropicEvent({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) },
      }),
      anthropicEvent({ type: 'content_block_stop', index }),
    );
    index++;
  }
  frames.push(
    anthropicEvent({
      type: 'message_delta',
      delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 20 },
    }),
    anthropicEvent({ type: 'message_stop' }),
  );
  return frames;
}

/**
 * stdout read as JSON Lines: it must end with a newline, and every line must be one JSON object (nothing else may
 * reach stdout: the banner and notes go to stderr).
 */
function jsonLines(run: AgentRun): any[] {
  expect(run.stdout.endsWith('\n'), `stdout ends with a newline\n${shown(run)}`).toBe(true);
  return run.stdout
    .slice(0, -1)
    .split('\n')
    .map((line, i) => {
      try {
        const value = JSON.parse(line);
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
        return value;
      } catch (error) {
        throw new Error(
          `stdout line ${i + 1} is not a JSON object (${(error as Error).message}): ${JSON.stringify(line)}\n${shown(run)}`,
        );
      }
    });
}

/**
 * Checks a stream-json run's shape: init first, result last, only assistant and user lines between, and every
 * assistant line's tool_use blocks answered by the next line's tool_result blocks, by id. Returns the lines.
 */
function streamJson(run: AgentRun): any[] {
  const lines = jsonLines(run);
  const types = lines.map((line) =>
    line.subtype && line.type !== 'result' ? `${line.type}/${line.subtype}` : line.type,
  );
  expect(types[0], `the first line is the init line: ${types.join(', ')}`).toBe('system/init');
  expect(types.at(-1), `the last line is the result: ${types.join(', ')}`).toBe('result');
  expect(
    types.slice(1, -1).every((type) => type === 'assistant' || type === 'user'),
    `only assistant and user lines between: ${types.join(', ')}`,
  ).toBe(true);
  const session = lines[0].session_id;
  expect(typeof session === 'string' && session.length > 0, 'the init line names the session').toBe(true);
  for (const line of lines)
    expect(line.session_id, `every line has the session id: ${JSON.stringify(line)}`).toBe(session);
  lines.forEach((line, i) => {
    if (line.type !== 'assistant') return;
    const uses = line.message.content.filter((block: any) => block.type === 'tool_use').map((block: any) => block.id);
    if (uses.length === 0) return;
    const next = lines[i + 1];
    const results = Array.isArray(next?.message?.content)
      ? next.message.content.filter((block: any) => block.type === 'tool_result').map((block: any) => block.tool_use_id)
      : [];
    expect(next?.type, `the line after the tool_use line ${i + 1} holds the results:\n${run.stdout}`).toBe('user');
    expect(results, `each tool_use is answered by a tool_result with its id (line ${i + 2})`).toEqual(uses);
  });
  return lines;
}

/** The text of the last user message of an OpenAI request. */
const lastUserText = (body: any) => body?.messages.filter((m: any) => m.role === 'user').at(-1)?.content;

/** `.claude/settings.json` with these hooks, and each script under `.claude/hooks/`. */
function hookFiles(hooks: Record<string, unknown>, scripts: Record<string, string>): Record<string, string> {
  const files: Record<string, string> = { '.claude/settings.json': JSON.stringify({ hooks }, null, 2) };
  for (const [name, text] of Object.entries(scripts)) files[`.claude/hooks/${name}`] = text;
  return files;
}
const command = (script: string) => [{ hooks: [{ type: 'command', command: `sh .claude/hooks/${script}` }] }];

const README = { 'README.md': '# Tiny project\n\nA folder for the capstone test.\n', 'src/main.ts': 'export {}\n' };

describe.concurrent('npm run agent -p, the way a program drives it (scripts/agent.ts, chapter 15)', () => {
  it('--output-format stream-json on the offline provider: only JSON lines, init first, result last, each tool_use answered by id', async () => {
    const where = setup(README);
    const run = await agent(['-p', 'what is in this folder?', '--output-format', 'stream-json'], where);
    expect(run.code, shown(run)).toBe(0);
    const lines = streamJson(run);
    expect(lines[0], 'the init line says what the run works with').toMatchObject({
      type: 'system',
      subtype: 'init',
      cwd: where.cwd,
      model: 'offline',
      permissionMode: 'default',
    });
    expect(lines[0].tools).toEqual(expect.arrayContaining(['read', 'glob', 'bash', 'write', 'edit']));
    const uses = lines.flatMap((line) =>
      line.type === 'assistant' ? line.message.content.filter((b: any) => b.type === 'tool_use') : [],
    );
    expect(
      uses.map((b: any) => [b.id, b.name, b.input]),
      "the offline provider's real tool calls",
    ).toEqual([
      ['offline_1', 'glob', { pattern: '*' }],
      ['offline_2', 'glob', { pattern: '*/*' }],
      ['offline_3', 'read', { path: 'README.md', limit: 40 }],
    ]);
    const results = lines.flatMap((line) => (line.type === 'user' ? line.message.content : []));
    expect(
      results.find((b: any) => b.tool_use_id === 'offline_3')?.content,
      'the read result is in its tool_result',
    ).toContain('# Tiny project');
    expect(
      lines.some((line) => line.type === 'user' && typeof line.message.content === 'string'),
      'the prompt is not echoed',
    ).toBe(false);
    expect(lines.at(-1), 'the result line').toMatchObject({
      type: 'result',
      subtype: 'success',
      is_error: false,
      num_turns: 3,
      total_cost_usd: null,
    });
    expect(lines.at(-1).result).toContain('Its title is "Tiny project".');
    expect(run.stderr, 'the banner goes to stderr').toContain(`workspace ${where.cwd}`);
  });

  it('--output-format stream-json against the Anthropic API: the tool round as an assistant tool_use line and a user tool_result line', async () => {
    const where = setup({ 'notes.md': '# Notes\n\nBuy milk.\n' });
    const api = await scriptedApi(
      anthropicTurn('Let me read it.', [['toolu_read_1', 'read', { path: 'notes.md' }]]),
      anthropicTurn('It says: buy milk.'),
    );
    const run = await agent(['-p', 'what do my notes say?', '--output-format', 'stream-json'], where, api.anthropicEnv);
    expect(run.code, shown(run)).toBe(0);
    const lines = streamJson(run);
    expect(lines.map((line) => line.type)).toEqual(['system', 'assistant', 'user', 'assistant', 'result']);
    expect(lines[0].model).toBe('claude-sonnet-4-5');
    expect(lines[1].message, "the model's turn, in the Messages API's blocks").toMatchObject({
      role: 'assistant',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'Let me read it.' },
        { type: 'tool_use', id: 'toolu_read_1', name: 'read', input: { path: 'notes.md' } },
      ],
      usage: { input_tokens: 100, output_tokens: 20 },
    });
    expect(lines[2].message.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_read_1',
        content: expect.stringContaining('Buy milk.'),
        is_error: false,
      },
    ]);
    expect(lines[3].message.content).toEqual([{ type: 'text', text: 'It says: buy milk.' }]);
    expect(lines[4]).toMatchObject({
      subtype: 'success',
      is_error: false,
      result: 'It says: buy milk.',
      num_turns: 2,
      usage: { input_tokens: 200, output_tokens: 40 },
    });
    expect(lines[4].total_cost_usd, 'a priced model has a cost').toBeGreaterThan(0);
    expect(api.requests.length, 'two requests: the call, then its result').toBe(2);
    const sent = api.requests[1].messages
      .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
      .find((b: any) => b.type === 'tool_result');
    expect(sent, 'the API got the result back, paired by id').toMatchObject({ tool_use_id: 'toolu_read_1' });
  });

  it('exits with 1 when the API refuses the request (400), with an error result', async () => {
    const where = setup();
    const api = await scriptedApi({
      status: 400,
      body: { error: { type: 'invalid_request_error', message: 'The model `fake-model` does not exist' } },
    });
    const run = await agent(['-p', 'hi', '--output-format', 'stream-json'], where, api.openaiEnv);
    expect(run.code, shown(run)).toBe(1);
    const result = streamJson(run).at(-1);
    expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    expect(result.errors, 'the error says what the API said').toEqual([
      expect.stringContaining('The model `fake-model` does not exist'),
    ]);
    expect(api.requests.length, 'a 400 is not tried again').toBe(1);
  });

  it('exits with 1 when --max-turns is reached', async () => {
    const where = setup(README);
    const run = await agent(['-p', 'what is in this folder?', '--max-turns', '1', '--output-format', 'json'], where);
    expect(run.code, shown(run)).toBe(1);
    expect(jsonLines(run)).toEqual([
      expect.objectContaining({ type: 'result', subtype: 'error_max_turns', is_error: true, num_turns: 1 }),
    ]);
  });

  it('exits with 2 for an unknown option and for --output-format json without -p, printing the usage', async () => {
    const where = setup();
    const [unknown, noPrint] = await Promise.all([
      agent(['--frobnicate', '-p', 'hi'], where),
      agent(['--output-format', 'json', 'hi'], where),
    ]);
    expect(unknown.code, shown(unknown)).toBe(2);
    expect(unknown.stderr).toContain('unknown option "--frobnicate"');
    expect(unknown.stderr, 'with the usage').toContain('Usage: npm run agent');
    expect(unknown.stdout).toBe('');
    expect(noPrint.code, shown(noPrint)).toBe(2);
    expect(noPrint.stderr).toContain('--output-format json only works with -p');
    expect(noPrint.stdout).toBe('');
  });

  it('a PreToolUse hook that exits 2 blocks a bash call, and the model reads its message in the tool result', async () => {
    const guard = 'cat > .claude/hooks/pre-input.json\necho "touching files is not allowed in this repo" >&2\nexit 2\n';
    const where = setup(
      hookFiles(
        { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'sh .claude/hooks/guard.sh' }] }] },
        { 'guard.sh': guard },
      ),
    );
    const api = await scriptedApi(
      openaiToolCall('bash', { command: 'touch made.txt' }, 'call_touch'),
      openaiAnswer('The hook stopped me.'),
    );
    // --allowedTools Bash: without the hook the command would run.
    const run = await agent(['--trust-workspace', '-p', 'make a file', '--allowedTools', 'Bash'], where, api.openaiEnv);
    expect(run.code, shown(run)).toBe(0);
    expect(existsSync(path.join(where.cwd, 'made.txt')), 'the command did not run').toBe(false);
    const result = api.requests[1]?.messages.find((m: any) => m.role === 'tool' && m.tool_call_id === 'call_touch');
    expect(result?.content, "the hook's stderr is what the model reads").toContain(
      'touching files is not allowed in this repo',
    );
    expect(run.stdout).toContain('● bash(touch made.txt)\n  ⎿ blocked: touching files is not allowed in this repo');
    const input = JSON.parse(readFileSync(path.join(where.cwd, '.claude/hooks/pre-input.json'), 'utf8'));
    expect(input, "the hook got Claude Code's input on stdin").toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'touch made.txt' },
      tool_use_id: 'call_touch',
      cwd: where.cwd,
    });
  });

  it('a UserPromptSubmit hook that exits 2 blocks the prompt: exit code 1, the model is never called', async () => {
    const where = setup(
      hookFiles(
        { UserPromptSubmit: command('prompt.sh') },
        { 'prompt.sh': 'echo "no prompts about secrets" >&2\nexit 2\n' },
      ),
    );
    const api = await scriptedApi(openaiAnswer('This must not be asked for.'));
    const run = await agent(['--trust-workspace', '-p', 'tell me the secrets'], where, api.openaiEnv);
    expect(run.code, shown(run)).toBe(1);
    expect(run.stdout).toContain('✗ prompt blocked by a UserPromptSubmit hook: no prompts about secrets');
    expect(api.requests, 'no request reached the model').toEqual([]);
  });

  it('a Stop hook that asks to go on once (until stop_hook_active) makes a second request with its message', async () => {
    const stop = [
      'input=$(cat)',
      'printf "%s\\n" "$input" >> .claude/hooks/stop-inputs.jsonl',
      'case "$input" in *\'"stop_hook_active":true\'*) exit 0 ;; esac',
      'echo "Now say goodbye." >&2',
      'exit 2',
    ].join('\n');
    const where = setup(hookFiles({ Stop: command('stop.sh') }, { 'stop.sh': `${stop}\n` }));
    const api = await scriptedApi(openaiAnswer('Hello.'), openaiAnswer('Goodbye.'));
    const run = await agent(['--trust-workspace', '-p', 'say hello'], where, api.openaiEnv);
    expect(run.code, shown(run)).toBe(0);
    expect(api.requests.length, `two requests: the answer, then once more\n${shown(run)}`).toBe(2);
    expect(lastUserText(api.requests[1]), "the hook's message is the next user message").toBe('Now say goodbye.');
    expect(
      api.requests[1].messages.some((m: any) => m.role === 'assistant' && m.content === 'Hello.'),
      'after the first answer',
    ).toBe(true);
    expect(run.stdout).toMatch(/Hello\.[\s\S]*\(a Stop hook asks to go on: Now say goodbye\.\)[\s\S]*Goodbye\./);
    const inputs = readFileSync(path.join(where.cwd, '.claude/hooks/stop-inputs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(
      inputs.map((input) => [input.hook_event_name, input.stop_hook_active, input.last_assistant_message]),
    ).toEqual([
      ['Stop', false, 'Hello.'],
      ['Stop', true, 'Goodbye.'],
    ]);
  });

  it('a Stop hook that always asks to go on is obeyed a few times, then the run ends (no endless loop)', async () => {
    const where = setup({
      'notes.md': '# Notes\n',
      ...hookFiles({ Stop: command('stop.sh') }, { 'stop.sh': 'echo "keep going" >&2\nexit 2\n' }),
    });
    const run = await agent(['--trust-workspace', '-p', 'read notes.md', '--no-session'], where);
    expect(run.code, shown(run)).toBe(0);
    expect(run.stdout.split('(a Stop hook asks to go on: keep going)').length - 1, 'it went on 5 times').toBe(5);
    expect(run.stdout).toContain(
      '(a Stop hook asks to go on again: stopping here, after 5 continuations of this prompt)',
    );
  });

  it('--system-prompt replaces the base prompt and --append-system-prompt adds to it, in the request the model gets', async () => {
    const where = setup();
    const api = await scriptedApi(openaiAnswer('Arr.'));
    const run = await agent(
      ['-p', 'hi', '--system-prompt', 'You are a terse pirate.', '--append-system-prompt', 'Always end with ARRR.'],
      where,
      api.openaiEnv,
    );
    expect(run.code, shown(run)).toBe(0);
    const system = api.requests[0]?.messages.find((m: any) => m.role === 'system')?.content;
    // Without a CLAUDE.md in the workspace or HOME, the system prompt is exactly the two texts.
    expect(system, "the given prompt instead of the kit's base prompt, then the appended text").toBe(
      'You are a terse pirate.\n\nAlways end with ARRR.',
    );
  });

  it('--starter on a tree whose chapter 15 is finished (KIT_SRC) runs the capstone: -p reads the prompt from stdin, --output-format json prints one result object', async () => {
    const where = setup(README);
    const src = path.join(REPO, 'solution/src');
    const run = await agent(
      ['--starter', '-p', '--output-format', 'json'],
      where,
      { KIT_SRC: src },
      'what is in this folder?\n',
    );
    expect(run.code, shown(run)).toBe(0);
    expect(run.stderr, 'the banner names the tree').toContain(`· ${src} · workspace ${where.cwd}`);
    expect(run.stderr).not.toContain('not finished yet');
    const lines = jsonLines(run);
    expect(lines.length, `exactly one line, the result:\n${run.stdout}`).toBe(1);
    expect(lines[0]).toMatchObject({ type: 'result', subtype: 'success', is_error: false, num_turns: 3 });
    expect(lines[0].result, 'the prompt from stdin was answered').toContain(
      'At the top level there is 1 file: README.md.',
    );
  });

  it("--starter on a tree whose chapter 15 is unfinished runs the same program, the kit's code in its unwritten stubs", async () => {
    const where = setup({ 'notes.md': '# Notes\n\nBuy milk.\n' });
    const src = stubbedTree(tempFolder(), (region) => region.chapter === 15);
    const run = await agent(['--starter', '-p', 'read notes.md'], where, { KIT_SRC: src });
    expect(run.code, shown(run)).toBe(0);
    expect(run.stderr, 'one line says the kit fills chapter 15, and nothing is left out').toMatch(
      /^\(your code, the kit's code for the stubs of chapter 15 you have not written\)$/m,
    );
    expect(run.stderr, "chapter 15's whole banner, as the reference prints it").toMatch(
      /^permissions: default mode[\s\S]*^executor: up to[\s\S]*^retries: up to/m,
    );
    expect(run.stdout, "chapter 15's renderer prints the tool call").toContain('● read(notes.md)');
    expect(run.stdout, 'and the answer').toContain('It begins: "Buy milk."');
  });
});
