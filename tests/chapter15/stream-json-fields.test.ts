/**
 * Chapter 15: the fields of Claude Code's `-p` output that scripts read (src/capstone/stream-json.ts). A CI script
 * checks `permission_denials` to see what the agent was refused, `stop_reason` to tell a cut answer from a whole one,
 * `modelUsage` for the cost by model, `uuid` to name the result; and stream-json's init line says which MCP servers
 * started, which slash commands exist and which version answers.
 */
import { describe, expect, test } from 'vitest';
import type { Hooks } from 'kit/hooks';
import { Agent } from 'kit/agent';
import { assistantText, assistantToolCalls, userMessage, type Message } from 'kit/messages';
import { MockProvider } from 'kit/mock-provider';
import { resultLine, StreamJsonWriter, type StreamJsonOptions } from 'kit/capstone/stream-json';
import { ToolSet } from 'kit/tool';
import { collect, CWD, ev, standInTools } from './render-fixtures.js';

function counter(prefix: string) {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

const options = (more: Partial<StreamJsonOptions> = {}): StreamJsonOptions => ({
  sessionId: 'sess-1',
  cwd: CWD,
  model: 'claude-sonnet-4-5',
  tools: ['read', 'edit', 'write', 'bash'],
  permissionMode: 'default',
  clock: () => 0,
  newId: counter('uuid'),
  ...more,
});

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);

/** A hook that blocks every bash call, as a deny rule or a PreToolUse hook would. */
const noBash: Hooks = {
  async beforeToolCall(call) {
    return call.name === 'bash' ? { type: 'block', message: 'bash is denied here' } : undefined;
  },
};

async function run(history: Message[], provider: MockProvider, more: Partial<StreamJsonOptions> = {}, maxTurns = 5) {
  const writer = new StreamJsonWriter(history, options(more));
  const agent = new Agent({ provider, tools: new ToolSet(standInTools()), cwd: CWD, hooks: noBash, maxTurns });
  const events = await collect(agent.run(history));
  return lines(events.map((event) => writer.write(event)).join(''));
}

describe('resultLine (src/capstone/stream-json.ts): the fields scripts read', () => {
  test('stop_reason, modelUsage, permission_denials and uuid come from the info, with defaults', () => {
    const done = ev.done('end_turn', { inputTokens: 1200, outputTokens: 300 }, { text: 'ok' });
    const denial = { tool_name: 'bash', tool_use_id: 'c2', tool_input: { command: 'rm -rf /' } };
    const line = resultLine(done, {
      sessionId: 's',
      durationMs: 1,
      model: 'claude-sonnet-4-5',
      usage: { inputTokens: 2000, outputTokens: 500, cacheReadTokens: 100 },
      stopReason: 'end_turn',
      permissionDenials: [denial],
      uuid: 'result-uuid',
    });
    expect(
      {
        stop_reason: line.stop_reason,
        permission_denials: line.permission_denials,
        uuid: line.uuid,
      },
      'resultLine: stop_reason, permission_denials and uuid as the info gives them (guided step 5)',
    ).toEqual({ stop_reason: 'end_turn', permission_denials: [denial], uuid: 'result-uuid' });
    expect(
      line.modelUsage,
      "resultLine: modelUsage is modelUsageOf(the usage reported, the model): the caller's usage, not done.usage (guided step 5)",
    ).toEqual({
      'claude-sonnet-4-5': {
        inputTokens: 2000,
        outputTokens: 500,
        cacheReadInputTokens: 100,
        cacheCreationInputTokens: 0,
        webSearchRequests: 0,
        costUSD: line.total_cost_usd,
      },
    });
    const bare = resultLine(ev.done('error', undefined, { message: 'offline' }), { sessionId: 's', durationMs: 1 });
    expect(
      [bare.stop_reason, bare.permission_denials, bare.modelUsage],
      'resultLine: no turn is stop_reason null (not the done reason), no denial is [], no model is {} (guided step 5)',
    ).toEqual([null, [], {}]);
    expect(bare.uuid, 'resultLine: without info.uuid, a random one (randomUUID) (guided step 5)').toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });
});

describe('StreamJsonWriter.write (src/capstone/stream-json.ts): the fields scripts read', () => {
  test('--output-format json: a blocked call is a permission denial with its input, and the last turn says why it stopped', async () => {
    const provider = new MockProvider([
      {
        ...assistantToolCalls([
          { id: 'c1', name: 'read', arguments: { path: 'a.ts' } },
          { id: 'c2', name: 'bash', arguments: { command: 'rm -rf build' } },
        ]),
        usage: { inputTokens: 1000, outputTokens: 100 },
      },
      assistantText('Read it; bash was refused.', { inputTokens: 200, outputTokens: 20 }),
    ]);
    const [result, ...rest] = await run([userMessage('clean up')], provider, { format: 'json' });
    expect(rest, 'StreamJsonWriter.write: json is the result line only (guided step 3)').toEqual([]);
    expect(
      result!.permission_denials,
      'StreamJsonWriter.write: hand every event to this.track(event), and pass this.denials to resultLine (step 7) (guided step 2)',
    ).toEqual([{ tool_name: 'Bash', tool_use_id: 'c2', tool_input: { command: 'rm -rf build' } }]);
    expect(result!.stop_reason, 'StreamJsonWriter.write: stopReason: this.stopReason() (guided step 7)').toBe(
      'end_turn',
    );
    expect(result!.uuid, 'StreamJsonWriter.write: uuid: this.newId() (guided step 7)').toBe('uuid-1');
    expect(
      result!.modelUsage['claude-sonnet-4-5'],
      'StreamJsonWriter.write: the usage events added up, by model (guided step 7)',
    ).toMatchObject({ inputTokens: 1200, outputTokens: 120 });
  });

  test('stream-json: init names the MCP servers, the slash commands and the version; a run cut at the turn limit stopped on tool_use', async () => {
    const provider = new MockProvider([assistantToolCalls([{ id: 'c1', name: 'read', arguments: { path: 'a.ts' } }])]);
    const all = await run(
      [userMessage('go')],
      provider,
      {
        mcpServers: [
          { name: 'docs', status: 'connected' },
          { name: 'broken', status: 'failed' },
        ],
        slashCommands: ['help', 'compact', 'check'],
        version: '1.2.3',
      },
      1,
    );
    expect(all[0], 'StreamJsonWriter.write: initLine(this.info, this.newId()) (guided step 4)').toMatchObject({
      type: 'system',
      subtype: 'init',
      mcp_servers: [
        { name: 'docs', status: 'connected' },
        { name: 'broken', status: 'failed' },
      ],
      slash_commands: ['help', 'compact', 'check'],
      claude_code_version: '1.2.3',
      uuid: 'uuid-1',
    });
    const result = all.at(-1)!;
    expect(result, 'StreamJsonWriter.write: the result has a uuid of its own (guided step 7)').toMatchObject({
      type: 'result',
      subtype: 'error_max_turns',
      stop_reason: 'tool_use',
      uuid: 'uuid-2',
      permission_denials: [],
    });
  });
});
