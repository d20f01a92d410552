/**
 * Chapter 4: the edit tool, a search and replace the model cannot get subtly wrong.
 *
 * The model quotes the exact text it wants to change and what to put instead. Exact and unique: if the quote is not
 * in the file, or is there more than once, nothing changes and the error says how to do better. A fuzzy match would
 * sometimes change the wrong place, silently.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../tool.js';
import { displayPath, resolveInWorkspace } from '../workspace.js';

/** Files larger than this (in bytes) are not edited: the model cannot have read them whole. */
export const EDIT_FILE_SIZE_LIMIT = 5_000_000;

/**
 * The text of `bytes` if they are UTF-8, or undefined if they are not (a binary file, or text in another encoding).
 * Writing such a file back as UTF-8 would change bytes the edit never touched. A byte order mark is kept.
 */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

const input = z.object({
  path: z.string().describe('The file to change, relative to the workspace root'),
  old_string: z
    .string()
    .describe(
      'The exact text to replace, copied from the file with its whitespace and indentation; it must occur once',
    ),
  new_string: z.string().describe('The text to put in its place (it must differ from old_string)'),
  replace_all: z
    .boolean()
    .default(false)
    .describe('Replace every occurrence of old_string instead of requiring exactly one (default false)'),
});

export const editTool = defineTool({
  name: 'edit',
  description:
    'Replace an exact piece of text in an existing file. old_string must match the file exactly (read the file ' +
    'first) and occur exactly once, unless replace_all is true. Include enough surrounding lines to make it unique.',
  input,
  /**
   * Replaces the text `old_string` quotes in one existing file with `new_string` and writes the file back. The
   * quote must name one place: the model sends only what changes, so it cannot drop the rest by accident. Every
   * refusal throws, with a message that names the file as displayPath shows it and tells the model what to do,
   * and leaves the file exactly as it was; the path goes through resolveInWorkspace like every file tool's.
   *
   * - Refused before the file is even read: an empty `old_string` (the message says `empty` and that the write
   *   tool creates files) and one equal to `new_string` (it says they are `the same`).
   * - Refused as files: a missing one, `File not found: <path>` (nothing is created); a directory,
   *   `<path> is a directory, not a file`; anything else not a regular file, `<path> is not a regular file`; one over
   *   EDIT_FILE_SIZE_LIMIT bytes (the message says to use bash, sed, instead); one that is not UTF-8 (the message
   *   says `UTF-8`; utf8Text, given, decodes, and keeps a BOM).
   * - Where the quote occurs, overlapping places count (`aa` occurs twice in `aaa`). Nowhere: `not found`, telling
   *   the model to read the file and copy the exact text, whitespace and indentation included. More than once
   *   without `replace_all`: it says how many times and suggests more surrounding lines or `replace_all`.
   * - A file with \r\n line ends keeps them: read shows lines without their ends, so a quote without \r is looked
   *   for with \r\n line ends, and what is put in gets them too.
   * - `new_string` goes in as written: `$&`, `$1` or `$$` in it mean nothing.
   * - The result: `Edited <path>: replaced 1 occurrence` (or `3 occurrences`), the number of replacements made.
   */
  async execute({ path: requested, old_string: oldString, new_string: newString, replace_all: replaceAll }, ctx) {
    // #region chapter 4: editTool.execute
    // 1. Resolve the path with resolveInWorkspace and keep displayPath for messages.
    // 2. Refuse an empty old_string (say it is empty; to create a file the model should use write) and an
    //    old_string equal to new_string (say they are the same: nothing would change).
    // 3. stat the file. Missing: throw `File not found: <path>`. A directory: `<path> is a directory, not a file`.
    //    Anything else that is not a regular file (a FIFO, a device): `<path> is not a regular file`. Larger than
    //    EDIT_FILE_SIZE_LIMIT: refuse it, and say to use bash (sed) for such files.
    // 4. Read it as bytes and decode them with utf8Text. Not UTF-8: refuse it (say so) and leave it untouched.
    // 5. Line endings: if the file uses \r\n and old_string has no \r, the model wrote its quote with \n (read
    //    shows lines without their ends). Then look for old_string with every \n turned into \r\n, and put in
    //    new_string with its line ends turned into \r\n too, so the file keeps one kind of line ending.
    // 6. Count where old_string occurs, overlapping places included (search again from one past each hit with
    //    indexOf: "aa" occurs twice in "aaa").
    //    - none: throw an error that says old_string was not found in <path>, and tells the model to read the
    //      file and copy the exact text, whitespace and indentation included.
    //    - more than one without replace_all: throw an error that says how many times it occurs in <path>, and
    //      suggests more surrounding lines or replace_all.
    // 7. Replace (every occurrence when replace_all, else the single one) and write the file back. Use
    //    split/join, not String.replace with a string: replace gives `$&`, `$1` and `$$` in new_string a meaning.
    // 8. Return `Edited <path>: replaced <N> occurrence(s)` (`1 occurrence`, `3 occurrences`), N the replacements
    //    made.
    const absolute = await resolveInWorkspace(ctx.cwd, requested);
    const shown = displayPath(ctx.cwd, absolute);
    if (oldString === '') {
      throw new Error('old_string is empty: quote the exact text to replace (to create a file, use write instead)');
    }
    if (oldString === newString) throw new Error('old_string and new_string are the same; nothing would change');
    const info = await stat(absolute).catch(() => {
      throw new Error(`File not found: ${shown}`);
    });
    if (info.isDirectory()) throw new Error(`${shown} is a directory, not a file`);
    if (!info.isFile()) throw new Error(`${shown} is not a regular file`);
    if (info.size > EDIT_FILE_SIZE_LIMIT) {
      throw new Error(
        `${shown} is ${info.size} bytes, too large to edit (the limit is ${EDIT_FILE_SIZE_LIMIT}); use bash (sed) instead`,
      );
    }
    const text = utf8Text(await readFile(absolute));
    if (text === undefined) throw new Error(`${shown} is not UTF-8 text; edit would change bytes it was not asked to`);
    const crlf = text.includes('\r\n') && !oldString.includes('\r');
    const find = crlf ? oldString.replaceAll('\n', '\r\n') : oldString;
    const put = crlf ? newString.replace(/\r?\n/g, '\r\n') : newString;
    let count = 0;
    for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + 1)) count++;
    if (count === 0) {
      throw new Error(
        `old_string was not found in ${shown}. Read the file and copy the exact text, including whitespace and indentation.`,
      );
    }
    if (count > 1 && !replaceAll) {
      throw new Error(
        `old_string occurs ${count} times in ${shown}. Include more surrounding lines to make it unique, ` +
          'or set replace_all to true to change every one.',
      );
    }
    const parts = text.split(find);
    await writeFile(absolute, parts.join(put), 'utf8');
    const replaced = parts.length - 1;
    return `Edited ${shown}: replaced ${replaced} ${replaced === 1 ? 'occurrence' : 'occurrences'}`;
    // #endregion
  },
});
