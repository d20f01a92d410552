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
 */
import { TodoError } from '../todo.js';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser, type Node } from 'web-tree-sitter';

// The grammar is loaded once, when this module is first imported (top-level await), so the walk is synchronous.
await Parser.init();
const parser = new Parser();
parser.setLanguage(
  await Language.load(createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm')),
);

/** How big a command the engine judges. Anything bigger is not understood (asked about), never a crash. Claude
 *  Code asks about every command over 10,000 characters too. */
export const LIMITS = { length: 10_000, nodes: 20_000, depth: 64 };

/** Characters a person cannot see, or that move the text they see: controls (but tab and new line), zero-width
 *  characters, and the marks that reverse the direction of text. */
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

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
  /** innerCommands: true when this is the same command spelled another way (`/bin/rm x` as `rm x`, `git -C . push`
   *  as `git push`), not another command it runs. */
  view?: boolean;
}

/** What a shell command runs and writes. */
export interface Found {
  commands: SimpleCommand[];
  /** The targets of redirections that write (`> file`, `>> file`, `&> file`), as written, quotes removed. */
  writes: string[];
  /** The files redirections read (`< file`, `3< file`), as written: found by shellCommands, not by the walk. */
  reads: string[];
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

/** Text bash would still expand: a backtick, or `$(`, `${`, `$[` not escaped by a backslash. */
const EXPANDS = /(?<!\\)(?:\\\\)*(?:`|\$[({[])/;

/**
 * Why the walk must not judge `node`, or undefined. Given, not a stub: it is the list of what the grammar reads
 * differently from bash, and each entry is a way round the rules that once worked.
 * - An expansion other than a plain `${name}`: its operators run code (`${x:-$(…)}`), evaluate text as a name or a
 *   prompt (`${!x}`, `${x@P}`) or an arithmetic subscript (`${a[$(…)]}`, `${x:0:$(…)}`).
 * - A backtick substitution: nested backticks and backslashes inside them are read differently by the grammar.
 * - A heredoc whose delimiter is not quoted and whose body holds `$`, a backtick or a backslash: bash expands the
 *   body (the grammar drops backticks there) and joins lines a backslash ends (which can end the heredoc early).
 * - A declaration (`declare`, `typeset`, `export`, `readonly`, `local`): bash may evaluate its names later
 *   (`declare -n`, `a[$(…)]`), and it changes what the commands after it run.
 * - Plain text that still holds an expansion the grammar did not read as one.
 */
export function notUnderstood(node: Node): string | undefined {
  switch (node.type) {
    case 'expansion': {
      const parts = node.children.map((child) => child?.type);
      return parts.length === 3 && parts[1] === 'variable_name'
        ? undefined
        : `the expansion ${node.text} does more than read a variable`;
    }
    case 'command_substitution':
      return node.text.startsWith('`') ? 'it uses backticks, which the walk does not judge' : undefined;
    case 'heredoc_redirect': {
      const start = node.children.find((child) => child?.type === 'heredoc_start')?.text ?? '';
      const body = node.children.find((child) => child?.type === 'heredoc_body')?.text ?? '';
      return !/['"\\]/.test(start) && /[`$\\]/.test(body)
        ? "its heredoc expands $, backticks or backslashes (quote the delimiter, <<'EOF', to keep it plain)"
        : undefined;
    }
    case 'declaration_command':
      return `it declares variables (${node.text.split(/\s/)[0]}), which bash may evaluate later`;
    case 'word':
    case 'string_content':
    case 'heredoc_content':
      return EXPANDS.test(node.text) ? `${node.text} holds an expansion the grammar reads as text` : undefined;
    default:
      return undefined;
  }
}

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

/** Builtins that read a variable name from an argument, where a subscript (`a[$(…)]`) is evaluated as code. */
const NAME_READERS: ReadonlySet<string> = new Set([
  'let',
  'printf',
  'test',
  '[',
  'unset',
  'read',
  'mapfile',
  'readarray',
  'wait',
]);

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
 * NotUnderstood when it writes to a target only known at run time (`> $file`) or that is not a plain path
 * (plainPath: `> .gi?/config` is globbed by bash).
 */
export function redirectTarget(node: Node): string | undefined {
  const operator = node.children.find((child) => child !== null && !child.isNamed)?.type ?? '';
  const destination = node.childForFieldName('destination');
  if (!WRITING_REDIRECTS.has(operator) || !destination) return undefined;
  if ((operator === '>&' || operator === '&>') && /^\d+-?$|^-$/.test(destination.text)) return undefined;
  const target = literal(destination);
  if (target === undefined) throw new NotUnderstood(`it writes to ${destination.text}, a path only known when it runs`);
  const why = plainPath(target);
  if (why !== undefined) throw new NotUnderstood(`it writes to ${target}, and ${why}`);
  return HARMLESS_TARGETS.has(target) ? undefined : target;
}

/** The files the reading redirections below `root` open (`< file`, `0< file`, `<> file`). Throws NotUnderstood for one
 *  that is not a plain path. */
function redirectReads(root: Node): string[] {
  const reads: string[] = [];
  for (const node of root.descendantsOfType('file_redirect')) {
    const operator = node?.children.find((child) => child !== null && !child.isNamed)?.type ?? '';
    const destination = node?.childForFieldName('destination');
    if (!['<', '<>'].includes(operator) || !destination) continue;
    const target = literal(destination);
    const why = target === undefined ? `${destination.text} is only known when it runs` : plainPath(target);
    if (why !== undefined) throw new NotUnderstood(`it reads ${destination.text}, and ${why}`);
    reads.push(target!);
  }
  return reads;
}

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
 * Walks the syntax tree below `node` (`depth` levels down from the top) and adds to `found` every simple command
 * it will run (readCommand) and every path a redirection writes (redirectTarget). Fails closed: throws
 * NotUnderstood for a node kind it does not know, for a node notUnderstood names, and for a tree deeper than
 * LIMITS.depth.
 */
export function walk(node: Node, found: Found, depth: number): void {
  // #region chapter 8: walk
  // 1. Deeper than LIMITS.depth: throw NotUnderstood (a command nested that deep is asked about, not judged).
  // 2. notUnderstood(node) (given) names what the walk must not judge: throw NotUnderstood with its reason.
  // 3. A `command` node: push readCommand(node) to found.commands. A `file_redirect` node: push its
  //    redirectTarget (given) to found.writes when there is one.
  // 4. INERT_KINDS hold no command: stop here. Any kind that is not a command, a file_redirect or one of the
  //    CONTAINER_KINDS is unknown: throw NotUnderstood naming the kind. Never skip what you do not know.
  // 5. Walk every named child (childrenOf, given) one level deeper: the words of a command may hold `$(...)`,
  //    and those commands run too.
  throw new TodoError(8, 'walk');
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
  throw new TodoError(8, 'readCommand');
  // #endregion
}

/** How a command's options are read: which take a value, and which the engine refuses to judge. */
export interface Options {
  /** Short options that take a value: the rest of their cluster (`-uX`), or the next word (`-u X`). */
  short?: string;
  /** Long options that take the next word as their value (`--unset X`); `--unset=X` always carries its own. */
  long?: readonly string[];
  /** Short options after which the command is not understood (`env -S` splits one word into a command line). */
  refuse?: string;
  /** Long options after which the command is not understood. */
  refuseLong?: readonly string[];
}

/**
 * Commands that run the command after their options (and, for `env`, after `NAME=value` words), each with how its
 * options are read (`timeout -s KILL`, `xargs -I {}`, `env -iu X`). Options GNU lets take a value only when it is
 * attached (`xargs --replace`, `-i`, `--max-lines`) are not listed: they never take the next word.
 */
export const WRAPPERS: ReadonlyMap<string, Options> = new Map<string, Options>([
  ['command', {}],
  ['builtin', {}],
  ['nohup', {}],
  ['setsid', {}],
  ['time', { short: 'fo', long: ['--format', '--output'] }],
  ['exec', { short: 'a' }],
  ['env', { short: 'uC', long: ['--unset', '--chdir'], refuse: 'S', refuseLong: ['--split-string'] }],
  ['nice', { short: 'n', long: ['--adjustment'] }],
  ['timeout', { short: 'sk', long: ['--signal', '--kill-after'] }],
  ['stdbuf', { short: 'ioe', long: ['--input', '--output', '--error'] }],
  ['ionice', { short: 'cnpPu', long: ['--class', '--classdata', '--pid', '--pgid', '--uid'] }],
  [
    'xargs',
    {
      short: 'ILPdEansa',
      long: ['--max-args', '--max-procs', '--delimiter', '--arg-file', '--max-chars', '--process-slot-var'],
    },
  ],
  [
    'sudo',
    {
      short: 'ugCDphrtUT',
      long: ['--user', '--group', '--chdir', '--prompt', '--host', '--role', '--type', '--other-user', '--close-from'],
    },
  ],
  ['doas', { short: 'uC' }],
  ['busybox', {}],
  ['toybox', {}],
  ['unbuffer', {}],
  ['chronic', {}],
  ['watch', { short: 'nq', long: ['--interval', '--equexit'] }],
  ['parallel', { short: 'jJSaP', long: ['--jobs', '--sshlogin', '--arg-file'] }],
  ['fakeroot', {}],
  ['nocache', {}],
]);

/**
 * Commands that run another command in a way the engine does not read (after an operand of their own, in a
 * terminal, at another time): `flock /tmp/l rm x`, `chroot / rm x`, `script -c 'rm x'`, `at now`. They are not
 * understood, so deny rules cannot be walked round through them.
 */
export const OPAQUE_RUNNERS: ReadonlySet<string> = new Set([
  'flock',
  'chroot',
  'taskset',
  'numactl',
  'unshare',
  'nsenter',
  'firejail',
  'systemd-run',
  'script',
  'gdb',
  'valgrind',
  'strace',
  'ltrace',
  'perf',
  'tmux',
  'screen',
  'expect',
  'at',
  'batch',
  'runuser',
  'pkexec',
  'chrt',
  'prlimit',
  'setpriv',
  'sg',
]);
/** Shells whose `-c` option runs a script given as text. */
export const SHELLS: ReadonlySet<string> = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'fish']);
/** How a shell's own options are read: `-o`, `-O` and `--rcfile` take a value. */
const SHELL_OPTIONS: Options = { short: 'oO', long: ['--rcfile', '--init-file'] };

