import { describe, expect, test } from 'vitest';
import type { AgentEvent, ApprovePlan } from 'kit/agent-events';
import { Agent } from 'kit/agent';
import { MockProvider } from 'kit/mock-provider';
import { createPermissionGate } from 'kit/permissions/gate';
import type { PermissionMode } from 'kit/permissions/evaluate';
import {
  EXIT_PLAN_MODE,
  exitPlanModeTool,
  PLAN_MODE_NOTE,
  planDecision,
  planModeHooks,
  planRequest,
  type ModeControl,
} from 'kit/planning/plan-mode';
import type { ModelRequest } from 'kit/provider';
import { ToolSet, toolDefinition } from 'kit/tool';
import { requestOn } from '../helpers/transcript.js';
import {
  approver,
  ask,
  assistantText,
  call,
  callsTurn,
  collect,
  fakeTools,
  modeHolder,
  names,
  ofType,
} from './fixtures.js';
import { hangs } from '../helpers/wait.js';

const definitions = () => [
  ...fakeTools().tools.map(toolDefinition),
  { name: EXIT_PLAN_MODE, description: 'leave plan mode', inputSchema: { type: 'object' } },
];
const request = (system?: string): ModelRequest => ({
  system,
  messages: [{ role: 'user', content: 'hi' }],
  tools: definitions(),
});

/** An agent with the stand-in tools, exit_plan_mode and plan mode's hooks, on `script`. */
function planningAgent(
  script: ConstructorParameters<typeof MockProvider>[0],
  control: ModeControl,
  approve: ApprovePlan = approver({ approved: true, mode: 'default' }).approve,
) {
  const { tools, ran } = fakeTools();
  const provider = new MockProvider(script);
  const agent = new Agent({
    provider,
    tools: new ToolSet([...tools, exitPlanModeTool(control, approve)]),
    cwd: process.cwd(),
    system: 'Be brief.',
    hooks: planModeHooks(control),
  });
  return { agent, provider, ran };
}

const toolCall = (id: string, name: string) => ({ type: 'tool_call' as const, id, name, arguments: {} });
const toolResults = (req: { messages: readonly unknown[] }) =>
  req.messages.filter(
    (m): m is { role: 'tool'; toolCallId: string; content: string; isError: boolean } =>
      (m as { role: string }).role === 'tool',
  );

describe('planRequest (src/planning/plan-mode.ts)', () => {
  test('while planning, the model is told so after the system prompt; tools and messages stay; the request given is not changed', () => {
    const before = request('Be brief.');
    const copy = structuredClone(before);
    const out = planRequest(before, 'plan');
    expect(out.system, 'planRequest: old system prompt, a blank line, then PLAN_MODE_NOTE (guided step 2)').toBe(
      `Be brief.\n\n${PLAN_MODE_NOTE}`,
    );
    expect(
      out.tools.map((t) => t.name),
      'planRequest: while planning every tool is still offered (the refusal comes at the call) (guided step 2)',
    ).toEqual(definitions().map((t) => t.name));
    expect(out.messages, 'messages as they were').toEqual(before.messages);
    expect(before, 'planRequest: make a new request; never change the one given (guided step 3)').toEqual(copy);
    expect(
      planRequest(request(), 'plan').system,
      'planRequest: with no system prompt, only the note (guided step 2)',
    ).toBe(PLAN_MODE_NOTE);
  });

  test('outside plan mode, exit_plan_mode is not offered, and nothing else changes', () => {
    for (const mode of ['default', 'acceptEdits', 'bypassPermissions'] as PermissionMode[]) {
      const before = request('Be brief.');
      const out = planRequest(before, mode);
      expect(
        out.tools.map((t) => t.name),
        `planRequest guided step 1 (${mode}): every tool but exit_plan_mode`,
      ).toEqual(['read', 'grep', 'write', 'edit', 'bash']);
      expect(out.system, `planRequest guided step 1 (${mode}): no plan note outside plan mode`).toBe('Be brief.');
      expect(before.tools, 'planRequest: the request given keeps its tools (guided step 3)').toHaveLength(6);
    }
  });
});

