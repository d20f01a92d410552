/**
 * Chapter 15: a tool call and its result as a hook written for Claude Code reads them (given).
 *
 * The kit's tools and Claude Code's share most of their input names, but not all: the kit's file tools (read, write,
 * edit) name the file `path`, relative to the workspace, where Claude Code's say `file_path`, an absolute path. And
 * Claude Code's Bash result is an object with `stdout` and `stderr`, where the kit's bash tool returns one text. A
 * hook script that reads `.tool_input.file_path` or `.tool_response.stdout` must find them, so the hooks get both:
 * the kit's fields as they are, and Claude Code's beside them.
 */
import path from 'node:path';
import type { ToolResultMessage } from '../messages.js';
import { isObject } from './hook-settings.js';

/** The kit's tools whose `path` is a file, which Claude Code calls `file_path`. */
export const FILE_PATH_TOOLS: ReadonlySet<string> = new Set(['read', 'write', 'edit']);

/**
 * The call's arguments as a hook's `tool_input`: as they are, and for a file tool with a string `path` also
 * `file_path`, that path made absolute against the workspace `cwd` (Claude Code's name and form).
 */
export function hookToolInput(name: string, args: unknown, cwd: string): unknown {
  if (!FILE_PATH_TOOLS.has(name) || !isObject(args) || typeof args.path !== 'string') return args;
  return { ...args, file_path: path.resolve(cwd, args.path) };
}

/**
 * A hook's `updatedInput` as the kit's arguments: for a file tool, a `file_path` the hook changed (or gave alone)
 * becomes `path`, and `file_path` is dropped, so a script written for Claude Code can move a write. `sent` is the
 * tool_input the hook was given.
 */
export function kitToolInput(name: string, updated: Record<string, unknown>, sent: unknown): Record<string, unknown> {
  if (!FILE_PATH_TOOLS.has(name) || !('file_path' in updated)) return updated;
  const { file_path: filePath, ...rest } = updated;
  const before = isObject(sent) ? sent.file_path : undefined;
  if (typeof filePath === 'string' && (filePath !== before || typeof rest.path !== 'string'))
    return { ...rest, path: filePath };
  return rest;
}

/** The parts of the kit's bash result (chapter 4, or the editor's terminal of chapter 14), or undefined. */
function bashParts(content: string): { stdout: string; stderr: string } | undefined {
  const text = (section: string | undefined) => (section === undefined || section === '(empty)' ? '' : section);
  const split = /(?:^|\n)--- stdout ---\n([\s\S]*?)\n--- stderr ---\n([\s\S]*)$/.exec(content);
  if (split) return { stdout: text(split[1]), stderr: text(split[2]) };
  const terminal = /(?:^|\n)--- output ---\n([\s\S]*)$/.exec(content);
  return terminal ? { stdout: text(terminal[1]), stderr: '' } : undefined;
}

/**
 * The result as a hook's `tool_response`: the kit's `{ content, isError }`, and for a bash result in the kit's form
 * also Claude Code's `stdout`, `stderr` (with any note the tool added after it) and `interrupted` (stopped by its
 * time limit or a cancel).
 */
export function hookToolResponse(name: string, result: ToolResultMessage): Record<string, unknown> {
  const response = { content: result.content, isError: result.isError };
  const parts = name === 'bash' ? bashParts(result.content) : undefined;
  if (!parts) return response;
  const interrupted = result.isError && /^(?:Error: )?Command (?:timed out|aborted)/.test(result.content);
  return { ...response, ...parts, interrupted };
}
