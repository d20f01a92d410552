/**
 * Chapter 12: the system prompt, from the kit and from the project.
 *
 * A person tells Claude Code about a project in instruction files, and the kit reads the same ones:
 *
 * 1. the kit's base prompt (or the text that replaces it: `replace`, `--system-prompt`);
 * 2. `~/.claude/CLAUDE.md`, the person's own instructions for every project;
 * 3. from the repository root down to the working folder, in each folder `CLAUDE.md` then `AGENTS.md`: the outer
 *    folders first, so the instructions closest to the work come last and win where they disagree;
 * 4. the text to append (`append`, `--append-system-prompt`).
 *
 * The repository root is the nearest folder, from the working folder up, that holds `.git`; without one only the
 * working folder is read. Nothing above the root is read: a CLAUDE.md in a parent folder belongs to someone else's
 * project (or to nobody you trust). A repository that holds the home folder (a dotfiles repository in `~`) is not a
 * project: a folder inside it is read as if there were no repository (projectRoot). An instruction file may import
 * another with `@path` (relative to the file that imports it), as in Claude Code; imports are followed up to five
 * deep, and only inside the project (the repository, or the working folder when there is none): an import that
 * points elsewhere is left as written, with a warning. A project that is the home folder itself, or holds it, keeps
 * its imports inside `~/.claude`: `@.ssh/id_rsa` in `~/CLAUDE.md` must not put a key into every request.
 *
 * The repository may have been written by someone else: `CLAUDE.md` can be a link to `/proc/self/environ` (the API
 * key would go into every request) or to `/dev/zero`. So every instruction file and import is read with the given
 * readConfigFile (safe-file.ts): a regular file whose real location is inside the repository (the home file: inside
 * the home folder), of bounded size. A file it refuses is left out, with a warning that names it.
 */
// biome-ignore lint/correctness/noUnusedImports: readFileSync is kept for the known-wrong solutions that read instruction files without the safe-file checks (tests/chapter12/wrong/)
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Hooks } from '../hooks.js';
import { readConfigFile, UnsafeFileError } from '../safe-file.js';
import { isInside } from '../workspace.js';

/** The kit's own prompt, for a session working in `cwd`. */
export function basePrompt(cwd: string): string {
  return (
    `You are a coding agent in a terminal, working in the folder ${cwd}. Paths are relative to it. ` +
    'Look at files with the tools before you answer questions about them. Keep answers short and concrete.'
  );
}

/** The names read in each folder, in this order. */
export const INSTRUCTION_FILES = ['CLAUDE.md', 'AGENTS.md'] as const;

/** How deep `@path` imports are followed. */
export const MAX_IMPORT_DEPTH = 5;

