import path from 'node:path';
import { z } from 'zod';
import { describe, expect, test } from 'vitest';
import type { AgentEvent, PermissionAnswer, ToolDecision } from 'kit/agent-events';
import type { HookContext } from 'kit/hooks';
import { Agent } from 'kit/agent';
import { assistantText, assistantToolCalls, type Message, type ToolCall } from 'kit/messages';
import { MockProvider, type ScriptStep } from 'kit/mock-provider';
import {
  createPermissionGate,
  type AskPermission,
  type GateOptions,
  type PermissionRequest,
} from 'kit/permissions/gate';
import { parseRule } from 'kit/permissions/rules';
import { defineTool, ToolSet } from 'kit/tool';
import { tempWorkspace } from '../helpers/workspace.js';

const { root } = tempWorkspace({ 'src/a.ts': 'x' });
const ws = { root, home: path.join(path.dirname(root), 'home') };

/** Fake bash and write tools that only record what they were asked to do. */
function fakeTools() {
  const ran: string[] = [];
  const bash = defineTool({
    name: 'bash',
    description: 'run',
    input: z.object({ command: z.string() }),
    execute: async ({ command }) => (ran.push(command), `ran ${command}`),
  });
  const write = defineTool({
    name: 'write',
    description: 'write',
    input: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ path: p }) => (ran.push(`write ${p}`), 'written'),
  });
  return { tools: new ToolSet([bash, write]), ran };
}

let ids = 0;
const bashCall = (command: string): ToolCall => ({
  type: 'tool_call',
  id: `c${++ids}`,
  name: 'bash',
  arguments: { command },
});
const writeCall = (file: string): ToolCall => ({
  type: 'tool_call',
  id: `c${++ids}`,
  name: 'write',
  arguments: { path: file, content: 'new' },
});

/** A recording ask callback that answers from a list (and fails the test if asked more often). */
function answers(...list: PermissionAnswer[]) {
  const asked: PermissionRequest[] = [];
  const signals: AbortSignal[] = [];
  const ask: AskPermission = async (request, signal) => {
    asked.push(request);
    signals.push(signal);
    const next = list.shift();
    if (!next)
      throw new Error(`asked once too often, about ${request.call.name} ${JSON.stringify(request.call.arguments)}`);
    return next;
  };
  return { ask, asked, signals };
}

/** Runs one model turn per call in `calls` through an Agent with the gate, then an answer. */
async function runCalls(gateOptions: Partial<GateOptions>, calls: ToolCall[], signal?: AbortSignal) {
  const { tools, ran } = fakeTools();
  const gate = createPermissionGate({ workspace: ws, ...gateOptions });
  const script: ScriptStep[] = [...calls.map((c) => assistantToolCalls([c])), assistantText('done')];
  const agent = new Agent({ provider: new MockProvider(script), tools, cwd: root, hooks: gate });
  const history: Message[] = [{ role: 'user', content: 'go' }];
  const events: AgentEvent[] = [];
  for await (const event of agent.run(history, { signal })) events.push(event);
  const results = history.filter((m) => m.role === 'tool').map((m) => (m.role === 'tool' ? m.content : ''));
  const done = events.find((e) => e.type === 'done');
  return { ran, gate, history, events, results, done };
}

const ctx = (signal = new AbortController().signal): HookContext => ({ signal, turn: 1, history: [], emit: () => {} });

