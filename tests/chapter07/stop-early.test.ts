import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from 'kit/agent-events';
import { defineClientTool } from 'kit/client-tools';
import { CANCELLED_RESULT } from 'kit/safe-call';
import { STOPPED_READING } from 'kit/finish-run';
import { assistantText, toolResult, userMessage, type Message } from 'kit/messages';
import { toAnthropicMessages } from 'kit/providers/anthropic';
import { toOpenAIMessages } from 'kit/providers/openai';
import { defineTool } from 'kit/tool';
import { historyRuleBreaks } from '../helpers/matchers.js';
import { requestOn, shape } from '../helpers/transcript.js';
import { within } from '../helpers/wait.js';
import { agentWith, ask, callsTurn, collect, echoCall } from './fixtures.js';

const where = 'interruptRun (called from Agent.run guided step 6, the finally)';

/** Reads a run until `stopAt` says so, then breaks out of the for await, as a consumer that has seen enough does. */
async function readUntil(
  events: AsyncIterable<AgentEvent>,
  stopAt: (event: AgentEvent) => boolean,
): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of events) {
    seen.push(event);
    if (stopAt(event)) break;
  }
  return seen;
}

/** Anthropic's rule: every tool_use block is answered by a tool_result with its id in the very next (user) message. */
function anthropicPairingProblems(messages: readonly Message[]): string[] {
  const sent = toAnthropicMessages(messages);
  const problems: string[] = [];
  sent.forEach((message, i) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return;
    const uses = message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
    if (uses.length === 0) return;
    const next = sent[i + 1];
    const answered =
      next && next.role === 'user' && typeof next.content !== 'string'
        ? next.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))
        : [];
    for (const id of uses)
      if (!answered.includes(id)) problems.push(`anthropic: tool_use ${id} has no tool_result in the next message`);
  });
  return problems;
}

/** OpenAI's rule: every tool_calls id of an assistant message is answered by a tool message right after it. */
function openaiPairingProblems(messages: readonly Message[]): string[] {
  const sent = toOpenAIMessages(undefined, messages);
  const problems: string[] = [];
  sent.forEach((message, i) => {
    if (message.role !== 'assistant' || !message.tool_calls) return;
    const answered: string[] = [];
    for (let j = i + 1; j < sent.length && sent[j]!.role === 'tool'; j++)
      answered.push((sent[j] as { tool_call_id: string }).tool_call_id);
    for (const call of message.tool_calls)
      if (!answered.includes(call.id)) problems.push(`openai: tool call ${call.id} has no tool message right after it`);
  });
  return problems;
}

