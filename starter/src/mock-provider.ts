/**
 * Chapter 1: a provider that replays a script.
 *
 * Tests and the offline agent need a model that answers the same way every time. The MockProvider takes the turns
 * it should return, in order, and keeps a copy of every request it received so that a test can check exactly what
 * the agent sent: which messages, in which order, with which tools.
 */
import { TodoError } from './todo.js';
import type { AssistantMessage } from './messages.js';
import type { ModelRequest, Provider } from './provider.js';

/**
 * One step of a script: the turn to return, an error to throw (a provider failure), or a function that builds
 * the turn from the request it answers.
 */
export type ScriptStep = AssistantMessage | Error | ((request: ModelRequest) => AssistantMessage | Promise<AssistantMessage>);

/** A request as the MockProvider recorded it: a deep copy, without the abort signal. */
export type RecordedRequest = Omit<ModelRequest, 'signal'>;

/** Thrown when the agent asks for more turns than the script has. */
export class ScriptExhaustedError extends Error {
  override name = 'ScriptExhaustedError';
}

export class MockProvider implements Provider {
  readonly name = 'mock';
  /** Every request received, in order, copied at the moment it arrived. */
  readonly requests: RecordedRequest[] = [];
  private readonly script: ScriptStep[];
  private next = 0;

  constructor(script: ScriptStep[]) {
    this.script = [...script];
  }

  /** How many scripted steps have not been used yet. */
  get remaining(): number {
    return this.script.length - this.next;
  }

  async complete(request: ModelRequest): Promise<AssistantMessage> {
    // #region chapter 1: MockProvider.complete
    // 1. If request.signal is already aborted, throw request.signal.reason.
    // 2. Record a deep copy of the request without its signal (structuredClone), so that later changes to the
    //    agent's history cannot rewrite what was sent.
    // 3. If the script is used up, throw a ScriptExhaustedError that says how many turns the script had.
    // 4. Take the next step. An Error is thrown; a function is called with the request; a turn is returned as a
    //    deep copy, so the agent cannot change the script by changing what it received.
    throw new TodoError(1, 'MockProvider.complete');
    // #endregion
  }
}
