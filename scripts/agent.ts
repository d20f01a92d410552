/**
 * npm run agent: the capstone, a terminal agent built from the learner's own parts.
 *
 *   npm run agent                                         an interactive session
 *   npm run agent -- -p "why does the test fail?"         one prompt, the answer, exit
 *   npm run agent -- -p "..." --output-format stream-json one JSON message per line, ending with the result
 *
 * Everything it does comes from chapter 15's code in the tree it runs: parseFlags reads the command line,
 * buildAgent (the factory) builds the agent from the flags, the settings files and the environment, the Renderer
 * turns its events into terminal text, StreamJsonWriter into Claude Code's stream-json, and the settings' hooks and
 * the project's .claude/commands take part. This program is the plumbing around them: the provider, the terminal
 * (line editing, questions, Ctrl-C), the slash commands and the exit code (0 done, 1 a failed run, 2 bad usage, 130
 * interrupted). This file puts it together; its parts are in scripts/agent/: start-up.ts (the command line, the
 * provider, the settings, trust), banner.ts, questions.ts, prompt.ts (one prompt and its hooks), conversation.ts and
 * slash-commands.ts (the interactive session), event-display.ts and output.ts (what reaches the terminal).
 *
 * With --starter it runs the learner's code (starter/src), built the same way at every stage of the course: the stubs
 * of chapters 6, 7 and 15 they have not written run the kit's code, and a chapter of 8-13 they have not finished is left
 * out of the agent (scripts/lib/learner-tree.ts); one line under the banner says which.
 */
import { isTodo, load, sourceTree, todoAdvice } from './lib/agent-kit.js';
import { exitOnceWritten, exitWhenStdoutCloses } from './lib/exit.js';
import { agentTree } from './lib/learner-tree.js';
import { interruptHandler } from './lib/line-reader.js';
import { showBanner } from './agent/banner.js';
import { wantsStarter } from './agent/command-line.js';
import { converse } from './agent/conversation.js';
import { EventDisplay } from './agent/event-display.js';
import { factoryConfig } from './agent/factory-config.js';
import { flush, note, out } from './agent/output.js';
import type { Program } from './agent/program.js';
import { runPrompt } from './agent/prompt.js';
import { closeSession, type Session } from './agent/session.js';
import { startUp } from './agent/start-up.js';

type BuiltAgent = import('../solution/src/capstone/factory.js').BuiltAgent;

async function main(argv: string[]): Promise<number> {
  const tree = sourceTree(wantsStarter(argv));
  // The learner's tree, with what they have not written yet filled or left out (scripts/lib/learner-tree.ts).
  const filled = tree.own ? agentTree(tree.src) : undefined;
  const started = await startUp(argv, tree, await load(filled?.src ?? tree.src), filled);
  if (typeof started === 'number') return started;
  return capstone(started.program, started.prompt);
}

/** The program, on chapter 15's parts of the tree: the agent built, then one prompt (-p) or a session. */
async function capstone(program: Program, prompt: string | undefined): Promise<number> {
  const { kit, cwd, home, style } = program;
  const display = new EventDisplay(program);
  const config = factoryConfig(program, display);
  let built: BuiltAgent;
  try {
    built = await kit.buildAgent(config());
  } catch (error) {
    note(isTodo(error) ? todoAdvice(error) : `error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  showBanner(program, built);

  const loadedCommands = await kit.loadCustomCommands({ cwd, home });
  for (const problem of loadedCommands.problems) note(style.dim(`(${problem.file}: ${problem.message})`));
  const session: Session = {
    program,
    display,
    commands: loadedCommands.commands,
    built,
    controller: undefined,
    async rebuild(overrides) {
      const next = await kit.buildAgent(config(overrides));
      await session.built.close();
      session.built = next;
      display.total = undefined;
      showBanner(program, next);
    },
  };

  // Closes the agent once; a second call (Ctrl-C while it closes) does not wait for the first.
  let ended = false;
  const end = async () => {
    if (ended) return;
    ended = true;
    await closeSession(session);
  };
  // Ctrl-C: the first stops the running turn; a second one (while it stops, or within 1.5 s), or one at the
  // prompt, exits with 130.
  const interrupt = interruptHandler(
    () => session.controller,
    () => {
      out(program.renderer.lineBreak());
      void end().finally(() => process.exit(130));
    },
  );
  process.on('SIGINT', interrupt);

  if (prompt !== undefined) {
    session.controller = new AbortController();
    const reason = await runPrompt(session, prompt, session.controller.signal);
    await end();
    return reason === 'end_turn' ? 0 : reason === 'cancelled' ? 130 : 1;
  }
  await converse(session, interrupt);
  await end();
  return 0;
}

exitWhenStdoutCloses();

const code = await main(process.argv.slice(2));
flush();
exitOnceWritten(code);
