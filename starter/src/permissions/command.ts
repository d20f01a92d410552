/**
 * Chapter 8: what a shell command really runs.
 *
 * `npm test && rm -rf ~` is one string and two commands. A rule that allows `npm test` must not allow the second,
 * so a command is read with a real bash grammar (tree-sitter's, run as WebAssembly) and the syntax tree is walked
 * for every simple command it will run, each judged on its own: the call is allowed only if every part is. The walk
 * fails closed: a node, an expansion or an operator it does not understand, a syntax error, a name computed at run
 * time, a line whose earlier part changes what a later part runs, or a command too big to judge makes the whole
 * command "not understood", and no allow rule matches that. Deny rules see through wrappers (`env`, `timeout`,
 * `xargs`, `bash -c`, `eval`, `find -exec`, `/bin/rm`, `git -C`) to the command that runs, and the files a command
 * reads and writes are found (FILE_COMMANDS) so they can be held to the workspace and the Read and Edit rules. An
 * allow rule allows a command, not the options that make it run other programs (RISKY_OPTIONS). A few commands are
 * asked about whatever the rules say (sudo, a recursive rm outside the workspace, writing a protected file).
 *
 * This file holds the chapter's stubs about one command line; what they use is given, one concern a file:
 * bash-syntax.ts (the grammar and the syntax tree), wrappers.ts (commands that run commands), file-operands.ts (the
 * files a command reads and writes), risky-options.ts (options beyond a rule) and protected-paths.ts. Everything is
 * exported from here too.
 */

import { TodoError } from '../todo.js';
import path from 'node:path';
import { type Node } from 'web-tree-sitter';
import {
  CONTAINER_KINDS,
  type Found,
  INERT_KINDS,
  INVISIBLE,
  LIMITS,
  MISREAD_NAMES,
  NotUnderstood,
  type SimpleCommand,
  childrenOf,
  literal,
  notUnderstood,
  parser,
  redirectReads,
  redirectTarget,
} from './bash-syntax.js';
import { WRITERS, type Workspace, isProtected, resolveArg } from './protected-paths.js';
import { RISKY_OPTIONS, optionMatches } from './risky-options.js';
import { SHELLS, WRAPPERS, afterWrapper, findCommands, gitSubcommand, opaqueCommand, shellScript } from './wrappers.js';

export * from './bash-syntax.js';
export * from './wrappers.js';
export * from './file-operands.js';
export * from './risky-options.js';
export * from './protected-paths.js';

/**
 * Commands that change the shell for the commands after them: the folder (`cd`), the environment (`export`,
 * `set`), what a name runs (`alias`, `hash`, `enable`, `source`), what runs later (`trap`). On a line with any other
 * command they make the whole line not understood: `cd .git && echo x > config` does not write `./config`.
 */
export const STATE_COMMANDS: ReadonlySet<string> = new Set([
  'cd',
  'pushd',
  'popd',
  'export',
  'unset',
  'set',
  'shopt',
  'alias',
  'unalias',
  'source',
  '.',
  'enable',
  'hash',
  'trap',
  'umask',
  'builtin',
  'declare',
  'typeset',
  'local',
  'readonly',
]);

/**
 * The commands, writes and reads of a shell command (a line, a `bash -c` script, an `eval` string), `depth` levels
 * down.
 * Throws NotUnderstood when it is too long, too big, holds characters a person cannot see, has a syntax error, or
 * holds anything the walk does not know.
 */
export function shellCommands(text: string, depth = 0): Found {
  if (text.length > LIMITS.length) throw new NotUnderstood(`it is longer than ${LIMITS.length} characters`);
  if (INVISIBLE.test(text))
    throw new NotUnderstood('it holds characters a person cannot see (control, zero-width or direction marks)');
  const tree = parser.parse(text);
  if (!tree) throw new NotUnderstood('the bash grammar could not read it');
  try {
    const root = tree.rootNode;
    if (root.descendantCount > LIMITS.nodes) throw new NotUnderstood(`it has more than ${LIMITS.nodes} parts`);
    if (root.hasError) throw new NotUnderstood('it has a syntax error, or syntax the bash grammar cannot read');
    const found: Found = { commands: [], writes: [], reads: [] };
    walk(root, found, depth);
    const misread = found.commands.find((command) => MISREAD_NAMES.has(command.words[0]!));
    if (misread) throw new NotUnderstood(`the grammar reads ${misread.words[0]} as a command, which bash does not`);
    checkLine(root, found);
    found.reads.push(...redirectReads(root));
    return found;
  } finally {
    tree.delete();
  }
}

