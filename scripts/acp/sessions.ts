/**
 * npm run acp's sessions: each one's agent built by chapter 15's factory (as npm run agent builds its own), the
 * handle the ACP server keeps of it, and the session factory createAcpAgent calls for session/new, load and resume.
 */
import { retryLine, todoAdvice, type Kit } from '../lib/agent-kit.js';
import type { SessionHandle, SessionSetup } from '../../solution/src/acp/index.js';
import type { ModelControl, SessionCommand } from '../../solution/src/acp/index.js';
import type { AgentEvent } from '../../solution/src/agent-events.js';
import type { Agent } from '../../solution/src/agent.js';
import type { SessionHooks } from '../../solution/src/capstone/index.js';
import type { ModeControl } from '../../solution/src/planning/index.js';
import type { Provider } from '../../solution/src/provider.js';
import type { OpenSession } from '../../solution/src/session/index.js';
import { note } from './notes.js';

/** How long closing a session waits for its cancelled run to end. */
const CLOSE_WAIT_MS = 5000;

/** The run's events as they are, with a note on stderr for each retry and for a stub a tool reached. */
async function* withNotes(events: AsyncIterable<AgentEvent>, kit: Kit): AsyncGenerator<AgentEvent, void, undefined> {
  for await (const event of events) {
    if (event.type === 'retry') note(`retry: ${retryLine(event)}`);
    if (event.type === 'done' && kit.todoHits[0]) note(todoAdvice(kit.todoHits[0]));
    if (event.type === 'done') kit.todoHits.length = 0;
    yield event;
  }
}

/**
 * What the server keeps of a session: the agent's runs, recorded in the saved session when there is one, and a
 * close (once) that waits for the run in progress to end (the server has cancelled it) before `cleanup` closes the
 * session's file and servers, so the file ends with the whole run.
 */
function sessionHandle(
  agent: Agent,
  control: ModeControl,
  saved: OpenSession | undefined,
  kit: Kit,
  cleanup: () => Promise<void>,
  hooks?: SessionHooks,
  extra: Pick<SessionHandle, 'models' | 'trusted' | 'commands'> = {},
): SessionHandle {
  let running: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  return {
    history: saved?.session.messages ?? [],
    usage: saved?.session.usage,
    modes: control,
    ...extra,
    run(history, options) {
      // The settings' UserPromptSubmit and Stop hooks around the run, as npm run agent runs them.
      const runs = hooks
        ? kit.runWithSessionHooks((h, o) => agent.run(h, o), hooks, history, options)
        : agent.run(history, options);
      const events = withNotes(runs, kit);
      return track(saved ? saved.recorder.watch(events) : events, (ended) => (running = ended));
    },
    close: () => (closing ??= settled(running, CLOSE_WAIT_MS).then(cleanup)),
  };
}

/** One session's agent and what goes with it, as a session builder makes it. */
interface SessionParts {
  agent: Agent;
  control: ModeControl;
  saved: OpenSession | undefined;
  /** Closes the session's file and servers (after its run has ended). */
  cleanup(): Promise<void>;
  /** The settings' UserPromptSubmit and Stop hooks (the factory's agent; none for the kit's own wiring). */
  sessionHooks?: SessionHooks;
  /** The session's models the editor may switch, and whether its folder is trusted (the factory's agent). */
  models?: ModelControl;
  trusted?: boolean;
  /** The custom slash commands (chapter 15's .claude/commands). */
  commands?: SessionCommand[];
}

/**
 * Chapter 15's factory builds the session's agent, as it builds npm run agent's: the workspace's settings (rules,
 * defaultMode, hooks), its .mcp.json and the editor's servers, the system prompt with the editor's replacement or
 * addition, the editor's file tools, questions asked in the editor, and the saved session under the editor's id.
 */
