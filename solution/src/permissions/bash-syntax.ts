/**
 * Chapter 8, given: the bash grammar and what the walk knows about its syntax tree.
 *
 * The grammar is tree-sitter's, run as WebAssembly and loaded once. Around it: the limits on what is judged, the node
 * kinds the walk looks into or may pass over, what the walk does not understand (notUnderstood), the literal value
 * of a word, and the paths redirections write and read.
 */
import { createRequire } from 'node:module';
import { Language, Parser, type Node } from 'web-tree-sitter';

// The grammar is loaded once, when this module is first imported (top-level await), so the walk is synchronous.
await Parser.init();
export const parser = new Parser();
parser.setLanguage(
  await Language.load(createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm')),
);

/** How big a command the engine judges. Anything bigger is not understood (asked about), never a crash. Claude
 *  Code asks about every command over 10,000 characters too. */
export const LIMITS = { length: 10_000, nodes: 20_000, depth: 64 };

/** Characters a person cannot see, or that move the text they see: controls (but tab and new line), zero-width
 *  characters, and the marks that reverse the direction of text. */
export const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;

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
export const MISREAD_NAMES: ReadonlySet<string> = new Set(['coproc', '{', '}', '[[', ']]', '((', '))']);

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
export function redirectReads(root: Node): string[] {
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
