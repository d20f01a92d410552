/**
 * Chapter 15: the command line a Claude Code user already types.
 *
 *   npm run agent -- -p "why does the test fail?" --permission-mode acceptEdits --allowedTools "Bash(npm test:*)"
 *
 * One table (OPTIONS, given in flag-options.ts) names every option of `npm run agent`, what it takes and its help line. The parser reads
 * argv with it and the help text (USAGE) is built from it, so the two cannot drift. Names and meanings follow Claude
 * Code's CLI reference (`-p/--print`, `--output-format`, `--max-turns`, `--permission-mode`, `--allowedTools`,
 * `-c/--continue`, `-r/--resume`, `--mcp-config`, `--system-prompt`, `--append-system-prompt`, `-v/--version`); the
 * rest are the kit's own (`--provider`, `--cwd`, `--starter`, the options of the earlier chapters' parts).
 *
 * Where the kit differs from Claude Code, and why:
 * - An option takes one word. Claude Code's `--allowedTools`, `--disallowedTools` and `--mcp-config` take every word
 *   up to the next option, so `claude --allowedTools Read "fix it"` reads the prompt as a rule. Here one value may
 *   hold several rules (`"Bash(npm test:*) Edit"`), and the option may be given again.
 * - `--resume` needs an ID (Claude Code opens a picker without one); `--list` shows the IDs.
 * - `--mcp-config` takes a file (Claude Code also takes a JSON string).
 * - `--permission-mode` has chapter 8's four modes (newer Claude Code versions add more).
 * - `--output-format json` without `-p` is an error (Claude Code's help says it only works with --print).
 * - No bundled short flags (`-pc`): give each on its own.
 */

import { type CliOptions, type OptionValue, defaultOptions, findOption } from './flag-options.js';

export * from './flag-options.js';

/** A mistake in the command line. The program prints its message and USAGE, and exits with 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * The rules in one value of --allowedTools or --disallowedTools, as Claude Code reads them: separated by commas or
 * whitespace, except inside parentheses. `"Bash(npm test:*) Edit(src/**)"` is two rules; `"Read,Edit"` is two.
 */
export function splitRuleList(value: string): string[] {
  // #region chapter 15: splitRuleList
  // 1. Walk the value one character at a time, counting how deep inside parentheses you are: `(` goes one deeper,
  //    `)` one back out (never below 0).
  // 2. Outside parentheses (depth 0), a comma or any whitespace ends the rule so far. Drop empty rules: `Read, Edit`
  //    is two rules, not three.
  // 3. Every other character belongs to the rule, and so does a comma or a space inside parentheses:
  //    `Bash(npm test:*)` stays one rule.
  // 4. The rule still open at the end counts too.
  const rules: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (current) rules.push(current);
      current = '';
    } else current += ch;
  }
  if (current) rules.push(current);
  return rules;
  // #endregion
}

/**
 * One option's value, read as `takes` says: the text, one of the choices, or a whole number. `raw` is undefined when
 * the option was the last word. Throws UsageError naming the option (`name`, as typed) and what it needs.
 *
 * - A missing or blank value is refused for every kind, naming the placeholder (`--model needs a value (NAME)`).
 * - A choice that is not one of them is refused with every choice listed, separated by `, `, and the value quoted.
 * - A number is only digits (no sign, no point, exactly representable) and at least takes.least; anything else
 *   is refused in the words `whole number of at least N`, the value quoted. `Number()` alone would accept `1e3`,
 *   ` 5 ` and `0x10`.
 */
export function readValue(name: string, takes: OptionValue, raw: string | undefined): string | number {
  // #region chapter 15: readValue
  // 1. No value (raw is undefined), or one that is empty once trimmed: throw a UsageError that names the option and
  //    what it takes, `--model needs a value (NAME)` (the placeholder is takes.placeholder).
  // 2. A choice: a value among takes.choices is returned as it is. Any other is a UsageError that names the option,
  //    lists every choice and quotes the value given: `--output-format must be one of text, json, stream-json (not "xml")`.
  // 3. A number: only digits make a whole number (no sign, no point, no spaces, not so big that it stops being exact:
  //    Number.isSafeInteger), and it must be at least takes.least. Return it as a number. Anything else is a UsageError
  //    that names the option, says it takes a whole number of at least takes.least, and quotes the value given.
  // 4. Text: return the value as it is.
  if (raw === undefined || raw.trim() === '') throw new UsageError(`${name} needs a value (${takes.placeholder})`);
  if (takes.kind === 'choice') {
    if (takes.choices.includes(raw)) return raw;
    throw new UsageError(`${name} must be one of ${takes.choices.join(', ')} (not "${raw}")`);
  }
  if (takes.kind === 'number') {
    const number = Number(raw);
    if (/^\d+$/.test(raw) && Number.isSafeInteger(number) && number >= takes.least) return number;
    throw new UsageError(`${name} takes a whole number of at least ${takes.least} (not "${raw}")`);
  }
  return raw;
  // #endregion
}

