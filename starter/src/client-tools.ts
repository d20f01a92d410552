/**
 * Chapter 7: tools the caller answers, and the paused conversation.
 *
 * Some tools cannot run where the agent runs. A web app's agent may offer the model a `show_form` tool whose work
 * is done in the person's browser: the form is shown, the person fills it in, and only then is there a result. Such
 * a client-side tool is declared like any other (a name, a description, a zod schema), but has nothing to execute.
 * When the model calls one, the run ends with `done` of reason `paused_for_client_tool`, listing the pending calls.
 * The caller gets the answers from its client and starts a new run with them (`run(history, { clientResults })`);
 * the run appends them, and the conversation goes on as if the tool had run here.
 *
 * A paused history is the one designed state in which a call has no result yet. Every other way a run ends closes
 * its open calls (`closeOpenCalls`), so that the history can be sent to a model again.
 */
import { TodoError } from './todo.js';
import type { z } from 'zod';
import { toolCallsOf, toolResult, type Message, type ToolCall, type ToolResultMessage } from './messages.js';
import { defineTool, type Tool } from './tool.js';

/** A tool whose result comes from the caller (a browser, an editor, a person), never from this process. */
export interface ClientTool<Input = any> extends Tool<Input> {
  readonly clientSide: true;
}

/**
 * A client-side tool: checked and shown to the model like any tool. Its execute only throws, so a loop that does
 * not know about client tools (chapter 3's) gives the model an error result instead of hanging.
 */
export function defineClientTool<S extends z.ZodType>(spec: {
  name: string;
  description: string;
  input: S;
}): ClientTool<z.output<S>> {
  const tool = defineTool({
    ...spec,
    execute: async () => {
      throw new Error(`${spec.name} is answered by the client, and this loop cannot pause for it`);
    },
  });
  return { ...tool, clientSide: true };
}

/** Whether a tool is answered by the client. */
export function isClientTool(tool: Tool | undefined): tool is ClientTool {
  return (tool as Partial<ClientTool> | undefined)?.clientSide === true;
}

/** The calls of the history's last assistant turn that have no result after it, in call order. */
export function openCalls(history: readonly Message[]): ToolCall[] {
  const last = history.findLastIndex((message) => message.role === 'assistant');
  if (last < 0) return [];
  const answered = new Set(history.slice(last + 1).flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
  return toolCallsOf(history[last] as Extract<Message, { role: 'assistant' }>).filter((call) => !answered.has(call.id));
}

/** Gives every open call of the history an error result with `content`; returns the results it added. */
export function closeOpenCalls(history: Message[], content: string): ToolResultMessage[] {
  const results = openCalls(history).map((call) => toolResult(call, content, true));
  history.push(...results);
  return results;
}

/**
 * Resumes a paused history with the client's results: exactly one for every open call (openCalls, given), in any
 * order. Returns undefined when they were appended (or when nothing was open and nothing was given), or a sentence
 * saying what is wrong; everything is checked before anything changes, so the history is then left exactly as it
 * was: still paused, ready for a correct resume.
 *
 * - Refused, each with a sentence that names the ids concerned, every id on its own: a result whose id answers no
 *   open call (the sentence names it and the calls that are waiting; results given when none waits are refused
 *   too, and an id such as `constructor` or `toString` answers nothing), a second result for the same call, and an
 *   open call left without one (running a paused history with no results is refused this way).
 * - What is appended is built from the open call it answers, so it carries that call's id and tool name whatever
 *   name the client wrote, with the client's content and error flag.
 */
export function addClientResults(history: Message[], results: readonly ToolResultMessage[]): string | undefined {
  // #region chapter 7: addClientResults
  // Write it from the contract above. Step by step instead: npm run reset -- chapter7 --guided
  throw new TodoError(7, 'addClientResults');
  // #endregion
}
