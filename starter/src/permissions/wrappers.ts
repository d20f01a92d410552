/**
 * Chapter 8, given: commands that run other commands, and how their options are read.
 *
 * A wrapper (`env`, `timeout`, `xargs`, `nice`, ...) runs the words after its options; a shell runs its `-c` script;
 * `find -exec` runs what follows; git's options before the subcommand change where and how it runs. The options are
 * read as getopt reads them (skipOptions), so `env -iu X rm` is seen as running `rm`. Some runners the engine cannot
 * see through at all (OPAQUE_RUNNERS, opaqueCommand): a command under them is not understood.
 */
import path from 'node:path';
import { NotUnderstood, plainPath } from './bash-syntax.js';

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