describe('planDecision (src/planning/plan-mode.ts)', () => {
  test('while planning, every tool that is not read-only is blocked with a message that names it and says what to do', () => {
    const tools = new ToolSet(fakeTools().tools);
    for (const name of ['write', 'edit', 'bash']) {
      const decision = planDecision(toolCall('c1', name), tools, 'plan');
      expect(
        decision?.type,
        `planDecision: ${name} is not read-only, so it is blocked while planning (guided step 4)`,
      ).toBe('block');
      const message = decision?.type === 'block' ? decision.message : '';
      expect(message, 'planDecision: the message names the tool (guided step 4)').toContain(name);
      expect(message, 'planDecision: and says the agent is planning (guided step 4)').toMatch(/plan/i);
      expect(message, 'planDecision: and points at exit_plan_mode (guided step 4)').toContain(EXIT_PLAN_MODE);
    }
  });

  test('read-only tools, unknown tools and every call outside plan mode get no decision from plan mode', () => {
    const tools = new ToolSet(fakeTools().tools);
    expect(
      planDecision(toolCall('c1', 'read'), tools, 'plan'),
      'planDecision: read-only tools run while planning (guided step 3)',
    ).toBeUndefined();
    expect(planDecision(toolCall('c1', 'grep'), tools, 'plan'), 'planDecision guided step 3').toBeUndefined();
    expect(
      planDecision(toolCall('c1', 'nope'), tools, 'plan'),
      'planDecision: an unknown tool is left to the loop (guided step 2)',
    ).toBeUndefined();
    expect(
      planDecision(toolCall('c1', 'bash'), undefined, 'plan'),
      'planDecision: no tools given: no opinion (guided step 2)',
    ).toBeUndefined();
    for (const mode of ['default', 'acceptEdits', 'bypassPermissions'] as PermissionMode[]) {
      expect(
        planDecision(toolCall('c1', 'bash'), tools, mode),
        `planDecision: outside plan mode (${mode}) plan mode says nothing (guided step 1)`,
      ).toBeUndefined();
    }
  });
});

describe('planDecision in the loop (planModeHooks)', () => {
  test('a writing call while planning never runs; the model reads why, and a read runs', async () => {
    const { control } = modeHolder('plan');
    const { agent, provider, ran } = planningAgent(
      [
        callsTurn(
          call('c1', 'read', { path: 'a.ts' }),
          call('c2', 'bash', { command: 'rm -rf build' }),
          call('c3', 'write', { path: 'a.ts' }),
        ),
        assistantText('ok'),
      ],
      control,
    );
    const history = ask('clean up');
    await collect(agent.run(history));
    expect(ran, 'planModeHooks: only the read-only call ran').toEqual(['read a.ts']);
    const results = toolResults(requestOn(provider, 2));
    expect(
      results.map((r) => [r.toolCallId, r.isError]),
      'the blocked calls are error results the model reads',
    ).toEqual([
      ['c1', false],
      ['c2', true],
      ['c3', true],
    ]);
    expect(results[1]!.content, 'the model reads that bash was not run because it is planning').toMatch(
      /bash.*plan|plan.*bash/i,
    );
    expect(requestOn(provider, 1).system, 'the first request carries the plan note').toContain(PLAN_MODE_NOTE);
    expect(history).toBeValidHistory('after blocked calls in plan mode');
  });
});

