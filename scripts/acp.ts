/**
 * npm run acp: the agent as an ACP server over stdio, for editors such as Zed (the guide's chapter 14 page says how
 * to set one up).
 *
 * The editor starts this program and speaks JSON-RPC on its stdin and stdout, so stdout carries protocol frames and
 * nothing else: console output and every note go to stderr. Chapter 14's createAcpAgent serves the protocol; this
 * file gives it `openSession`, which builds each session's agent with chapter 15's factory (buildAgent), the same
 * one `npm run agent` uses: retries (chapter 10), the workspace's .mcp.json and the client's MCP servers (11), the
 * settings' rules and hooks with the permission gate asking in the editor (8, 15), plan mode, the task list and
 * sub-agents (13), the parallel executor (9), the system prompt, compaction and a saved session under
 * ~/.coding-agent/sessions (12). A learner's tree is built the same way at every stage (scripts/lib/learner-tree.ts:
 * the stubs of chapters 6, 7 and 15 not written yet run the kit's code, a chapter of 8-13 not finished is left out).
 *
 * Options: --provider anthropic|openai|offline, --model NAME, --starter (serve your own code from starter/src; a
 * chapter you have not finished is left out with a note, or answered as an error that says which chapter to finish).
 * KIT_SRC=<dir> serves any source tree (the kit's tests).
 */
import * as acp from '@agentclientprotocol/sdk';
import { Console } from 'node:console';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import {
  commandLine,
  isTodo,
  load,
  makeProvider,
  optionValue,
  providerFromEnv,
  providerKind,
  retryLine,
  sourceTree,
  todoAdvice,
  UsageError,
  type Kit,
  type ProviderKind,
} from './lib/agent-kit.js';
import { agentTree } from './lib/learner-tree.js';
import { ROOT } from './lib/paths.js';
import type { AcpServer, SessionHandle, SessionSetup } from '../solution/src/acp/index.js';
import type { AgentEvent } from '../solution/src/agent-events.js';
import type { Agent } from '../solution/src/agent.js';
import type { ModeControl } from '../solution/src/planning/index.js';
import type { ModelControl, SessionCommand } from '../solution/src/acp/index.js';
import type { Provider } from '../solution/src/provider.js';
import type { OpenSession } from '../solution/src/session/index.js';
import type { SessionHooks } from '../solution/src/capstone/index.js';
import { exitOnceWritten } from './lib/exit.js';

// Before anything can print: stdout belongs to the protocol.
routeConsoleToStderr();

const USAGE = `Usage: npm run acp [-- options]

The agent as an ACP server on stdin and stdout, for an editor (Zed: see the guide's chapter 14 page).

  --provider NAME       anthropic, openai or offline (default: chosen from the environment)
  --model NAME          the model, instead of ANTHROPIC_MODEL / OPENAI_MODEL
  --starter             serve your own code (starter/src) instead of the reference solution
  --trust-workspace     trust every folder a session opens: its hooks, .mcp.json servers, settings and
                        .claude/commands may act, and the editor may raise its mode (acceptEdits,
                        bypassPermissions); else only folders trusted in npm run agent
                        (remembered in ~/.coding-agent/trust.json)
  -h, --help            this text

Provider from the environment: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, else OPENAI_API_KEY, else a small offline
stand-in that needs no network. Sessions are saved in ~/.coding-agent/sessions/. Notes go to stderr.`;

/** The model's context window, for usage_update. */
const CONTEXT_WINDOW = 200_000;
/** How long closing a session waits for its cancelled run to end. */
const CLOSE_WAIT_MS = 5000;

/** Takes credentials out of every note (set once the tree's code is loaded: redactCredentials, chapter 15). */
let redact = (text: string) => text;
/** A note for the person reading the editor's log: stderr, never stdout; no credential in it. */
const note = (text: string) => process.stderr.write(`${redact(text)}\n`);

/** Every console method (log, info, debug, warn, table, dir, time...) writes to stderr: nothing but frames on stdout. */
function routeConsoleToStderr(): void {
  Object.assign(console, new Console({ stdout: process.stderr, stderr: process.stderr }));
}

interface Args {
  provider?: ProviderKind;
  model?: string;
  starter: boolean;
  trustWorkspace: boolean;
  help: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { starter: false, trustWorkspace: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => optionValue(argv, ++i, arg);
    if (arg === '--provider') args.provider = providerKind(value());
    else if (arg === '--model') args.model = value();
    else if (arg === '--starter') args.starter = true;
    else if (arg === '--solution') args.starter = false;
    else if (arg === '--trust-workspace') args.trustWorkspace = true;
    else if (arg === '-h' || arg === '--help') args.help = true;
    else throw new UsageError(`unknown option "${arg}"`);
  }
  return args;
}

