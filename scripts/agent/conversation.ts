import { flush, note, out } from './output.js';
import { runPrompt } from './prompt.js';
import type { Session } from './session.js';
import { runBuiltin } from './slash-commands.js';

/**
 * The interactive session: a prompt, then each line typed (or piped in) is a request or a slash command, until /exit,
 * Ctrl-D or the end of input. A failed request says why and the session goes on.
 */
export async function converse(session: Session, interrupt: () => void): Promise<void> {
  const { kit, reader, style, renderer } = session.program;
  const builtinNames = kit.builtinCommands('terminal').map((command) => command.name);
  const rl = reader.open(interrupt);
  note(
    style.dim('Type a request; /help lists the commands. Ctrl-C stops a turn; Ctrl-C at the prompt (or Ctrl-D) exits.'),
  );
  rl.setPrompt(style.bold('> '));
  for (;;) {
    // Once stdin has ended (a script piped its lines), lines already read are still taken, without a prompt: Node 24's
    // readline throws on prompt() after close, where Node 20 did nothing.
    flush();
    if (reader.interactive) rl.prompt();
    const line = await reader.next();
    if (line === undefined) break;
    const typed = line.trim();
    if (!typed) continue;
    const controller = new AbortController();
    session.controller = controller;
    try {
      if (typed.startsWith('/')) {
        const slash = kit.parseSlashLine(typed, session.commands, builtinNames);
        if (slash.kind === 'builtin' && slash.name === 'exit') break;
        if (slash.kind === 'builtin') await runBuiltin(session, slash.name, slash.args, controller.signal);
        else if (slash.kind === 'custom') await runPrompt(session, slash.prompt, controller.signal);
        else
          out(
            `Unknown command /${slash.name}.${slash.suggestion ? ` Did you mean /${slash.suggestion}?` : ''} /help lists the commands.\n`,
          );
      } else await runPrompt(session, typed, controller.signal);
    } catch (error) {
      if (!controller.signal.aborted)
        out(
          `${renderer.lineBreak()}${style.red(`error: ${error instanceof Error ? error.message : String(error)}`)}\n`,
        );
    } finally {
      session.controller = undefined;
    }
  }
  out('\n'); // the prompt is still on the last line (Ctrl-D, /exit)
}
