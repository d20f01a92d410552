/**
 * Chapter 15: the command line a Claude Code user already types.
 *
 *   npm run agent -- -p "why does the test fail?" --permission-mode acceptEdits --allowedTools "Bash(npm test:*)"
 *
 * One table (OPTIONS) names every option of `npm run agent`, what it takes and its help line. The parser reads
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
import { PERMISSION_MODES, type PermissionMode } from '../permissions/evaluate.js';

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const PROVIDERS = ['anthropic', 'openai', 'offline'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** A mistake in the command line. The program prints its message and USAGE, and exits with 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Everything the command line can say. Unset values mean "the default" (each part knows its own). */
export type CliOptions = {
  /** -p/--print: answer one prompt, print the answer, exit. */
  print: boolean;
  /** Every positional word, joined by one space; unset when there is none (with -p, the prompt comes from stdin). */
  prompt?: string;
  outputFormat: OutputFormat;
  model?: string;
  provider?: ProviderName;
  permissionMode?: PermissionMode;
  /** Permission rules, one per entry (each value of the option split with splitRuleList), in the order given. */
  allowedTools: string[];
  disallowedTools: string[];
  maxTurns?: number;
  continue: boolean;
  resume?: string;
  list: boolean;
  noSession: boolean;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  compactAt?: number;
  mcpConfig: string[];
  maxParallel?: number;
  outputBudget?: number;
  maxRetries?: number;
  maxWait?: number;
  subagentDepth?: number;
  cwd?: string;
  /** --trust-workspace: trust the folder's hooks, .mcp.json servers and settings for this run, without asking. */
  trustWorkspace: boolean;
  starter: boolean;
  help: boolean;
  version: boolean;
};

/** What an option takes after it: any text, one of a few words, or a whole number of at least `least`. */
export type OptionValue =
  | { kind: 'text'; placeholder: string }
  | { kind: 'choice'; placeholder: string; choices: readonly string[] }
  | { kind: 'number'; placeholder: string; least: number };

export interface OptionSpec {
  /** The field of CliOptions it sets. */
  key: keyof CliOptions;
  /** Every spelling: `['-p', '--print']`. */
  names: readonly string[];
  /** Absent for a flag. */
  value?: OptionValue;
  /** What a flag sets its key to (default true): `--solution` sets `starter` to false. */
  sets?: boolean;
  /** May be given again; each value is added to the key's list, in order. */
  repeat?: boolean;
  /** Each value holds several permission rules (split with splitRuleList). */
  rules?: boolean;
  /** One line for the help text. */
  help: string;
}

const text = (placeholder: string): OptionValue => ({ kind: 'text', placeholder });
const whole = (placeholder: string, least: number): OptionValue => ({ kind: 'number', placeholder, least });
const oneOf = (placeholder: string, choices: readonly string[]): OptionValue => ({
  kind: 'choice',
  placeholder,
  choices,
});

