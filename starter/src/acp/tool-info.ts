/**
 * Chapter 14: what an editor shows for a tool call.
 *
 * An editor draws each call as a card: an icon for its kind (reading, editing, running a command, searching), a
 * title a person reads at a glance ("Read src/app.ts", "Run `npm test`"), the places it touches (the editor can
 * jump there and follow along), and for an edit the change itself as a diff. The model only gave a tool name and
 * some JSON; these functions turn that into what ACP's `tool_call` carries. They never throw: the arguments come
 * from the model and may be anything.
 */
import { TodoError } from '../todo.js';
import path from 'node:path';
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { ToolCall } from '../messages.js';
import { displayPath, isInside } from '../workspace.js';

/** The call's arguments as a record ({} when the model sent something else). */
export function argsOf(call: Pick<ToolCall, 'arguments'>): Record<string, unknown> {
  const args = call.arguments;
  return typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** A string argument, or undefined when it is missing or not a string. */
function text(args: Record<string, unknown>, key: string): string | undefined {
  const value = args[key];
  return typeof value === 'string' ? value : undefined;
}

/** A path argument as a person reads it: relative to the workspace when inside it, else as absolute. */
function shown(cwd: string, requested: string): string {
  const absolute = path.resolve(cwd, requested);
  return isInside(cwd, absolute) ? displayPath(cwd, absolute) || '.' : absolute;
}

/** Text clipped to `max` characters on one line. */
export function oneLine(value: string, max = 80): string {
  const line = value.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/**
 * ACP's kind for a tool, from which the client picks the icon of the call's card. ToolKind (the ACP SDK's schema)
 * lists the kinds; give each of the kit's own tools (chapters 2, 4 and 13, and web_fetch, which the permission rules
 * know) the one that says what it does: looking at a file; changing a file, a whole new one too; running a command;
 * looking for files or for text in them; getting a web page; the model's own planning aids (its to-do list, a
 * sub-agent); leaving plan mode. Any name the kit does not know (an MCP server's, one the model made up, a near miss
 * in case or spacing: names match exactly) gets the kind for everything else.
 */
export function toolKind(name: string): ToolKind {
  // #region chapter 14: toolKind
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'toolKind');
  // #endregion
}

/**
 * A short title for the call's card, in the words of a person; the tests expect exactly these: `Read src/app.ts`,
 * `Edit src/app.ts`, `Write notes.md`, ``Run `npm test` ``, ``Find `**\/*.ts` ``, ``Search for `TODO` `` (then
 * ` in src` when a folder to search is given), `Update the task list`, `Hand in the plan`, `Sub-agent: Find callers`
 * (the sub-agent's description), and `get-sum (MCP server everything)` for mcp__everything__get-sum.
 *
 * - Paths as a person sees them: relative to the workspace, `.` for the workspace itself, absolute outside it.
 * - Whatever a title quotes becomes one clipped line (oneLine, given): a long or multi-line command must not fill the
 *   card.
 * - Never throws and trusts nothing in the arguments (argsOf, given): a known tool whose arguments lack the string
 *   its title needs is titled as the tool is called, and so is every tool the kit does not know (`constructor` too).
 */
export function toolTitle(call: Pick<ToolCall, 'name' | 'arguments'>, cwd: string): string {
  // #region chapter 14: toolTitle
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'toolTitle');
  // #endregion
}

/**
 * The places a call touches, as ACP locations with absolute paths, so the client can open them and follow along.
 *
 * - read, edit and write: the file they are about; for read, with the line it starts at when its offset is
 *   an integer of at least 1.
 * - glob and grep: the folder or file they search, the workspace itself when they name none.
 * - None for every other tool, nor for a file tool whose path argument is missing or not a string.
 */
export function toolLocations(call: Pick<ToolCall, 'name' | 'arguments'>, cwd: string): ToolCallLocation[] {
  // #region chapter 14: toolLocations
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'toolLocations');
  // #endregion
}

/**
 * The change an edit or write call asks for, as ACP diff content, so the editor can show it before and after the
 * call runs: edit → the quoted text and its replacement; write → the new content (no old text: the whole file is
 * replaced). Undefined for other tools and for arguments that lack the texts.
 */
export function toolDiff(call: Pick<ToolCall, 'name' | 'arguments'>, cwd: string): ToolCallContent | undefined {
  const args = argsOf(call);
  const where = text(args, 'path');
  if (where === undefined) return undefined;
  const file = path.resolve(cwd, where);
  if (call.name === 'edit') {
    const oldText = text(args, 'old_string');
    const newText = text(args, 'new_string');
    return oldText !== undefined && newText !== undefined ? { type: 'diff', path: file, oldText, newText } : undefined;
  }
  const content = text(args, 'content');
  if (call.name === 'write' && content !== undefined)
    return { type: 'diff', path: file, oldText: null, newText: content };
  return undefined;
}
