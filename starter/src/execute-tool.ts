/**
 * Chapter 3: running one tool call, safely.
 *
 * The model can ask for a tool that does not exist, send arguments that do not fit the schema, or trigger a tool
 * that fails. None of these may crash the agent: each becomes an error result that the model reads, and it can
 * try again. This is what "failures are values" means once a run is under way.
 */
import { TodoError } from './todo.js';
import { z } from 'zod';
import { toolResult, type ToolCall, type ToolResultMessage } from './messages.js';
import type { ToolContext, ToolSet } from './tool.js';

/** The text of any thrown value, for a result the model reads. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs one tool call and returns its result message, paired with the call by id. Never throws:
 * - unknown tool: an error result that names the tool and lists the available ones;
 * - arguments that fail the tool's schema: an error result with zod's description of what is wrong;
 * - a tool that throws: an error result with its message.
 */
export async function executeToolCall(tools: ToolSet, call: ToolCall, ctx: ToolContext): Promise<ToolResultMessage> {
  // #region chapter 3: executeToolCall
  // 1. Look the tool up by call.name. If it is missing, return an error result:
  //    `Unknown tool "<name>". Available tools: <names, comma-separated>.`
  // 2. Check call.arguments with tool.input.safeParse. On failure return an error result:
  //    `Invalid arguments for <name>: <z.prettifyError(error)>` and ask the model to call again with
  //    arguments that match the schema.
  // 3. Run tool.execute with the parsed data (not the raw arguments) and ctx, inside try/catch.
  //    Success: a normal result with the returned text. A throw: an error result `Error: <message>`.
  // 4. Every result is built with toolResult(call, ...) so it carries call.id and call.name.
  throw new TodoError(3, 'executeToolCall');
  // #endregion
}
