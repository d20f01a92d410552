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
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineTool, type Tool } from '../tool.js';
import { editTool } from '../tools/edit.js';
import { DEFAULT_READ_LIMIT, MAX_LINE_BYTES, MAX_READ_BYTES, numberLine, readTool } from '../tools/read.js';
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
 * The first `limit` of `lines` within chapter 2's size rules: a line longer than MAX_LINE_BYTES is cut (and says
 * so), and the window stops before the line that would take it past MAX_READ_BYTES (`capped`). Given, not a stub.
 */
export function clipWindow(lines: readonly string[], limit: number): { lines: string[]; capped: boolean } {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines.slice(0, limit)) {
    const raw = Buffer.from(line, 'utf8');
    const text =
      raw.length > MAX_LINE_BYTES
        ? `${raw
            .subarray(0, MAX_LINE_BYTES)
            .toString('utf8')
            .replace(/\uFFFD$/, '')} [line cut after ${MAX_LINE_BYTES} bytes]`
        : line;
    const size = Buffer.byteLength(text, 'utf8') + 1;
    if (kept.length > 0 && bytes + size > MAX_READ_BYTES) return { lines: kept, capped: true };
    kept.push(text);
    bytes += size;
  }
  return { lines: kept, capped: false };
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
    /**
     * Chapter 2's read on what the client holds (its unsaved buffer too), asked with readTextFile.
     *
     * - The path goes through resolveInWorkspace first: one outside the workspace throws, and the client is never
     *   asked. The client takes full paths only.
     * - Ask for the window from `offset` and one line more than the limit: that extra line is how you learn that
     *   more follow.
     * - Its lines: a final newline ends the last line rather than starting one, and `\r\n` is one line end.
     *   None: `(empty file)` at offset 1, else an error that gives the offset and the file (relative to the
     *   workspace): the file is shorter.
     * - Chapter 2's size rules hold for what the client sends (clipWindow, given: long lines cut, the window
     *   capped), the lines numbered from `offset` as numberLine writes them. When the window was capped or more lines
     *   follow, a last line says where to read on, exactly `(more lines; read again with offset=4)`, the number
     *   being the line after the last one shown, begun with `output capped at 50000 bytes; ` (MAX_READ_BYTES) when
     *   capped.
     */
    async execute({ path: requested, offset = 1, limit = DEFAULT_READ_LIMIT }, ctx) {
      // #region chapter 14: clientReadTool.execute
      // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
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
    /**
     * Chapter 4's write through the client: the whole file replaced with writeTextFile (the client shows it at once,
     * and can undo it), never on the disk. A path outside the workspace throws before the client is asked
     * (resolveInWorkspace); the client takes full paths only. The result is what chapter 4's write says, as
     * `Wrote 13 bytes (2 lines) to docs/é.md`: bytes in UTF-8; '' has 0 lines and a final newline starts none; the
     * path relative to the workspace.
     */
    async execute({ path: requested, content }, ctx) {
      // #region chapter 14: clientWriteTool.execute
      // Write it from the contract above. Step by step instead: npm run reset -- chapter14 --guided
      throw new TodoError(14, 'clientWriteTool.execute');
      // #endregion
    },
  });
}

/**
 * `edit` through the client (given): the same input, checks and output as chapter 4's edit tool, on the text the
 * editor holds (its unsaved buffer too), written back through the client, so an edit never lands on the disk behind
 * the buffer the model just read. Chapter 4's own editTool does the work, on a private copy of the text at the same
 * relative path, so its rules (one occurrence unless replace_all, line endings kept, UTF-8 only) are the same rules.
 */
export function clientEditTool(files: ClientFiles): Tool {
  return defineTool({
    name: editTool.name,
    description: editTool.description,
    input: editTool.input,
    async execute(args, ctx) {
      const absolute = await resolveInWorkspace(ctx.cwd, args.path);
      const relative = displayPath(ctx.cwd, absolute);
      const text = await files.readTextFile({ path: absolute }, ctx.signal);
      const copy = await mkdtemp(path.join(tmpdir(), 'kit-acp-edit-'));
      try {
        const file = path.join(copy, relative);
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, text, 'utf8');
        const result = await editTool.execute(args, { ...ctx, cwd: copy });
        await files.writeTextFile({ path: absolute, content: await readFile(file, 'utf8') }, ctx.signal);
        return result;
      } finally {
        await rm(copy, { recursive: true, force: true });
      }
    },
  });
}
