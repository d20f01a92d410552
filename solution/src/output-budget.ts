/**
 * Chapter 9: a size budget for tool output.
 *
 * One `cat` of a build log can be a megabyte, and every byte of it goes back to the model on every later turn. The
 * budget is an after-tool-call hook: a result longer than `maxChars` keeps its head and its tail (where errors and
 * summaries usually are), and between them a note says how much was cut and where the whole text is: a file in the
 * workspace, `.agent/outputs/<call id>.txt`, which the read tool can page through with offset and limit.
 *
 * That file is the agent's own, not the project's, so it must not end up in a commit (`git add -A`) and must not
 * land anywhere a link in the repository points to. The folder holds a `.gitignore` of `*` (git ignores everything
 * in it), every folder from the workspace down to it must be a real folder (a `.agent` or `outputs` that is a link
 * is refused, wherever it leads), files are created new (never through a link, never replacing one) and readable by
 * their owner only, and the text kept is scrubbed first (`redact`: the factory of chapter 15 passes the
 * environment's secrets; chapter 9 knows none). Claude Code keeps its long outputs outside the repository, under
 * `~/.claude/projects/`; the kit keeps them where its workspace-bound read tool can reach them.
 */
import { constants } from 'node:fs';
// biome-ignore lint/correctness/noUnusedImports: writeFile is kept for the known-wrong solution that writes the whole output itself (tests/chapter09/wrong/output-written-through-links.txt)
import { lstat, mkdir, open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorText } from './safe-call.js';
import type { Hooks } from './hooks.js';
import { displayPath } from './workspace.js';

/** Where the whole outputs are kept, relative to the workspace root. */
export const OUTPUTS_DIR = '.agent/outputs';

/** What the outputs folder's `.gitignore` says: everything in it, the file itself included, is ignored. */
export const OUTPUTS_GITIGNORE = '*\n';

export interface OutputBudgetOptions {
  /** The workspace root; the whole outputs go under OUTPUTS_DIR inside it. */
  cwd: string;
  /** The most characters of output the model gets (head and tail together), at least 1. */
  maxChars: number;
  /** How many of them come from the end (default: a quarter of maxChars). */
  tailChars?: number;
  /**
   * Takes the credentials out of a text before it is kept on disk (chapter 15 passes redactCredentials with the
   * environment's secrets). Default: the text as it is.
   */
  redact?: (text: string) => string;
}

/** A call id as a file name: anything but letters, digits, `_` and `-` becomes `_` (the model chose that id). */
export function outputFileName(callId: string): string {
  return `${callId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100) || 'call'}.txt`;
}

/** Creating a file: new only (EEXIST otherwise), never through a symlink (ELOOP), owner-only. */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * The outputs folder of `cwd`, made when missing: each of `.agent` and `.agent/outputs` must be a real folder, not a
 * link (wherever it leads) and not a file, and the folder gets its `.gitignore` of `*` when it has none. Throws
 * otherwise, naming the part that is wrong.
 */
export async function outputsFolder(cwd: string): Promise<string> {
  const root = path.resolve(cwd);
  let dir = root;
  for (const part of OUTPUTS_DIR.split('/')) {
    dir = path.join(dir, part);
    await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const info = await lstat(dir);
    if (!info.isDirectory())
      throw new Error(
        `${displayPath(root, dir)} is ${info.isSymbolicLink() ? 'a symlink' : 'not a folder'}: whole outputs are kept only in a real folder of the workspace`,
      );
  }
  const ignore = path.join(dir, '.gitignore');
  const kept = await readFile(ignore, { encoding: 'utf8', flag: constants.O_RDONLY | constants.O_NOFOLLOW }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw new Error(`${displayPath(root, ignore)} cannot be read (${error.code ?? error.message})`);
    },
  );
  if (kept === undefined) {
    const file = await open(ignore, CREATE_NEW, 0o600);
    try {
      await file.writeFile(OUTPUTS_GITIGNORE);
    } finally {
      await file.close();
    }
  } else if (!kept.split('\n').some((line) => line.trim() === '*'))
    throw new Error(`${displayPath(root, ignore)} does not ignore everything (a line \`*\`): nothing is kept there`);
  return dir;
}

