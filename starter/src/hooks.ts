/**
 * Chapter 7: hooks, the seam where later chapters plug into the loop.
 *
 * A hook is a plain async function the loop calls at a fixed point of every run. It can look (log, count, show a
 * spinner), or it can steer: change the request before a model call or stop the run there; look at each whole turn
 * after a model call and stop the run there; block a tool call with a message the model reads as the call's result,
 * or run it with other arguments; change a tool's result before the model sees it. Any hook may also end the run
 * cleanly with ctx.stop, wherever it is called. Chapter 8's permission gate is a before-tool-call hook, chapter 12's compaction a
 * before-model-call hook, chapter 13's plan mode both. None of them needs a new line in the loop.
 *
 * Several sets of hooks may be given; `composeHooks` makes them one, called in the order given. Every hook gets the
 * run's AbortSignal. A hook that throws ends the run with reason `error` (the loop sees to that).
 */
import { TodoError } from './todo.js';
import type { AgentEvent, ToolDecision } from './agent-events.js';
import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from './messages.js';
import type { ModelRequest } from './provider.js';
import type { ToolSet } from './tool.js';

type Awaitable<T> = T | Promise<T>;

/** What every hook is given besides its own arguments. */
export interface HookContext {
  /** The run's signal: a hook that waits (a prompt, a network call) should stop when it aborts. */
  signal: AbortSignal;
  /** The model call this belongs to, counting from 1 in each run. */
  turn: number;
  /**
   * The conversation so far. Read it; a hook that changes it (chapter 12's compaction replaces old messages with a
   * summary, before a model call) must leave it valid and say what it did with an event.
   */
  history: readonly Message[];
  /**
   * Hands an event to the run's consumers (chapter 12's compaction says what it did this way). The loop yields it
   * as soon as the hook has returned: after beforeModelCall, before the decision of a call, before its result.
   */
  emit(event: AgentEvent): void;
  /**
   * The run's tools (the loop's hooks always get them). Chapter 11 swaps an MCP server's tools here, before a model
   * call, when the server says its list changed. Optional so a hook can be called with a context of its own.
   */
  tools?: ToolSet;
  /**
   * Ends the run cleanly, from any hook: the run's signal aborts with a RunStop holding `stop`, so whatever waits
   * stops, no further call starts and no further model call is made; the calls left open get a result, and done
   * is `cancelled` with `stop.stop` as its message, or `end_turn` with `stop.answer` as its text. The loop's hooks
   * always get it; optional so a hook can be called with a context of its own.
   */
  stop?(stop: StopRun): void;
}

/**
 * What a before-model-call hook returns to end the run there, with `stop` as the done event's message. Without an
 * answer the run ends as cancelled; with one it ends as answered (end_turn), the answer as its text (chapter 9's
 * returnDirect ends a run with a tool's output this way, without another model call).
 */
export interface StopRun {
  stop: string;
  answer?: string;
}

/** The reason a run's signal aborts with when a hook ends the run with ctx.stop. */
export class RunStop extends Error {
  override name = 'RunStop';
  constructor(readonly request: StopRun) {
    super(request.stop);
  }
}

/** The hooks one caller wants; each is optional. Returning nothing (undefined) means "no change". */
export interface Hooks {
  /** Before each model call: return a changed request, `{ stop: reason }`, or nothing. */
  beforeModelCall?(request: ModelRequest, ctx: HookContext): Awaitable<ModelRequest | StopRun | void>;
  /**
   * After each model call, with the whole turn as it entered the history (calls and all, before any of them is
   * requested): return `{ stop }` or `{ stop, answer }` to end the run there, or nothing.
   */
  afterModelCall?(turn: AssistantMessage, ctx: HookContext): Awaitable<StopRun | void>;
  /** For each piece of the model's text, as it arrives (never empty). */
  onText?(text: string, ctx: HookContext): Awaitable<void>;
  /** Before a tool call runs: allow it, block it with a message for the model, or change its arguments. */
  beforeToolCall?(call: ToolCall, ctx: HookContext): Awaitable<ToolDecision | void>;
  /** After a tool call ran: return a changed result, or nothing. */
  afterToolCall?(call: ToolCall, result: ToolResultMessage, ctx: HookContext): Awaitable<ToolResultMessage | void>;
}

/** Several sets of hooks as one: every hook is there, and each returns a decision rather than maybe nothing. */
export interface ComposedHooks {
  beforeModelCall(request: ModelRequest, ctx: HookContext): Promise<ModelRequest>;
  afterModelCall(turn: AssistantMessage, ctx: HookContext): Promise<void>;
  onText(text: string, ctx: HookContext): Promise<void>;
  beforeToolCall(call: ToolCall, ctx: HookContext): Promise<ToolDecision>;
  afterToolCall(call: ToolCall, result: ToolResultMessage, ctx: HookContext): Promise<ToolResultMessage>;
}

/** Whether a before-model-call hook asked to stop the run. */
export function isStop(value: ModelRequest | StopRun): value is StopRun {
  return 'stop' in value;
}

/**
 * Several sets of hooks (one set, or an array of them) as one ComposedHooks, so that the loop has one thing to call
 * at each of its five points and one place where a stop is honoured. Each hook of each set is called in the order
 * of the sets, each awaited before the next; a set without that hook is passed over. An error a hook throws is not
 * caught here (the loop ends the run with it).
 *
 * - Whatever a hook may pass on (what is sent to the model, what a tool gave) goes down the chain: each hook gets
 *   it as the ones before it left it, and returning nothing keeps it. afterToolCall's outcome still answers the
 *   same call: it carries this call's id and tool name, whatever a hook returned.
 * - A stop from a beforeModelCall or afterModelCall hook goes to ctx.stop, the one way to end a run from any
 *   hook, and ends the chain: the hooks after it are not asked, and beforeModelCall returns what it held
 *   then. A context of its own may have no ctx.stop: then the stop goes nowhere, and nothing throws.
 * - onText: every hook sees every piece.
 * - beforeToolCall decides (ToolDecision): the first `block` wins at once and later hooks are not asked; a
 *   `change` gives the later hooks the call with its new arguments, and the outcome is then a `change` with the
 *   last arguments set, even when a later hook allows; otherwise the last `allow` a hook returned, as it wrote it
 *   (it may say why, as chapter 8's gate does), or a plain `allow` when none spoke. An allow never undoes a block
 *   nor stops a later hook from blocking.
 */
export function composeHooks(list: Hooks | readonly Hooks[] = []): ComposedHooks {
  // #region chapter 7: composeHooks
  // Write it from the contract above. Step by step instead: npm run reset -- chapter7 --guided
  throw new TodoError(7, 'composeHooks');
  // #endregion
}