/**
 * The checks on a whole line, after the walk. Throws NotUnderstood when an earlier part of the line changes what a
 * later part runs (a STATE_COMMANDS command, or an assignment on its own such as `PATH=.:$PATH;`, beside any other
 * command).
 */
function checkLine(root: Node, found: Found): void {
  const alone = root
    .descendantsOfType('variable_assignment')
    .filter((node): node is Node => node !== null && node.parent?.type !== 'command');
  const state = found.commands.find((command) => STATE_COMMANDS.has(command.words[0]!));
  if (state && found.commands.length > 1)
    throw new NotUnderstood(`${state.words[0]} changes the shell for the commands after it on the same line`);
  const inside = new Set(alone.flatMap((node) => node.descendantsOfType('command').map((command) => command?.id)));
  if (alone.length > 0 && found.commands.length > inside.size)
    throw new NotUnderstood(`${alone[0]!.text} changes the environment of the commands after it on the same line`);
}

/**
 * Walks the syntax tree below `node` (`depth` levels down from the top) and adds to `found` each SimpleCommand the
 * line will run (readCommand) and each path a redirection sends output to (redirectTarget, given: reading,
 * duplicating and `/dev/null` give none). Containers (CONTAINER_KINDS: lists, pipelines, subshells, loops,
 * `$(...)`, the words themselves) are walked into, all of what they hold, since what runs inside them runs too;
 * INERT_KINDS hold nothing that runs.
 *
 * It fails closed, judging only what it fully understands: it throws NotUnderstood, and the whole line is then
 * "not understood", for a node notUnderstood (given) names, for a kind on neither list (never skipped: a list of
 * what is understood fails in the right direction, a skipped unknown kind is a way round every rule), and for a
 * tree nested deeper than LIMITS.depth (exactly that deep is still walked; deeper is asked about, never a stack
 * overflow).
 */
export function walk(node: Node, found: Found, depth: number): void {
  // #region chapter 8: walk
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'walk');
  // #endregion
}

/**
 * One `command` node as a SimpleCommand (bash-syntax.ts): the assignments in front as written, then the words as
 * bash will pass them, the command first: quotes removed and escapes undone where it is known now (literal,
 * given), and a word only known at run time kept as written. The command is `computed` when it is not literal, or
 * holds a glob character (`*`, `?`, `[`): `$x a`, `"$CMD" x`, `/bin/r? x` run a program nobody can name before it
 * runs, so it stands in the words as written and no rule can allow it.
 */
export function readCommand(node: Node): SimpleCommand {
  // #region chapter 8: readCommand
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'readCommand');
  // #endregion
}

/**
 * Why an allow rule for one command (its words, the command first) does not cover what it does, or undefined: an
 * allow rule allows a command, not the switches that make it run other programs or write files. `Bash(find:*)`
 * allows `find .`, not `find . -exec rm {} +`.
 *
 * RISKY_OPTIONS (given) lists them by the command's base name (`/usr/bin/find` counts as `find`); its Risky type
 * says what an entry holds. A reason is given for an entry that covers the command whatever follows, for an
 * argument before any `--` that is among the entry's switches (optionMatches, given, knows how each is written),
 * and, where the entry has a script pattern, for a program it matches: an argument that does not start with `-`,
 * or any after `--` (after `--`, `-c` is a file, not the switch). The reason names the command (and the switch or
 * program) and says what it lets the command do that its rule does not cover.
 */
export function beyondRule(words: readonly string[]): string | undefined {
  // #region chapter 8: beyondRule
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'beyondRule');
  // #endregion
}