/**
 * Combinations that cannot work, each a UsageError that names the options. With --help or --version nothing else is
 * looked at (the program prints and exits).
 */
export function checkOptions(options: CliOptions): void {
  // #region chapter 15: checkOptions
  // 1. --help or --version: return at once, whatever else was given.
  // 2. --resume with --continue: a UsageError that names both and says to choose one (they pick the session to go
  //    on with in two different ways).
  // 3. --no-session with --resume or --continue: a UsageError that names --no-session and the other option (a
  //    session that is not saved cannot be gone on with).
  // 4. --fork-session without --resume or --continue: a UsageError that names --fork-session and both (it copies the
  //    session one of them names; alone there is nothing to copy).
  // 5. --output-format json or stream-json without -p/--print: a UsageError that names --output-format, the format
  //    and -p (an interactive session prints for a person, not for a program).
  if (options.help || options.version) return;
  if (options.resume !== undefined && options.continue) {
    throw new UsageError('--resume and --continue both choose the session to go on with: use one of them');
  }
  if (options.noSession && (options.resume !== undefined || options.continue)) {
    throw new UsageError(
      `--no-session cannot be used with ${options.continue ? '--continue' : '--resume'}: a session that is not saved cannot be gone on with`,
    );
  }
  if (options.forkSession && options.resume === undefined && !options.continue) {
    throw new UsageError('--fork-session copies the session --resume ID or --continue names: give one of them');
  }
  if (options.outputFormat !== 'text' && !options.print) {
    throw new UsageError(`--output-format ${options.outputFormat} only works with -p (--print)`);
  }
  // #endregion
}

/**
 * Reads the command line (the words after `npm run agent --`). Options are spelled as in OPTIONS, with their value as
 * the next word or after `=`; `--` ends the options; every other word is part of the prompt. Throws UsageError for
 * an unknown option, a missing or wrong value, or a combination checkOptions refuses.
 *
 * - An option is found with findOption by the word as typed before any `=` (only a `--` word has a value after
 *   `=`: `-r=abc` is looked up whole); an unknown one is `unknown option "<word>"`, pointing at --help.
 * - A flag takes no value (`--print=yes` is refused, naming it). An option's value is the text after `=` or the next
 *   word, whatever it looks like, read with readValue. A repeated option (spec.repeat) collects its values, a rule
 *   list split with splitRuleList; any other option set twice keeps the later value.
 * - `-` alone is a word of the prompt; the prompt is the words joined by one space, absent when there are none.
 */
export function parseFlags(argv: readonly string[]): CliOptions {
  // #region chapter 15: parseFlags
  // 1. Start from defaultOptions() and an empty list of positional words. The options can be set by key through a
  //    Record<string, unknown> view of the same object (`const byKey: Record<string, unknown> = options`).
  // 2. Walk argv with an index. Once a word is exactly `--`, every later word is a positional word, whatever it
  //    looks like (and the `--` itself is dropped).
  // 3. A word that starts with `--` and holds a `=` is the option named before the first `=`, with the value after it:
  //    `--model=sonnet`; `--append-system-prompt=a=b` gives `a=b`.
  // 4. Any other word that starts with `-`, except `-` alone, is an option: find its spec with findOption (by the
  //    name as typed, before any `=`). None: a UsageError `unknown option "--nope"` that says --help lists them.
  // 5. A flag (no spec.value): a value after `=` is a UsageError (`--print takes no value`); otherwise set its key
  //    to spec.sets ?? true.
  // 6. An option with a value: the value after `=`, else the next word (whatever it looks like: move the index past
  //    it), read with readValue(name, spec.value, raw). With spec.repeat, add it to the key's list (with spec.rules,
  //    each rule of splitRuleList(value) instead); without, set the key (a later one replaces an earlier one).
  // 7. Every other word is a positional word.
  // 8. The prompt is the positional words joined by one space (none: leave it unset). Check the whole with
  //    checkOptions, then return the options.
  const options = defaultOptions();
  const byKey: Record<string, unknown> = options;
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    if (!word.startsWith('-') || word === '-') {
      words.push(word);
      continue;
    }
    const equals = word.startsWith('--') ? word.indexOf('=') : -1;
    const name = equals === -1 ? word : word.slice(0, equals);
    const inline = equals === -1 ? undefined : word.slice(equals + 1);
    const spec = findOption(name);
    if (!spec) throw new UsageError(`unknown option "${name}" (npm run agent -- --help lists them)`);
    if (!spec.value) {
      if (inline !== undefined) throw new UsageError(`${name} takes no value (not "${inline}")`);
      byKey[spec.key] = spec.sets ?? true;
      continue;
    }
    const raw = inline ?? argv[++i];
    const value = readValue(name, spec.value, raw);
    if (spec.repeat) {
      const list = byKey[spec.key] as unknown[];
      list.push(...(spec.rules ? splitRuleList(String(value)) : [value]));
    } else byKey[spec.key] = value;
  }
  if (words.length > 0) options.prompt = words.join(' ');
  checkOptions(options);
  return options;
  // #endregion
}