describe('interruptRun (src/finish-run.ts): a consumer that stops reading early', () => {
  test('break after a tool call is requested: every call of the turn gets a cancelled result, and the next run sends a history both providers accept', async () => {
    const { agent, provider, ran } = agentWith([
      callsTurn(echoCall('c1', 'one'), echoCall('c2', 'two')),
      assistantText('Fine, stopping there.'),
    ]);
    const history = ask('echo twice');
    const seen = await readUntil(agent.run(history), (e) => e.type === 'tool_call_requested');
    expect(seen.at(-1)?.type, 'the consumer broke out at the first tool_call_requested').toBe('tool_call_requested');
    expect(
      historyRuleBreaks(history),
      `${where} guided step 3: after a break the history is valid; every open call, c1 and c2, gets a result`,
    ).toEqual([]);
    expect(
      history.slice(2),
      `${where} guided step 3: closeOpenCalls(run.history, CANCELLED_RESULT) gives both calls the cancelled result, in call order`,
    ).toEqual([
      toolResult(echoCall('c1', 'one'), CANCELLED_RESULT, true),
      toolResult(echoCall('c2', 'two'), CANCELLED_RESULT, true),
    ]);
    expect(ran, 'nothing runs after the consumer stopped reading').toEqual([]);
    history.push(userMessage('never mind'));
    await collect(agent.run(history));
    const sent = requestOn(provider, 2).messages;
    expect(shape(sent), 'the next run sends the turn, both results, then the new prompt').toEqual([
      'user',
      'assistant call echo#c1 + call echo#c2',
      'tool echo#c1 error',
      'tool echo#c2 error',
      'user',
    ]);
    expect(
      [...anthropicPairingProblems(sent), ...openaiPairingProblems(sent)],
      `${where} guided step 3: the history sent after a break must be valid for Anthropic and OpenAI: every tool_use paired with its result by id`,
    ).toEqual([]);
  });

  test('return() on the iterator after the first call was decided closes the calls that had no result yet', async () => {
    const { agent, ran } = agentWith([callsTurn(echoCall('c1', 'one'), echoCall('c2', 'two'))]);
    const history = ask('echo twice');
    const iterator = agent.run(history)[Symbol.asyncIterator]();
    for (;;) {
      const next = await iterator.next();
      if (next.done || next.value.type === 'tool_call_decided') break;
    }
    await iterator.return(undefined);
    expect(
      historyRuleBreaks(history),
      `${where} guided step 3: return() runs the finally too; the history must be valid after it`,
    ).toEqual([]);
    expect(
      history.filter((m) => m.role === 'tool').map((m) => m.role === 'tool' && `${m.toolCallId}: ${m.content}`),
      `${where} guided step 3: both calls were left without a recorded result, so both get CANCELLED_RESULT`,
    ).toEqual([`c1: ${CANCELLED_RESULT}`, `c2: ${CANCELLED_RESULT}`]);
    expect(ran, 'c1 was decided but had not run when the consumer stopped; nothing runs after that').toEqual([]);
  });

  test("a tool still running when the consumer breaks gets the run's signal aborted, so it stops", async () => {
    let aborted: (reason: unknown) => void = () => {};
    const sawAbort = new Promise<unknown>((resolve) => (aborted = resolve));
    const worker = defineTool({
      name: 'worker',
      description: 'Reports progress, then works until the run is stopped.',
      input: z.object({}),
      execute: (_input, ctx) =>
        new Promise<string>((resolve) => {
          ctx.signal?.addEventListener('abort', () => {
            aborted(ctx.signal?.reason);
            resolve('stopped');
          });
          ctx.emit?.({ type: 'text_delta', turn: 0, text: 'working' });
        }),
    });
    const { agent } = agentWith([callsTurn({ id: 'w1', name: 'worker', arguments: {} })], { extraTools: [worker] });
    const history = ask('work');
    await readUntil(agent.run(history), (e) => e.type === 'text_delta' && e.turn === 0);
    const reason = await within(
      sawAbort,
      `${where} guided step 2: after a break, abort the run with run.abort(...) so a tool still at work is told to stop; the tool never saw its signal abort`,
    );
    expect(
      String((reason as Error | undefined)?.message),
      `${where} guided step 2: the abort reason is new Error(STOPPED_READING)`,
    ).toBe(STOPPED_READING);
    expect(history).toBeValidHistory('after a break while a tool ran');
  });

  test("an abort from inside the run leaves the caller's own signal alone", async () => {
    const controller = new AbortController();
    const { agent } = agentWith([callsTurn(echoCall('c1', 'one'))]);
    await readUntil(agent.run(ask('go'), { signal: controller.signal }), (e) => e.type === 'tool_call_requested');
    expect(
      controller.signal.aborted,
      "Agent.run: the run aborts its own signal (runSignal, given), never the caller's, which may serve other runs (guided step 1)",
    ).toBe(false);
  });

  test("break at the done of a paused run keeps the client's call open, and the run can be resumed", async () => {
    const form = defineClientTool({ name: 'show_form', description: 'Shown in the browser', input: z.object({}) });
    const { agent } = agentWith([callsTurn({ id: 'f1', name: 'show_form', arguments: {} }), assistantText('Thanks.')], {
      extraTools: [form],
    });
    const history = ask('form please');
    const seen = await readUntil(agent.run(history), (e) => e.type === 'done');
    expect(seen.at(-1), 'the run paused').toMatchObject({ type: 'done', reason: 'paused_for_client_tool' });
    expect(
      historyRuleBreaks(history),
      `${where} guided step 1 and finishRun guided step 2: a run that yielded done has ended (run.ended); a paused run's call stays open for the client`,
    ).toEqual(['call f1 has no result at the end']);
    const resumed = await collect(
      agent.run(history, { clientResults: [toolResult({ id: 'f1', name: 'show_form' }, '{}')] }),
    );
    expect(resumed.at(-1), 'the resume works as after a run read to its end').toMatchObject({
      type: 'done',
      reason: 'end_turn',
      text: 'Thanks.',
    });
  });

  test('break at the done of a finished run changes nothing, and break while text streams keeps no part of the turn', async () => {
    const finished = agentWith([assistantText('All done.')]);
    const history = ask('hi');
    await readUntil(finished.agent.run(history), (e) => e.type === 'done');
    expect(shape(history), `${where} guided step 1: after done there is nothing to close`).toEqual([
      'user',
      'assistant text',
    ]);

    const streaming = agentWith([assistantText('a long answer that goes on'), assistantText('second')]);
    const cut = ask('talk');
    await readUntil(streaming.agent.run(cut), (e) => e.type === 'text_delta');
    expect(shape(cut), 'a turn still being streamed was never pushed, so the history is as it was').toEqual(['user']);
    expect(streaming.provider.requests, 'no model call after the break').toHaveLength(1);
  });
});
