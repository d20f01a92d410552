/**
 * Chapter 15, given: the options `npm run agent` knows, as one table.
 *
 * Each entry of OPTIONS is one of Claude Code's command-line flags that the kit implements: its names, whether it
 * takes a value, what kind of value, and the line `--help` prints for it. defaultOptions is what a run gets with no
 * flag at all; usageText is the `--help` text, made from the same table so it cannot drift from what is parsed.
 * parseFlags (flags.ts) reads argv with it.
 */
import { PERMISSION_MODES, type PermissionMode } from '../permissions/evaluate.js';

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const PROVIDERS = ['anthropic', 'openai', 'offline'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

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
  /** --fork-session (with --resume or --continue): go on in a new session, a copy of that one. */
  forkSession: boolean;
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
  {
    key: 'forkSession',
    names: ['--fork-session'],
    help: 'with --resume or --continue: go on in a new session, a copy of that one (which stays as it was)',
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
    forkSession: false,
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
