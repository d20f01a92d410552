/**
 * Chapter 15 (given): the UserPromptSubmit and Stop hooks around one prompt's run, for a program that receives the
 * prompt already in the history (npm run acp: chapter 14's server pushes it, then runs). The terminal program does
 * the same around its own runs; this keeps the editor's agent from being a different agent: a prompt a hook refuses
 * is not sent, a hook's context is added, and a Stop hook may send the run back to work, a bounded number of times.
 */
import { noUsage, type AgentEvent, type DoneEvent } from '../agent-events.js';
import { userMessage, type Message } from '../messages.js';
import type { SessionHooks } from './session-hooks.js';

/** How often Stop hooks may send one prompt's run back to work (a hook that always asks must not loop forever). */
export const MAX_STOP_CONTINUATIONS = 5;

/**
 * The events of `run` on `history` (whose last message is the prompt), with the session hooks around it: a refused
 * prompt is taken out of the history and ends the run as an error that gives the hook's reason; a Stop hook that
 * asks to go on adds its reason as a user message and runs again. Exactly one done event, the last.
 */
export async function* runWithSessionHooks(
  run: (history: Message[], options: { signal: AbortSignal }) => AsyncIterable<AgentEvent>,
  hooks: SessionHooks,
  history: Message[],
  options: { signal: AbortSignal },
): AsyncGenerator<AgentEvent, void, undefined> {
  const last = history.at(-1);
  if (last?.role === 'user') {
    const verdict = await hooks
      .onPromptSubmit(last.content, options.signal)
      .catch((error: unknown) => ({ blocked: true as const, reason: String(error) }));
    if (verdict.blocked) {
      history.pop();
      yield {
        type: 'done',
        reason: 'error',
        turns: 0,
        text: '',
        usage: noUsage(),
        message: `prompt blocked by a UserPromptSubmit hook: ${verdict.reason}`,
      };
      return;
    }
    if (verdict.context) history[history.length - 1] = { ...last, content: `${last.content}\n\n${verdict.context}` };
  }
  let continuations = 0;
  for (;;) {
    let done: DoneEvent | undefined;
    for await (const event of run(history, options)) {
      if (event.type === 'done') done = event;
      else yield event;
    }
    if (!done) return;
    if (done.reason === 'end_turn' && !options.signal.aborted && continuations < MAX_STOP_CONTINUATIONS) {
      const stop = await hooks
        .onStop(done.text, { stopHookActive: continuations > 0, signal: options.signal })
        .catch(() => ({ continue: false as const }));
      if (stop.continue) {
        history.push(userMessage(stop.reason));
        continuations++;
        continue;
      }
    }
    yield done;
    return;
  }
}