/**
 * The commands one simple command's words make run besides itself, `depth` levels down, each seen through again.
 * Two kinds: the same command spelled another way (`view: true`): by its basename (`/bin/rm x` is `rm x`), git
 * without its options before the subcommand (gitSubcommand); and other commands it runs: through a wrapper, the
 * words after its options (afterWrapper); through `bash -c` and the other SHELLS, the script (shellScript) read
 * with shellCommands one level deeper, and through `eval` its arguments joined by spaces, the same way; through
 * `find`, findCommands. Each one found is seen through again in turn (`timeout 5 env rm x` runs `rm x`). Returns
 * the commands found (computed ones included) and the writes and reads of any script. Fails closed: throws
 * NotUnderstood past LIMITS.depth (wrapped deeper than that is asked about), for a command whose effect cannot be
 * seen (opaqueCommand: `flock`, `chroot`, `source <(…)`, `trap`), for a shell that reads its script from standard
 * input (shellScript throws), and wherever a script it reads is not understood.
 */
export function innerCommands(words: readonly string[], depth: number): Found {
  // #region chapter 8: innerCommands
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'innerCommands');
  // #endregion
}

/** Words joined by spaces, each word with a space, a quote or a backslash in it single-quoted, so `rm "a b"` is not `rm a b`. */
export function joinWords(words: readonly string[]): string {
  return words
    .map((word) => (/[\s'"\\]/.test(word) || word === '' ? `'${word.replace(/'/g, `'\\''`)}'` : word))
    .join(' ');
}

/** A command as text for a rule that matches only that text: `\` and `*` escaped, so they stand for themselves. */
export const escapeCommand = (text: string) => text.replace(/[\\*]/g, '\\$&');

/** Commands whose first word is followed by a subcommand that says what they do (`git diff`, `npm test`). */
const SUBCOMMANDS = new Set([
  'git',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'cargo',
  'go',
  'docker',
  'kubectl',
  'make',
  'pip',
  'uv',
  'gh',
  'dotnet',
  'mvn',
  'gradle',
]);
/** Subcommands followed by a script name that belongs to the prefix (`npm run test`). */
const SCRIPT_RUNNERS = new Set(['run', 'run-script', 'exec', 'x']);

/**
 * The rule to suggest when a person answers "always" to one simple command: never broader than the command, and
 * never the bare tool name. Written as the command is, assignments in front included:
 * - a command with a subcommand (SUBCOMMANDS: `git diff HEAD` → `Bash(git diff:*)`) gets its prefix, which matches
 *   that command with any further arguments; a script runner's script belongs to the prefix
 *   (`npm run lint:fix -- -w` → `Bash(npm run lint:fix:*)`), not an option after it (`npm run -s build` →
 *   `Bash(npm run:*)`). What follows must be a plain word (a letter, then only letters, digits, `_`, `.` or `-`:
 *   no option, no path): `git -C /tmp status` is no prefix, and `make build/out.o` gets its exact rule;
 * - anything else gets the exact command (`rm build/x.o` → `Bash(rm build/x.o)`).
 * The text comes from the call, so it is never a pattern: joined with joinWords (an argument with a space or a
 * quote stays one) and escaped with escapeCommand, so `rm *.log` stores `Bash(rm \*.log)`, which allows that
 * command only.
 */
export function suggestBashRule(command: SimpleCommand): string {
  // #region chapter 8: suggestBashRule
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'suggestBashRule');
  // #endregion
}

/**
 * Why one simple command (its words, the command first) must be asked about whatever the rules say, in every
 * mode, or undefined; the reason names what it touches (the command, the file):
 * - `sudo`, `su` and `doas`: another user's rights;
 * - `rm` with a recursive flag (any single-dash option holding `r` or `R`, or `--recursive` and every prefix of it GNU
 *   accepts, from `--r` on) on any argument outside the workspace, or on the workspace itself, each resolved as the
 *   shell would (resolveArg, given: `~` is the home folder, so `~/project/build` can be inside);
 * - a writing command (WRITERS, and `sed` editing in place: `-i`, `-i.bak`, `-Ei`, `--in-place`) with an argument
 *   that isProtected (given): such files change what runs next time.
 * Anything else is no concern: a plain `rm`, a recursive option of another command, `sed` without in-place.
 */
export function safetyConcern(words: readonly string[], ws: Workspace): string | undefined {
  // #region chapter 8: safetyConcern
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'safetyConcern');
  // #endregion
}
