/**
 * Chapter 8: what a shell command really runs.
 *
 * `npm test && rm -rf ~` is one string and two commands. A rule that allows `npm test` must not allow the second,
 * so a command is read with a real bash grammar (tree-sitter's, run as WebAssembly) and the syntax tree is walked
 * for every simple command it will run, each judged on its own: the call is allowed only if every part is. The walk
 * fails closed: a node it does not understand, a syntax error, a name computed at run time or a command too big to
 * judge makes the whole command "not understood", and no allow rule matches that. Deny rules see through wrappers
 * (`env`, `timeout`, `xargs`, `bash -c`, `eval`, `find -exec`, `/bin/rm`) to the command that runs. A few commands
 * are asked about whatever the rules say (sudo, a recursive rm outside the workspace, writing a protected file).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser, type Node } from 'web-tree-sitter';

// The grammar is loaded once, when this module is first imported (top-level await), so the walk is synchronous.
await Parser.init();
const parser = new Parser();
parser.setLanguage(
  await Language.load(createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm')),
);

/** How big a command the engine judges. Anything bigger is not understood (asked about), never a crash. */
export const LIMITS = { length: 20_000, nodes: 20_000, depth: 64 };

/** Thrown by the walk for anything it cannot judge: the whole command is then "not understood". */
export class NotUnderstood extends Error {
  override name = 'NotUnderstood';
}

/** One simple command as it will run. */
export interface SimpleCommand {
  /** `NAME=value` assignments written before the name, as written. */
  assignments: string[];
  /** The name, then the arguments, quotes removed; a word only known at run time (`$HOME`) keeps its text. */
  words: string[];
  /** True when the name itself is only known at run time (`$x`, `$(echo rm)`, a glob such as `/bin/r?`). */
  computed: boolean;
}

/** What a shell command runs and writes. */
export interface Found {
  commands: SimpleCommand[];
  /** The targets of redirections that write (`> file`, `>> file`, `&> file`), as written, quotes removed. */
  writes: string[];
}

/** Node kinds that run nothing themselves but may hold parts that do: the walk goes into their named children. */
export const CONTAINER_KINDS: ReadonlySet<string> = new Set([
  'program',
  'list',
  'pipeline',
  'subshell',
  'compound_statement',
  'negated_command',
  'redirected_statement',
  'if_statement',
  'elif_clause',
  'else_clause',
  'for_statement',
  'while_statement',
  'do_group',
  'case_statement',
  'case_item',
  'function_definition',
  'variable_assignment',
  'variable_assignments',
  'declaration_command',
  'command_name',
  'concatenation',
  'string',
  'expansion',
  'command_substitution',
  'process_substitution',
  'heredoc_redirect',
  'herestring_redirect',
  'heredoc_body',
  'array',
]);

/** Node kinds that hold no command at all: the walk skips them. */
export const INERT_KINDS: ReadonlySet<string> = new Set([
  'comment',
  'word',
  'raw_string',
  'ansi_c_string',
  'string_content',
  'number',
  'variable_name',
  'simple_expansion',
  'special_variable_name',
  'heredoc_start',
  'heredoc_content',
  'heredoc_end',
  'file_descriptor',
]);

/** Words the grammar reads as a command name though bash does not run them as one (`coproc { rm x; }`). */
const MISREAD_NAMES: ReadonlySet<string> = new Set(['coproc', '{', '}', '[[', ']]', '((', '))']);

/** Redirection operators that write to their target (`>&` and `&>` only when the target is a file, not a number). */
const WRITING_REDIRECTS: ReadonlySet<string> = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);
/** Targets a redirection may write without it counting as writing a file. */
const HARMLESS_TARGETS: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '-']);

/** A backslash in a bare word keeps the next character; a backslash before a new line joins the lines. */
const unescapeWord = (text: string) => text.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');

/**
 * The value of a word node when it is known before the command runs: a bare word (escapes undone), a '...' string,
 * a "..." string with no expansion in it, a number, or a concatenation of those. Undefined for anything whose value
 * is only known at run time (`$x`, `$(...)`, `$'...'` with escapes).
 */
