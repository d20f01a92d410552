/**
 * Chapter 3: the agentic loop.
 *
 * Ask the model; if it wants tools, run them, append the turn and the results to the history, and ask again; stop
 * when it answers without asking for anything. Everything else an agent does is built around this loop.
 */
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
 * results back, and return the text of the second answer. Otherwise return the text of the first. The loop of
 * SimpleAgent.chat, unrolled once, to see what one round sends.
 *
 * - At most two model calls, whatever the second answer asks for; both requests offer the tools (the model
 *   keeps no memory between requests).
 * - Only a `tool_use` turn has its calls run: one cut off by the token limit is answered with its text, and its
 *   half-written request never runs.
 * - The calls run through executeToolCall (so an unknown tool or a failing one reaches the model as an answer it
 *   can read), one at a time, each starting only after the one before has finished, in the order written.
 * - The second request holds the prompt, then the model's turn as it came, then what each of its calls gave, in their order:
 *   what answers a call must follow the calls.
 */
export async function singleTurn(
  provider: Provider,
  tools: ToolSet,
  prompt: string,
  ctx: ToolContext,
): Promise<string> {
  // #region chapter 3: singleTurn
  // 1. Start a history with one user message holding the prompt.
  // 2. Ask the provider: { messages: history, tools: tools.definitions() }.
  // 3. If the stop reason is not 'tool_use', return the text of that turn.
  // 4. Otherwise run every tool call with executeToolCall, in the order the model wrote them.
  // 5. Append the assistant turn, then its results, to the history. The turn must come first: a result must
  //    follow the call it answers.
  // 6. Ask the provider again with the longer history and the same tools (every request carries them: the model
  //    keeps no memory between requests), and return the text of that answer.
  const messages: Message[] = [userMessage(prompt)];
  const definitions = tools.definitions();
  const turn = await provider.complete({ messages, tools: definitions });
  if (turn.stopReason !== 'tool_use') return textOf(turn);
  const results: ToolResultMessage[] = [];
  for (const call of toolCallsOf(turn)) results.push(await executeToolCall(tools, call, ctx));
  messages.push(turn, ...results);
  return textOf(await provider.complete({ messages, tools: definitions }));
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

  /**
   * Runs one prompt in a fresh conversation and returns the final answer, which the loop below works out. Each run
   * has a conversation of its own: two runs never share one.
   */
  async run(prompt: string): Promise<string> {
    // #region chapter 3: SimpleAgent.run
    // 1. Make a new history holding one user message with the prompt.
    // 2. Hand it to this.chat and return what chat returns.
    return this.chat([userMessage(prompt)]);
    // #endregion
  }

  /**
   * Runs every tool request of one turn through executeToolCall and returns one result each, in their order. One at
   * a time: each starts only after the one before has finished (two edits of one file must not race). Everything
   * runs in the agent's workspace. Never throws: a failure is a result.
   */
  async executeTools(calls: readonly ToolCall[]): Promise<ToolResultMessage[]> {
    // #region chapter 3: SimpleAgent.executeTools
    // 1. For each call, in order, await executeToolCall(this.tools, call, { cwd: this.cwd }).
    // 2. Return the results in the same order as the calls.
    const results: ToolResultMessage[] = [];
    for (const call of calls) results.push(await executeToolCall(this.tools, call, { cwd: this.cwd }));
    return results;
    // #endregion
  }

  /**
   * Appends an assistant turn, unchanged, and then the results of its tool calls, in their order, to `history`
   * itself (the caller's array, not a copy): a result must come after the call it answers.
   */
  pushResults(history: Message[], turn: AssistantMessage, results: readonly ToolResultMessage[]): void {
    // #region chapter 3: SimpleAgent.pushResults
    // 1. Push the assistant turn first, unchanged.
    // 2. Then push each result, in order.
    history.push(turn, ...results);
    // #endregion
  }

  /**
   * Continues a conversation: the history must end with a user message (or with tool results). Appends every
   * turn and result to `history` in place, and returns the text of the final answer. Each turn keeps the rules of
   * normalizeTurn before it is appended; a turn cut short (stop reason 'max_tokens') ends the run like an answer,
   * without running its calls, and stays last in the history with that stop reason for the caller to see.
   * Rejects with TurnLimitError after `maxTurns` model calls, and with the provider's error if a call fails;
   * in both cases the history is left valid (never a tool call without its result).
   *
   * - Every request carries the system prompt, the whole history so far and what the tools are.
   * - The loop goes on while the model asks for tools (a `tool_use` turn: its calls run through executeTools, and
   *   the turn and its results are added with pushResults) and ends at the first turn that asks for nothing.
   * - The turn that counts is the one normalizeTurn (given, turn-rules.ts) gives back for the history so far,
   *   never the provider's own: it makes repeated or empty call ids new, so every call gets its own result, and a
   *   `tool_use` turn without a call becomes an answer.
   */
  async chat(history: Message[]): Promise<string> {
    // #region chapter 3: SimpleAgent.chat
    // 1. Loop at most this.maxTurns times. Each time, ask the provider with
    //    { system: this.system, messages: history, tools: this.tools.definitions() } (all three on every request).
    // 2. Pass the turn through normalizeTurn(turn, history) (given, src/turn-rules.ts) and use only the turn it
    //    returns from then on: it makes the call ids unique, drops the calls of a turn that did not stop for
    //    'tool_use', and turns a 'tool_use' turn without calls into an answer.
    // 3. switch on that turn's stop reason:
    //    - 'tool_use': run its tool calls (this.executeTools), push the turn and the results (this.pushResults),
    //      and go round again;
    //    - anything else: push the turn and return its text.
    // 4. If the loop ends without an answer, throw new TurnLimitError(this.maxTurns).
    const tools = this.tools.definitions();
    for (let turnNumber = 0; turnNumber < this.maxTurns; turnNumber++) {
      const turn = normalizeTurn(
        await this.provider.complete({ system: this.system, messages: history, tools }),
        history,
      );
      switch (turn.stopReason) {
        case 'tool_use':
          this.pushResults(history, turn, await this.executeTools(toolCallsOf(turn)));
          break;
        default:
          history.push(turn);
          return textOf(turn);
      }
    }
    throw new TurnLimitError(this.maxTurns);
    // #endregion
  }
}
