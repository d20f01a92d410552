/**
 * Chapter 8: what a shell command really runs.
 *
 * `npm test && rm -rf ~` is one string and two commands. A rule that allows `npm test` must not allow the second,
 * so a command is split into the simple commands it runs, and each is judged on its own: the call is allowed only
 * if every part is. A few commands are asked about whatever the rules say (sudo, a recursive rm outside the
 * workspace, writing into .git/), and a person who answers "always" gets a rule for this command's prefix, never
 * for the whole tool.
 */
import path from 'node:path';

/** The words of one simple command, as the shell would split them: quotes removed, escapes undone. */
export function words(command: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < command.length) word += command[++i];
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word ??= '';
    } else if (ch === '\\' && i + 1 < command.length) {
      word = (word ?? '') + command[++i];
    } else if (/\s/.test(ch)) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** Words that only run the next words: `env`, `command`, ... (with `NAME=value` assignments, skipped to find the command). */
const WRAPPERS = new Set(['command', 'env', 'builtin', 'exec', 'nohup']);

/** How many leading words are `NAME=value` assignments or wrappers (the command itself comes after them). */
export function wrapperCount(all: readonly string[]): number {
  let start = 0;
  while (start < all.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(all[start]!) || WRAPPERS.has(all[start]!))) start++;
  return start;
}

/** The words with leading `NAME=value` assignments and `command`/`env`/`builtin` wrappers taken off. */
export function commandWords(command: string): string[] {
  const all = words(command);
  return all.slice(wrapperCount(all));
}

/** The index of the `)` that closes the `(` at `open`, or the end of the text when none does. Quotes are skipped. */
function closing(text: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"') i++;
    } else if (ch === '\\') i++;
    else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return i;
  }
  return text.length;
}

/**
 * The simple commands a shell command runs, trimmed, none empty. Splits at `&&`, `||`, `;`, `|`, `&` and new
 * lines (not inside quotes, and not the `&` of a redirection such as `2>&1`); the commands inside `$(...)`,
 * `<(...)`, backticks (also inside double quotes) and a `( ... )` subshell are parts of their own, listed before
 * the command that holds them (they run first), which keeps its text. An unclosed construct runs to the end.
 */
export function splitCommand(command: string): string[] {
  // #region chapter 8: splitCommand
  // 1. Walk the text one character at a time, building the current part; a helper `flush` pushes the trimmed
  //    part (if not empty) and starts a new one.
  // 2. Inside single quotes nothing is special. A backslash keeps the next character as it is.
  // 3. `$(`, `<(` and `>(` (even inside double quotes): find the closing parenthesis (closing(), given), split
  //    the text inside with splitCommand and push those parts; the whole `$(...)` stays in the current part.
  //    A backtick does the same up to the next backtick.
  // 4. Inside double quotes nothing else is special. Outside quotes: a `(` that starts a part is a subshell:
  //    split what is inside and push it; `;`, `|`, `&` and a new line end the current part, except a `&` right
  //    after `>` or `<` or right before `>` (a redirection).
  // 5. Flush the last part and return the parts.
  const parts: string[] = [];
  let current = '';
  let quote: string | undefined;
  const flush = () => {
    const part = current.trim();
    if (part) parts.push(part);
    current = '';
  };
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote === "'") {
      current += ch;
      if (ch === "'") quote = undefined;
    } else if (ch === '\\') {
      current += command.slice(i, i + 2);
      i++;
    } else if ('$<>'.includes(ch) && command[i + 1] === '(') {
      const end = closing(command, i + 1);
      parts.push(...splitCommand(command.slice(i + 2, end)));
      current += command.slice(i, end + 1);
      i = end;
    } else if (ch === '`') {
      const found = command.indexOf('`', i + 1);
      const end = found === -1 ? command.length : found;
      parts.push(...splitCommand(command.slice(i + 1, end)));
      current += command.slice(i, end + 1);
      i = end;
    } else if (quote === '"') {
      current += ch;
      if (ch === '"') quote = undefined;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === '(' && current.trim() === '') {
      const end = closing(command, i);
      parts.push(...splitCommand(command.slice(i + 1, end)));
      i = end;
    } else if (ch === '&' && (/[<>]$/.test(current) || command[i + 1] === '>')) {
      current += ch;
    } else if (';|&\n'.includes(ch)) {
      flush();
    } else {
      current += ch;
    }
  }
  flush();
  return parts;
  // #endregion
}

/** Commands whose first word is followed by a subcommand that says what they do (`git diff`, `npm test`). */
const SUBCOMMANDS = new Set(['git', 'npm', 'pnpm', 'yarn', 'bun', 'cargo', 'go', 'docker', 'kubectl', 'make', 'pip', 'uv', 'gh', 'dotnet', 'mvn', 'gradle']);
/** Subcommands followed by a script name that belongs to the prefix (`npm run test`). */
const SCRIPT_RUNNERS = new Set(['run', 'run-script', 'exec', 'x']);

