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

import { TodoError } from '../todo.js';
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'splitRuleList');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'readValue');
  // #endregion
}

/**
 * Combinations that cannot work, each a UsageError that names the options. With --help or --version nothing else is
 * looked at (the program prints and exits).
 */
export function checkOptions(options: CliOptions): void {
  // #region chapter 15: checkOptions
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'checkOptions');
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
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'parseFlags');
  // #endregion
}