export function literal(node: Node | null | undefined): string | undefined {
  if (!node) return undefined;
  switch (node.type) {
    case 'word':
    case 'number':
      return unescapeWord(node.text);
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      return node.text.includes('\\') ? undefined : node.text.slice(2, -1);
    case 'string':
      if (node.namedChildren.some((child) => child?.type !== 'string_content')) return undefined;
      return node.text
        .slice(1, -1)
        .replace(/\\\n/g, '')
        .replace(/\\([\\"$`])/g, '$1');
    case 'concatenation': {
      const parts = node.namedChildren.map((child) => literal(child));
      return parts.every((part) => part !== undefined) ? parts.join('') : undefined;
    }
    default:
      return undefined;
  }
}

/** The named children of a node (never null). */
export const childrenOf = (node: Node): Node[] => node.namedChildren.filter((child): child is Node => child !== null);

/**
 * The path a `file_redirect` node writes, or undefined when it writes none (`< in`, `2>&1`, `> /dev/null`). Throws
 * NotUnderstood when it writes to a target only known at run time (`> $file`).
 */
export function redirectTarget(node: Node): string | undefined {
  const operator = node.children.find((child) => child !== null && !child.isNamed)?.type ?? '';
  const destination = node.childForFieldName('destination');
  if (!WRITING_REDIRECTS.has(operator) || !destination) return undefined;
  if ((operator === '>&' || operator === '&>') && /^\d+-?$|^-$/.test(destination.text)) return undefined;
  const target = literal(destination);
  if (target === undefined) throw new NotUnderstood(`it writes to ${destination.text}, a path only known when it runs`);
  return HARMLESS_TARGETS.has(target) ? undefined : target;
}

/**
 * The commands and writes of a shell command (a line, a `bash -c` script, an `eval` string), `depth` levels down.
 * Throws NotUnderstood when it is too long, too big, has a syntax error, or holds anything the walk does not know.
 */
export function shellCommands(text: string, depth = 0): Found {
  if (text.length > LIMITS.length) throw new NotUnderstood(`it is longer than ${LIMITS.length} characters`);
  const tree = parser.parse(text);
  if (!tree) throw new NotUnderstood('the bash grammar could not read it');
  try {
    const root = tree.rootNode;
    if (root.descendantCount > LIMITS.nodes) throw new NotUnderstood(`it has more than ${LIMITS.nodes} parts`);
    if (root.hasError) throw new NotUnderstood('it has a syntax error, or syntax the bash grammar cannot read');
    const found: Found = { commands: [], writes: [] };
    walk(root, found, depth);
    const misread = found.commands.find((command) => MISREAD_NAMES.has(command.words[0]!));
    if (misread) throw new NotUnderstood(`the grammar reads ${misread.words[0]} as a command, which bash does not`);
    return found;
  } finally {
    tree.delete();
  }
}

/**
 * Walks the syntax tree below `node` (`depth` levels down from the top) and adds to `found` every simple command
 * it will run (readCommand) and every path a redirection writes (redirectTarget). Fails closed: throws
 * NotUnderstood for a node kind it does not know, and for a tree deeper than LIMITS.depth.
 */
export function walk(node: Node, found: Found, depth: number): void {
  // #region chapter 8: walk
  // 1. Deeper than LIMITS.depth: throw NotUnderstood (a command nested that deep is asked about, not judged).
  // 2. A `command` node: push readCommand(node) to found.commands. A `file_redirect` node: push its
  //    redirectTarget (given) to found.writes when there is one.
  // 3. INERT_KINDS hold no command: stop here. Any kind that is not a command, a file_redirect or one of the
  //    CONTAINER_KINDS is unknown: throw NotUnderstood naming the kind. Never skip what you do not know.
  // 4. Walk every named child (childrenOf, given) one level deeper: the words of a command may hold `$(...)`,
  //    and those commands run too.
  if (depth > LIMITS.depth) throw new NotUnderstood(`it is nested more than ${LIMITS.depth} levels deep`);
  if (node.type === 'command') found.commands.push(readCommand(node));
  else if (node.type === 'file_redirect') {
    const target = redirectTarget(node);
    if (target !== undefined) found.writes.push(target);
  } else if (INERT_KINDS.has(node.type)) return;
  else if (!CONTAINER_KINDS.has(node.type)) throw new NotUnderstood(`the walk does not know ${node.type} nodes`);
  for (const child of childrenOf(node)) walk(child, found, depth + 1);
  // #endregion
}

/**
 * One `command` node as a SimpleCommand: its `variable_assignment` children as written, its name (the `name`
 * field, a command_name node) and its `argument` fields, each as its literal value, or its text when the value is
 * only known at run time. A name that is not literal, or holds a glob character (`*`, `?`, `[`), is computed.
 */
export function readCommand(node: Node): SimpleCommand {
  // #region chapter 8: readCommand
  // 1. assignments: the text of each child of type `variable_assignment`.
  // 2. The name: node.childForFieldName('name'), a command_name node; its value is literal() of its first named
  //    child. No literal value, or one with *, ? or [ in it: computed, and the name's text stands in the words.
  // 3. The arguments: node.childrenForFieldName('argument'), each literal() or, when that is undefined, its text.
  const assignments = childrenOf(node)
    .filter((child) => child.type === 'variable_assignment')
    .map((child) => child.text);
  const name = node.childForFieldName('name');
  const value = name ? literal(name.namedChildren[0]) : undefined;
  const computed = value === undefined || /[*?[]/.test(value);
  const args = node.childrenForFieldName('argument').map((arg) => literal(arg) ?? arg.text);
  return { assignments, words: [computed ? (name?.text ?? '') : value, ...args], computed };
  // #endregion
}

/**
 * Commands that run the command after their options (and, for `env`, after `NAME=value` words), each with the
 * options that take a value as the next word (`timeout -s KILL`, `xargs -I {}`, `nice -n 5`).
 */
export const WRAPPERS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    command: [],
    builtin: [],
    nohup: [],
    time: ['-f', '-o'],
    setsid: [],
    exec: ['-a'],
    env: ['-u', '--unset', '-C', '--chdir'],
    nice: ['-n', '--adjustment'],
    timeout: ['-s', '--signal', '-k', '--kill-after'],
    stdbuf: ['-i', '-o', '-e'],
    ionice: ['-c', '-n', '-p', '-P', '-u'],
    xargs: [
      '-I',
      '-L',
      '-P',
      '-d',
      '-E',
      '-a',
      '-n',
      '-s',
      '--max-args',
      '--max-procs',
      '--delimiter',
      '--arg-file',
      '--max-lines',
      '--replace',
    ],
    sudo: ['-u', '-g', '-C', '-D', '-p', '-h', '-r', '-t', '-U', '--user', '--group', '--chdir', '--prompt'],
    doas: ['-u', '-C'],
  }).map(([name, options]) => [name, new Set(options)]),
);
/** Shells whose `-c` option runs a script given as text. */
export const SHELLS: ReadonlySet<string> = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish']);

/**
 * The words after a wrapper's options: what `words[0]` (a WRAPPERS name) runs, or [] when it runs nothing. Options
 * (and, for env, `NAME=value`) are skipped, with the value of the options that take one; `timeout` also skips its
 * duration. Throws NotUnderstood for `env -S` (a command line in one word).
 */
export function afterWrapper(words: readonly string[]): string[] {
  const name = path.basename(words[0] ?? '');
  const valued = WRAPPERS.get(name) ?? new Set<string>();
  let at = 1;
  while (at < words.length && (words[at]!.startsWith('-') || (name === 'env' && /^[A-Za-z_]\w*=/.test(words[at]!)))) {
    if (name === 'env' && /^(-S|--split-string)/.test(words[at]!))
      throw new NotUnderstood('env -S splits a command line the walk cannot see');
    if (words[at] === '--') {
      at++;
      break;
    }
    at += valued.has(words[at]!) ? 2 : 1;
  }
  if (name === 'timeout') at++;
  return words.slice(at);
}

/** The commands `find` runs: each `-exec`/`-execdir`/`-ok`/`-okdir` command (up to `;` or `+`), and `rm` for `-delete`. */
export function findCommands(words: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let at = 1; at < words.length; at++) {
    if (words[at] === '-delete') out.push(['rm']);
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(words[at]!)) continue;
    const end = words.findIndex((word, i) => i > at && (word === ';' || word === '+'));
    out.push(words.slice(at + 1, end === -1 ? words.length : end));
    at = end === -1 ? words.length : end;
  }
  return out;
}