/** The repository root for `cwd`: the nearest folder from cwd up that holds `.git`, or undefined. */
export function repositoryRoot(cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Whether `folder` is the home folder or holds it (links followed). */
export function holdsHome(folder: string, home?: string): boolean {
  return home !== undefined && isInside(realOrResolved(folder), realOrResolved(home));
}

/**
 * The folder a project's instruction files come from and its imports stay in: the repository root, or `cwd` when
 * there is none or when the repository holds the home folder (a dotfiles repository in `~` is not the project of
 * every folder under it).
 */
export function projectRoot(cwd: string, home?: string): string {
  const root = repositoryRoot(cwd);
  return root === undefined || holdsHome(root, home) ? path.resolve(cwd) : root;
}

function realOrResolved(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

/**
 * The instruction files that apply to `cwd`, in the order they go into the prompt: `~/.claude/CLAUDE.md` (when
 * `home` is given and it exists), then for each folder from the project root down to cwd, its CLAUDE.md then its
 * AGENTS.md, those that exist as files. Absolute paths. The project root is projectRoot's (given): a folder above
 * it, up to the filesystem root or to a home folder that is a repository, is never read.
 */
export function instructionFiles(cwd: string, home?: string): string[] {
  // #region chapter 12: instructionFiles
  // 1. Start the list with home/.claude/CLAUDE.md when home is given and that file exists.
  // 2. The folders: from path.resolve(cwd) up to projectRoot(cwd, home) (given: the repository root, or cwd alone
  //    without one or when the repository holds the home folder) included, then reversed, so the root comes first.
  //    Never a folder above the root.
  // 3. In each folder, each name of INSTRUCTION_FILES in order, when it exists and is a file.
  const files: string[] = [];
  const user = home === undefined ? undefined : path.join(home, '.claude', 'CLAUDE.md');
  if (user && isFile(user)) files.push(user);
  const start = path.resolve(cwd);
  const root = projectRoot(start, home);
  const folders: string[] = [];
  for (let dir = start; ; dir = path.dirname(dir)) {
    folders.push(dir);
    if (dir === root) break;
  }
  for (const folder of folders.reverse()) {
    for (const name of INSTRUCTION_FILES) {
      const file = path.join(folder, name);
      if (isFile(file)) files.push(file);
    }
  }
  return files;
  // #endregion
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Whether `file` (after following links) is `root` or inside it. */
function inside(root: string, file: string): boolean {
  const relative = path.relative(realOrResolved(root), realpathSync(file));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * `text` (the content of `file`) with each `@path` import replaced by the imported file's content (its trailing
 * whitespace trimmed), itself resolved the same way. An import is `@` at the start of a line or after a space, then
 * a path of letters, digits and `. _ - /` that contains a "." or a "/" and ends with a letter or digit (so "@team",
 * an e-mail address, or the full stop after "@notes.md." are left alone), relative to `file`'s folder.
 *
 * It is resolved only when the file exists, is inside `root` once links are followed, the chain is not deeper
 * than MAX_IMPORT_DEPTH, and the file is not already being imported (a cycle stops at its second visit); it is read
 * with readConfigFile (given), which refuses a FIFO, a device or a file too big. Otherwise the import is left as
 * written, and one warning per refused import reads `<file>: @<path> was not imported: <why>`, the why being
 * `no such file`, `it is outside <root>`, `imports go at most 5 deep`, `it imports itself (a cycle)`, or the
 * refusal's own message.
 */
export function resolveImports(
  text: string,
  file: string,
  root: string,
  warnings: string[],
  depth = 0,
  chain: readonly string[] = [file],
): string {
  // #region chapter 12: resolveImports
  // 1. Replace every match of /(^|[ \t])@([\w./-]*[./][\w./-]*\w)/gm (keep the space before it; the path ends
  //    with a letter or digit, so the full stop after "@notes.md." is not part of it).
  // 2. target = path.resolve(path.dirname(file), the path). Leave the import as written, with a warning that
  //    names the importing file and the import, when: the target is not an existing file; it is not inside root
  //    (follow links: realpath); depth + 1 > MAX_IMPORT_DEPTH; or the target is already in `chain` (a cycle).
  // 3. Otherwise put in its content (trailing whitespace trimmed), itself passed through resolveImports with
  //    depth + 1 and the chain plus the target. Read it with readConfigFile(target, { roots: [root] }): an
  //    UnsafeFileError (a FIFO, a device, too big) leaves the import as written, with its message as the warning.
  return text.replace(/(^|[ \t])@([\w./-]*[./][\w./-]*\w)/gm, (whole, before: string, relative: string) => {
    const target = path.resolve(path.dirname(file), relative);
    const refuse = (why: string) => {
      warnings.push(`${file}: @${relative} was not imported: ${why}`);
      return whole;
    };
    if (!isFile(target)) return refuse('no such file');
    if (!inside(root, target)) return refuse(`it is outside ${root}`);
    if (depth + 1 > MAX_IMPORT_DEPTH) return refuse(`imports go at most ${MAX_IMPORT_DEPTH} deep`);
    if (chain.includes(target)) return refuse('it imports itself (a cycle)');
    let content: string;
    try {
      content = readConfigFile(target, { roots: [root] }).trimEnd();
    } catch (error) {
      if (error instanceof UnsafeFileError) return refuse(error.message);
      throw error;
    }
    return before + resolveImports(content, target, root, warnings, depth + 1, [...chain, target]);
  });
  // #endregion
}

export interface SystemPromptOptions {
  cwd: string;
  /** The home folder, for ~/.claude/CLAUDE.md (tests pass a temp folder; leave it out to skip that file). */
  home?: string;
  /** Replaces the kit's base prompt (the project's instructions still follow). */
  replace?: string;
  /** Goes at the very end. */
  append?: string;
}

export interface SystemPrompt {
  text: string;
  /** The instruction files read, in order. */
  files: string[];
  /** Imports that were not followed, and why. */
  warnings: string[];
}

/**
 * The whole system prompt: the base (or `replace` in its place, never beside it), then each instruction file as a
 * section "# Instructions from <path>" followed by its content with imports resolved (the path relative to cwd, or
 * the absolute path for the home file; an empty file is left out), then `append` when it is not blank. Sections
 * are separated by a blank line.
 *
 * - Every file is read with readConfigFile (given), inside the project root (projectRoot), or inside the home
 *   folder for the home file: a CLAUDE.md linked out of the project, or to /proc/self/environ, is refused. A
 *   refused file is a warning (the refusal's message) and is left out of the prompt and of `files`.
 * - Imports resolve inside the project root, or inside ~/.claude when that root holds the home folder (holdsHome),
 *   so that no project file imports ~/.ssh; the home file's imports inside ~/.claude.
 */
export function buildSystemPrompt(options: SystemPromptOptions): SystemPrompt {
  // #region chapter 12: buildSystemPrompt
  // 1. sections = [options.replace ?? basePrompt(cwd)] (replace takes the base's place; it is not added to it).
  // 2. For each of instructionFiles(cwd, home): read it with readConfigFile(file, { roots }), roots being [home]
  //    for the home file and [projectRoot(cwd, home)] for the others (a link out of the project is refused).
  //    An UnsafeFileError is a warning (its message) and the file is left out of the prompt and out of `files`.
  //    Resolve its imports: root ~/.claude for the home file, and for the others the project root, unless that
  //    holds the home folder (holdsHome: the agent runs in ~ or above it): then ~/.claude too, so no import of a
  //    project file reaches ~/.ssh. Skip it when the result
  //    is blank; else add "# Instructions from <name>\n\n" + the content trimmed, where name is the path relative
  //    to cwd for project files, the absolute path for the home file.
  // 3. Add options.append when it is given and not blank. Join the sections with "\n\n".
  const cwd = path.resolve(options.cwd);
  const sections = [options.replace ?? basePrompt(cwd)];
  const warnings: string[] = [];
  const files: string[] = [];
  const homeDir = options.home === undefined ? undefined : path.join(options.home, '.claude');
  const root = projectRoot(cwd, options.home);
  const importRoot = homeDir !== undefined && holdsHome(root, options.home) ? homeDir : root;
  for (const file of instructionFiles(cwd, options.home)) {
    const fromHome = path.dirname(file) === homeDir;
    let text: string;
    try {
      text = readConfigFile(file, { roots: [fromHome ? options.home! : root] });
    } catch (error) {
      if (!(error instanceof UnsafeFileError)) throw error;
      warnings.push(error.message);
      continue;
    }
    files.push(file);
    const content = resolveImports(text, file, fromHome ? homeDir! : importRoot, warnings).trim();
    if (!content) continue;
    sections.push(`# Instructions from ${fromHome ? file : path.relative(cwd, file)}\n\n${content}`);
  }
  if (options.append?.trim()) sections.push(options.append);
  return { text: sections.join('\n\n'), files, warnings };
  // #endregion
}

/** A before-model-call hook that sends `system` as the system prompt of every request. */
export function systemPromptHooks(system: string): Hooks {
  return { beforeModelCall: (request) => ({ ...request, system }) };
}
