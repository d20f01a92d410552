/**
 * Chapter 8, given: the files a command reads and writes.
 *
 * FILE_COMMANDS says, for about sixty commands, which operands are paths, which options take a path, and which of
 * those paths are written. fileOperands reads a command's words with it, so the paths can be held to the workspace
 * and to the Read and Edit rules. A path is judged only when it is plain (plainPath): a glob, a brace or a variable
 * other than $HOME and $PWD is not understood.
 */
import path from 'node:path';
import { NotUnderstood, knownVariables, plainPath } from './bash-syntax.js';
import type { Options } from './wrappers.js';

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

export const read = (options: Options = {}, more: Partial<FileCommand> = {}): FileCommand => ({
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
