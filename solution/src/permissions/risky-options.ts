/**
 * Chapter 8, given: the options that make an allowed command do more than its rule allows.
 *
 * `Bash(find:*)` allows `find . -name x`, not `find . -exec rm {} +`. RISKY_OPTIONS lists, per command, the options
 * (and program patterns) that run other programs or write files; optionMatches matches a word against one of them
 * as the command itself would read it (clusters of short options, GNU's abbreviations of long ones). beyondRule
 * (command.ts) uses both.
 */

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
