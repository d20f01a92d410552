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

const input = z.object({
  path: z.string().describe('The file to change, relative to the workspace root'),
  old_string: z
    .string()
    .describe('The exact text to replace, copied from the file with its whitespace and indentation; it must occur once'),
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
  async execute({ path: requested, old_string: oldString, new_string: newString, replace_all: replaceAll }, ctx) {
    // #region chapter 4: editTool.execute
    // 1. Resolve the path with resolveInWorkspace and keep displayPath for messages.
    // 2. Refuse an empty old_string (`old_string is empty ...`; to create a file the model should use write) and an
    //    old_string equal to new_string (`... are the same; nothing would change`).
    // 3. Read the file as UTF-8. A missing file throws `File not found: <path>`.
    // 4. Count the occurrences of old_string (text.split(oldString).length - 1 counts them without a regex).
    //    - none: throw `old_string was not found in <path>. Read the file and copy the exact text, including
    //      whitespace and indentation.`
    //    - more than one without replace_all: throw `old_string occurs <N> times in <path>. Include more
    //      surrounding lines to make it unique, or set replace_all to true to change every one.`
    // 5. Replace (every occurrence when replace_all, else the single one) and write the file back. Use
    //    split/join, not String.replace with a string: replace gives `$&`, `$1` and `$$` in new_string a meaning.
    // 6. Return `Edited <path>: replaced <N> occurrence(s)` (`1 occurrence`, `3 occurrences`).
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
    const text = await readFile(absolute, 'utf8');
    const parts = text.split(oldString);
    const count = parts.length - 1;
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
    await writeFile(absolute, parts.join(newString), 'utf8');
    return `Edited ${shown}: replaced ${count} ${count === 1 ? 'occurrence' : 'occurrences'}`;
    // #endregion
  },
});