/** The script a shell's `-c` runs (`bash -c 'rm x'`, `sh -ec 'rm x'`), or undefined when it has no `-c`. */
export function shellScript(words: readonly string[]): string | undefined {
  const at = words.findIndex((word, i) => i > 0 && /^-[A-Za-z]*c[A-Za-z]*$/.test(word));
  return at === -1 ? undefined : (words[at + 1] ?? '');
}

/**
 * The commands one simple command's words make run besides itself, `depth` levels down, each seen through again:
 * its name by basename (`/bin/rm x` is `rm x`); through a wrapper, the words after its options (afterWrapper);
 * through `bash -c` and the other SHELLS, the script (shellScript) read with shellCommands one level deeper, and
 * through `eval` its arguments joined by spaces, the same way; through `find`, findCommands. Returns the commands
 * found (computed ones included) and the writes of any script. Throws NotUnderstood past LIMITS.depth.
 */
export function innerCommands(words: readonly string[], depth: number): Found {
  // #region chapter 8: innerCommands
  // 1. Deeper than LIMITS.depth: throw NotUnderstood.
  // 2. The name is path.basename of the first word. When that differs from the word, the basename form (the
  //    name replaced, the arguments kept) is an inner command.
  // 3. A WRAPPERS name: the words afterWrapper (given) are an inner command when there are any. `find`: each of
  //    findCommands (given). A SHELLS name with a shellScript (given), or `eval`: shellCommands of the script
  //    (for eval: the arguments joined by spaces) at depth + 1; keep its commands and its writes.
  // 4. Every inner command found in step 2 or 3 is looked through again (innerCommands, depth + 1), and what
  //    that finds is added too: `timeout 5 env rm x` runs `rm x`.
  if (depth > LIMITS.depth) throw new NotUnderstood(`it wraps commands more than ${LIMITS.depth} levels deep`);
  const found: Found = { commands: [], writes: [] };
  const [first = '', ...args] = words;
  const name = path.basename(first);
  const inner: string[][] = [];
  if (name !== first) inner.push([name, ...args]);
  if (WRAPPERS.has(name)) {
    const rest = afterWrapper(words);
    if (rest.length > 0) inner.push(rest);
  }
  if (name === 'find') inner.push(...findCommands(words));
  const script = name === 'eval' ? args.join(' ') : SHELLS.has(name) ? shellScript(words) : undefined;
  if (script !== undefined) {
    const nested = shellCommands(script, depth + 1);
    found.commands.push(...nested.commands);
    found.writes.push(...nested.writes);
  }
  for (const command of inner) found.commands.push({ assignments: [], words: command, computed: false });
  for (const command of [...found.commands]) {
    const deeper = innerCommands(command.words, depth + 1);
    found.commands.push(...deeper.commands);
    found.writes.push(...deeper.writes);
  }
  return found;
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
 * The rule to suggest when a person answers "always" to one simple command, written as the command is
 * (assignments in front included): for a command with a subcommand (`git diff HEAD` → `Bash(git diff:*)`,
 * `npm run test:unit -- -w` → `Bash(npm run test:unit:*)`) its prefix, which matches that command with any further
 * arguments; for anything else the exact command (`rm build/x.o` → `Bash(rm build/x.o)`). The text comes from the
 * call, so it is escaped (escapeCommand): `rm *.log` stores `Bash(rm \*.log)`, which allows that command only.
 */
export function suggestBashRule(command: SimpleCommand): string {
  // #region chapter 8: suggestBashRule
  // 1. The words as written are the assignments followed by the words; the command starts after the assignments.
  // 2. If the command is in SUBCOMMANDS and the next word exists and is a plain word (/^[A-Za-z][\w.-]*$/, not an
  //    option or a path), the prefix runs to that word; one word further when that word is in SCRIPT_RUNNERS and
  //    the word after it does not start with `-`.
  // 3. With a prefix, return `Bash(<prefix>:*)`; without one, `Bash(<all the words>)`. Either way the words are
  //    joined with joinWords and escaped with escapeCommand (both given): text from the call is never a pattern.
  const all = [...command.assignments, ...command.words];
  const start = command.assignments.length;
  const [first, second, third] = command.words;
  if (first && SUBCOMMANDS.has(first) && second && /^[A-Za-z][\w.-]*$/.test(second)) {
    const length = SCRIPT_RUNNERS.has(second) && third && !third.startsWith('-') ? 3 : 2;
    return `Bash(${escapeCommand(joinWords(all.slice(0, start + length)))}:*)`;
  }
  return `Bash(${escapeCommand(joinWords(all))})`;
  // #endregion
}

/** Where the checks below look: the workspace and the home folder (for `~`). */
export interface Workspace {
  root: string;
  home: string;
}

/** Folders whose contents change what runs next time (hooks, settings, git hooks). */
export const PROTECTED_FOLDERS: ReadonlySet<string> = new Set(['.git', '.claude']);
/** Files that change what runs or what the model is told next time. */
export const PROTECTED_FILES: ReadonlySet<string> = new Set([
  '.mcp.json',
  'CLAUDE.md',
  'CLAUDE.local.md',
  'AGENTS.md',
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.envrc',
]);

/** True when writing `target` changes what runs next time: a path in a PROTECTED_FOLDERS folder, or a PROTECTED_FILES file. */
export function isProtected(target: string): boolean {
  const segments = target.split(/[\\/]/);
  return segments.some((segment) => PROTECTED_FOLDERS.has(segment)) || PROTECTED_FILES.has(segments.at(-1) ?? '');
}

/** A path as a shell command names it, made absolute: a leading `~` is the home folder, the rest is against the root. */
export function resolveArg(arg: string, ws: Workspace): string {
  return arg === '~' || arg.startsWith('~/') ? path.join(ws.home, arg.slice(1)) : path.resolve(ws.root, arg);
}

/** Commands that write to, move or delete the paths they are given. */
export const WRITERS: ReadonlySet<string> = new Set([
  'rm',
  'mv',
  'cp',
  'tee',
  'touch',
  'chmod',
  'chown',
  'ln',
  'truncate',
  'rmdir',
  'mkdir',
  'dd',
  'install',
  'rsync',
]);

/**
 * Why one simple command (its words, the name first) must be asked about whatever the rules say, or undefined:
 * - `sudo`, `su` and `doas` (another user's rights);
 * - `rm` with a recursive flag (`-r`, `-R`, `-rf`, `--recursive`, ...) on a target outside the workspace, or on the
 *   workspace itself (`~` is the home folder);
 * - a writing command (WRITERS, `sed -i`) with an argument that isProtected.
 */
export function safetyConcern(words: readonly string[], ws: Workspace): string | undefined {
  // #region chapter 8: safetyConcern
  // 1. The first word is the command, the rest its arguments.
  // 2. sudo / su / doas: return a reason that names it.
  // 3. rm: if any option is recursive (starts with a single `-` and contains r or R, or is --recursive), resolve
  //    each other argument (resolveArg, given). One that is the root itself or not inside it (path.relative
  //    starts with `..` or is absolute) is a reason.
  // 4. For WRITERS and sed editing in place (an option that starts with a single `-` and contains i, as -i, -i.bak
  //    and -Ei do, or --in-place), every argument: one that isProtected (given) is a reason naming it.
  // 5. Otherwise undefined.
  const [name = '', ...args] = words;
  if (['sudo', 'su', 'doas'].includes(name)) return `${name} runs a command with another user's rights`;
  if (name === 'rm' && args.some((a) => a === '--recursive' || /^-[^-]*[rR]/.test(a))) {
    for (const arg of args.filter((a) => !a.startsWith('-'))) {
      const relative = path.relative(ws.root, resolveArg(arg, ws));
      if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
        return `rm deletes ${arg} recursively, outside the workspace or the workspace itself`;
      }
    }
  }
  if (WRITERS.has(name) || (name === 'sed' && args.some((a) => a.startsWith('--in-place') || /^-[^-]*i/.test(a)))) {
    const target = args.find(isProtected);
    if (target !== undefined) return `${name} writes ${target}, a protected path`;
  }
  return undefined;
  // #endregion
}