describe('createPermissionGate.beforeToolCall (src/permissions/gate.ts)', () => {
  test('a denied call never runs, and the model reads which rule denied it', async () => {
    const rules = [parseRule('Bash(rm:*)', 'deny', '/p/.claude/settings.json')];
    const { ran, results, history, events } = await runCalls({ rules, mode: 'bypassPermissions' }, [
      bashCall('rm -rf src'),
    ]);
    expect(ran, 'beforeToolCall: a deny is a block, so the tool never runs (guided step 3)').toEqual([]);
    expect(
      results[0],
      'beforeToolCall: the block message names the rule that denied the call (guided step 3)',
    ).toContain('Bash(rm:*)');
    expect(results[0], 'beforeToolCall: the block message says it was denied (guided step 3)').toMatch(/denied/i);
    expect(history).toBeValidHistory('after a denied call');
    const decided = events.find((e) => e.type === 'tool_call_decided') as Extract<
      AgentEvent,
      { type: 'tool_call_decided' }
    >;
    expect(
      decided.decision,
      'beforeToolCall: the decision carries a note: denied, by which rule, from which file (guided step 3)',
    ).toMatchObject({
      type: 'block',
      permission: {
        outcome: 'denied',
        rule: 'Bash(rm:*)',
        source: '/p/.claude/settings.json',
        mode: 'bypassPermissions',
      },
    });
  });

  test('an allowed call runs without asking, and the decision says which rule allowed it', async () => {
    const { ask, asked } = answers();
    const gate = createPermissionGate({ workspace: ws, rules: [parseRule('Bash(npm test:*)', 'allow', 'cli')], ask });
    const decision = await gate.beforeToolCall(bashCall('npm test'), ctx());
    expect(asked.length, 'beforeToolCall: an allowed call is not asked about (guided step 2)').toBe(0);
    expect(decision, 'beforeToolCall: allow, with the rule and its source in the note (guided step 2)').toEqual({
      type: 'allow',
      permission: {
        outcome: 'allowed',
        reason: expect.any(String),
        mode: 'default',
        rule: 'Bash(npm test:*)',
        source: 'cli',
      },
    });
  });

  test("the question gets the call, the reason, the suggested rule and the run's signal", async () => {
    const { ask, asked, signals } = answers('allow_once');
    const controller = new AbortController();
    const call = bashCall('npm run test:unit -- --watch');
    await createPermissionGate({ workspace: ws, ask }).beforeToolCall(call, ctx(controller.signal));
    expect(asked.length, 'beforeToolCall: a call that needs asking is asked about once (guided step 4)').toBe(1);
    expect(
      asked[0],
      'beforeToolCall: the request holds the call, evaluate\'s reason and the suggested rules (and no stillAsks key: set it only when "always" would still ask) (guided step 4)',
    ).toStrictEqual({ call, reason: expect.stringMatching(/default/), suggestedRules: ['Bash(npm run test:unit:*)'] });
    expect(signals[0], "beforeToolCall: the question gets the run's signal (ctx.signal) (guided step 4)").toBe(
      controller.signal,
    );
  });

  test('allow_once runs the call, and the next identical call is asked about again', async () => {
    const { ask, asked } = answers('allow_once', 'reject_once');
    const { ran, results, history } = await runCalls({ ask }, [bashCall('npm test'), bashCall('npm test')]);
    expect(ran, 'beforeToolCall: allow_once runs this call only (guided step 6)').toEqual(['npm test']);
    expect(
      asked.length,
      'beforeToolCall: allow_once adds no rule, so the second call is asked about (guided step 6)',
    ).toBe(2);
    expect(results[1], 'beforeToolCall: reject_once is a block the model reads (guided step 6)').toMatch(/rejected/);
    expect(history).toBeValidHistory('after a rejected call');
  });

  test('allow_always lets the next identical call through without asking', async () => {
    const { ask, asked } = answers('allow_always');
    const { ran, gate } = await runCalls({ ask }, [
      bashCall('npm run test -- --watch'),
      bashCall('npm run test -- --watch'),
    ]);
    expect(
      asked.length,
      'beforeToolCall: allow_always adds a session rule, so the same call is not asked about again (guided step 6)',
    ).toBe(1);
    expect(ran, 'both calls ran').toEqual(['npm run test -- --watch', 'npm run test -- --watch']);
    expect(
      gate.sessionRules.map((r) => `${r.behavior} ${r.tool}(${r.specifier}) ${r.source}`),
      "beforeToolCall: the session rule is the command's prefix, never the bare tool name (guided step 6)",
    ).toEqual(['allow Bash(npm run test:*) session']);
  });

  test("allow_always covers nothing broader than the command's prefix", async () => {
    const { ask, asked } = answers('allow_always', 'reject_once', 'reject_once', 'reject_once');
    const { ran } = await runCalls({ ask }, [
      bashCall('npm run test'),
      bashCall('npm run lint'),
      bashCall('npm run test && rm -rf src'),
      bashCall('rm -rf src'),
    ]);
    expect(
      ran,
      'beforeToolCall: after "always" for npm run test, other commands still need asking (guided step 6)',
    ).toEqual(['npm run test']);
    expect(
      asked.map((r) => (r.call.arguments as { command: string }).command),
      'every other command was asked about',
    ).toEqual(['npm run test', 'npm run lint', 'npm run test && rm -rf src', 'rm -rf src']);
  });

  test('allow_always on a file edit adds a rule for that file only', async () => {
    const { ask, asked } = answers('allow_always', 'reject_once');
    const { ran, gate } = await runCalls({ ask }, [
      writeCall('src/a.ts'),
      writeCall('src/a.ts'),
      writeCall('src/b.ts'),
    ]);
    expect(ran, 'the first two writes ran, the third was rejected').toEqual(['write src/a.ts', 'write src/a.ts']);
    expect(asked.length, 'the second write to the same file was not asked about').toBe(2);
    expect(
      gate.sessionRules.map((r) => `${r.tool}(${r.specifier})`),
      'suggestRules: Write(/<file>), the file from the workspace root',
    ).toEqual(['Write(/src/a.ts)']);
  });

  test('reject_always denies the next identical call without asking', async () => {
    const { ask, asked } = answers('reject_always');
    const { ran, results, events } = await runCalls({ ask }, [bashCall('git push'), bashCall('git push --force')]);
    expect(ran, 'beforeToolCall: neither call runs (guided step 6)').toEqual([]);
    expect(
      asked.length,
      'beforeToolCall: reject_always adds a session deny rule, so the second call is not asked about (guided step 6)',
    ).toBe(1);
    expect(results[1], 'the second call is denied by the session rule').toContain('Bash(git push:*)');
    const notes = events.flatMap((e) =>
      e.type === 'tool_call_decided' && e.decision.type === 'block' ? [e.decision.permission] : [],
    );
    expect(
      notes[0],
      'beforeToolCall: the note of an asked call holds the answer and the rules it added (guided step 6)',
    ).toMatchObject({ outcome: 'asked', answer: 'reject_always', added: ['Bash(git push:*)'] });
    expect(notes[1], 'the second call: denied by the session rule').toMatchObject({
      outcome: 'denied',
      rule: 'Bash(git push:*)',
      source: 'session',
    });
  });

  test('an answer that is not one of the four is a rejection', async () => {
    const ask = (async () => 'yes please') as unknown as AskPermission;
    const decision = await createPermissionGate({ workspace: ws, ask }).beforeToolCall(bashCall('make'), ctx());
    expect(
      decision.type,
      'beforeToolCall: only allow_once and allow_always run the call; anything else is rejected (guided step 6)',
    ).toBe('block');
  });

  test('without an ask callback, a call that needs asking is rejected with how to allow it', async () => {
    const { ran, results, history, events } = await runCalls({}, [bashCall('make')]);
    expect(ran, 'beforeToolCall: nobody can approve it, so it does not run (guided step 5)').toEqual([]);
    expect(
      results[0],
      'beforeToolCall: the message says how to allow it (a flag or a settings rule) (guided step 5)',
    ).toMatch(/--allowedTools|settings/);
    const decided = events.find((e) => e.type === 'tool_call_decided') as Extract<
      AgentEvent,
      { type: 'tool_call_decided' }
    >;
    expect(
      decided.decision,
      'beforeToolCall: the note says the call was denied, and why (guided step 5)',
    ).toMatchObject({
      type: 'block',
      permission: { outcome: 'denied', mode: 'default', reason: expect.stringMatching(/default/) },
    });
    expect(history).toBeValidHistory('after a call nobody could approve');
  });

  test('a callback that answers undefined (nobody at the terminal) rejects the call, naming the rule that would allow it', async () => {
    const ask: AskPermission = async () => undefined;
    const { ran, results, history } = await runCalls({ ask }, [bashCall('npm run build')]);
    expect(ran, 'beforeToolCall: an answer of undefined means nobody could approve it (guided step 5)').toEqual([]);
    expect(results[0], 'beforeToolCall: the message names a rule that would allow the call (guided step 5)').toContain(
      'Bash(npm run build:*)',
    );
    expect(history).toBeValidHistory('after a call nobody answered');
  });

  test('a call to a tool that does not exist is judged like any other, without a crash', async () => {
    const { results, done, history } = await runCalls({}, [
      { type: 'tool_call', id: 'x1', name: 'nosuch', arguments: {} },
    ]);
    expect(
      done,
      'beforeToolCall: ctx.tools may not have the tool (use ?. on what get returns) (guided step 1)',
    ).toMatchObject({
      reason: 'end_turn',
    });
    expect(
      results[0],
      'beforeToolCall: no rule can name this tool, so the message offers none (guided step 5)',
    ).toMatch(/(?=[^]*--allowedTools)(?=[^]*settings\.json)/);
    expect(
      results[0],
      'beforeToolCall: with no rule to suggest, the message suggests none (guided step 5)',
    ).not.toMatch(/--allowedTools "/);
    expect(history).toBeValidHistory('after a call to an unknown tool');
  });

  test('an abort while asking ends the run as cancelled, and the call never runs', async () => {
    const controller = new AbortController();
    const ask: AskPermission = (_request, signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason));
        setTimeout(() => controller.abort(new Error('Ctrl-C')), 5);
      });
    const { ran, done, history } = await runCalls({ ask }, [bashCall('make')], controller.signal);
    expect(ran, 'the call was never allowed').toEqual([]);
    expect(done, 'beforeToolCall: an abort while asking ends the run as cancelled (guided step 4)').toMatchObject({
      type: 'done',
      reason: 'cancelled',
    });
    expect(history).toBeValidHistory('after an abort while asking');
  });

  test('an abort while asking ends the question even when the callback ignores the signal', async () => {
    const controller = new AbortController();
    const ask: AskPermission = () => {
      setTimeout(() => controller.abort(new Error('Ctrl-C')), 5);
      return new Promise(() => {});
    };
    const { done, history } = await runCalls({ ask }, [bashCall('make')], controller.signal);
    expect(done, 'beforeToolCall: race the question against the signal (rejectOnAbort) (guided step 4)').toMatchObject({
      type: 'done',
      reason: 'cancelled',
    });
    expect(history).toBeValidHistory('after an abort while a deaf callback was asking');
  });

  test('a tool that declares itself read-only runs without asking; one that may write does not', async () => {
    const ran: string[] = [];
    const list = defineTool({
      name: 'mcp__fs__list',
      description: 'list',
      input: z.object({}),
      readOnly: true,
      execute: async () => (ran.push('list'), 'a.txt'),
    });
    const remove = defineTool({
      name: 'mcp__fs__remove',
      description: 'remove',
      input: z.object({}),
      execute: async () => (ran.push('remove'), 'gone'),
    });
    const calls: ToolCall[] = [
      { type: 'tool_call', id: 'm1', name: 'mcp__fs__list', arguments: {} },
      { type: 'tool_call', id: 'm2', name: 'mcp__fs__remove', arguments: {} },
    ];
    const gate = createPermissionGate({ workspace: ws });
    const agent = new Agent({
      provider: new MockProvider([assistantToolCalls(calls), assistantText('ok')]),
      tools: new ToolSet([list, remove]),
      cwd: root,
      hooks: gate,
    });
    const history: Message[] = [{ role: 'user', content: 'go' }];
    for await (const _event of agent.run(history)) void _event;
    expect(
      ran,
      'beforeToolCall: a tool whose Tool.readOnly is true (ctx.tools) counts as read-only; the other needs asking, and nobody can (guided step 1)',
    ).toEqual(['list']);
    expect(history).toBeValidHistory('after a read-only and a writing MCP call');
  });

  test('the mode changes during a session', async () => {
    const { ask, asked } = answers('allow_once');
    const gate = createPermissionGate({ workspace: ws, ask });
    const decisions: ToolDecision[] = [];
    decisions.push(await gate.beforeToolCall(writeCall('src/a.ts'), ctx()));
    gate.setMode('acceptEdits');
    expect(gate.mode, 'setMode changes the mode').toBe('acceptEdits');
    decisions.push(await gate.beforeToolCall(writeCall('src/a.ts'), ctx()));
    gate.setMode('plan');
    decisions.push(await gate.beforeToolCall(writeCall('src/a.ts'), ctx()));
    expect(
      asked.length,
      'beforeToolCall: evaluate with the current mode: asked in default, not in acceptEdits (guided step 1)',
    ).toBe(1);
    expect(
      decisions.map((d) => d.type),
      'default: asked and allowed once; acceptEdits: allowed; plan: blocked',
    ).toEqual(['allow', 'allow', 'block']);
    expect(
      (decisions[2] as { message: string }).message,
      'beforeToolCall: in plan mode the model reads that it is planning (guided step 3)',
    ).toMatch(/plan/);
    expect(() => gate.setMode('yolo' as never), 'setMode refuses a mode that does not exist').toThrow(/yolo/);
  });
});

