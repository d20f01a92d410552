/**
 * Chapter 2: the read tool, the first thing the model can do to the world.
 *
 * It returns a file's lines numbered from 1, so the model can refer to them, a window at a time for long files.
 */
import { TodoError } from '../todo.js';
import { constants } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../tool.js';
import { displayPath, resolveInWorkspace } from '../workspace.js';

/** Lines returned when the model does not say how many. */
export const DEFAULT_READ_LIMIT = 2000;
/** At most this many bytes of the file's text are returned by one read, whatever the limit. */
export const MAX_READ_BYTES = 50_000;
/** A longer line is cut to this many bytes (a minified file can be one 20 MB line). */
export const MAX_LINE_BYTES = 2000;

const input = z.object({
  path: z.string().describe('The file to read, relative to the workspace root'),
  offset: z.number().int().min(1).optional().describe('The first line to read, counting from 1'),
  limit: z.number().int().min(1).optional().describe(`How many lines to read (default ${DEFAULT_READ_LIMIT})`),
});

/** One numbered line, as `cat -n` prints it: the number right-aligned in 6 columns, a tab, the text. */
export function numberLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6)}\t${text}`;
}

/** What readWindow found in a file. */
export interface TextWindow {
  /** True when the file holds a NUL byte in its first 8 KB or in the window: it is not text. `lines` is then empty. */
  binary: boolean;
  /**
   * How many lines the file has (a final newline does not start another line; an empty file has 0). Exact when
   * `counted` is true, which it is unless more than COUNT_AHEAD_BYTES follow the window: counting those would cost
   * seconds for a huge file, so the scan stops and this is only the lines seen so far.
   */
  totalLines: number;
  counted: boolean;
  /**
   * The lines offset..offset+limit-1, without their line ending (`\n` or `\r\n`). Fewer when the file ends first,
   * or when the next line would take the text past MAX_READ_BYTES. A line longer than MAX_LINE_BYTES is cut and
   * ends with `[line cut after 2000 bytes]`.
   */
  lines: string[];
  /** True when the window stopped early because of MAX_READ_BYTES. */
  capped: boolean;
}

const CHUNK_BYTES = 1024 * 1024;
/** How far past the window lines are still counted. */
const COUNT_AHEAD_BYTES = 8 * 1024 * 1024;
const BINARY_SNIFF_BYTES = 8192;

/**
 * Reads the window offset..offset+limit-1 (counting from 1) of an open file, in chunks: it never holds more than
 * one chunk and the window, so a huge file costs time to count, never memory. Given, not a stub: byte-level line
 * splitting is not the lesson of the chapter.
 */
export async function readWindow(file: FileHandle, offset: number, limit: number): Promise<TextWindow> {
  const { size } = await file.stat();
  const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(size, 1)));
  let windowEnd = -1; // where the window was complete, once it is
  const lines: string[] = [];
  let current: Buffer[] = []; // the bytes of the line being read, while it is inside the window
  let currentBytes = 0;
  let lineCut = false;
  let windowBytes = 0;
  let capped = false;
  let lineNumber = 1; // the line the next byte belongs to
  let position = 0;
  let lastByte = -1;
  const inWindow = () => !capped && lineNumber >= offset && lineNumber < offset + limit;
  const endLine = () => {
    if (inWindow()) {
      let bytes = Buffer.concat(current);
      if (!lineCut && bytes.at(-1) === 0x0d) bytes = bytes.subarray(0, -1);
      const text = bytes.toString('utf8') + (lineCut ? ` [line cut after ${MAX_LINE_BYTES} bytes]` : '');
      if (lines.length > 0 && windowBytes + bytes.length > MAX_READ_BYTES) capped = true;
      else {
        lines.push(text);
        windowBytes += bytes.length + 1;
      }
    }
    current = [];
    currentBytes = 0;
    lineCut = false;
    lineNumber++;
  };
  for (;;) {
    if (windowEnd < 0 && (capped || lineNumber >= offset + limit)) windowEnd = position;
    if (windowEnd >= 0 && position - windowEnd > COUNT_AHEAD_BYTES && position < size) {
      return { binary: false, totalLines: lineNumber - 1, counted: false, lines, capped };
    }
    if (position >= size) break; // the size when the read began: a file that keeps growing cannot keep it going
    const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, size - position), position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    if (position < BINARY_SNIFF_BYTES && chunk.subarray(0, BINARY_SNIFF_BYTES - position).includes(0)) {
      return { binary: true, totalLines: 0, counted: false, lines: [], capped: false };
    }
    position += bytesRead;
    lastByte = chunk[bytesRead - 1]!;
    let start = 0;
    while (start < bytesRead) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? bytesRead : newline;
      if (inWindow() && !lineCut) {
        const piece = chunk.subarray(start, Math.min(end, start + MAX_LINE_BYTES - currentBytes));
        current.push(Buffer.from(piece));
        currentBytes += piece.length;
        if (piece.length < end - start) {
          lineCut = true;
          current = [cutAtCharacter(Buffer.concat(current))];
        }
      }
      if (newline === -1) break;
      endLine();
      start = newline + 1;
    }
  }
  if (position > 0 && lastByte !== 0x0a) endLine();
  if (lines.some((line) => line.includes('\0')))
    return { binary: true, totalLines: 0, counted: false, lines: [], capped: false };
  return { binary: false, totalLines: lineNumber - 1, counted: true, lines, capped };
}

/** `bytes` without a UTF-8 character cut in half at its end. */
function cutAtCharacter(bytes: Buffer): Buffer {
  let lead = bytes.length - 1;
  while (lead > 0 && (bytes[lead]! & 0xc0) === 0x80) lead--;
  const first = bytes[lead] ?? 0;
  const size = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return lead + size > bytes.length ? bytes.subarray(0, lead) : bytes;
}

export const readTool = defineTool({
  name: 'read',
  description:
    'Read a text file in the workspace. Returns its lines numbered from 1. ' +
    `For long files, read a window with offset and limit (at most ${MAX_READ_BYTES} bytes of text per call).`,
  input,
  readOnly: true,
  /**
   * Lines `offset` to `offset + limit - 1` of one regular file inside the workspace, each as numberLine writes it,
   * one per line. readWindow (given) reads them without loading the whole file.
   *
   * - The path goes through resolveInWorkspace (which refuses what is outside), and every message names the file as
   *   displayPath shows it, relative to the root.
   * - Refused, with an error that names the file: a path that does not exist, a directory, anything else that is not
   *   a regular file (a FIFO or a device would block or never end, even one swapped in after you looked), and a
   *   binary file.
   * - An empty file reads `(empty file)`. An offset past the end is an error that says how many lines the file has,
   *   as `3 lines`.
   * - When lines are left after the window, one last line says how many, as `N more lines` (when they were counted),
   *   and where to read on, as `offset=N`, so the model can copy it; and says so when the window was capped by bytes.
   * - The file is closed whatever happens.
   */
  async execute({ path: requested, offset = 1, limit = DEFAULT_READ_LIMIT }, ctx) {
    // #region chapter 2: readTool.execute
    // Write it from the contract above. Step by step instead: npm run reset -- chapter2 --guided
    throw new TodoError(2, 'readTool.execute');
    // #endregion
  },
});
