/**
 * The slash commands every terminal session has (kit.builtinCommands('terminal'): one table with the editor's). A
 * custom command of the same name does not replace them; /exit is the session loop's own.
 */
import { out } from './output.js';
import type { Session } from './session.js';

type PermissionMode = import('../../solution/src/permissions/evaluate.js').PermissionMode;

/** Runs the built-in command `name` with the rest of the line as `args`. */
export async function runBuiltin(session: Session, name: string, args: string, signal: AbortSignal): Promise<void> {
  const { program, display, commands } = session;
  const { kit, style, renderer, models, home, cwd } = program;
  switch (name) {
    case 'help': {
      const lines = kit
        .builtinCommands('terminal')
        .map((command) => `  /${command.name.padEnd(12)}${command.description}`);
      for (const command of commands)
        lines.push(`  /${command.name.padEnd(12)}${command.description} (${kit.commandLabel(command)})`);
      return out(`${lines.join('\n')}\n`);
    }
    case 'clear':
      await session.rebuild({ resume: undefined, continue: false, forkSession: false });
      return out(style.dim('(a new conversation)\n'));
    case 'compact': {
      const event = await kit.compact(session.built.history, {
        provider: session.built.provider,
        model: models.smallFastModel,
        keep: kit.COMPACT_KEEP,
        signal,
      });
      if (!event) return out('Nothing to compact yet.\n');
      const manual = { ...event, manual: true };
      session.built.session?.recorder.record(manual);
      return out(renderer.render(manual));
    }
    case 'usage':
      return out(
        `${display.total ? kit.usageLine(display.total, models.model) : 'Nothing used yet in this session.'}\n`,
      );
    case 'mode': {
      const wanted = args.trim();
      const gate = session.built.gate;
      if (!wanted) return out(`mode: ${gate.mode} (modes: ${kit.PERMISSION_MODES.join(', ')})\n`);
      if (!(kit.PERMISSION_MODES as readonly string[]).includes(wanted))
        return out(`${style.red(`unknown mode "${wanted}"`)}: one of ${kit.PERMISSION_MODES.join(', ')}\n`);
      const previous = gate.mode;
      gate.setMode(wanted as PermissionMode);
      return out(renderer.render({ type: 'mode_changed', turn: 0, previous, mode: wanted as PermissionMode }));
    }
    case 'resume': {
      const id = args.trim();
      if (!id) {
        const sessions = new kit.SessionStore({ home, cwd })
          .list()
          .filter((one) => !one.problem && one.id !== session.built.sessionId);
        if (sessions.length === 0) return out('No other saved sessions for this project.\n');
        return out(
          `${sessions.map((one) => `  ${one.id}  ${one.updatedAt}  ${one.title}`).join('\n')}\n/resume ID goes on with one.\n`,
        );
      }
      return session.rebuild({ resume: id, continue: false, forkSession: false, noSession: false });
    }
  }
}