describe('mustAsk: a question something before the gate asked for (createPermissionGate.beforeToolCall)', () => {
  test('a call the rules allow is asked about when mustAsk gives a reason; a denied call stays denied', async () => {
    const { ask, asked } = answers('reject_once');
    const wanted = new Set<string>();
    const first = bashCall('npm test');
    const second = bashCall('npm test');
    const third = bashCall('git push');
    wanted.add(first.id).add(third.id);
    const { ran } = await runCalls(
      {
        ask,
        rules: [parseRule('Bash(npm test:*)', 'allow', 'settings'), parseRule('Bash(git push:*)', 'deny', 'settings')],
        mustAsk: (call) => (wanted.has(call.id) ? 'a PreToolUse hook asked for the approval of this call' : undefined),
      },
      [first, second, third],
    );
    expect(
      asked.map((request) => request.call.id),
      'beforeToolCall: an allow with a mustAsk reason becomes a question; the call without one is allowed unasked, and a deny is never turned into a question (guided step 2)',
    ).toEqual([first.id]);
    expect(asked[0]?.reason, 'beforeToolCall: the question carries the reason mustAsk gave (guided step 2)').toMatch(
      /PreToolUse hook/,
    );
    expect(ran, 'the rejected call did not run; the allowed one did; the denied one did not').toEqual(['npm test']);
  });
});