describe('exit_plan_mode (src/planning/plan-mode.ts)', () => {
  test('approved with acceptEdits: the plan, the decision and the mode change are told before the result, and the mode switches', async () => {
    const { control, switches } = modeHolder('plan');
    const { approve, plans } = approver({ approved: true, mode: 'acceptEdits' });
    const { agent, provider, ran } = planningAgent(
      [
        callsTurn(call('p1', EXIT_PLAN_MODE, { plan: '  1. Fix parse()\n2. Run the tests  ' })),
        callsTurn(call('c2', 'write', { path: 'a.ts' })),
        assistantText('done'),
      ],
      control,
      approve,
    );
    const events = await collect(agent.run(ask('fix it')));
    expect(plans, 'exit_plan_mode: the person is shown the trimmed plan (guided step 3)').toEqual([
      '1. Fix parse()\n2. Run the tests',
    ]);
    expect(switches, 'exit_plan_mode: control.setMode with the mode the person chose (guided step 4)').toEqual([
      'acceptEdits',
    ]);
    expect(
      names(events).slice(2, 7),
      'exit_plan_mode: plan_proposed, then plan_decided and mode_changed, before the result (guided steps 3-4)',
    ).toEqual(['tool_call_decided p1', 'plan_proposed', 'plan_decided', 'mode_changed', 'tool_result p1']);
    expect(ofType(events, 'plan_proposed')[0], 'plan_proposed carries turn, call id and the plan').toEqual({
      type: 'plan_proposed',
      turn: 1,
      callId: 'p1',
      plan: '1. Fix parse()\n2. Run the tests',
    });
    expect(ofType(events, 'plan_decided')[0], 'plan_decided: approved, with the new mode').toEqual({
      type: 'plan_decided',
      turn: 1,
      callId: 'p1',
      approved: true,
      mode: 'acceptEdits',
    });
    expect(
      ofType(events, 'mode_changed')[0],
      'exit_plan_mode: previous is the mode BEFORE setMode (guided step 4)',
    ).toEqual({
      type: 'mode_changed',
      turn: 1,
      mode: 'acceptEdits',
      previous: 'plan',
    });
    const result = toolResults(requestOn(provider, 2))[0]!;
    expect(result.isError, 'an approval is not an error').toBe(false);
    expect(
      result.content,
      'exit_plan_mode: the model reads that the plan was approved, and the new mode (guided step 4)',
    ).toMatch(/approved[\s\S]*acceptEdits/);
    expect(ran, 'after the approval, the writing call of the next turn runs').toEqual(['write a.ts']);
    expect(requestOn(provider, 2).system, 'after the approval the plan note is gone').not.toContain(PLAN_MODE_NOTE);
    expect(
      requestOn(provider, 2).tools.map((t) => t.name),
      'and exit_plan_mode is no longer offered',
    ).not.toContain(EXIT_PLAN_MODE);
  });

  test('approved with default: the mode becomes default', async () => {
    const { control } = modeHolder('plan');
    const { agent } = planningAgent(
      [callsTurn(call('p1', EXIT_PLAN_MODE, { plan: 'the plan' })), assistantText('ok')],
      control,
      approver({ approved: true, mode: 'default' }).approve,
    );
    const events = await collect(agent.run(ask('go')));
    expect(control.mode, 'exit_plan_mode guided step 4').toBe('default');
    expect(ofType(events, 'mode_changed')[0]?.mode).toBe('default');
  });

  test('keep planning, with feedback: the mode stays plan, the model reads the feedback, and writing is still refused', async () => {
    const { control, switches } = modeHolder('plan');
    const { agent, provider, ran } = planningAgent(
      [
        callsTurn(call('p1', EXIT_PLAN_MODE, { plan: 'delete everything' })),
        callsTurn(call('c2', 'bash', { command: 'rm -rf /' })),
        assistantText('ok'),
      ],
      control,
      approver({ approved: false, feedback: ' Keep the config files. ' }).approve,
    );
    const events = await collect(agent.run(ask('go')));
    expect(switches, 'exit_plan_mode: not approved, so no setMode (guided step 5)').toEqual([]);
    expect(control.mode).toBe('plan');
    expect(
      ofType(events, 'plan_decided')[0],
      'exit_plan_mode: plan_decided, not approved, mode plan, the feedback trimmed (guided step 5)',
    ).toEqual({
      type: 'plan_decided',
      turn: 1,
      callId: 'p1',
      approved: false,
      mode: 'plan',
      feedback: 'Keep the config files.',
    });
    expect(ofType(events, 'mode_changed'), 'no mode_changed: the mode did not change').toEqual([]);
    const result = toolResults(requestOn(provider, 2))[0]!;
    expect(result.content, 'exit_plan_mode: the model reads that it must keep planning (guided step 5)').toMatch(
      /keep planning/i,
    );
    expect(result.content, "exit_plan_mode: and the person's feedback (guided step 5)").toContain(
      'Keep the config files.',
    );
    expect(ran, 'still planning: bash does not run').toEqual([]);
  });

  test('keep planning without feedback: no feedback field, and the result still says to keep planning', async () => {
    const { control } = modeHolder('plan');
    const { agent, provider } = planningAgent(
      [callsTurn(call('p1', EXIT_PLAN_MODE, { plan: 'a plan' })), assistantText('ok')],
      control,
      approver({ approved: false }).approve,
    );
    const events = await collect(agent.run(ask('go')));
    expect(
      ofType(events, 'plan_decided')[0],
      'exit_plan_mode: feedback only when there is some (guided step 5)',
    ).toEqual({
      type: 'plan_decided',
      turn: 1,
      callId: 'p1',
      approved: false,
      mode: 'plan',
    });
    expect(toolResults(requestOn(provider, 2))[0]!.content).toMatch(/keep planning/i);
  });

  test('the consumers have the plan while the person is still being asked (an editor shows it beside the question)', async () => {
    const { control } = modeHolder('plan');
    let shown = () => {};
    const planShown = new Promise<void>((resolve) => (shown = resolve));
    const approve = async () => {
      const timedOut = await hangs(planShown);
      return timedOut
        ? { approved: false as const, feedback: 'TIMED OUT' }
        : { approved: true as const, mode: 'default' as const };
    };
    const { agent } = planningAgent(
      [callsTurn(call('p1', EXIT_PLAN_MODE, { plan: 'the plan' })), assistantText('ok')],
      control,
      approve,
    );
    const events: AgentEvent[] = [];
    for await (const event of agent.run(ask('go'))) {
      events.push(event);
      if (event.type === 'plan_proposed') shown();
    }
    expect(
      ofType(events, 'plan_decided')[0]?.approved,
      'exit_plan_mode: emit plan_proposed BEFORE awaiting approve (the consumer never saw the plan while the person was asked) (guided step 3)',
    ).toBe(true);
  });

  test('exit_plan_mode outside plan mode is an error that names the mode; nobody is asked', async () => {
    const { control } = modeHolder('default');
    const { approve, plans } = approver({ approved: true, mode: 'default' });
    const { agent, provider } = planningAgent(
      [callsTurn(call('p1', EXIT_PLAN_MODE, { plan: 'a plan' })), assistantText('ok')],
      control,
      approve,
    );
    const events = await collect(agent.run(ask('go')));
    const result = toolResults(requestOn(provider, 2))[0]!;
    expect(result.isError, 'exit_plan_mode: not planning is an error (guided step 1)').toBe(true);
    expect(result.content, 'exit_plan_mode: the error names the mode (guided step 1)').toContain('default');
    expect(plans, 'nobody is asked').toEqual([]);
    expect(ofType(events, 'plan_proposed'), 'no plan_proposed').toEqual([]);
  });

  test('an empty plan is an error; nobody is asked and no plan is proposed', async () => {
    const { control } = modeHolder('plan');
    const { approve, plans } = approver({ approved: true, mode: 'default' });
    const { agent, provider } = planningAgent(
      [callsTurn(call('p1', EXIT_PLAN_MODE, { plan: ' \n ' })), assistantText('ok')],
      control,
      approve,
    );
    const events = await collect(agent.run(ask('go')));
    expect(toolResults(requestOn(provider, 2))[0]!.isError, 'exit_plan_mode guided step 2').toBe(true);
    expect(plans).toEqual([]);
    expect(ofType(events, 'plan_proposed')).toEqual([]);
    expect(control.mode).toBe('plan');
  });

  test('a cancel while the person is asked ends the run cancelled, the mode unchanged and the history valid', async () => {
    const { control, switches } = modeHolder('plan');
    const controller = new AbortController();
    let signalSeen: AbortSignal | undefined;
    const approve = (_plan: string, signal: AbortSignal) =>
      new Promise<never>((_resolve, reject) => {
        signalSeen = signal;
        signal.addEventListener('abort', () => reject(signal.reason));
        setTimeout(() => controller.abort(new Error('stopped by the person')), 5);
      });
    const { agent } = planningAgent(
      [callsTurn(call('p1', EXIT_PLAN_MODE, { plan: 'a plan' })), assistantText('never')],
      control,
      approve,
    );
    const history = ask('go');
    const events = await collect(agent.run(history, { signal: controller.signal }));
    expect(signalSeen?.aborted, "exit_plan_mode: approve gets the run's signal (ctx.signal) (guided step 3)").toBe(
      true,
    );
    expect(events.at(-1), 'the run ends cancelled').toMatchObject({ type: 'done', reason: 'cancelled' });
    expect(switches, 'no mode change').toEqual([]);
    expect(history).toBeValidHistory('after a cancel while asking about a plan');
  });

  test("with chapter 8's gate in plan mode too, exit_plan_mode runs and its approval switches the gate itself", async () => {
    const gate = createPermissionGate({ workspace: { root: process.cwd(), home: process.cwd() }, mode: 'plan' });
    const { tools, ran } = fakeTools();
    const provider = new MockProvider([
      callsTurn(call('p1', EXIT_PLAN_MODE, { plan: 'edit a.ts' })),
      callsTurn(call('c2', 'edit', { path: 'a.ts' })),
      assistantText('ok'),
    ]);
    const agent = new Agent({
      provider,
      tools: new ToolSet([...tools, exitPlanModeTool(gate, approver({ approved: true, mode: 'acceptEdits' }).approve)]),
      cwd: process.cwd(),
      hooks: [planModeHooks(gate), gate],
    });
    const events: AgentEvent[] = await collect(agent.run(ask('go')));
    expect(
      ofType(events, 'tool_result')[0]?.isError,
      'exit_plan_mode must be read-only, or the gate refuses it in plan mode',
    ).toBe(false);
    expect(gate.mode, 'the approval switched the gate').toBe('acceptEdits');
    expect(ran, 'in acceptEdits the edit runs').toEqual(['edit a.ts']);
  });
});

