/**
 * Chapter 14, given: the answers to the server's own slash commands (/help, /usage, /mode).
 *
 * AcpServer.slashCommand decides that a prompt is a built-in command; answerBuiltin answers it with a message in
 * the session, as the terminal's /help, /usage and /mode do.
 */
import * as acp from '@agentclientprotocol/sdk';
import type { PermissionMode } from '../permissions/evaluate.js';
import { costOf } from '../session/cost.js';
import { isPermissionMode, SESSION_MODES } from './session-setup.js';
import { availableCommands } from './commands.js';
import type { AcpServerOptions, Client, LiveSession } from './session-types.js';

/** What answering a built-in needs from the server. */
export interface BuiltinHost {
  options: AcpServerOptions;
  say(sessionId: string, client: Client, text: string): Promise<void>;
  checkModeTrust(session: LiveSession, mode: PermissionMode): void;
}

/**
 * Answers a built-in command (BUILTIN_COMMANDS) with a message: /help lists the commands; /usage the session's
 * tokens; /mode shows the mode, or switches it with the checks of session/set_mode (an unknown mode, an untrusted
 * folder's raise: the message says why) and a current_mode_update, since the client did not ask through set_mode.
 */
export async function answerBuiltin(
  host: BuiltinHost,
  session: LiveSession,
  name: string,
  args: string,
  client: Client,
): Promise<void> {
  const { handle } = session;
  if (name === 'help') {
    const lines = availableCommands(handle.commands).map(
      (command) => `/${command.name}${command.input ? ` ${command.input.hint}` : ''}: ${command.description}`,
    );
    return host.say(session.id, client, lines.join('\n'));
  }
  if (name === 'usage') {
    const usage = handle.usage;
    if (!usage) return host.say(session.id, client, 'Nothing used yet in this session.');
    const figures = `${usage.inputTokens} input, ${usage.outputTokens} output, ${usage.cacheReadTokens ?? 0} cache read, ${usage.cacheWriteTokens ?? 0} cache write tokens`;
    const amount = host.options.price && costOf(usage, host.options.price);
    const cost = amount !== undefined ? ` ($${amount.toFixed(4)})` : '';
    return host.say(session.id, client, `This session: ${figures}${cost}.`);
  }
  const wanted = args.trim();
  if (!wanted)
    return host.say(
      session.id,
      client,
      `Mode: ${handle.modes.mode} (modes: ${SESSION_MODES.map((mode) => mode.id).join(', ')})`,
    );
  if (!isPermissionMode(wanted))
    return host.say(
      session.id,
      client,
      `Unknown mode "${wanted}": one of ${SESSION_MODES.map((mode) => mode.id).join(', ')}.`,
    );
  try {
    host.checkModeTrust(session, wanted);
  } catch (error) {
    return host.say(session.id, client, (error as Error).message);
  }
  handle.modes.setMode(wanted);
  await client.notify(acp.methods.client.session.update, {
    sessionId: session.id,
    update: { sessionUpdate: 'current_mode_update', currentModeId: wanted },
  });
  return host.say(session.id, client, `Mode: ${wanted}.`);
}
