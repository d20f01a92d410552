import { sessionCostText } from '../lib/agent-kit.js';
import type { EventDisplay } from './event-display.js';
import { note } from './output.js';
import type { Program } from './program.js';

type CliOptions = import('../../solution/src/capstone/flags.js').CliOptions;
type BuiltAgent = import('../../solution/src/capstone/factory.js').BuiltAgent;
type CustomCommand = import('../../solution/src/capstone/custom-commands.js').CustomCommand;

/** One npm run agent session: the program, the agent built for it, and how its events are shown. */
export interface Session {
  readonly program: Program;
  readonly display: EventDisplay;
  /** The project's and the person's .claude/commands, loaded once at start-up. */
  readonly commands: readonly CustomCommand[];
  /** The agent now: /clear and /resume build another (`rebuild`). */
  built: BuiltAgent;
  /** Builds the agent again with other options; the old one is closed once the new one works. */
  rebuild(overrides: Partial<CliOptions>): Promise<void>;
  /** Stops the prompt that runs now (Ctrl-C); undefined between prompts. */
  controller: AbortController | undefined;
}

/** Closes the agent, and says what the session used and how to go on with it (stderr). */
export async function closeSession(session: Session): Promise<void> {
  const { kit, style, models } = session.program;
  await session.built.close();
  const saved = session.built.session?.session;
  const total = session.display.total;
  if (saved) note(style.dim(`session ${saved.id} · ${kit.formatUsage(saved.usage)} · ${sessionCostText(kit, saved)}`));
  else if (total) note(style.dim(`total: ${kit.usageLine(total, models.model)}`));
  if (saved) note(style.dim(`resume with: npm run agent -- --resume ${saved.id}`));
}
