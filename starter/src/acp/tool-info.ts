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
 * ACP's kind for a tool, which picks the icon the editor shows: read → read; edit and write → edit; bash →
 * execute; glob and grep → search; web_fetch → fetch; todo_write and task → think; exit_plan_mode → switch_mode;
 * anything else (an MCP tool, a tool the kit does not know) → other.
 */
export function toolKind(name: string): ToolKind {
  // #region chapter 14: toolKind
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'toolKind');
  // #endregion
}

/**
 * A short title for the call, in the words of a person: `Read src/app.ts`, `Edit src/app.ts`, `Write notes.md`,
 * ``Run `npm test` ``, ``Find `**\/*.ts` ``, ``Search for `TODO` in src``, `Update the task list`, `Hand in the plan`,
 * `Sub-agent: <description>`, `<tool> (MCP server <server>)`. Paths are shown relative to the workspace (absolute
 * when outside it); long text is clipped to one line. A call whose arguments lack what the title needs falls back
 * to the tool's name.
 */
export function toolTitle(call: Pick<ToolCall, 'name' | 'arguments'>, cwd: string): string {
  // #region chapter 14: toolTitle
  // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
  throw new TodoError(14, 'toolTitle');
  // #endregion
}

/**
 * The places a call touches, as ACP locations (absolute paths, so the editor can open them): the file of read
 * (with the line it starts at, `offset`, when given), edit and write; the folder or file of glob and grep when
 * given (the workspace when not). None for other tools, or when the path argument is missing.
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