/**
 * Where the operands start in `words` (a command, its name first), its options read as `options` says: option
 * clusters (`-iu X`), long options with a value, `--`. Returns the index of the first operand (words.length when
 * there is none) and every option letter seen. Throws NotUnderstood for an option the command refuses. `plus`: a
 * word starting with `+` is an option too (a shell's `+o`).
 */
export function skipOptions(words: readonly string[], options: Options, plus = false): { at: number; letters: string } {
  let at = 1;
  let letters = '';
  while (at < words.length) {
    const word = words[at]!;
    if (word === '--') return { at: at + 1, letters };
    if (word.startsWith('--')) {
      const name = word.split('=')[0]!;
      if (options.refuseLong?.some((refused) => refused.startsWith(name)))
        throw new NotUnderstood(`${words[0]} ${name} runs a command line the walk cannot see`);
      at += options.long?.includes(name) && !word.includes('=') ? 2 : 1;
      continue;
    }
    if (!(word.startsWith('-') || (plus && word.startsWith('+'))) || word.length < 2) break;
    at++;
    for (let i = 1; i < word.length; i++) {
      const letter = word[i]!;
      letters += letter;
      if (options.refuse?.includes(letter))
        throw new NotUnderstood(`${words[0]} -${letter} runs a command line the walk cannot see`);
      if (options.short?.includes(letter)) {
        if (i === word.length - 1) at++;
        break;
      }
    }
  }
  return { at, letters };
}