// ---------------------------------------------------------------------------------------------------------------
// One session's agent, built by chapter 15's factory.

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
function factorySession(
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
        resume: setup.resume ? setup.sessionId : undefined,
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
function sessionFactory(kit: Kit, build: (setup: SessionSetup) => Promise<SessionParts>) {
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

// ---------------------------------------------------------------------------------------------------------------
// The server.

/**
 * A stub the learner has not written yet, thrown while a request is handled, becomes the request's JSON-RPC error,
 * with the same advice as npm run agent (the editor shows it), instead of the SDK's bare "Internal error".
 * (session/cancel is a notification: no answer can carry the error, so the server writes it to stderr.)
 */
function todoAsRequestError(server: () => AcpServer): (error: unknown) => unknown {
  let RequestError: typeof acp.RequestError | undefined;
  return (error) => {
    if (!isTodo(error)) return error;
    RequestError ??= requestErrorOf(server());
    return new RequestError(-32603, todoAdvice(error), { chapter: error.chapter, stub: error.stub });
  };
}

/**
 * The RequestError class of the SDK the tree's server uses: the SDK sends an error's own message only for its own
 * class, and a tree outside the repository (KIT_SRC) may load a copy of the SDK of its own. AcpServer.session (given
 * code, not a stub) throws one for an unknown session.
 */
function requestErrorOf(server: AcpServer): typeof acp.RequestError {
  try {
    server.session('');
  } catch (error) {
    if (error instanceof Error && error.name === 'RequestError') return error.constructor as typeof acp.RequestError;
  }
  return acp.RequestError;
}

/** The provider of the flag or the environment, from the tree's code (chapter 15's factory adds the retries). */
function chooseProvider(args: Args, loaded: Awaited<ReturnType<typeof load>>) {
  const kind = args.provider ?? providerFromEnv(process.env);
  const chosen = makeProvider(kind, loaded, { model: args.model, offlineDelayMs: 0 });
  const { model, smallFastModel } = chosen.provider as { model?: string; smallFastModel?: string };
  return { provider: chosen.provider, label: chosen.label, model, smallFastModel, kind };
}

/** The models an editor may pick for a provider: those of the price table (chapter 12) that provider serves. */
function modelChoices(kit: Kit, kind: ProviderKind): string[] {
  const prefix = kind === 'anthropic' ? 'claude-' : kind === 'openai' ? 'gpt-' : undefined;
  return prefix ? Object.keys(kit.PRICES.models).filter((id) => id.startsWith(prefix)) : [];
}

async function main(argv: string[]): Promise<number> {
  const args = commandLine(argv, parseArgs, USAGE);
  if (typeof args === 'number') return args;
  const tree = sourceTree(args.starter);
  // The learner's tree, with what they have not written yet filled or left out (scripts/lib/learner-tree.ts).
  const filled = tree.own ? agentTree(tree.src) : undefined;
  const loaded = await load(filled?.src ?? tree.src);
  const { kit } = loaded;
  const secrets = kit.secretsOf(process.env);
  redact = (text) => kit.redactCredentials(text, secrets);
  const home = process.env.HOME || homedir();
  let chosen: ReturnType<typeof chooseProvider>;
  try {
    chosen = chooseProvider(args, loaded);
  } catch (error) {
    note(isTodo(error) ? todoAdvice(error) : `error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const build = factorySession(
    kit,
    chosen.provider,
    { model: chosen.model, smallFastModel: chosen.smallFastModel, choices: modelChoices(kit, chosen.kind) },
    home,
    args.trustWorkspace,
  );
  const factory = sessionFactory(kit, build);
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const mapError = todoAsRequestError(() => server);
  const { app, server } = kit.createAcpAgent({
    openSession: factory.openSession,
    sessions: kit.savedSessions(home),
    imageInput: chosen.provider.imageInput === true,
    name: 'coding-agent',
    version,
    contextWindow: CONTEXT_WINDOW,
    price: kit.priceFor(chosen.model),
    mapError,
  });
  note(`acp · ${chosen.label} · ${tree.label} · waiting for a client on stdin`);
  if (filled?.note) note(filled.note);

  const connection = app.connect(
    acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>),
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => connection.close());
  await connection.closed;
  await server.closeAll();
  await factory.closeAll();
  return 0;
}

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const code = await main(process.argv.slice(2));
exitOnceWritten(code);