/** Every option of `npm run agent`, in the order the help text lists them. */
export const OPTIONS: readonly OptionSpec[] = [
  {
    key: 'print',
    names: ['-p', '--print', '--prompt'],
    help: 'answer one prompt (the words that are not options, else stdin), print the answer and exit',
  },
  {
    key: 'outputFormat',
    names: ['--output-format'],
    value: oneOf('FORMAT', OUTPUT_FORMATS),
    help: 'with -p: plain text, one JSON result, or one JSON message per line',
  },
  {
    key: 'model',
    names: ['--model'],
    value: text('NAME'),
    help: 'the model, instead of ANTHROPIC_MODEL / OPENAI_MODEL',
  },
  {
    key: 'provider',
    names: ['--provider'],
    value: oneOf('NAME', PROVIDERS),
    help: 'the provider, else one chosen from the environment',
  },
  {
    key: 'permissionMode',
    names: ['--permission-mode'],
    value: oneOf('MODE', PERMISSION_MODES),
    help: "the mode to start in, else the settings' defaultMode",
  },
  {
    key: 'allowedTools',
    names: ['--allowedTools', '--allowed-tools'],
    value: text('RULES'),
    repeat: true,
    rules: true,
    help: 'rules to allow without asking, as in settings: "Bash(npm test:*) Edit(src/**)"',
  },
  {
    key: 'disallowedTools',
    names: ['--disallowedTools', '--disallowed-tools'],
    value: text('RULES'),
    repeat: true,
    rules: true,
    help: 'rules to deny, as in settings: "Bash(rm:*)"',
  },
  { key: 'maxTurns', names: ['--max-turns'], value: whole('N', 1), help: 'stop after N model turns' },
  { key: 'continue', names: ['-c', '--continue'], help: 'go on with the session of this project changed last' },
  {
    key: 'resume',
    names: ['-r', '--resume'],
    value: text('ID'),
    help: 'go on with session ID of this project (see --list)',
  },
  { key: 'list', names: ['--list'], help: "list this project's saved sessions and exit" },
  { key: 'noSession', names: ['--no-session'], help: 'save nothing (no session file)' },
  {
    key: 'systemPrompt',
    names: ['--system-prompt'],
    value: text('TEXT'),
    help: "replace the kit's base system prompt (CLAUDE.md still follows)",
  },
  {
    key: 'appendSystemPrompt',
    names: ['--append-system-prompt'],
    value: text('TEXT'),
    help: 'add TEXT at the end of the system prompt',
  },
  {
    key: 'compactAt',
    names: ['--compact-at'],
    value: whole('TOKENS', 1),
    help: 'compact when the context passes TOKENS tokens',
  },
  {
    key: 'mcpConfig',
    names: ['--mcp-config'],
    value: text('FILE'),
    repeat: true,
    help: "MCP servers to start, in .mcp.json format (besides the workspace's .mcp.json)",
  },
  {
    key: 'maxParallel',
    names: ['--max-parallel'],
    value: whole('N', 1),
    help: 'run read-only tool calls side by side, at most N at once (1: one by one)',
  },
  {
    key: 'outputBudget',
    names: ['--output-budget'],
    value: whole('N', 0),
    help: 'cut tool output over N characters, keeping the whole in .agent/outputs/ (0: no limit)',
  },
  {
    key: 'maxRetries',
    names: ['--max-retries'],
    value: whole('N', 0),
    help: 'try a failed model call again up to N times (0: never)',
  },
  {
    key: 'maxWait',
    names: ['--max-wait'],
    value: whole('S', 0),
    help: 'wait at most S seconds when the server asks for a wait',
  },
  {
    key: 'subagentDepth',
    names: ['--subagent-depth'],
    value: whole('N', 0),
    help: 'how deep sub-agents may nest (1: children, no grandchildren)',
  },
  {
    key: 'cwd',
    names: ['--cwd'],
    value: text('DIR'),
    help: 'the folder the tools work in (default: where you ran npm)',
  },
  {
    key: 'trustWorkspace',
    names: ['--trust-workspace'],
    help: 'trust this folder for this run: its hooks, .mcp.json servers and settings may act (else asked once, or skipped with -p)',
  },
  { key: 'starter', names: ['--starter'], help: 'run your own code (starter/src) instead of the reference solution' },
  { key: 'starter', names: ['--solution'], sets: false, help: 'run the reference solution (the default)' },
  { key: 'help', names: ['-h', '--help'], help: 'this text' },
  { key: 'version', names: ['-v', '--version'], help: 'the version, and exit' },
];

/** The options before anything is read: every flag off, every list empty, text output. A new object each time. */
export function defaultOptions(): CliOptions {
  return {
    print: false,
    outputFormat: 'text',
    allowedTools: [],
    disallowedTools: [],
    continue: false,
    list: false,
    noSession: false,
    mcpConfig: [],
    trustWorkspace: false,
    starter: false,
    help: false,
    version: false,
  };
}

/** The spec of an option by any of its names (`-p`, `--print`), or undefined. */
export function findOption(name: string): OptionSpec | undefined {
  return OPTIONS.find((spec) => spec.names.includes(name));
}

/** The help text, built from OPTIONS. */
export const USAGE = usageText();

function usageText(): string {
  const width = 30;
  const lines = OPTIONS.map((spec) => {
    const left = `${spec.names.join(', ')}${spec.value ? ` ${spec.value.placeholder}` : ''}`;
    const help = spec.value?.kind === 'choice' ? `${spec.help} (${spec.value.choices.join(', ')})` : spec.help;
    return left.length < width ? `  ${left.padEnd(width)} ${help}` : `  ${left}\n  ${' '.repeat(width)} ${help}`;
  });
  return [
    'Usage: npm run agent [-- options] [prompt]',
    '',
    ...lines,
    '',
    'An option takes its value as the next word or after "=" (--model=NAME); "--" ends the options.',
    'Provider from the environment: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (with ANTHROPIC_MODEL, and',
    'ANTHROPIC_BASE_URL for a gateway), else OPENAI_API_KEY (with OPENAI_MODEL, and OPENAI_BASE_URL for Ollama,',
    'vLLM or any compatible server), else a small offline stand-in that needs no network.',
  ].join('\n');
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
  throw new TodoError(15, 'splitRuleList');
  // #endregion
}

/**
 * One option's value, read as `takes` says: the text, one of the choices, or a whole number. `raw` is undefined when
 * the option was the last word. Throws UsageError naming the option (`name`, as typed) and what it needs.
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
  throw new TodoError(15, 'readValue');
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
  // 4. --output-format json or stream-json without -p/--print: a UsageError that names --output-format, the format
  //    and -p (an interactive session prints for a person, not for a program).
  throw new TodoError(15, 'checkOptions');
  // #endregion
}

/**
 * Reads the command line (the words after `npm run agent --`). Options are spelled as in OPTIONS, with their value as
 * the next word or after `=`; `--` ends the options; every other word is part of the prompt. Throws UsageError for
 * an unknown option, a missing or wrong value, or a combination checkOptions refuses.
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
  throw new TodoError(15, 'parseFlags');
  // #endregion
}
