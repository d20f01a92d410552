import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { defineClientTool } from 'kit/client-tools';
import { assistantText, toolResult, type Message } from 'kit/messages';
import { historyRuleBreaks } from '../helpers/matchers.js';
import { requestOn, shape } from '../helpers/transcript.js';
import { agentWith, ask, callsTurn, collect, describeEvent, echoCall, notWriting, theDone } from './fixtures.js';

const showForm = () =>
  defineClientTool({
    name: 'show_form',
    description: 'Shows the person a form in their browser and returns what they entered',
    input: z.object({ title: z.string(), fields: z.array(z.string()) }),
  });
const formCall = { id: 'f1', name: 'show_form', arguments: { title: 'New record', fields: ['name', 'email'] } };

/** A run that pauses on show_form beside an echo in the same turn. */
async function paused(extraScript: Parameters<typeof agentWith>[0] = []) {
  const setup = agentWith([callsTurn(echoCall('e1', 'saved draft'), formCall), ...(extraScript as never[])], {
    extraTools: [showForm()],
  });
  const history = ask('create a record');
  const events = await collect(setup.agent.run(history));
  return { ...setup, history, events };
}

describe('client-side tools (src/client-tools.ts, src/hooked-call.ts)', () => {
  test('the model calls a client tool beside a normal one: the normal one runs, the run pauses with the pending call', async () => {
    const { events, history, ran, provider } = await paused();
    expect(
      historyRuleBreaks(history),
      "finishRun: a pause leaves exactly the client's call open, nothing else wrong (guided step 1)",
    ).toEqual(['call f1 has no result at the end']);
    expect(
      events.filter(notWriting).map(describeEvent).slice(1),
      'runToolCall: a client-side call is decided but not run, and gets no result event (finishRun step 1 leaves it open) (guided step 4)',
    ).toEqual([
      'requested 1 echo#e1 {"text":"saved draft"}',
      'requested 1 show_form#f1 {"title":"New record","fields":["name","email"]}',
      'decided 1 e1 allow',
      'result 1 e1 "saved draft"',
      'decided 1 f1 allow',
      'done paused_for_client_tool',
    ]);
    const done = theDone(events, 'a pause');
    expect(done.pending, 'finishRun: done lists the pending calls (guided step 2)').toEqual([
      { type: 'tool_call', ...formCall },
    ]);
    expect(ran, 'the other tool of the same turn still ran').toEqual(['echo saved draft']);
    expect(provider.requests, 'the model is not asked again while the client works').toHaveLength(1);
    expect(
      requestOn(provider, 1).tools.map((t) => t.name),
      'the client tool is offered to the model like any other',
    ).toContain('show_form');
  });

  test("resuming with the client's result sends that result to the model, and the conversation goes on", async () => {
    const { agent, history, provider } = await paused([assistantText('Record created for Ada.')]);
    const answer = toolResult(
      { id: 'f1', name: 'whatever the client wrote' },
      '{"name":"Ada","email":"ada@example.com"}',
    );
    const events = await collect(agent.run(history, { clientResults: [answer] }));
    const done = theDone(events, 'a resumed run');
    expect(done, "the resumed run ends with the model's answer").toMatchObject({
      reason: 'end_turn',
      text: 'Record created for Ada.',
      turns: 1,
    });
    const sent = requestOn(provider, 2);
    expect(
      sent,
      "addClientResults: the client's results are appended after the turn, so the next request ends with the turn, the echo result and the client's result (guided step 3)",
    ).toEndWithResultsFor(['e1', 'f1']);
    expect(
      sent.messages.at(-1),
      "addClientResults: the client's content and isError, with the call's own id and name (guided step 3)",
    ).toEqual(toolResult({ id: 'f1', name: 'show_form' }, '{"name":"Ada","email":"ada@example.com"}'));
    expect(history).toBeValidHistory('after the resume');
    expect(provider.requests, 'one model call per turn: the resume asks the model once').toHaveLength(2);
  });

  test('a resume whose result answers no open call is refused, and the history stays paused for a correct one', async () => {
    const { agent, history, provider } = await paused([assistantText('ok')]);
    const before = structuredClone(history);
    const done = theDone(
      await collect(agent.run(history, { clientResults: [toolResult({ id: 'nope', name: 'show_form' }, 'x')] })),
      'a bad resume',
    );
    expect(done.reason, "Agent.run: a problem with the client's results is done: error (guided step 2)").toBe('error');
    expect(done.message, 'addClientResults: the sentence names the wrong id and the open one (guided step 2)').toMatch(
      /nope[\s\S]*f1|f1[\s\S]*nope/,
    );
    expect(
      done,
      'Agent.run: a refused resume is one done of reason error, with nothing else in it (guided step 2)',
    ).toStrictEqual({
      type: 'done',
      reason: 'error',
      turns: 0,
      text: '',
      usage: { inputTokens: 0, outputTokens: 0 },
      message: done.message,
    });
    expect(history, 'addClientResults: check everything before changing anything (guided step 2)').toEqual(before);
    expect(provider.requests, 'no model call on a refused resume').toHaveLength(1);
    const fixed = theDone(
      await collect(agent.run(history, { clientResults: [toolResult({ id: 'f1', name: 'show_form' }, 'done')] })),
      'a correct resume',
    );
    expect(fixed.reason, 'the paused history can still be resumed').toBe('end_turn');
    expect(history).toBeValidHistory('after the correct resume');
  });

  test('a resume must answer every open call exactly once', async () => {
    const two = agentWith([callsTurn(formCall, { ...formCall, id: 'f2' }), assistantText('ok')], {
      extraTools: [showForm()],
    });
    const history = ask('two forms');
    const first = theDone(await collect(two.agent.run(history)), 'two client calls');
    expect(
      first.pending?.map((c) => c.id),
      'both client calls are pending',
    ).toEqual(['f1', 'f2']);
    const before = structuredClone(history);
    const missing = theDone(
      await collect(two.agent.run(history, { clientResults: [toolResult(formCall, 'a')] })),
      'a resume missing f2',
    );
    expect(missing.reason).toBe('error');
    expect(missing.message, 'addClientResults: name the call left without a result (guided step 2)').toContain('f2');
    const wrong = theDone(
      await collect(two.agent.run(history, { clientResults: [toolResult({ id: 'zz', name: 'show_form' }, 'a')] })),
      'a resume for an unknown id',
    );
    expect(wrong.message, 'addClientResults: name every call still open, each id on its own (guided step 2)').toMatch(
      /\bf1\b[\s\S]*\bf2\b/,
    );
    const none = theDone(await collect(two.agent.run(history, { clientResults: [] })), 'a resume with no results');
    expect(
      none.message,
      'addClientResults: name every call left without a result, each id on its own (guided step 2)',
    ).toMatch(/\bf1\b[\s\S]*\bf2\b/);
    const twice = theDone(
      await collect(two.agent.run(history, { clientResults: [toolResult(formCall, 'a'), toolResult(formCall, 'b')] })),
      'a resume answering f1 twice',
    );
    expect(twice.reason, 'a second result for the same call is refused').toBe('error');
    expect(twice.message).toContain('f1');
    expect(history, 'nothing was appended by the refused resumes').toEqual(before);
    expect(two.provider.requests).toHaveLength(1);
  });

  test('a result whose id is a name of Object.prototype ("constructor", "toString") answers no open call', async () => {
    const { agent, history, provider } = await paused([assistantText('ok')]);
    const before = structuredClone(history);
    for (const id of ['constructor', 'toString']) {
      const done = theDone(
        await collect(
          agent.run(history, {
            clientResults: [toolResult(formCall, 'filled in'), toolResult({ id, name: 'show_form' }, 'stray')],
          }),
        ),
        `a resume with a result for ${id}`,
      );
      expect(
        done.reason,
        `addClientResults: a result for "${id}" answers no open call (keep the open calls in a Map or Set, not a plain object) (guided step 2)`,
      ).toBe('error');
      expect(done.message, `addClientResults: the sentence names the wrong id ${id} (guided step 2)`).toContain(id);
    }
    expect(history, 'addClientResults: nothing was appended by the refused resumes (guided step 2)').toEqual(before);
    expect(provider.requests).toHaveLength(1);
  });

  test("running a paused history without the client's results is refused, and changes nothing", async () => {
    const { agent, history, provider } = await paused([assistantText('never')]);
    const before = structuredClone(history);
    const done = theDone(await collect(agent.run(history)), 'a run on a paused history without results');
    expect(
      done.reason,
      'addClientResults: an open call without a result is a problem even when no results are given',
    ).toBe('error');
    expect(done.message).toContain('f1');
    expect(history).toEqual(before);
    expect(provider.requests).toHaveLength(1);
  });

  test('results given when no call is waiting are refused', async () => {
    const { agent, provider } = agentWith([assistantText('never')]);
    const history: Message[] = ask('hi');
    const done = theDone(
      await collect(agent.run(history, { clientResults: [toolResult({ id: 'x1', name: 'show_form' }, 'x')] })),
      'results for nothing',
    );
    expect(done.reason, 'addClientResults: x1 is not an open call (guided step 2)').toBe('error');
    expect(done.message).toContain('x1');
    expect(shape(history)).toEqual(['user']);
    expect(provider.requests).toHaveLength(0);
  });

  test('a client call blocked by a hook does not pause: the model reads the block and goes on', async () => {
    const setup = agentWith([callsTurn(formCall), assistantText('ok, no form')], {
      extraTools: [showForm()],
      hooks: {
        beforeToolCall: (call) =>
          call.name === 'show_form' ? { type: 'block', message: 'Forms are off.' } : undefined,
      },
    });
    const history = ask('form please');
    const done = theDone(await collect(setup.agent.run(history)), 'a blocked client call');
    expect(done.reason, 'runToolCall: the hooks decide before a client call is left pending').toBe('end_turn');
    expect(history).toBeValidHistory('after a blocked client call');
  });

  test('an abort while a client call is pending cancels the run instead of pausing it', async () => {
    const controller = new AbortController();
    const setup = agentWith([callsTurn(formCall, echoCall('e1', 'x'))], {
      extraTools: [showForm()],
      hooks: { afterToolCall: () => void controller.abort(new Error('closed the tab')) },
    });
    const history = ask('go');
    const done = theDone(
      await collect(setup.agent.run(history, { signal: controller.signal })),
      'an abort beside a client call',
    );
    expect(done.reason, 'Agent.run: check the signal after the executor, before pausing (guided step 3d)').toBe(
      'cancelled',
    );
    expect(done.pending, 'a cancelled run has nothing pending').toBeUndefined();
    expect(history, 'finishRun: the client call is closed too (guided step 1)').toBeValidHistory(
      'after an abort beside a client call',
    );
  });
});
