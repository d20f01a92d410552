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
// biome-ignore lint/correctness/noUnusedImports: readFile is kept for the known-wrong solutions that read a command file without the safe-file checks (tests/chapter15/wrong/commands-last-found-wins.txt)
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
  // 1. Split the text into lines, at \n or at \r\n (a file written on Windows).
  // 2. No front matter (the first line, without trailing spaces, is not `---`): the prompt is the whole text, trimmed.
  // 3. Front matter: it ends at the next line that is `---` (without trailing spaces). None: throw an Error that
  //    says the front matter opened on line 1 is never closed with a `---` line.
  // 4. Between the two, a line `key: value` (a key of letters, digits and `-`, starting with a letter; split at the
  //    first colon) sets that key to the value trimmed, without one pair of surrounding quotes ("..." or '...').
  //    Skip every other line (blank lines, comments, list items). Only description and argument-hint are used.
  // 5. The prompt is the lines after the closing `---`, joined with \n and trimmed.
  // 6. Return the prompt as template, argumentHint when the front matter gave one, and the description from the
  //    front matter when it is not empty, else the first line of the prompt without its trailing spaces ('' for an
  //    empty prompt).
  const lines = text.split(/\r?\n/);
  const fields = new Map<string, string>();
  let body = lines;
  if (lines[0]!.trimEnd() === '---') {
    const close = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
    if (close === -1) throw new Error('the front matter opened with "---" on line 1 is never closed with a "---" line');
    for (const line of lines.slice(1, close)) {
      const match = /^([A-Za-z][\w-]*):(.*)/.exec(line);
      if (!match) continue;
      const value = match[2]!.trim();
      fields.set(match[1]!, /^(".*"|'.*')$/.test(value) ? value.slice(1, -1) : value);
    }
    body = lines.slice(close + 1);
  }
  const template = body.join('\n').trim();
  const hint = fields.get('argument-hint');
  const description = fields.get('description') || template.split('\n')[0]!.trimEnd();
  return { description, ...(hint !== undefined ? { argumentHint: hint } : {}), template };
  // #endregion
}

/**
 * The custom commands of a person (`home`) and of a project (`cwd`): the person's first, then the project's whose
 * names the person does not use (a repository never replaces the person's own command). Never throws for a bad
 * file: it is left out and reported in `problems`, named.
 */
export async function loadCustomCommands(where: { cwd: string; home: string }): Promise<LoadedCommands> {
  // #region chapter 15: loadCustomCommands
  // 1. Two places, in this order: commandsDir(where.home) with scope 'user', then commandsDir(where.cwd) with
  //    scope 'project'. The person's come first, so on a name clash the person's own command wins: a repository
  //    must not replace a command the person wrote with a prompt of its own.
  // 2. For each, every file of markdownFiles(dir), in that order. The name is the file name without `.md`; the
  //    namespace is the folders between dir and the file, joined with `:` (a file at the top has none).
  // 3. A name already taken: leave the file out, unread. When the name was taken in the same scope (the same file
  //    name in two folders), also add a problem that names this file and says which file is used; a project
  //    command that a user command hides is simply left out.
  // 4. Read the file with the given readConfigFile(file, { roots: [the place's own folder: where.home for the
  //    person, where.cwd for the project] }): a command linked out of the project (to /proc/self/environ, say) or
  //    that is not a regular file is refused. Then parseCommandFile it. A read that fails or is refused, or a file
  //    that does not parse, is a problem { file, message: the error's message } and the loading goes on.
  // 5. Return the commands in the order they were found, and the problems.
  const commands: CustomCommand[] = [];
  const problems: CommandProblem[] = [];
  const places: Array<[string, CommandScope, string]> = [
    [commandsDir(where.home), 'user', where.home],
    [commandsDir(where.cwd), 'project', where.cwd],
  ];
  for (const [dir, scope, root] of places) {
    for (const file of await markdownFiles(dir)) {
      const name = path.basename(file, '.md');
      const folders = path.relative(dir, path.dirname(file));
      const taken = commands.find((command) => command.name === name);
      if (taken) {
        if (taken.scope === scope) problems.push({ file, message: `/${name} is also ${taken.file}, which is used` });
        continue;
      }
      try {
        const parsed = parseCommandFile(readConfigFile(file, { roots: [root] }));
        commands.push({
          name,
          ...parsed,
          ...(folders ? { namespace: folders.split(path.sep).join(':') } : {}),
          file,
          scope,
        });
      } catch (error) {
        problems.push({ file, message: (error as Error).message });
      }
    }
  }
  return { commands, problems };
  // #endregion
}

/**
 * The prompt a command's template makes with `args` (everything typed after the command's name): `$ARGUMENTS` is
 * all of it, `$1` to `$9` its words (a quoted phrase is one word). Arguments a template has no place for are added at
 * the end, so nothing typed is lost.
 */
export function expandCommand(template: string, args: string): string {
  // #region chapter 15: expandCommand
  // 1. The arguments are args trimmed. Their words: a phrase in double or single quotes is one word, without its
  //    quotes (`"fix the bug" high` is two words); otherwise each run of characters that are not whitespace is a word.
  // 2. Fill in the template in ONE pass, with one regular expression and a replacement function: every `$ARGUMENTS`
  //    becomes the arguments, every `$1` to `$9` that word ($1 is the first), or nothing when there are fewer words.
  //    One pass, so that text you put in is never read again (arguments holding `$1` stay as typed), and a function,
  //    so that `$&` or `$'` in the arguments is not read as a replacement pattern.
  // 3. A template with no placeholder at all, given arguments: add a blank line and `ARGUMENTS: <the arguments>` at
  //    the end (as Claude Code does), so that what was typed reaches the model.
  // 4. Return the prompt.
  const all = args.trim();
  const words = [...all.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
  const placeholder = /\$ARGUMENTS|\$([1-9])/g;
  const prompt = template.replace(placeholder, (_: string, digit?: string) =>
    digit ? (words[Number(digit) - 1] ?? '') : all,
  );
  if (all !== '' && !/\$ARGUMENTS|\$[1-9]/.test(template)) return `${prompt}\n\nARGUMENTS: ${all}`;
  return prompt;
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
  // 1. Drop the spaces before the `/` and the `/` itself. The name is what follows, up to the first whitespace; the
  //    arguments are the rest, trimmed ('' when there is nothing after the name).
  // 2. A built-in name first, even when a custom command has the same name (/clear must always clear):
  //    { kind: 'builtin', name, args }.
  // 3. Then a custom command of that name: { kind: 'custom', command, prompt: expandCommand(its template, args) }.
  // 4. Otherwise { kind: 'unknown', name }, with a suggestion: the first known name, built-ins before custom
  //    commands, at editDistance 1 from the name (one letter added, dropped or changed). None that close: no
  //    suggestion.
  const text = line.trimStart().slice(1);
  const name = text.split(/\s/, 1)[0]!;
  const args = text.slice(name.length).trim();
  if (builtins.includes(name)) return { kind: 'builtin', name, args };
  const command = commands.find((c) => c.name === name);
  if (command) return { kind: 'custom', command, prompt: expandCommand(command.template, args) };
  const suggestion = [...builtins, ...commands.map((c) => c.name)].find((known) => editDistance(known, name) === 1);
  return suggestion === undefined ? { kind: 'unknown', name } : { kind: 'unknown', name, suggestion };
  // #endregion
}
