/**
 * The slash commands every session has, answered by the program itself (never sent to the model): one table for the
 * terminal (`npm run agent`, chapter 15) and the editor (`npm run acp`, chapter 14), so that a command means the
 * same wherever it is typed. Each says where it is offered: an editor has its own way to start a new conversation,
 * leave or reopen a session, so /clear, /compact, /resume and /exit are the terminal's alone.
 */

/** Where a command is offered. */
export type CommandSurface = 'terminal' | 'editor';

export interface BuiltinCommand {
  name: string;
  /** One line for /help and the editor's command menu. */
  description: string;
  /** What to type after the name, for the editor's menu. */
  hint?: string;
  offered: readonly CommandSurface[];
}

export const BUILTIN_SLASH_COMMANDS: readonly BuiltinCommand[] = [
  { name: 'help', description: 'List the commands and what each does', offered: ['terminal', 'editor'] },
  { name: 'clear', description: 'Start a new conversation (a new session)', offered: ['terminal'] },
  { name: 'compact', description: 'Summarise the older part of the conversation now', offered: ['terminal'] },
  {
    name: 'mode',
    description: 'Show the permission mode, or change it: /mode acceptEdits',
    hint: 'default | acceptEdits | plan | bypassPermissions',
    offered: ['terminal', 'editor'],
  },
  { name: 'usage', description: 'Tokens (and cost) of this session so far', offered: ['terminal', 'editor'] },
  {
    name: 'resume',
    description: 'List saved sessions, or go on with one: /resume ID',
    hint: 'ID',
    offered: ['terminal'],
  },
  { name: 'exit', description: 'Leave (as Ctrl-D does)', offered: ['terminal'] },
];

/** The built-in commands offered on `surface`, in the table's order. */
export function builtinCommands(surface: CommandSurface): BuiltinCommand[] {
  return BUILTIN_SLASH_COMMANDS.filter((command) => command.offered.includes(surface));
}
