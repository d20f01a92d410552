import { todoAdvice } from '../lib/agent-kit.js';
import { kitVersion } from '../lib/kit-version.js';
import type { StreamJsonWriter } from './event-display.js';
import { note } from './output.js';
import type { Session } from './session.js';

type DoneEvent = import('../../solution/src/agent-events.js').DoneEvent;
type BuiltAgent = import('../../solution/src/capstone/factory.js').BuiltAgent;

/** How often Stop hooks may send one prompt's run back to work: a hook that always asks must not loop forever. */
const MAX_STOP_CONTINUATIONS = 5;

/**
 * Runs one prompt: the UserPromptSubmit hooks, the run (again while a Stop hook asks, at most
 * MAX_STOP_CONTINUATIONS times), and the advice for a stub it reached. Resolves with how the run ended.
 */
export async function runPrompt(
  session: Session,
  text: string,
  signal: AbortSignal,
): Promise<DoneEvent['reason'] | 'blocked'> {
  const { program, display, built } = session;
  const { kit, style, format } = program;
  const verdict = await built.sessionHooks
    .onPromptSubmit(text, signal)
    .catch((error: unknown) => ({ blocked: true as const, reason: String(error) }));
  if (verdict.blocked) {
    if (format === 'text')
      display.say(`${style.red(`✗ prompt blocked by a UserPromptSubmit hook: ${verdict.reason}`)}\n`);
    else note(`prompt blocked by a UserPromptSubmit hook: ${verdict.reason}`);
    return 'blocked';
  }
  built.history.push(kit.userMessage(verdict.context ? `${text}\n\n${verdict.context}` : text));
  const writer = format === 'text' ? undefined : streamJsonWriter(session, format);
  kit.todoHits.length = 0;
  let stopHookActive = false;
  let continuations = 0;
  for (;;) {
    let done: DoneEvent | undefined;
    const events = built.agent.run(built.history, { signal });
    for await (const event of built.session ? built.session.recorder.watch(events) : events) {
      if (event.type === 'done') done = event;
      else display.show(event, writer);
    }
    display.endPreview();
    if (!done) return 'error';
    if (done.reason === 'end_turn' && !signal.aborted) {
      const stop = await built.sessionHooks
        .onStop(done.text, { stopHookActive, signal })
        .catch(() => ({ continue: false as const }));
      if (stop.continue && continuations >= MAX_STOP_CONTINUATIONS) {
        const line = `(a Stop hook asks to go on again: stopping here, after ${MAX_STOP_CONTINUATIONS} continuations of this prompt)`;
        if (format === 'text') display.say(`${style.dim(line)}\n`);
        else note(line);
      } else if (stop.continue) {
        if (format === 'text') display.say(`${style.dim(`(a Stop hook asks to go on: ${stop.reason})`)}\n`);
        built.history.push(kit.userMessage(stop.reason));
        stopHookActive = true;
        continuations++;
        continue;
      }
    }
    const hit = kit.todoHits[0];
    kit.todoHits.length = 0;
    // A run that a stub stopped ends with one line, the advice: not the stub's error, then the advice saying it again.
    const told = hit !== undefined && done.reason === 'error' && format === 'text';
    display.show(told ? { ...done, reason: 'end_turn', message: undefined } : done, writer);
    if (hit) note(style.red(todoAdvice(hit)));
    return done.reason;
  }
}

/** -p's --output-format json or stream-json: Claude Code's messages, the init message saying what the agent has. */
function streamJsonWriter(session: Session, format: Exclude<Session['program']['format'], 'text'>): StreamJsonWriter {
  const { program, built, commands } = session;
  const { kit, cwd, models, made } = program;
  return new kit.StreamJsonWriter(built.history, {
    format,
    sessionId: built.sessionId,
    cwd,
    model: models.model ?? made.provider.name,
    tools: [...built.tools].map((tool) => tool.name),
    permissionMode: built.gate.mode,
    mcpServers: mcpStatus(built),
    slashCommands: [
      ...kit.builtinCommands('terminal').map((command) => command.name),
      ...commands.map((command) => command.name),
    ],
    version: kitVersion(),
  });
}

/** The MCP servers for stream-json's init: those that started are connected, those that did not, failed. */
function mcpStatus(agent: BuiltAgent): Array<{ name: string; status: 'connected' | 'failed' }> {
  return [
    ...(agent.mcp?.connections ?? []).map((connection) => ({ name: connection.name, status: 'connected' as const })),
    ...(agent.mcp?.failures ?? []).map((failure) => ({ name: failure.name, status: 'failed' as const })),
  ];
}