/**
 * Keeps `content` in a new file of OUTPUTS_DIR for call `callId` and returns its path relative to `cwd`. The folder
 * is checked and made by outputsFolder (real folders only, ignored by git); the file is created new, mode 0600,
 * never through a link, and never replaces a file: the model chose the id, so a second call with the same id (or one
 * named like an existing file) gets `<id>-2.txt`, `<id>-3.txt`, ... Throws when the folder is refused or no free
 * name is left.
 */
export async function saveWholeOutput(cwd: string, callId: string, content: string): Promise<string> {
  const base = outputFileName(callId).slice(0, -'.txt'.length);
  const dir = await outputsFolder(cwd);
  for (let n = 1; n <= 100; n++) {
    const file = path.join(dir, `${n === 1 ? base : `${base}-${n}`}.txt`);
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(file, CREATE_NEW, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    return displayPath(path.resolve(cwd), file);
  }
  throw new Error(`no free file name for call ${callId} in ${OUTPUTS_DIR}`);
}

/** The after-tool-call hook that keeps every result within the budget (see the top of this file). */
export function outputBudget(options: OutputBudgetOptions): Hooks {
  const { cwd, maxChars } = options;
  if (!Number.isInteger(maxChars) || maxChars < 1)
    throw new RangeError(`outputBudget: maxChars must be a whole number of at least 1, got ${maxChars}`);
  const tailChars = Math.min(options.tailChars ?? Math.floor(maxChars / 4), maxChars);
  const redact = options.redact ?? ((text: string) => text);
  return {
    /**
     * Keeps one result within the budget. A result of at most `maxChars` characters is left exactly as it is, and
     * nothing is written. A longer one becomes its first `maxChars - tailChars` characters, a note on a line of its
     * own, and its last `tailChars` (none when tailChars is 0: the text then ends with the note's line). The result
     * keeps its id, name and isError: an error result is cut too, and stays an error.
     *
     * - The whole text is kept first with saveWholeOutput (given), scrubbed by `redact` (given): a credential must
     *   not be written to disk, while the head and tail the model reads are as they were. saveWholeOutput checks
     *   the folder (real folders only, ignored by git) and never replaces a file; use the path it returns.
     * - The note, between `[...` and `...]`, says how many characters were cut, then of how many, and names the
     *   kept file by its path relative to the workspace, telling the model to read it with the read tool (offset
     *   and limit).
     * - When keeping fails, the cut still happens, and the note names no file: it says the whole output
     *   `could not be kept`, with the error's text (which says why).
     */
    async afterToolCall(call, result) {
      // #region chapter 9: outputBudget.afterToolCall
      // 1. A result of at most maxChars characters: change nothing.
      // 2. Otherwise keep the whole content, scrubbed first by redact (given: options.redact, or the text as it is),
      //    with the given saveWholeOutput(cwd, call.id, redact(content)): it returns the file's path relative to
      //    cwd. (It refuses a `.agent` that is a link, keeps the folder out of git, and never replaces a file: the
      //    model chose the id, and `.agent` may be a link someone else put there.) The file is on disk for anyone
      //    who reads the folder; the model still gets the head and tail as they are.
      // 3. Keep the first maxChars - tailChars characters and the last tailChars, and put between them, on lines of
      //    its own, a note that says how many characters were cut of how many, and the file's path relative to
      //    cwd with how to read it (the read tool, offset and limit). If writing failed, say so in the note
      //    instead, with the error's text: the cut still happens.
      // 4. Return the result with that content (same id, name and isError).
      const { content } = result;
      if (content.length <= maxChars) return;
      let where: string;
      try {
        const relative = await saveWholeOutput(cwd, call.id, redact(content));
        where = `the whole output is in ${relative}: read it with the read tool (offset and limit) if you need the rest`;
      } catch (error) {
        where = `the whole output could not be kept (${errorText(error)})`;
      }
      const head = content.slice(0, maxChars - tailChars);
      const tail = tailChars > 0 ? content.slice(-tailChars) : '';
      const cut = content.length - head.length - tail.length;
      return { ...result, content: `${head}\n[... ${cut} of ${content.length} characters cut; ${where} ...]\n${tail}` };
      // #endregion
    },
  };
}
