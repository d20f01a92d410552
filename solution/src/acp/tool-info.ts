/**
 * Chapter 14: what an editor shows for a tool call.
 *
 * An editor draws each call as a card: an icon for its kind (reading, editing, running a command, searching), a
 * title a person reads at a glance ("Read src/app.ts", "Run `npm test`"), the places it touches (the editor can
 * jump there and follow along), and for an edit the change itself as a diff. The model only gave a tool name and
 * some JSON; these functions turn that into what ACP's `tool_call` carries. They never throw: the arguments come
 * from the model and may be anything.
 */
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
  // 1. Map the kit's tool names: read → 'read'; edit, write → 'edit'; bash → 'execute'; glob, grep → 'search';
  //    web_fetch → 'fetch'; todo_write, task → 'think'; exit_plan_mode → 'switch_mode'.
  // 2. Any other name (mcp__server__tool, a name the model made up) → 'other'. Match names exactly.
  switch (name) {
    case 'read':
      return 'read';
    case 'edit':
    case 'write':
      return 'edit';
    case 'bash':
      return 'execute';
    case 'glob':
    case 'grep':
      return 'search';
    case 'web_fetch':
      return 'fetch';
    case 'todo_write':
    case 'task':
      return 'think';
    case 'exit_plan_mode':
      return 'switch_mode';
    default:
      return 'other';
  }
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
  // 1. Take the arguments with argsOf (given): the model may send anything, so never assume a field is there.
  // 2. read / edit / write with a string `path`: `Read <p>`, `Edit <p>`, `Write <p>`, <p> the path relative to cwd
  //    (absolute when it is outside cwd; '.' for cwd itself).
  // 3. bash with a string `command`: Run `<command>`, the command on one line and clipped (oneLine, given).
  // 4. glob with a `pattern`: Find `<pattern>`; grep with a `pattern`: Search for `<pattern>`, plus ` in <p>` when it
  //    has a `path`.
  // 5. todo_write: `Update the task list`; exit_plan_mode: `Hand in the plan`; task with a `description`:
  //    `Sub-agent: <description>` (clipped).
  // 6. mcp__<server>__<tool>: `<tool> (MCP server <server>)`.
  // 7. Anything else, or a known tool without the argument its title needs: the tool's name.
  const args = argsOf(call);
  const where = text(args, 'path');
  const label =
    call.name === 'read' ? 'Read' : call.name === 'edit' ? 'Edit' : call.name === 'write' ? 'Write' : undefined;
  if (label && where !== undefined) return `${label} ${shown(cwd, where)}`;
  const command = text(args, 'command');
  if (call.name === 'bash' && command !== undefined) return `Run \`${oneLine(command)}\``;
  const pattern = text(args, 'pattern');
  if (call.name === 'glob' && pattern !== undefined) return `Find \`${oneLine(pattern)}\``;
  if (call.name === 'grep' && pattern !== undefined)
    return `Search for \`${oneLine(pattern)}\`${where !== undefined ? ` in ${shown(cwd, where)}` : ''}`;
  if (call.name === 'todo_write') return 'Update the task list';
  if (call.name === 'exit_plan_mode') return 'Hand in the plan';
  const description = text(args, 'description');
  if (call.name === 'task' && description !== undefined) return `Sub-agent: ${oneLine(description)}`;
  const mcp = /^mcp__(.+?)__(.+)$/.exec(call.name);
  if (mcp) return `${mcp[2]} (MCP server ${mcp[1]})`;
  return call.name;
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
  // 1. read, edit, write: one location for the string `path`, made absolute against cwd (path.resolve). For read,
  //    add `line: offset` when offset is a whole number of at least 1. No string path: no location.
  // 2. glob, grep: one location, the `path` made absolute when given, else cwd itself.
  // 3. Every other tool: [].
  const args = argsOf(call);
  const where = text(args, 'path');
  if (['read', 'edit', 'write'].includes(call.name)) {
    if (where === undefined) return [];
    const offset = args.offset;
    const line =
      call.name === 'read' && typeof offset === 'number' && Number.isInteger(offset) && offset >= 1
        ? { line: offset }
        : {};
    return [{ path: path.resolve(cwd, where), ...line }];
  }
  if (call.name === 'glob' || call.name === 'grep') return [{ path: path.resolve(cwd, where ?? '.') }];
  return [];
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
