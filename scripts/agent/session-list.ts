import type { Kit } from '../lib/agent-kit.js';
import { out } from './output.js';

/** --list: the sessions saved for the workspace, one a line; one that cannot be read says why. */
export function listSessions(kit: Kit, where: { home: string; cwd: string }, style: ReturnType<Kit['styleFor']>): void {
  const sessions = new kit.SessionStore(where).list();
  if (sessions.length === 0) out(`No saved sessions for ${where.cwd}.\n`);
  for (const one of sessions)
    out(
      `${one.problem ? `${one.id}  ${style.red(`cannot be read: ${one.problem}`)}` : `${one.id}  ${one.updatedAt}  ${String(one.messages).padStart(4)} messages  ${one.title}`}\n`,
    );
}