export function factorySession(
  kit: Kit,
  provider: Provider,
  models: { model?: string; smallFastModel?: string; choices: string[] },
  home: string,
  trustAll: boolean,
) {
  return async (setup: SessionSetup): Promise<SessionParts> => {
    // The models the editor's selectors switch: each session its own, sent through a provider that reads them.
    const control = models.model
      ? kit.modelControl({ model: models.model, smallFastModel: models.smallFastModel }, models.choices)
      : undefined;
    const choice = setup.systemPrompt;
    // An editor opens folders without a terminal to ask in: a folder the person trusted in npm run agent (or every
    // folder, with --trust-workspace) acts; any other starts without its hooks, servers and raised settings, and the
    // warnings below say so. (session/request_permission is a question about a tool call, and there is no session
    // yet to attach it to: the editor would show a question about nothing.)
    const trust = trustAll
      ? { trusted: true, servers: 'all' as const }
      : (kit.rememberedTrust(home, setup.cwd) ?? { trusted: false });
    const built = await kit.buildAgent({
      cwd: setup.cwd,
      home,
      env: process.env,
      provider: control ? kit.switchableProvider(provider, control, models.smallFastModel) : provider,
      models: { model: models.model, smallFastModel: models.smallFastModel },
      options: {
        // session/fork: the source's id goes to --resume, and --fork-session copies it under the new id (sessionId).
        resume: setup.forkedFrom ?? (setup.resume ? setup.sessionId : undefined),
        forkSession: setup.forkedFrom !== undefined,
        systemPrompt: choice && 'replace' in choice ? choice.replace : undefined,
        appendSystemPrompt: choice && 'append' in choice ? choice.append : undefined,
      },
      settings: await kit.loadAgentSettings(setup.cwd, home),
      trust,
      mcpServers: setup.mcpServers,
      ask: setup.ask,
      approvePlan: setup.approvePlan,
      clientTools: setup.tools,
      sessionId: setup.sessionId,
      report: (text) => note(`(session ${setup.sessionId}: ${text})`),
      sandbox: kit.sandboxFor(),
    });
    for (const warning of built.warnings)
      note(`(session ${setup.sessionId}: ${kit.redactCredentials(warning, kit.secretsOf(process.env))})`);
    const commands = await customCommands(kit, setup, home, trust.trusted);
    return {
      agent: built.agent,
      control: built.gate,
      saved: built.session,
      cleanup: built.close,
      sessionHooks: built.sessionHooks,
      models: control,
      trusted: trust.trusted,
      commands,
    };
  };
}

/**
 * Chapter 15's custom commands for a session: the person's (~/.claude/commands), and the project's only when the
 * person trusts the folder (a command file is a prompt someone else wrote). Each file is read by chapter 15's
 * loadCustomCommands with the safe-file rules (a regular file inside its folder, size-limited); a file it refuses
 * is a note on stderr.
 */
async function customCommands(
  kit: Kit,
  setup: SessionSetup,
  home: string,
  trusted: boolean,
): Promise<SessionCommand[]> {
  const loaded = await kit.loadCustomCommands({ cwd: setup.cwd, home });
  for (const problem of loaded.problems) note(`(session ${setup.sessionId}: ${problem.file}: ${problem.message})`);
  const usable = loaded.commands.filter((command) => trusted || command.scope === 'user');
  const skipped = loaded.commands.length - usable.length;
  if (skipped > 0)
    note(
      `(session ${setup.sessionId}: ${skipped} project command${skipped === 1 ? '' : 's'} of .claude/commands not offered until you trust this folder)`,
    );
  return usable.map((command) => ({
    name: command.name,
    description: command.description,
    hint: command.argumentHint,
    expand: (args: string) => kit.expandCommand(command.template, args),
  }));
}

/**
 * The session factory createAcpAgent calls for session/new, load and resume: `build` makes the session's agent.
 * `closeAll` closes the sessions still open, for the end of the connection.
 */
export function sessionFactory(kit: Kit, build: (setup: SessionSetup) => Promise<SessionParts>) {
  const open = new Set<SessionHandle>();

  async function openSession(setup: SessionSetup): Promise<SessionHandle> {
    const parts = await build(setup);
    const handle = sessionHandle(
      parts.agent,
      parts.control,
      parts.saved,
      kit,
      async () => {
        open.delete(handle);
        await parts.cleanup();
      },
      parts.sessionHooks,
      { models: parts.models, trusted: parts.trusted, commands: parts.commands },
    );
    open.add(handle);
    return handle;
  }

  return { openSession, closeAll: () => Promise.all([...open].map((handle) => handle.close())) };
}

/** The events of `events`, telling `started` of a promise that settles when the run has ended (or was left). */
async function* track<T>(
  events: AsyncIterable<T>,
  started: (ended: Promise<void>) => void,
): AsyncGenerator<T, void, undefined> {
  let ended!: () => void;
  started(new Promise<void>((resolve) => (ended = resolve)));
  try {
    yield* events;
  } finally {
    ended();
  }
}

/** Waits for `promise`, at most `ms` milliseconds. */
async function settled(promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
