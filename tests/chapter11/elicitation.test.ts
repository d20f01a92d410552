/**
 * Chapter 11: a server asks the person a question mid-call (src/mcp/elicitation.ts: answerElicitation, wired in
 * McpConnection.connect), and reports progress while a call runs (McpConnection.callTool, mcpTool). The servers here
 * live in the test process (fixtures.ts), so each test decides exactly what the server asks and when it answers.
 */
import { afterAll, describe, expect, test } from 'vitest';
import type { AgentEvent } from 'kit/agent-events';
import { answerElicitation, type ElicitationParams } from 'kit/mcp/elicitation';
import { McpServers } from 'kit/mcp/servers';
import type { AskPermission, PermissionRequest } from 'kit/permissions/gate';
import { Agent } from 'kit/agent';
import { MockProvider } from 'kit/mock-provider';
import { assistantText, type Message } from 'kit/messages';
import { ToolSet } from 'kit/tool';
import { callTurn, fakeServer, resultOf, runAgent, text, toolInfo, within } from './fixtures.js';

const started: McpServers[] = [];
async function start(...args: Parameters<typeof McpServers.start>): Promise<McpServers> {
  const hub = await McpServers.start(...args);
  started.push(hub);
  if (hub.failures.length > 0) throw new Error(hub.failures.map((failure) => failure.error).join('\n'));
  return hub;
}
afterAll(async () => {
  for (const hub of started.splice(0)) await hub.close();
});

const confirmForm = (message = 'Really deploy?'): ElicitationParams => ({
  mode: 'form',
  message,
  requestedSchema: {
    type: 'object',
    properties: { confirm: { type: 'boolean', title: 'Confirm' } },
    required: ['confirm'],
  },
});
const nameForm: ElicitationParams = {
  mode: 'form',
  message: 'Your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
};

/** An ask that records each question and answers with `answer`. */
function recordingAsk(answer: Awaited<ReturnType<AskPermission>>) {
  const asked: Array<{ request: PermissionRequest; signal: AbortSignal }> = [];
  const ask: AskPermission = async (request, signal) => {
    asked.push({ request, signal });
    return answer;
  };
  return { ask, asked };
}

const signal = () => new AbortController().signal;