/**
 * The rule to suggest when a person answers "always" to one simple command, as Claude Code proposes it, written
 * as the command is (assignments in front included): for a command with a subcommand (`git diff HEAD` → `Bash(git diff:*)`, `npm run test:unit -- -w` →
 * `Bash(npm run test:unit:*)`) its prefix, which matches that command with any further arguments; for anything
 * else the exact command (`rm build/x.o` → `Bash(rm build/x.o)`), so "always" never covers more than was asked.
 */
export function suggestBashRule(part: string): string {
  // #region chapter 8: suggestBashRule
  // 1. Take the part's words (given), and find where the command starts after assignments and wrappers
  //    (wrapperCount, given): the prefix keeps what is in front of it, so the rule matches the command as written.
  // 2. If the command is in SUBCOMMANDS and the next word exists and is a plain word (/^[A-Za-z][\w.-]*$/, not an
  //    option or a path), the prefix runs to that word; one word further when that word is in SCRIPT_RUNNERS and
  //    the word after it does not start with `-`.
  // 3. With a prefix, return `Bash(<prefix words joined by spaces>:*)`. Without one, return
  //    `Bash(<all the words joined by spaces>)`.
  const all = words(part);
  const start = wrapperCount(all);
  const [first, second, third] = all.slice(start);
  if (first && SUBCOMMANDS.has(first) && second && /^[A-Za-z][\w.-]*$/.test(second)) {
    const length = SCRIPT_RUNNERS.has(second) && third && !third.startsWith('-') ? 3 : 2;
    return `Bash(${all.slice(0, start + length).join(' ')}:*)`;
  }
  return `Bash(${all.join(' ')})`;
  // #endregion
}

/** Where the checks below look: the workspace and the home folder (for `~`). */
export interface Workspace {
  root: string;
  home: string;
}

/** True when `target` lies inside a `.git` folder, or is one (a path segment named `.git`). */
export function touchesGit(target: string): boolean {
  return target.split(/[\\/]/).includes('.git');
}

/** Commands that write to, move or delete the paths they are given. */
const WRITERS = new Set(['rm', 'mv', 'cp', 'tee', 'touch', 'chmod', 'chown', 'ln', 'truncate', 'rmdir', 'mkdir', 'dd']);

/**
 * Why one simple command must be asked about whatever the rules say, or undefined. Asks for:
 * - `sudo`, `su` and `doas` (another user's rights);
 * - `rm` with a recursive flag (`-r`, `-R`, `-rf`, `--recursive`, ...) on a target outside the workspace, or on the
 *   workspace itself (`~` is the home folder);
 * - a write into `.git/`: a redirection (`>`, `>>`) to such a path, or a writing command (WRITERS, `sed -i`) with
 *   such an argument.
 */
export function safetyConcern(part: string, ws: Workspace): string | undefined {
  // #region chapter 8: safetyConcern
  // 1. Take the part's commandWords; the first is the command.
  // 2. sudo / su / doas: return a reason that names it.
  // 3. rm: if any option is recursive (starts with a single `-` and contains r or R, or is --recursive), resolve
  //    each other argument (a leading `~` is ws.home, anything else against ws.root). One that is the root itself
  //    or not inside it (path.relative starts with `..` or is absolute) is a reason.
  // 4. Redirection targets (`>file`, `> file`, `>>file`: match them in the part's text) and, for WRITERS and
  //    `sed -i`, every argument: one that touchesGit (given) is a reason.
  // 5. Otherwise undefined.
  const all = commandWords(part);
  const [name = '', ...args] = all;
  if (['sudo', 'su', 'doas'].includes(name)) return `${name} runs a command with another user's rights`;
  if (name === 'rm' && args.some((a) => a === '--recursive' || /^-[^-]*[rR]/.test(a))) {
    for (const arg of args.filter((a) => !a.startsWith('-'))) {
      const target = arg === '~' || arg.startsWith('~/') ? path.join(ws.home, arg.slice(1)) : path.resolve(ws.root, arg);
      const relative = path.relative(ws.root, target);
      if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
        return `rm deletes ${arg} recursively, outside the workspace or the workspace itself`;
      }
    }
  }
  const targets = [...part.matchAll(/>>?\|?\s*("[^"]*"|'[^']*'|[^\s;&|<>]+)/g)].map((m) => m[1]!.replace(/["']/g, ''));
  if (WRITERS.has(name) || (name === 'sed' && args.some((a) => a.startsWith('-i')))) targets.push(...args);
  const git = targets.find(touchesGit);
  if (git !== undefined) return `${name} writes into .git/ (${git})`;
  return undefined;
  // #endregion
}
