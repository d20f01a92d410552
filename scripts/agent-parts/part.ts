/**
 * The parts of `npm run agent` that later chapters add (permissions, the parallel executor, retries, MCP servers).
 *
 * scripts/agent.ts builds chapter 7's Agent; each part adds what its chapter built, at the seams the loop already has
 * (a wrapped provider, more tools, hooks, an executor), plus a line of output for the events it cares about. A part
 * declares its own command-line options, so the main script stays one file that does not grow with every chapter.
 * Chapter 15 replaces all of this with one factory the learner writes.
 */
import type { Executor } from '../../solution/src/executor.js';
import type { Hooks } from '../../solution/src/hooks.js';
import type { AgentEvent, DoneEvent } from '../../solution/src/agent-events.js';
import type { Message } from '../../solution/src/messages.js';
import type { Provider } from '../../solution/src/provider.js';
import type { Tool } from '../../solution/src/tool.js';

export type Kit = typeof import('../../solution/src/index.js');

/** An option a part takes: `--permission-mode plan` (a value) or `--dangerously-skip-permissions` (a flag). */
export interface PartOption {
  name: string;
  /** True when the option takes a value (the next argument). */
  value: boolean;
  /** One line for the usage text, after the option's name. */
  help: string;
  /** When `value` is true: the allowed values (anything else is a usage error). */
  choices?: readonly string[];
  /** May be given several times (the values are collected in order). */
  repeat?: boolean;
}

/** What the person answered to a question in the terminal, or undefined when nobody can answer (no terminal). */
export type Ask = (question: string, signal?: AbortSignal) => Promise<string | undefined>;

export interface PartContext {
  kit: Kit;
  /** Imports a module of the source tree the agent runs (solution/src or starter/src): `load('permissions/index.ts')`. */
  load<T = any>(relative: string): Promise<T>;
  /** True when the tree is the learner's (`--starter`): an unfinished chapter throws its TodoError. */
  own: boolean;
  /** The workspace the tools work in. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The person's home folder (HOME; tests set it to a temp folder). */
  home: string;
  /** Whether the workspace's own files may act (scripts/lib/workspace-trust.ts): its allow rules, mode and servers. */
  trusted: boolean;
  /** The model the provider was made for (undefined offline), and its small fast model when it has one. */
  model?: string;
  smallFastModel?: string;
  /** The system prompt as the kit would send it without this part. */
  system: string;
  /** The values of the options this part declared: a string (or strings, for `repeat`), true for a flag. */
  options: Record<string, string | string[] | true | undefined>;
  /** The provider as the parts before this one left it. */
  provider: Provider;
  /** The tools as the parts before this one left them (built-in tools first). */
  tools: readonly Tool[];
  /** Writes a dim line to stderr, for set-up notes ("connected to 2 MCP servers"). */
  note(text: string): void;
  /** Asks the person a question at the terminal (one line answer). */
  ask: Ask;
  /** Writes a line of the run's output (stdout), for a part that shows something while a run goes on. */
  line(text: string): void;
  /** What the parts set up before this one returned (their hooks, their mode control), in order. */
  earlier: readonly PartResult[];
  /** Colours (no-ops when stdout is not a colour terminal). */
  paint: {
    dim(text: string): string;
    bold(text: string): string;
    red(text: string): string;
    yellow(text: string): string;
  };
}

export interface PartResult {
  /** Replaces the provider (a wrapper around ctx.provider). */
  provider?: Provider;
  /** Tools to add. */
  tools?: readonly Tool[];
  /** Hooks to add (called after the hooks of the parts before). */
  hooks?: Hooks;
  /** Where the permission mode lives (chapter 8's gate), for a part that changes it (chapter 13's plan approval). */
  modeControl?: { readonly mode: string; setMode(mode: any): void };
  /** Replaces the executor. */
  executor?: Executor;
  /** A line to show for an event, or undefined to show nothing (the main script still shows text and tool calls). */
  render?(event: AgentEvent): string | undefined;
  /** One line for the banner, when the part did something worth saying ("permissions: default mode, 3 rules"). */
  banner?: string;
  /** Called once when the agent exits (close connections, end child processes, print a summary). */
  close?(): Promise<void>;
  /** Replaces the system prompt (the last part that gives one wins). */
  system?: string;
  /**
   * The history the agent runs on, for a part that keeps it (a resumed session): the agent appends to this very
   * array, and a prompt that got no answer stays in it (the part has already seen it).
   */
  history?: Message[];
  /** Commands typed at the prompt as `/name args` (interactive sessions only). */
  commands?: readonly SlashCommand[];
  /** Called after each run, with its done event. */
  afterRun?(done: DoneEvent): void | Promise<void>;
  /** Set when the part did all there is to do at set-up (`--list`): the agent exits with this code at once. */
  exitCode?: number;
}

/** A command typed at the prompt: `/compact`. */
export interface SlashCommand {
  /** Without the slash. */
  name: string;
  /** One line for /help. */
  help: string;
  /** Runs it; `signal` aborts on Ctrl-C. Prints through the part context's `line`/`note`. */
  run(args: string, signal: AbortSignal): Promise<void>;
}

export interface AgentPart {
  /** Short name, for notes and errors ("permissions"). */
  name: string;
  /** The chapter that builds it: with `--starter` and that chapter unfinished, the agent runs without this part. */
  chapter: number;
  options: readonly PartOption[];
  setup(ctx: PartContext): Promise<PartResult | undefined>;
}