describe("answerElicitation: a server's question goes to the person, never answered for them (src/mcp/elicitation.ts)", () => {
  test('with nobody to ask, a question is declined', async () => {
    expect(
      await answerElicitation('v2', confirmForm(), undefined, undefined, signal()),
      'answerElicitation: no ask means decline, never accept (guided step 1)',
    ).toEqual({ action: 'decline' });
  });

  test('a yes accepts with exactly the content the question showed; "always" is a yes for this question only', async () => {
    for (const answer of ['allow_once', 'allow_always'] as const) {
      const { ask, asked } = recordingAsk(answer);
      const given = signal();
      const result = await answerElicitation('v2', confirmForm(), ask, { tool: 'deploy', callId: 'c7' }, given);
      expect(result, `answerElicitation: ${answer} accepts with the content a yes sends (guided step 3)`).toEqual({
        action: 'accept',
        content: { confirm: true },
      });
      expect(asked, 'answerElicitation: the person is asked once (guided step 2)').toHaveLength(1);
      expect(asked[0]!.signal, 'answerElicitation: ask with the signal given (guided step 2)').toBe(given);
      const { call, reason, suggestedRules } = asked[0]!.request;
      expect(
        call,
        "answerElicitation: the question is about the running call, and shows the server's words and what a yes sends (guided step 2)",
      ).toMatchObject({
        id: 'c7',
        name: 'mcp__v2__deploy',
        arguments: { question: 'Really deploy?', yes_sends: { confirm: true } },
      });
      expect(reason, 'the question names the server that asks').toContain('"v2"');
      expect(suggestedRules, "no rule comes out of a server's question").toEqual([]);
    }
  });

  test('a no, or no answer at all, declines', async () => {
    for (const answer of ['reject_once', 'reject_always', undefined] as const) {
      const { ask, asked } = recordingAsk(answer);
      expect(
        await answerElicitation('v2', confirmForm(), ask, undefined, signal()),
        `answerElicitation: ${String(answer)} declines (guided step 3)`,
      ).toEqual({ action: 'decline' });
      expect(asked, 'answerElicitation: the person was asked (guided step 2)').toHaveLength(1);
    }
  });

  test('a question that is withdrawn while the person thinks (its signal aborts) is cancelled, not accepted', async () => {
    const controller = new AbortController();
    let asked = 0;
    const ask: AskPermission = (_request, abort) => {
      asked++;
      return new Promise((_resolve, reject) => abort.addEventListener('abort', () => reject(abort.reason)));
    };
    const pending = answerElicitation('v2', confirmForm(), ask, undefined, controller.signal);
    controller.abort(new Error('the run was stopped'));
    expect(
      await within(pending, 'answerElicitation: a question whose ask rejects must settle (guided step 4)'),
      'answerElicitation: a withdrawn question is cancelled (guided step 4)',
    ).toEqual({ action: 'cancel' });
    expect(asked).toBe(1);
    const failing: AskPermission = async () => {
      throw new Error('the terminal went away');
    };
    expect(
      await answerElicitation('v2', confirmForm(), failing, undefined, signal()),
      'answerElicitation: an ask that fails never accepts (guided step 4)',
    ).toEqual({ action: 'cancel' });
  });

  test('a form a yes cannot fill (a typed name), or a URL to open, is declined without asking', async () => {
    const { ask, asked } = recordingAsk('allow_once');
    expect(
      await answerElicitation('v2', nameForm, ask, undefined, signal()),
      'answerElicitation: a required text field cannot be answered with a yes: decline (guided step 1)',
    ).toEqual({ action: 'decline' });
    const url = {
      mode: 'url',
      message: 'Log in',
      url: 'https://example.com/login',
      elicitationId: 'e1',
    } as ElicitationParams;
    expect(
      await answerElicitation('v2', url, ask, undefined, signal()),
      'answerElicitation: a URL request is declined (guided step 1)',
    ).toEqual({ action: 'decline' });
    expect(asked, 'answerElicitation: nobody is asked a question they cannot answer (guided step 1)').toEqual([]);
  });

  test('an optional text field beside a yes/no: asked, and a yes sends only the yes/no', async () => {
    const { ask, asked } = recordingAsk('allow_once');
    const params: ElicitationParams = {
      mode: 'form',
      message: 'Delete the branch?',
      requestedSchema: {
        type: 'object',
        properties: { sure: { type: 'boolean' }, note: { type: 'string' } },
        required: ['sure'],
      },
    };
    expect(await answerElicitation('git', params, ask, undefined, signal())).toEqual({
      action: 'accept',
      content: { sure: true },
    });
    expect(
      asked[0]!.request.call,
      'with no single call running the question has an id of its own and names the server',
    ).toMatchObject({ name: 'mcp__git', arguments: { yes_sends: { sure: true } } });
  });
});

