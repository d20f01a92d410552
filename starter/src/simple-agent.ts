/**
 * Chapter 3: the agentic loop.
 *
 * Ask the model; if it wants tools, run them, append the turn and the results to the history, and ask again; stop
 * when it answers without asking for anything. Everything else an agent does is built around this loop.
 */
import { TodoError } from './todo.js';
import { executeToolCall } from './safe-call.js';
import {
  textOf,
  toolCallsOf,
  userMessage,
  type AssistantMessage,
  type Message,
  type ToolCall,
  type ToolResultMessage,
} from './messages.js';
import type { Provider } from './provider.js';
import type { ToolContext, ToolSet } from './tool.js';
import { normalizeTurn } from './turn-rules.js';

/** Model calls allowed in one run before the agent gives up. */
export const DEFAULT_MAX_TURNS = 20;

/** The model kept asking for tools past the turn limit. The history stays valid: a later run can continue it. */
export class TurnLimitError extends Error {
  override name = 'TurnLimitError';
  constructor(readonly maxTurns: number) {
    super(`the agent stopped after ${maxTurns} model turns without a final answer (turn limit)`);
  }
}

/**
 * One prompt, at most one round of tools: ask the model; if it asks for tools, run them, send the turn and its
 * results back, and return the text of the second answer. Otherwise return the text of the first.
 */
export async function singleTurn(
  provider: Provider,
  tools: ToolSet,
  prompt: string,
  ctx: ToolContext,
): Promise<string> {
  // #region chapter 3: singleTurn
  // Write it from the contract above. Step by step instead: npm run reset -- chapter3 --guided
  throw new TodoError(3, 'singleTurn');
  // #endregion
}

export interface AgentOptions {
  provider: Provider;
  tools: ToolSet;
  /** The workspace the tools work in. */
  cwd: string;
  system?: string;
  /** Model calls allowed in one run (default 20). */
  maxTurns?: number;
}

/** The loop, with the history kept by the caller so that a conversation can go on across runs. */
export class SimpleAgent {
  readonly provider: Provider;
  readonly tools: ToolSet;
  readonly cwd: string;
  readonly system: string | undefined;
  readonly maxTurns: number;

  constructor(options: AgentOptions) {
    this.provider = options.provider;
    this.tools = options.tools;
    this.cwd = options.cwd;
    this.system = options.system;
    this.maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  }

  /** Runs one prompt in a fresh conversation and returns the final answer. */
  async run(prompt: string): Promise<string> {
    // #region chapter 3: SimpleAgent.run
    // Write it from the contract above. Step by step instead: npm run reset -- chapter3 --guided
    throw new TodoError(3, 'SimpleAgent.run');
    // #endregion
  }

  /** Runs every call of one turn, one after another, and returns the results in call order. Never throws. */
  async executeTools(calls: readonly ToolCall[]): Promise<ToolResultMessage[]> {
    // #region chapter 3: SimpleAgent.executeTools
    // Write it from the contract above. Step by step instead: npm run reset -- chapter3 --guided
    throw new TodoError(3, 'SimpleAgent.executeTools');
    // #endregion
  }

  /** Appends an assistant turn and then the results of its tool calls to the history. */
  pushResults(history: Message[], turn: AssistantMessage, results: readonly ToolResultMessage[]): void {
    // #region chapter 3: SimpleAgent.pushResults
    // Write it from the contract above. Step by step instead: npm run reset -- chapter3 --guided
    throw new TodoError(3, 'SimpleAgent.pushResults');
    // #endregion
  }

  /**
   * Continues a conversation: the history must end with a user message (or with tool results). Appends every
   * turn and result to `history` in place, and returns the text of the final answer. Each turn keeps the rules of
   * normalizeTurn before it is appended; a turn cut short (stop reason 'max_tokens') ends the run like an answer,
   * without running its calls, and stays last in the history with that stop reason for the caller to see.
   * Rejects with TurnLimitError after `maxTurns` model calls, and with the provider's error if a call fails;
   * in both cases the history is left valid (never a tool call without its result).
   */
  async chat(history: Message[]): Promise<string> {
    // #region chapter 3: SimpleAgent.chat
    // Write it from the contract above. Step by step instead: npm run reset -- chapter3 --guided
    throw new TodoError(3, 'SimpleAgent.chat');
    // #endregion
  }
}
