/**
 * Chapter 13: sub-agents, a side quest with a context of its own.
 *
 * "Find every caller of parseConfig" can take thirty file reads. Done by the agent itself, all thirty land in its
 * history and stay there, paid for on every later request. The `task` tool hands the job to a child agent instead:
 * the child starts from an empty history (only its prompt), works with its own turns, and the parent gets back one
 * result, the child's final answer. The child is built by the same factory as the parent (a function passed in:
 * chapter 15 passes its own), so it has the same provider and the same permission rules, with fewer tools: no
 * `task` of its own unless nesting is allowed, and never deeper than a limit. Its events reach the parent's
 * consumers as they happen, wrapped in `subagent` events that carry the parent's call id, and its usage is counted
 * once, in the parent's run.
 */
import { TodoError } from '../todo.js';
import { z } from 'zod';
import { addUsage, noUsage, type AgentEvent, type DoneEvent } from '../agent-events.js';
import { userMessage, type Message, type Usage } from '../messages.js';
import { defineTool, ToolSet, type Tool } from '../tool.js';

export const TASK = 'task';

/** What the factory is asked for: a child agent with these tools, this system prompt and this turn limit. */
export interface ChildSpec {
  tools: ToolSet;
  system: string;
  maxTurns: number;
  /** 1 for a child of the top agent, 2 for a grandchild. */
  depth: number;
}

/** What the task tool needs of a child: chapter 7's Agent is one. */
export interface ChildAgent {
  run(history: Message[], options?: { signal?: AbortSignal }): AsyncIterable<AgentEvent>;
}

export interface TaskOptions {
  /** Builds a child agent (chapter 15's factory, or the test's). */
  makeChild(spec: ChildSpec): ChildAgent;
  /** The tools a child may get: the parent's, read each time a task starts (a later MCP tool is included). */
  tools(): Iterable<Tool>;
  /** The depth of the agent this tool belongs to: 0 for the top agent. */
  depth?: number;
  /** The deepest a child may be: 1 (the default) lets the top agent have children and no grandchildren. */
  maxDepth?: number;
  /** Children get only read-only tools, and the task tool is read-only itself (several run side by side, ch9). */
  readOnly?: boolean;
  /** The child's turn limit (default 20). */
  maxTurns?: number;
  /** The child's system prompt (default CHILD_SYSTEM). */
  system?: string;
}

export const CHILD_SYSTEM =
  'You are a sub-agent working for another agent. Do the task you are given with the tools you have, then answer ' +
  'with what the other agent needs: what you found, the file paths and lines, and anything you could not do. Your ' +
  'last answer is the only thing it will see.';

/**
 * What a child of an agent at `depth` may use, as a new set made from options.tools() when the task starts (one
 * added later, an MCP server's, is included).
 *
 * - Never the parent's own `task`: it belongs to the parent's depth.
 * - With options.readOnly, only the read-only ones.
 * - A `task` of the child's own (createTaskTool with the same options, one level deeper) only when the child's own
 *   children would still be within the depth limit (1 by default: children do not delegate). One level deeper each
 *   time is what makes agents that always delegate stop at the limit.
 */
export function childTools(options: TaskOptions, depth: number): ToolSet {
  // #region chapter 13: childTools
  // Write it from the contract above. Step by step instead: npm run reset -- chapter13 --guided
  throw new TodoError(13, 'childTools');
  // #endregion
}

/**
 * Runs one task in a sub-agent and returns its answer: of all the sub-agent did, only that reaches the parent's
 * conversation.
 *
 * - Refused with an error result the model reads, before any sub-agent is made: one that would be deeper than the
 *   limit the options set, with words that give the limit and tell the model to do the work itself; and a prompt
 *   that is `empty` once trimmed.
 * - The sub-agent comes from options.makeChild, asked for a ChildSpec: what childTools gives, and the prompt, turn
 *   limit and the rest the options say (TaskOptions has the defaults). It gets ctx's abort signal, so a cancel of the
 *   parent reaches it, and a conversation of its own that holds only the prompt: never the parent's, never an
 *   earlier task's.
 * - Each of its events reaches the parent's consumers at once, while it works, wrapped in a `subagent` event
 *   (agent-events.ts) with the turn and the call id of ctx (0 and '' when it has none; a ctx that cannot tell anyone
 *   is fine). A grandchild's events thus arrive wrapped twice, under each call id.
 * - What it spent is counted once, in the parent's session: after its events, one `usage` event with the sum of the
 *   usage events it yielded (its model calls and what its own tasks reported; addUsage is given), none when it spent
 *   nothing.
 * - It answered only when its done event says end_turn: the result is its answer, or a sentence saying it gave none
 *   when the answer is blank. Any other end is a failure, even after some writing: an error
 *   `task: the sub-agent did not finish (turn_limit: what went wrong)`, the cause its done event gives and, after a
 *   colon, the explanation it came with when there is one; `(no done event)` when its events end without one.
 */
export async function runTask(
  options: TaskOptions,
  input: { description: string; prompt: string },
  ctx: { signal?: AbortSignal; turn?: number; callId?: string; emit?(event: AgentEvent): void },
): Promise<string> {
  // #region chapter 13: runTask
  // Write it from the contract above. Step by step instead: npm run reset -- chapter13 --guided
  throw new TodoError(13, 'runTask');
  // #endregion
}

/** The `task` tool: `{ description, prompt }` runs a sub-agent (runTask) and returns its answer. */
export function createTaskTool(options: TaskOptions): Tool<{ description: string; prompt: string }> {
  return defineTool({
    name: TASK,
    description:
      'Hand a self-contained piece of work to a sub-agent with a fresh context: a search across many files, a question ' +
      'that needs a lot of reading. It sees only your prompt, so say everything it needs; you get back its final answer. ' +
      'Several task calls in one turn may run at the same time.',
    input: z.object({
      description: z.string().describe('Three to five words for the person watching: "Find config callers"'),
      prompt: z.string().describe('The whole task for the sub-agent'),
    }),
    readOnly: options.readOnly ?? false,
    execute: (input, ctx) => runTask(options, input, ctx),
  });
}
