/**
 * Chapter 14: files through the editor.
 *
 * An editor holds files the disk does not have yet: a buffer the person changed and did not save. When the client
 * says it can read and write text files (initialize: clientCapabilities.fs), the agent's read and write tools go
 * through it (`fs/read_text_file`, `fs/write_text_file`), so the model reads what the person sees, and the editor
 * shows the agent's writes as they happen (and can undo them). These are chapter 7's client-side tools for real:
 * the same names and inputs as the built-in tools, another place where the work is done. The workspace rule does
 * not change: a path outside the workspace is refused before the client is asked.
 */
import { TodoError } from '../todo.js';
import { defineTool, type Tool } from '../tool.js';
import { numberLine, readTool, DEFAULT_READ_LIMIT } from '../tools/read.js';
import { writeTool } from '../tools/write.js';
import { displayPath, resolveInWorkspace } from '../workspace.js';

/** What the client does for the tools (the server sends the requests; a test passes its own). */
export interface ClientFiles {
  /** fs/read_text_file: the file's text from `line` (1-based), at most `limit` lines. */
  readTextFile(request: { path: string; line?: number; limit?: number }, signal?: AbortSignal): Promise<string>;
  /** fs/write_text_file: replaces the whole file. */
  writeTextFile(request: { path: string; content: string }, signal?: AbortSignal): Promise<void>;
}

/**
 * `read` through the client: the same input and output as chapter 2's read tool (lines numbered from `offset`, a
 * last line that says where to read on when more lines follow), the text from the client.
 */
export function clientReadTool(files: ClientFiles): Tool {
  return defineTool({
    name: readTool.name,
    description: readTool.description,
    input: readTool.input,
    readOnly: true,
    async execute({ path: requested, offset = 1, limit = DEFAULT_READ_LIMIT }, ctx) {
      // #region chapter 14: clientReadTool.execute
      // 1. resolveInWorkspace(ctx.cwd, requested): a path outside the workspace throws before the client is asked.
      // 2. Ask for one line more than the limit: files.readTextFile({ path: absolute, line: offset, limit: limit + 1 },
      //    ctx.signal). The client sends absolute paths only.
      // 3. Split the text into lines (a final newline ends the last line; it does not start a new one). No lines:
      //    return '(empty file)' when offset is 1, else throw an Error saying offset <offset> is past the end of <path>.
      // 4. Number the first `limit` lines from offset with numberLine. If the client sent more, add a last line:
      //    `(more lines; read again with offset=<next>)`.
      throw new TodoError(14, 'clientReadTool.execute');
      // #endregion
    },
  });
}

/** `write` through the client: the same input and output as chapter 4's write tool, the file written by the client. */
export function clientWriteTool(files: ClientFiles): Tool {
  return defineTool({
    name: writeTool.name,
    description: writeTool.description,
    input: writeTool.input,
    async execute({ path: requested, content }, ctx) {
      // #region chapter 14: clientWriteTool.execute
      // 1. resolveInWorkspace(ctx.cwd, requested): a path outside the workspace throws before the client is asked.
      // 2. await files.writeTextFile({ path: absolute, content }, ctx.signal).
      // 3. Return what chapter 4's write returns: `Wrote <bytes> bytes (<lines> lines) to <path>` (UTF-8 bytes; ''
      //    has 0 lines; a final newline starts no new line; the path relative to the workspace).
      throw new TodoError(14, 'clientWriteTool.execute');
      // #endregion
    },
  });
}
