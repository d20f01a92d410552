/**
 * Chapter 15: custom slash commands, the prompts a person keeps as files for Claude Code.
 *
 * A Markdown file in the project's `.claude/commands/` (committed, shared with the team) or in the person's
 * `~/.claude/commands/` is a command: `review.md` is `/review`. A file in a subfolder is still named by its file
 * name; the folder only shows beside it as a namespace (`.claude/commands/frontend/component.md` is `/component`,
 * shown as "(project:frontend)"). Optional front matter between two `---` lines gives a `description` (else the
 * first line of the prompt) and an `argument-hint` for /help (`[pr-number] [priority]`). The rest is the prompt:
 * `$ARGUMENTS` becomes everything typed after the name, `$1` to `$9` its words, a quoted phrase counting as one word.
 *
 * Where the kit differs from Claude Code, and why:
 * - The front matter is read by a small parser of `key: value` lines, not a YAML library: the two keys the kit uses
 *   are single-line strings, and `argument-hint: [pr-number] [priority]` is meant as text, which YAML would not
 *   read as text. Other keys (allowed-tools, model, ...) are skipped.
 * - A project command and a user command of the same name: Claude Code's slash-command page says such a clash is not
 *   supported, and its newer skills page ranks the person's above the project's. The kit picks the person's too: a
 *   repository chooses its command files, so a cloned `.claude/commands/review.md` must not replace the `/review`
 *   the person wrote and trusts (the prompt they think they are sending).
 * - Two files of one scope with the same name (in two folders): the first found is used and the other is reported.
 * - `$1` is the first word, as in Claude Code's slash-command page (its newer skills page numbers from `$0`).
 * - No `!` shell lines and no `@file` inlining: the prompt is sent as written, and the model can read files itself.
 */
import { TodoError } from '../todo.js';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { readConfigFile } from '../safe-file.js';

export type CommandScope = 'project' | 'user';

export interface CustomCommand {
  /** The name typed after the slash: the file name without `.md`. */
  name: string;
  /** From the front matter, else the first line of the prompt. */
  description: string;
  argumentHint?: string;
  /** The folders between commands/ and the file, joined by `:` (`frontend`, `web:forms`); unset at the top. */
  namespace?: string;
  /** The file's full path. */
  file: string;
  scope: CommandScope;
  /** The prompt, before `$ARGUMENTS` and `$1`..`$9` are filled in. */
  template: string;
}

/** A command file that could not be used, and why. */
export interface CommandProblem {
  file: string;
  message: string;
}

export interface LoadedCommands {
  commands: CustomCommand[];
  problems: CommandProblem[];
}

/** What one command file says. */
export interface CommandFile {
  description: string;
  argumentHint?: string;
  template: string;
}

/** What a line typed at the prompt asks for. */
export type SlashLine =
  | { kind: 'builtin'; name: string; args: string }
  | { kind: 'custom'; command: CustomCommand; prompt: string }
  | { kind: 'unknown'; name: string; suggestion?: string };

/** The commands folder under a project or a home folder. */
export function commandsDir(root: string): string {
  return path.join(root, '.claude', 'commands');
}

/**
 * Every `.md` file under `dir` that is not a folder, as full paths: a folder's own files first (by name), then each
 * subfolder's (by name). A folder that does not exist, or cannot be listed, gives none.
 */
export async function markdownFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const sorted = entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files = sorted
    .filter((entry) => !entry.isDirectory() && entry.name.endsWith('.md'))
    .map((entry) => path.join(dir, entry.name));
  for (const entry of sorted.filter((e) => e.isDirectory()))
    files.push(...(await markdownFiles(path.join(dir, entry.name))));
  return files;
}

/** How /help shows where a command comes from, as Claude Code does: `project`, `user:frontend`. */
export function commandLabel(command: Pick<CustomCommand, 'scope' | 'namespace'>): string {
  return command.namespace ? `${command.scope}:${command.namespace}` : command.scope;
}

/** How many letters must be added, dropped or changed to turn `a` into `b` (the Levenshtein distance). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * Reads one command file: its front matter (when the first line is `---`) and its prompt. Throws an Error when the
 * front matter is never closed.
 */
export function parseCommandFile(text: string): CommandFile {
  // #region chapter 15: parseCommandFile
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'parseCommandFile');
  // #endregion
}

/**
 * The custom commands of a person (`home`) and of a project (`cwd`): the person's first, then the project's whose
 * names the person does not use (a repository never replaces the person's own command). Never throws for a bad
 * file: it is left out and reported in `problems`, named.
 */
export async function loadCustomCommands(where: { cwd: string; home: string }): Promise<LoadedCommands> {
  // #region chapter 15: loadCustomCommands
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'loadCustomCommands');
  // #endregion
}

/**
 * The prompt a command's template makes with `args` (everything typed after the command's name): `$ARGUMENTS` is
 * all of it, `$1` to `$9` its words (a quoted phrase is one word). Arguments a template has no place for are added at
 * the end, so nothing typed is lost.
 */
export function expandCommand(template: string, args: string): string {
  // #region chapter 15: expandCommand
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'expandCommand');
  // #endregion
}

/**
 * What a line typed at the prompt (starting with `/`) asks for: a built-in command of the program (`builtins`, by
 * name), a custom command with its prompt filled in, or an unknown name with the nearest known one.
 */
export function parseSlashLine(
  line: string,
  commands: readonly CustomCommand[],
  builtins: readonly string[],
): SlashLine {
  // #region chapter 15: parseSlashLine
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'parseSlashLine');
  // #endregion
}
