/**
 * Chapter 14: slash commands in the editor.
 *
 * A person who types `/review 42` in the editor's prompt box means a command, not a sentence for the model. ACP lets
 * the agent tell the editor which commands there are (`available_commands_update`, after a session opens), and the
 * editor offers them as the person types. The command itself arrives as an ordinary prompt whose text starts with
 * `/`: the server decides what it is.
 *
 * Two kinds: the server's built-ins (answered here, without the model) and the session's own commands, which the
 * factory gives (chapter 15 reads `.claude/commands/*.md`, under the workspace's trust and safe-file rules) and
 * which turn into the prompt the model gets.
 */
import type { AvailableCommand } from '@agentclientprotocol/sdk';
import { builtinCommands } from '../slash-commands.js';

/** A command a session offers besides the built-ins: a custom command, whose prompt is made from what was typed. */
export interface SessionCommand {
  name: string;
  description: string;
  /** What to type after the name, shown by the editor (`[pr-number]`). */
  hint?: string;
  /** The prompt the model gets for `args` (everything typed after the name). */
  expand(args: string): string;
}

/** The built-in commands of the ACP server, from the table the terminal uses too: answered without the model. */
export const BUILTIN_COMMANDS: readonly AvailableCommand[] = builtinCommands('editor').map(
  ({ name, description, hint }) => ({ name, description, ...(hint ? { input: { hint } } : {}) }),
);

/** What a command name may be: letters, digits, "-", "_" and ":" (so `/etc/hosts is wrong` is text, not a command). */
export const COMMAND_NAME = /^[A-Za-z0-9][\w:-]*$/;

/** The commands to advertise: the built-ins, then the session's own (one a built-in hides is left out). */
export function availableCommands(commands: readonly SessionCommand[] = []): AvailableCommand[] {
  const builtins = new Set(BUILTIN_COMMANDS.map((command) => command.name));
  const own = commands
    .filter((command) => !builtins.has(command.name))
    .map(
      (command): AvailableCommand => ({
        name: command.name,
        description: command.description,
        ...(command.hint ? { input: { hint: command.hint } } : {}),
      }),
    );
  return [...BUILTIN_COMMANDS, ...own];
}