describe('exit_plan_mode (src/planning/plan-mode.ts) outside a loop', () => {
  test("it works with no emit, and its events say turn 0 and call id '' when the context has none", async () => {
    const held = modeHolder('plan');
    const tool = exitPlanModeTool(held.control, approver({ approved: true, mode: 'acceptEdits' }).approve);
    await expect(
      tool.execute({ plan: 'p' }, { cwd: process.cwd() }),
      'exit_plan_mode: ctx.emit may be absent (ctx.emit?.(...))',
    ).resolves.toMatch(/approved/);
    const again = modeHolder('plan');
    const seen: AgentEvent[] = [];
    await exitPlanModeTool(again.control, approver({ approved: true, mode: 'default' }).approve).execute(
      { plan: 'p' },
      { cwd: process.cwd(), emit: (event) => void seen.push(event) },
    );
    expect(
      seen.map((e) => [e.type, 'turn' in e ? e.turn : '-', 'callId' in e ? e.callId : '-']),
      "exit_plan_mode: turn 0 and call id '' when absent (guided step 3)",
    ).toEqual([
      ['plan_proposed', 0, ''],
      ['plan_decided', 0, ''],
      ['mode_changed', 0, '-'],
    ]);
    const bare = await exitPlanModeTool(modeHolder('plan').control, approver({ approved: false }).approve).execute(
      { plan: 'p' },
      { cwd: process.cwd() },
    );
    const told = await exitPlanModeTool(
      modeHolder('plan').control,
      approver({ approved: false, feedback: 'Smaller steps.' }).approve,
    ).execute({ plan: 'p' }, { cwd: process.cwd() });
    expect(bare, 'exit_plan_mode: no emit needed either (guided step 5)').toMatch(/keep planning/i);
    expect(
      told.startsWith(bare) && told.endsWith('Smaller steps.'),
      `exit_plan_mode: with feedback, the same sentence followed by the feedback (got "${bare}" and "${told}") (guided step 5)`,
    ).toBe(true);
  });

  test('the refusals say what is wrong', async () => {
    const { control } = modeHolder('plan');
    const tool = exitPlanModeTool(control, approver({ approved: true, mode: 'default' }).approve);
    await expect(
      tool.execute({ plan: '  ' }, { cwd: process.cwd() }),
      'exit_plan_mode: the error says the plan is empty (guided step 2)',
    ).rejects.toThrow(/empty/);
  });
});