describe('a server asks mid-call, through the connection (src/mcp/client.ts: McpConnection.connect guided step 3)', () => {
  const deployTool = () =>
    fakeServer([
      {
        info: toolInfo('deploy', ['env']),
        handler: async (args, call) => {
          const answer = await call.elicit(confirmForm(`Really deploy to ${String(args.env)}?`) as never);
          return text(`deploy: ${answer.action} ${JSON.stringify(answer.content ?? null)}`);
        },
      },
      {
        info: toolInfo('boom'),
        handler: () => {
          throw new Error('out of disk');
        },
      },
    ]);

  test("the client says it answers forms, the question reaches the ask with the model's call, and a yes goes back to the server", async () => {
    const box = deployTool();
    const { ask, asked } = recordingAsk('allow_once');
    const hub = await start({ box: box.factory }, { ask });
    const { history } = await within(
      runAgent(await hub.tools(), [callTurn(['c1', 'mcp__box__deploy', { env: 'prod' }])]),
      'McpConnection.connect: answer elicitation/create, or the server waits for ever (guided step 3)',
    );
    expect(
      box.state.capabilities,
      'McpConnection.connect: pass CLIENT_OPTIONS, so the server knows the client can answer forms (guided step 2)',
    ).toMatchObject({ elicitation: {} });
    expect(resultOf(history, 'c1').content, 'McpConnection.connect: the server got the yes (guided step 3)').toBe(
      'deploy: accept {"confirm":true}',
    );
    expect(
      asked.map((a) => [a.request.call.id, a.request.call.name]),
      'McpConnection.connect guided step 3 and callTool guided step 3: the question belongs to call c1',
    ).toEqual([['c1', 'mcp__box__deploy']]);
    expect((asked[0]!.request.call.arguments as { question: string }).question).toBe('Really deploy to prod?');
    expect(history).toBeValidHistory('after a call that asked the person');
  });

  test('a connection with nobody to ask declines, and the call still ends', async () => {
    const box = deployTool();
    const hub = await start({ box: box.factory });
    const { history } = await within(
      runAgent(await hub.tools(), [callTurn(['c1', 'mcp__box__deploy', { env: 'prod' }])]),
      'McpConnection.connect: answer every elicitation/create (guided step 3)',
    );
    expect(resultOf(history, 'c1').content, 'answerElicitation: nobody to ask: decline (guided step 1)').toBe(
      'deploy: decline null',
    );
  });

  test("a call that failed is no longer running: the next call's question belongs to the next call", async () => {
    const box = deployTool();
    const { ask, asked } = recordingAsk('reject_once');
    const hub = await start({ box: box.factory }, { ask });
    const { history } = await runAgent(await hub.tools(), [
      callTurn(['c1', 'mcp__box__boom', {}]),
      callTurn(['c2', 'mcp__box__deploy', { env: 'test' }]),
    ]);
    expect(resultOf(history, 'c1'), 'the first call failed').toMatchObject({ isError: true });
    expect(resultOf(history, 'c2').content).toBe('deploy: decline null');
    expect(
      asked.map((a) => a.request.call.id),
      'McpConnection.callTool: take the call out of this.running however it ends (a failed call too) (guided step 3)',
    ).toEqual(['c2']);
  });

  test("stopping the run withdraws the question: the ask's signal aborts and the run ends cancelled", async () => {
    const box = deployTool();
    const controller = new AbortController();
    let askSignal: AbortSignal | undefined;
    const ask: AskPermission = (_request, abort) => {
      askSignal = abort;
      controller.abort(new Error('Ctrl-C'));
      return new Promise((_resolve, reject) => {
        if (abort.aborted) reject(abort.reason);
        abort.addEventListener('abort', () => reject(abort.reason));
      });
    };
    const hub = await start({ box: box.factory }, { ask });
    const agent = new Agent({
      provider: new MockProvider([callTurn(['c1', 'mcp__box__deploy', { env: 'prod' }]), assistantText('done')]),
      tools: new ToolSet(await hub.tools()),
      cwd: process.cwd(),
    });
    const history: Message[] = [{ role: 'user', content: 'go' }];
    const events: AgentEvent[] = [];
    const run = (async () => {
      for await (const event of agent.run(history, { signal: controller.signal })) events.push(event);
    })();
    await within(
      run,
      "McpConnection.connect: use questionScope's signal, so stopping the run withdraws the question (guided step 3)",
    );
    expect(
      askSignal?.aborted,
      'McpConnection.connect: the ask gets the signal of questionScope, which aborts with the call (guided step 3)',
    ).toBe(true);
    expect(events.at(-1), 'the run ends cancelled').toMatchObject({ type: 'done', reason: 'cancelled' });
    expect(history).toBeValidHistory('after a run stopped while a server asked');
  });
});

describe('progress while a call runs (src/mcp/adapter.ts: mcpTool guided step 4; src/mcp/client.ts: McpConnection.callTool guided step 4)', () => {
  test('each progress notification becomes a tool_progress event of that call, while it runs, before its result', async () => {
    let seen!: () => void;
    const gate = new Promise<void>((resolve) => (seen = resolve));
    const box = fakeServer([
      {
        info: toolInfo('build'),
        handler: async (_args, call) => {
          await call.progress(1, 3, 'compiling');
          await gate; // the test lets the call finish only once it has seen the progress event
          return text('built');
        },
      },
    ]);
    const hub = await start({ box: box.factory });
    const agent = new Agent({
      provider: new MockProvider([callTurn(['c1', 'mcp__box__build', {}]), assistantText('done')]),
      tools: new ToolSet(await hub.tools()),
      cwd: process.cwd(),
    });
    const history: Message[] = [{ role: 'user', content: 'go' }];
    const events: AgentEvent[] = [];
    const run = (async () => {
      for await (const event of agent.run(history)) {
        events.push(event);
        if (event.type === 'tool_progress') seen();
      }
    })();
    await within(
      run,
      'mcpTool: emit each progress event as it arrives (ctx.emit), not after the call: this call ends only once its progress was seen (guided step 4)',
    );
    const kinds = events
      .filter((e) => e.type === 'tool_call_decided' || e.type === 'tool_progress' || e.type === 'tool_result')
      .map((e) => e.type);
    expect(kinds, 'mcpTool: progress comes between the call starting and its result (guided step 4)').toEqual([
      'tool_call_decided',
      'tool_progress',
      'tool_result',
    ]);
    expect(
      events.find((e) => e.type === 'tool_progress'),
      "progressEvent: the call's id and turn, the figures and the message",
    ).toEqual({ type: 'tool_progress', turn: 1, callId: 'c1', progress: 1, total: 3, message: 'compiling' });
    expect(resultOf(history, 'c1').content).toBe('built');
  });
});
