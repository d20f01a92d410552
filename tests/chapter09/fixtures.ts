/** Helpers for the chapter 9 tests: deferreds, a controllable call runner, and tools whose finish the test decides. */
import { expect } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from 'kit/agent-events';
import type { CallRunner, Executor, TurnContext } from 'kit/serial-executor';
import { toolResult, type ToolCall, type ToolResultMessage } from 'kit/messages';
import { defineTool, ToolSet, type Tool } from 'kit/tool';

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise and I/O callback run (a few turns of the event loop). */
export async function flush(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * `promise`'s value once it has settled; fails at once with `message` if a few turns of the event loop were not
 * enough. A wrong solution that waits for something that never comes then fails with a message that names the step,
 * not with the test timeout. Works under fake timers, which do not fake setImmediate.
 */
export async function settledSoon<T>(promise: Promise<T>, message: string): Promise<T> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await flush(5);
  expect(settled, message).toBe(true);
  return promise;
}

/** A tool set with read-only tools `read` and `grep`, and writing tools `write` and `edit` (their execute is unused). */
export function flaggedTools(): ToolSet {
  const make = (name: string, readOnly: boolean) =>
    defineTool({
      name,
      description: `${name} (test)`,
      input: z.object({}).passthrough(),
      readOnly,
      execute: async () => name,
    });
  return new ToolSet([make('read', true), make('grep', true), make('write', false), make('edit', false)]);
}

export const call = (id: string, name = 'read'): ToolCall => ({ type: 'tool_call', id, name, arguments: {} });

/**
 * A call runner whose every step the test controls, and that writes down what happened:
 * - `decide <id>` when it is asked for a call (its before hooks run), then (with `emitFirst`) an event a hook
 *   emitted, then, once `decisions.get(id)` resolves (at once unless `holdDecisions`), it yields tool_call_decided;
 * - `start <id>` when the tool starts, `end <id>` when the test calls `finish(id, text)` (or `fail(id, error)`,
 *   which throws out of the runner, as a failing hook would);
 * - it yields the call's tool_result and returns its result;
 * - `closed <id>` when the generator is closed before its end (return() from outside).
 * `running` is the number of tools running now, `maxRunning` the most at once; `maxDeciding` likewise.
 */
export function controlledRunner(options: { holdDecisions?: boolean; emitFirst?: boolean } = {}) {
  const log: string[] = [];
  const tools = new Map<string, Deferred<string>>();
  const decisions = new Map<string, Deferred<void>>();
  const gate = <T>(map: Map<string, Deferred<T>>, id: string) => {
    if (!map.has(id)) map.set(id, deferred<T>());
    return map.get(id)!;
  };
  const state = { running: 0, maxRunning: 0, deciding: 0, maxDeciding: 0 };
  const runCall: CallRunner = async function* (c) {
    let ended = false;
    try {
      log.push(`decide ${c.id}`);
      state.deciding++;
      state.maxDeciding = Math.max(state.maxDeciding, state.deciding);
      // a hook that says something (ctx.emit) before it decides: that event comes first
      if (options.emitFirst) yield { type: 'turn_start', turn: 1 };
      if (options.holdDecisions) await gate(decisions, c.id).promise;
      state.deciding--;
      yield { type: 'tool_call_decided', turn: 1, callId: c.id, name: c.name, decision: { type: 'allow' } };
      log.push(`start ${c.id}`);
      state.running++;
      state.maxRunning = Math.max(state.maxRunning, state.running);
      let text: string;
      try {
        text = await gate(tools, c.id).promise;
      } finally {
        state.running--;
      }
      log.push(`end ${c.id}`);
      const result = toolResult(c, text);
      yield { type: 'tool_result', turn: 1, callId: c.id, name: c.name, content: text, isError: false };
      ended = true;
      return result;
    } finally {
      if (!ended) log.push(`closed ${c.id}`);
    }
  };
  return {
    runCall,
    log,
    state,
    /** Lets the tool of call `id` finish with `text`. */
    finish: (id: string, text = `out ${id}`) => gate(tools, id).resolve(text),
    /** Makes the runner of call `id` throw (as a hook that failed would). */
    fail: (id: string, error: Error) => {
      const g = gate(tools, id);
      g.promise.catch(() => {});
      g.reject(error);
    },
    /** Lets the before hooks of call `id` answer (with holdDecisions). */
    decide: (id: string) => gate(decisions, id).resolve(),
    started: () => log.filter((line) => line.startsWith('start ')).map((line) => line.slice(6)),
  };
}

/**
 * Runs `executor` over `calls` in the background, collecting its events and the results it records. `done` settles
 * when the executor ends (rejects with what it throws).
 */
export function runExecutor(
  executor: Executor,
  calls: readonly ToolCall[],
  runCall: CallRunner,
  options: { tools?: ToolSet; signal?: AbortSignal } = {},
) {
  const events: AgentEvent[] = [];
  const recorded: ToolResultMessage[] = [];
  const turn: TurnContext = {
    signal: options.signal ?? new AbortController().signal,
    tools: options.tools ?? flaggedTools(),
    record: (result) => void recorded.push(result),
  };
  const generator = executor(calls, runCall, turn);
  const done = (async () => {
    for await (const event of generator) events.push(event);
  })();
  done.catch(() => {});
  return { events, recorded, done, generator, ids: () => recorded.map((result) => result.toolCallId) };
}

/** Short lines for events: `decided a`, `result a`. */
export const eventLines = (events: readonly AgentEvent[]) =>
  events.map((event) =>
    event.type === 'tool_call_decided'
      ? `decided ${event.callId}`
      : event.type === 'tool_result'
        ? `result ${event.callId}`
        : event.type,
  );

/**
 * A read-only tool `slow` whose calls each wait for the test: `release(text)` ends the oldest waiting call with
 * that text. `seen` lists the text arguments in the order the calls started.
 */
export function gatedTool(
  name = 'slow',
  readOnly = true,
): { tool: Tool; gates: Deferred<string>[]; seen: string[]; signals: AbortSignal[] } {
  const gates: Deferred<string>[] = [];
  const seen: string[] = [];
  const signals: AbortSignal[] = [];
  const tool = defineTool({
    name,
    description: 'Waits until the test lets it finish',
    input: z.object({ text: z.string() }),
    readOnly,
    execute: async ({ text }, ctx) => {
      seen.push(text);
      if (ctx.signal) signals.push(ctx.signal);
      const gate = deferred<string>();
      gates.push(gate);
      return gate.promise;
    },
  });
  return { tool, gates, seen, signals };
}