/** The words after a wrapper's options: what `words[0]` (a WRAPPERS name) runs, or [] when it runs nothing. For
 *  env, `NAME=value` words are skipped too; for timeout, the duration. Throws NotUnderstood for `env -S`. */
export function afterWrapper(words: readonly string[]): string[] {
  const name = path.basename(words[0] ?? '');
  let { at } = skipOptions(words, WRAPPERS.get(name) ?? {});
  if (name === 'env') {
    while (at < words.length && /^[A-Za-z_]\w*=/.test(words[at]!)) at++;
    if (words[at]?.startsWith('-')) return afterWrapper(['env', ...words.slice(at)]);
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

/**
 * What a shell (a SHELLS name) runs: the script its `-c` gives (`bash -c 'rm x'`, `sh -ec -- 'rm x'`: the first
 * operand after the options), or undefined when it has no `-c`. Throws NotUnderstood when it reads its script from
 * standard input (no `-c` and no script file, or `-s`): `echo rm x | sh` runs what the walk cannot see.
 */
export function shellScript(words: readonly string[]): string | undefined {
  const { at, letters } = skipOptions(words, SHELL_OPTIONS, true);
  if (letters.includes('c')) return words[at] ?? '';
  if (words.includes('--version') || words.includes('--help')) return undefined;
  if (letters.includes('s') || at >= words.length)
    throw new NotUnderstood(`${words[0]} reads its script from standard input, which the walk cannot see`);
  return undefined;
}

/** Git's options before its subcommand, and the ones that take the next word as their value. */
const GIT_OPTIONS: Options = {
  short: 'Cc',
  long: ['--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--exec-path', '--list-cmds'],
};

/** `git` with its options before the subcommand removed (`git -C . push` is `git push`), or undefined when it has none. */
export function gitSubcommand(words: readonly string[]): string[] | undefined {
  if (path.basename(words[0] ?? '') !== 'git') return undefined;
  const { at } = skipOptions(words, GIT_OPTIONS);
  return at > 1 ? ['git', ...words.slice(at)] : undefined;
}

/**
 * Why the engine cannot see what one command (its words, the name first) will run, or undefined: an
 * OPAQUE_RUNNERS command, `source` or `.` of anything but a plain file (`. /dev/stdin`, `source <(…)`), `trap` (its text runs later), and a builtin that reads
 * a variable name given a subscript (`printf -v 'a[$(…)]' x`, `test -v 'a[$(…)]'`), which bash evaluates as code.
 */
export function opaqueCommand(words: readonly string[]): string | undefined {
  const [written = '', ...args] = words;
  const name = path.basename(written);
  if (OPAQUE_RUNNERS.has(name)) return `${name} runs a command in a way the walk does not read`;
  if (name === 'source' || name === '.') {
    const file = args.find((arg) => !arg.startsWith('-')) ?? '';
    if (plainPath(file) !== undefined || /^\/(dev|proc)\//.test(file))
      return `${name} runs ${file || 'its input'}, which the walk cannot see`;
  }
  if (name === 'trap' && args.length > 0) return 'trap runs its text later, where the walk cannot see it';
  if (NAME_READERS.has(name) && args.some((arg) => arg.includes('[') && arg !== '[' && arg !== ']'))
    return `${name} evaluates a subscript in a variable name`;
  return undefined;
}

/**
 * Why a word a command takes as a path is not a plain path, or undefined when it is one: a path is plain when
 * bash passes it on as written, apart from a leading `~` or `~/` (the home folder). A variable, a substitution, a
 * glob (`.gi?/config`), a brace expansion (`{..,build}/x`) or `~+` is only known when the command runs.
 */
export function plainPath(word: string): string | undefined {
  if (word.includes('\0')) return 'it holds a NUL character';
  if (/[$`]|^[<>]\(/.test(word)) return `${word} is only known when it runs`;
  if (/[*?[]/.test(word)) return `${word} is a glob: which files it names is only known when it runs`;
  if (/\{[^}]*(,|\.\.)[^}]*\}/.test(word)) return `${word} is a brace expansion`;
  if (/^~[^/]/.test(word)) return `${word} names a folder only known when it runs`;
  return undefined;
}

/**
 * A path with the variables the engine knows put in: a leading `$HOME` or `${HOME}` (quoted or not) is the home
 * folder (`~`), a leading `$PWD` or `${PWD}` the workspace (`.`): the command starts there, and a line that moves
 * (`cd`) is not understood. Deny rules for `~/.ssh` then meet `cat $HOME/.ssh/id_rsa`.
 */
export function knownVariables(word: string): string {
  const bare = /^"(\$\{?(?:HOME|PWD)\}?)"(.*)$/.exec(word);
  const text = bare ? `${bare[1]}${bare[2]}` : word;
  return text.replace(/^\$(?:HOME|\{HOME\})(?=\/|$)/, '~').replace(/^\$(?:PWD|\{PWD\})(?=\/|$)/, '.');
}

/** One path a command reads or writes, as written. */
export interface Operand {
  path: string;
  access: 'read' | 'write';
  /** The command reads everything below it (grep -r, find): deny rules for anything inside apply. */
  searched?: boolean;
}

/** How a command that reads or writes the files it is given takes them. */
export interface FileCommand {
  access: 'read' | 'write';
  /** How its options are read (which take a value). */
  options?: Options;
  /** Operands before the paths that are not paths: grep's pattern, chmod's mode. */
  skip?: number;
  /** Option letters that give the pattern instead (grep -e), so no operand is skipped. */
  patternLetters?: string;
  /** Option letters that make every operand written (sed -i; cp -s and -l, which make links to them). */
  writeLetters?: string;
  /** The last operand is written, the others read (cp, ln). */
  lastWrites?: boolean;
  /** Options whose value is a path, and what the command does to it (`cp -t DIR`, `sort -o FILE`). */
  pathOptions?: Readonly<Record<string, 'read' | 'write'>>;
  /** It reads everything below its operands. */
  searches?: boolean;
}

const read = (options: Options = {}, more: Partial<FileCommand> = {}): FileCommand => ({
  access: 'read',
  options,
  ...more,
});
const write = (options: Options = {}, more: Partial<FileCommand> = {}): FileCommand => ({
  access: 'write',
  options,
  ...more,
});
const grepLike = (short: string): FileCommand =>
  read(
    { short, long: ['--regexp', '--file', '--max-count', '--context'] },
    {
      skip: 1,
      patternLetters: 'ef',
      searches: true,
      pathOptions: { '-f': 'read', '--file': 'read' },
    },
  );
const copyLike: FileCommand = write(
  { short: 'tS', long: ['--target-directory', '--suffix'] },
  { lastWrites: true, pathOptions: { '-t': 'write', '--target-directory': 'write' } },
);

/**
 * The commands that read or write the files they are given, and how they take them. Given, not a stub: which
 * operand of which command is a path is a fact about each command, not the lesson; the lesson is holding those
 * paths to the workspace and the rules (bashSubjects).
 */
export const FILE_COMMANDS: ReadonlyMap<string, FileCommand> = new Map<string, FileCommand>([
  ...['cat', 'tac', 'nl', 'less', 'more', 'wc', 'od', 'xxd', 'hexdump', 'strings', 'file', 'stat', 'base64'].map(
    (name) => [name, read()] as const,
  ),
  ...['md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'cksum', 'uniq', 'diff', 'cmp', 'comm', 'paste', 'fold'].map(
    (name) => [name, read()] as const,
  ),
  ...['ls', 'du', 'tree'].map((name) => [name, read()] as const),
  ['head', read({ short: 'nc', long: ['--lines', '--bytes'] })],
  ['tail', read({ short: 'ncs', long: ['--lines', '--bytes', '--sleep-interval', '--pid'] })],
  ['cut', read({ short: 'dfcb', long: ['--delimiter', '--fields', '--characters', '--bytes'] })],
  [
    'sort',
    read({ short: 'ktoST', long: ['--key', '--output'] }, { pathOptions: { '-o': 'write', '--output': 'write' } }),
  ],
  ['jq', read({ short: 'f', long: ['--arg', '--argjson'] }, { skip: 1 })],
  ['grep', grepLike('efmABCdD')],
  ['egrep', grepLike('efmABCdD')],
  ['fgrep', grepLike('efmABCdD')],
  ['rg', grepLike('efmABCtTgM')],
  ...['awk', 'gawk', 'mawk', 'nawk'].map(
    (name) => [name, read({ short: 'Ffv' }, { skip: 1, patternLetters: 'f', pathOptions: { '-f': 'read' } })] as const,
  ),
  [
    'sed',
    read(
      { short: 'efl', long: ['--expression', '--file'] },
      { skip: 1, patternLetters: 'ef', writeLetters: 'i', pathOptions: { '-f': 'read', '--file': 'read' } },
    ),
  ],
  ['find', read({ short: 'D' })],
  ...['tee', 'rm', 'rmdir', 'shred', 'unlink', 'gzip', 'gunzip', 'bzip2', 'bunzip2', 'xz', 'unxz'].map(
    (name) => [name, write()] as const,
  ),
  ...['rev', 'expand', 'unexpand', 'column', 'fmt', 'pr', 'iconv', 'join', 'zcat', 'bzcat', 'xzcat'].map(
    (name) => [name, read()] as const,
  ),
  ['touch', write({ short: 'dr', long: ['--date', '--reference'] })],
  ['truncate', write({ short: 'sr', long: ['--size', '--reference'] })],
  ['mkdir', write({ short: 'm', long: ['--mode'] })],
  ...['chmod', 'chown', 'chgrp'].map((name) => [name, write({}, { skip: 1 })] as const),
  ['mv', write({ short: 'tS', long: ['--target-directory', '--suffix'] }, { pathOptions: copyLike.pathOptions })],
  ['cp', { ...copyLike, writeLetters: 'sl' }],
  ['ln', write(copyLike.options, { pathOptions: copyLike.pathOptions })],
  ['install', write({ short: 'tSmog', long: ['--target-directory', '--mode'] }, copyLike)],
  ['rsync', write({ short: 'e' }, { lastWrites: true })],
  [
    'tar',
    read(
      { short: 'fbCgHKLNTVX', long: ['--file', '--directory', '--exclude'] },
      { pathOptions: { '-f': 'write', '--file': 'write' } },
    ),
  ],
]);

/**
 * The paths one command (its words, the name first) reads and writes, by FILE_COMMANDS; [] for a command it does
 * not list. `dd` is read by its `if=` and `of=`, `find` up to its first expression. Throws NotUnderstood when a path
 * is not plain (plainPath).
 */
export function fileOperands(words: readonly string[]): Operand[] {
  const name = path.basename(words[0] ?? '');
  const known = FILE_COMMANDS.get(name);
  const out: Operand[] = [];
  const add = (written: string, access: Operand['access'], searched = known?.searches) => {
    const word = knownVariables(written);
    const why = plainPath(word);
    if (why !== undefined) throw new NotUnderstood(`${name} takes ${word} as a path, and ${why}`);
    out.push({ path: word, access, ...(searched && { searched }) });
  };
  if (name === 'dd') {
    for (const word of words.slice(1)) {
      if (word.startsWith('if=')) add(word.slice(3), 'read');
      if (word.startsWith('of=')) add(word.slice(3), 'write');
    }
    return out;
  }
  if (!known) return out;
  const options = known.options ?? {};
  const operands: string[] = [];
  let letters = '';
  let ended = false;
  for (let at = 1; at < words.length; at++) {
    const word = words[at]!;
    if (ended || !word.startsWith('-') || word.length < 2) {
      if (name === 'find' && /^[-(!),]/.test(word)) break;
      operands.push(word);
    } else if (word === '--') ended = true;
    else if (word.startsWith('--')) {
      const [option, attached] = word.includes('=')
        ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
        : [word, undefined];
      const value = attached ?? (options.long?.includes(option) ? words[++at] : undefined);
      const access = known.pathOptions?.[option];
      if (access && value !== undefined) add(value, access, false);
    } else if (name === 'find' && !['-H', '-L', '-P', '-D', '-O'].includes(word.slice(0, 2))) break;
    else {
      for (let i = 1; i < word.length; i++) {
        letters += word[i];
        if (!options.short?.includes(word[i]!)) continue;
        const value = i < word.length - 1 ? word.slice(i + 1) : words[++at];
        const access = known.pathOptions?.[`-${word[i]}`];
        if (access && value !== undefined) add(value, access, false);
        break;
      }
    }
  }
  const patterned = [...(known.patternLetters ?? '')].some((letter) => letters.includes(letter));
  const paths = operands.slice(patterned ? 0 : (known.skip ?? 0));
  if (known.searches && paths.length === 0) paths.push('.');
  const writes = [...(known.writeLetters ?? '')].some((letter) => letters.includes(letter));
  paths.forEach((word, i) => {
    const last = i === paths.length - 1 && paths.length > 1;
    add(word, writes ? 'write' : known.lastWrites ? (last ? 'write' : 'read') : known.access);
  });
  return out;
}

/**
 * Options that make a command run other programs or write files beyond what a rule for it names: `Bash(find:*)`
 * allows find, not `find -exec`. An option of two characters (`-c`) counts in a cluster too (`-ec`); a long option
 * also by a prefix GNU accepts (`--to-com`). `script`: a pattern for a program the command runs from an operand
 * (awk's `system(…)`, sed's `e` and `w` commands, tar's old-style `xf`, make's `CC=./x`). `always`: the command writes files whose
 * names only its input knows (an archive, a patch), so no rule for it covers a call. Given; beyondRule uses it.
 */
export interface Risky {
  options: readonly string[];
  script?: RegExp;
  /** Beyond its rule whatever its words: it writes files whose names only its input knows (`unzip`, `patch`). */
  always?: boolean;
}
export const RISKY_OPTIONS: ReadonlyMap<string, Risky> = new Map<string, Risky>([
  ['find', { options: ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'] }],
  [
    'git',
    {
      options: [
        '-c',
        '-C',
        '--git-dir',
        '--work-tree',
        '--exec-path',
        '--config-env',
        '--upload-pack',
        '--receive-pack',
        '--exec',
        '--output',
        '--ext-diff',
        '--textconv',
        '-O',
        '--open-files-in-pager',
      ],
    },
  ],
  [
    'sed',
    {
      options: ['-f', '--file'],
      script: /(?:^|[;\n{}]|\/[gpIiMm0-9]*)\s*(?:[0-9$]+(?:,[0-9$]+)?)?\s*[eEwWrR](?:\s|$|;)/,
    },
  ],
  ...['awk', 'gawk', 'mawk', 'nawk'].map(
    (name) =>
      [
        name,
        { options: ['-f', '--file', '-i', '--include', '-l', '--load', '-E', '--exec'], script: /system|getline|[|>]/ },
      ] as [string, Risky],
  ),
  [
    'tar',
    {
      options: [
        '--checkpoint-action',
        '--to-command',
        '--use-compress-program',
        '-I',
        '--info-script',
        '--new-volume-script',
        '-F',
        '--rsh-command',
        '--rmt-command',
        '-C',
        '--directory',
        '-P',
        '--absolute-names',
        '-x',
        '--extract',
        '--get',
      ],
      script: /^[A-Za-z]*x[A-Za-z]*$/,
    },
  ],
  ...['unzip', 'patch', '7z', 'cpio', 'ar'].map((name): [string, Risky] => [name, { options: [], always: true }]),
  ['sort', { options: ['--compress-program'] }],
  ['rg', { options: ['--pre'] }],
  ...['npm', 'pnpm', 'yarn', 'npx'].map((name): [string, Risky] => [
    name,
    { options: ['--script-shell', '--prefix', '-C', '--dir', '--userconfig', '--globalconfig', '--node-options'] },
  ]),
  ...['make', 'gmake'].map((name): [string, Risky] => [
    name,
    {
      options: ['-f', '--file', '--makefile', '-C', '--directory', '--eval', '-E', '-I', '--include-dir'],
      script: /^[A-Za-z_][A-Za-z0-9_]*[+?:]?=/,
    },
  ]),
  ...['pytest', 'py.test'].map((name): [string, Risky] => [
    name,
    { options: ['-p', '-c', '--confcutdir', '--rootdir', '-o', '--override-ini'] },
  ]),
  ['xargs', { options: ['-a', '--arg-file'] }],
  ...['docker', 'podman'].map((name): [string, Risky] => [
    name,
    { options: ['-v', '--volume', '--mount', '--privileged', '--pid', '--cap-add', '--device', '--security-opt'] },
  ]),
  ['man', { options: ['-P', '--pager', '-H', '--html'] }],
  ['rsync', { options: ['-e', '--rsh', '--rsync-path'] }],
  ['zip', { options: ['-T', '-TT', '--unzip-command'] }],
  ['curl', { options: ['-o', '--output', '-O', '--remote-name', '-K', '--config', '-T', '--upload-file'] }],
  [
    'wget',
    { options: ['-O', '--output-document', '-P', '--directory-prefix', '-e', '--execute', '-i', '--input-file'] },
  ],
]);

/** Whether one word of a command is `option` (see RISKY_OPTIONS): as written, in a cluster, or by a prefix. */
export function optionMatches(word: string, option: string): boolean {
  if (/^-[^-]$/.test(option)) return /^-[^-]/.test(word) && word.slice(1).includes(option[1]!);
  const name = word.split('=')[0]!;
  if (option.startsWith('--')) return name.length > 3 && name.startsWith('--') && option.startsWith(name);
  return name === option;
}

/**
 * Why an allow rule for one command (its words, the name first) does not cover what it does, or undefined: a word
 * before any `--` is an option RISKY_OPTIONS lists for the command (optionMatches), or, where the table gives a
 * script pattern, a word that is not an option (any word after `--`) matches it. `Bash(find:*)` allows `find .`,
 * not `find . -exec rm {} +`.
 */
export function beyondRule(words: readonly string[]): string | undefined {
  // #region chapter 8: beyondRule
  // 1. The command is path.basename of the first word. Nothing in RISKY_OPTIONS for it: undefined. An entry that
  //    says `always`: a reason, whatever the words.
  // 2. Go through the words after the name. Before a `--`, a word that optionMatches (given) one of the table's
  //    options is a reason: name the command and the option (say it runs other programs or writes files).
  // 3. With a script pattern: a word that does not start with `-` (or any word after `--`) that the pattern
  //    matches is a reason too: name the command and say its program runs other programs or writes files.
  throw new TodoError(8, 'beyondRule');
  // #endregion
}

/**
 * The commands one simple command's words make run besides itself, `depth` levels down, each seen through again.
 * Two kinds: the same command spelled another way (`view: true`): by its basename (`/bin/rm x` is `rm x`), git
 * without its options before the subcommand (gitSubcommand); and other commands it runs: through a wrapper, the
 * words after its options (afterWrapper); through `bash -c` and the other SHELLS, the script (shellScript) read
 * with shellCommands one level deeper, and through `eval` its arguments joined by spaces, the same way; through
 * `find`, findCommands. Returns the commands found (computed ones included) and the writes and reads of any script. Throws
 * NotUnderstood past LIMITS.depth, and for a command whose effect cannot be seen (opaqueCommand).
 */
export function innerCommands(words: readonly string[], depth: number): Found {
  // #region chapter 8: innerCommands
  // 1. Deeper than LIMITS.depth, or an opaqueCommand (given) reason: throw NotUnderstood.
  // 2. Views (view: true): the name is path.basename of the first word; when that differs from the word, the
  //    basename form (the name replaced, the arguments kept). gitSubcommand (given), when it gives one.
  // 3. Commands it runs: a WRAPPERS name: the words afterWrapper (given), when there are any. `find`: each of
  //    findCommands (given). A SHELLS name with a shellScript (given; it throws for a shell that reads standard
  //    input), or `eval`: shellCommands of the script (for eval: the arguments joined by spaces) at depth + 1;
  //    keep its commands, its writes and its reads.
  // 4. Every command found in step 2 or 3 is looked through again (innerCommands, depth + 1), and what that
  //    finds (commands, writes, reads) is added too: `timeout 5 env rm x` runs `rm x`.
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
  throw new TodoError(8, 'suggestBashRule');
  // #endregion
}

/** Where the checks below look: the workspace and the home folder (for `~`). */
export interface Workspace {
  root: string;
  home: string;
}

/** Folders whose contents change what runs next time: hooks, settings, git's config and hooks, and the files an
 *  editor or a tool runs when the folder is next opened (tasks, dev containers, git hooks managers). */
export const PROTECTED_FOLDERS: ReadonlySet<string> = new Set([
  '.git',
  '.claude',
  '.vscode',
  '.idea',
  '.husky',
  '.devcontainer',
]);
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
  '.npmrc',
]);
const lower = (names: ReadonlySet<string>) => new Set([...names].map((name) => name.toLowerCase()));
const PROTECTED_FOLDERS_LOWER = lower(PROTECTED_FOLDERS);
const PROTECTED_FILES_LOWER = lower(PROTECTED_FILES);

/**
 * True when writing `target` changes what runs next time: a path in a PROTECTED_FOLDERS folder, or a
 * PROTECTED_FILES file. Names are compared without case: on a case-insensitive file system `.GIT/config` is
 * `.git/config`.
 */
export function isProtected(target: string): boolean {
  const segments = target.toLowerCase().split(/[\\/]/);
  return (
    segments.some((segment) => PROTECTED_FOLDERS_LOWER.has(segment)) || PROTECTED_FILES_LOWER.has(segments.at(-1) ?? '')
  );
}

/** A path as a shell command names it, made absolute: a leading `~` (or `$HOME`: knownVariables) is the home
 *  folder, the rest is against the root. */
export function resolveArg(written: string, ws: Workspace): string {
  const arg = knownVariables(written);
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
  // 3. rm: if any option is recursive (starts with a single `-` and contains r or R, or is --recursive or a
  //    prefix of it GNU accepts: --rec, --recur), resolve
  //    each other argument (resolveArg, given). One that is the root itself or not inside it (path.relative
  //    starts with `..` or is absolute) is a reason.
  // 4. For WRITERS and sed editing in place (an option that starts with a single `-` and contains i, as -i, -i.bak
  //    and -Ei do, or --in-place), every argument: one that isProtected (given) is a reason naming it.
  // 5. Otherwise undefined.
  throw new TodoError(8, 'safetyConcern');
  // #endregion
}
