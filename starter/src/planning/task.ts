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
 * The tools a child of an agent at `depth` gets: the parent's tools without `task`, only the read-only ones when
 * options.readOnly, and a task tool of its own, one level deeper, when a grandchild would still be within maxDepth.
 */
export function childTools(options: TaskOptions, depth: number): ToolSet {
  // #region chapter 13: childTools
  // Write it from the contract above. Step by step instead: npm run reset -- chapter13 --guided
  throw new TodoError(13, 'childTools');
  // #endregion
}

/**
 * Runs one task: a child from options.makeChild on a fresh history, its events emitted as `subagent` events as they
 * come, then one `usage` event with everything the child used (its grandchildren included), and the child's answer
 * as the result. A child that does not end with an answer is a failure the model reads.
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
