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
 * ~/.coding-agent/sessions (12). For a learner's tree whose chapter 15 is not finished yet, it wires the parts the
 * tree has itself (partsSession).
 *
 * Options: --provider anthropic|openai|offline, --model NAME, --starter (serve your own code from starter/src; a
 * chapter you have not finished is left out with a note, or answered as an error that says which chapter to finish).
 * KIT_SRC=<dir> serves any source tree (the kit's tests).
 */
import * as acp from '@agentclientprotocol/sdk';
import { Console } from 'node:console';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { DEFAULT_MAX_RETRIES, DEFAULT_MAX_WAIT_S, retryLine } from './agent-parts/retries.js';
import {
  capstoneTodo,
  commandLine,
  isTodo,
  load,
  makeProvider,
  optionValue,
  providerFromEnv,
  providerKind,
  sourceTree,
  todoAdvice,
  UsageError,
  type Kit,
  type ProviderKind,
} from './lib/agent-kit.js';
import { ROOT } from './lib/paths.js';
import type { AcpServer, SessionHandle, SessionSetup } from '../solution/src/acp/index.js';
import type { AgentEvent } from '../solution/src/agent-events.js';
import type { Hooks } from '../solution/src/hooks.js';
import type { Agent } from '../solution/src/loop.js';
import type { McpServers } from '../solution/src/mcp/index.js';
import type { PermissionGate } from '../solution/src/permissions/index.js';
import type { ModeControl } from '../solution/src/planning/index.js';
import type { ModelControl, SessionCommand } from '../solution/src/acp/index.js';
import type { Provider } from '../solution/src/provider.js';
import type { OpenSession } from '../solution/src/session/index.js';
import type { Tool } from '../solution/src/tool.js';
import type { SessionHooks } from '../solution/src/capstone/index.js';
import { workspacePermissions, workspaceTrusted } from './lib/workspace-trust.js';
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

/** The model's context window for usage_update, the size at which a session is compacted, a tool result's limit. */
const CONTEXT_WINDOW = 200_000;
const COMPACT_AT = 150_000;
const OUTPUT_BUDGET = 30_000;
/** How long closing a session waits for its cancelled run to end. */
const CLOSE_WAIT_MS = 5000;

/** A note for the person reading the editor's log: stderr, never stdout. */
const note = (text: string) => process.stderr.write(`${text}\n`);

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
// The parts, and whether the tree has finished them.

type PartName = 'retries' | 'mcp' | 'permissions' | 'planning' | 'executor' | 'sessions';

/** A hook context for a probe. */
const probeContext = (kit: Kit) => ({
  signal: new AbortController().signal,
  turn: 1,
  history: [],
  emit: () => {},
  tools: new kit.ToolSet(),
});
const probeCall = { type: 'tool_call' as const, id: 'probe', name: 'bash', arguments: { command: 'ls && rm probe' } };

/**
 * One quick pass through each part's stubs, in a throw-away folder: with --starter, a chapter the learner has not
 * finished throws its TodoError here, at start-up, and not in the middle of someone's prompt.
 */
const PROBES: Record<PartName, (kit: Kit, dir: string) => Promise<unknown>> = {
  async retries(kit) {
    let calls = 0;
    const overloadedOnce: Provider = {
      name: 'probe',
      async complete() {
        if (calls++ % 2 === 0)
          throw Object.assign(new Error('overloaded'), { status: 529, headers: { 'retry-after': '0' } });
        return kit.assistantText('ok');
      },
    };
    const retried = kit.withRetries(overloadedOnce, { baseDelayMs: 0, maxDelayMs: 0 });
    await retried.complete({ messages: [], tools: [] });
    for await (const _event of retried.stream({ messages: [], tools: [] }));
  },
  async mcp(kit) {
    const hub = await kit.McpServers.start({});
    await hub.refreshTools({ messages: [], tools: [] }, probeContext(kit));
  },
  async permissions(kit, dir) {
    await kit.loadSettings(dir, dir);
    const rules = [kit.parseRule('Bash(npm test:*)', 'allow', 'probe')];
    const gate = kit.createPermissionGate({
      workspace: { root: dir, home: dir },
      rules,
      ask: async () => 'reject_once',
    });
    await gate.beforeToolCall(probeCall, probeContext(kit));
  },
  async planning(kit) {
    const request = kit.planRequest({ messages: [], tools: [] }, 'plan');
    kit.planDecision(probeCall, probeContext(kit).tools, 'plan');
    kit.todoProblems([]);
    kit.childTools(
      {
        makeChild: () => {
          throw new Error('not used');
        },
        tools: () => [],
      },
      0,
    );
    return request;
  },
  async executor(kit, dir) {
    const context = probeContext(kit);
    kit.runsInParallel(probeCall, context.tools);
    await kit
      .parallelExecutor()(
        [],
        async function* () {
          return undefined;
        },
        { ...context, record: () => {} },
      )
      .next();
    await kit
      .outputBudget({ cwd: dir, maxChars: 1000 })
      .afterToolCall?.(probeCall, kit.toolResult(probeCall, 'ok'), context);
  },
  async sessions(kit, dir) {
    kit.buildSystemPrompt({ cwd: dir, home: dir });
    kit.costOf(kit.noUsage(), kit.priceFor('probe'));
    await kit
      .compactionHook({ provider: { name: 'probe', complete: async () => kit.assistantText('') }, threshold: 1e9 })
      .beforeModelCall?.({ messages: [], tools: [] }, probeContext(kit));
    const store = new kit.SessionStore({ home: dir, cwd: dir });
    const open = store.create();
    open.session.messages.push(kit.userMessage('probe'));
    open.recorder.record({ type: 'done', reason: 'end_turn', turns: 1, text: '', usage: kit.noUsage() });
    open.close();
    store.resume(open.session.id).close();
    store.list();
  },
};

/** The parts the tree can run: all of them for the reference; for the learner's tree, those whose probe passes. */
async function availableParts(kit: Kit, own: boolean): Promise<Set<PartName>> {
  const names = Object.keys(PROBES) as PartName[];
  if (!own) return new Set(names);
  const dir = mkdtempSync(path.join(tmpdir(), 'acp-probe-'));
  const ready = new Set<PartName>();
  try {
    for (const name of names) {
      kit.todoHits.length = 0;
      try {
        await PROBES[name](kit, dir);
        if (kit.todoHits[0]) throw kit.todoHits[0];
        ready.add(name);
      } catch (error) {
        const why = isTodo(error)
          ? `chapter ${error.chapter} is not finished yet (${error.stub})`
          : `it failed: ${error instanceof Error ? error.message : String(error)}`;
        note(`(${name}: ${why}; serving without it)`);
      }
    }
  } finally {
    kit.todoHits.length = 0;
    rmSync(dir, { recursive: true, force: true });
  }
  return ready;
}

// ---------------------------------------------------------------------------------------------------------------
// One session's agent.

interface Shared {
  kit: Kit;
  parts: Set<PartName>;
  /** The provider every session uses (retried when chapter 10 is in), and its models. */
  provider: Provider;
  model?: string;
  smallFastModel?: string;
  home: string;
  /** --trust-workspace: every folder's settings may act (else only folders the person trusted in npm run agent). */
  trustAll: boolean;
}

/** A mode control without a gate (chapter 8 not finished): it only remembers the mode. */
function heldMode(): ModeControl {
  let mode: ModeControl['mode'] = 'default';
  return {
    get mode() {
      return mode;
    },
    setMode: (next) => void (mode = next),
  };
}

/** The built-in tools, each replaced by the client's tool of the same name (its files, through the editor). */
function builtinTools(kit: Kit, setup: SessionSetup): Tool[] {
  const client = new Map(setup.tools.map((tool) => [tool.name, tool]));
  return [...kit.builtinTools()].map((tool) => client.get(tool.name) ?? tool);
}

/** Chapter 8's gate: the project's settings (rules and defaultMode), questions asked in the editor. */
async function permissionGate(shared: Shared, setup: SessionSetup) {
  // An untrusted folder's settings may add questions, never remove them (scripts/lib/workspace-trust.ts).
  const trusted = workspaceTrusted(shared.home, setup.cwd, shared.trustAll);
  const settings = workspacePermissions(await shared.kit.loadSettings(setup.cwd, shared.home), {
    home: shared.home,
    cwd: setup.cwd,
    trusted,
  });
  for (const line of settings.notes) note(`(session ${setup.sessionId}: ${line})`);
  return shared.kit.createPermissionGate({
    workspace: { root: setup.cwd, home: shared.home },
    rules: settings.rules,
    mode: settings.defaultMode ?? 'default',
    ask: setup.ask,
  });
}

/** Chapter 11: the client's MCP servers, started together; one that fails is a note, not the session's end. */
async function mcpServers(shared: Shared, setup: SessionSetup): Promise<McpServers | undefined> {
  if (Object.keys(setup.mcpServers).length === 0) return undefined;
  const hub = await shared.kit.McpServers.start(setup.mcpServers, { ask: setup.ask }); // a server's question goes to the editor too
  for (const failure of hub.failures) note(`mcp: ${failure.name} failed: ${failure.error}`);
  return hub;
}

/** Chapter 13: the task list, exit_plan_mode answered in the editor, and sub-agents built like the session's agent. */
function planningTools(
  shared: Shared,
  setup: SessionSetup,
  control: ModeControl,
  childHooks: Hooks[],
  tools: () => Tool[],
): Tool[] {
  const { kit } = shared;
  const task = kit.createTaskTool({
    tools,
    makeChild: (spec) =>
      new kit.Agent({
        provider: shared.provider,
        tools: spec.tools,
        cwd: setup.cwd,
        system: spec.system,
        maxTurns: spec.maxTurns,
        hooks: childHooks,
      }),
  });
  // A child's calls go through the same gate, so the task call itself is not asked about (as in npm run agent).
  return [kit.todoWriteTool(), kit.exitPlanModeTool(control, setup.approvePlan), { ...task, readOnly: true }];
}

/** Chapter 12's system prompt: the kit's base (or the client's replacement), CLAUDE.md / AGENTS.md, the client's addition. */
function systemPrompt(shared: Shared, setup: SessionSetup): string {
  const choice = setup.systemPrompt;
  const replace = choice && 'replace' in choice ? choice.replace : undefined;
  const append = choice && 'append' in choice ? choice.append : undefined;
  if (!shared.parts.has('sessions'))
    return [replace ?? shared.kit.basePrompt(setup.cwd), ...(append ? [append] : [])].join('\n\n');
  const prompt = shared.kit.buildSystemPrompt({ cwd: setup.cwd, home: shared.home, replace, append });
  for (const warning of prompt.warnings) note(`(system prompt: ${warning})`);
  return prompt.text;
}

/** Chapter 12's saved session: a new one under the client's id, or the saved one to continue (resume). */
function savedSession(shared: Shared, setup: SessionSetup): OpenSession {
  const store = new shared.kit.SessionStore({
    home: shared.home,
    cwd: setup.cwd,
    secrets: shared.kit.secretsOf(process.env),
    newId: () => setup.sessionId,
  });
  const open = setup.resume ? store.resume(setup.sessionId) : store.create(shared.model);
  for (const warning of open.warnings) note(`(session ${setup.sessionId}: ${warning})`);
  if (shared.model) open.session.model = shared.model; // usage from now on is priced at the model in use
  return open;
}

/** The run's events as they are, with a note on stderr for each retry and for a stub a tool reached. */
async function* withNotes(events: AsyncIterable<AgentEvent>, kit: Kit): AsyncGenerator<AgentEvent, void, undefined> {
  for await (const event of events) {
    if (event.type === 'retry') note(`retry: ${retryLine(event)}`);
    if (event.type === 'done' && kit.todoHits[0]) note(todoAdvice(kit.todoHits[0]));
    if (event.type === 'done') kit.todoHits.length = 0;
    yield event;
  }
}

/** Chapter 7's Agent for one session, with the parts this tree has, on the session's gate (or mode) and servers. */
async function sessionAgent(
  shared: Shared,
  setup: SessionSetup,
  gate: PermissionGate | undefined,
  control: ModeControl,
  hub: McpServers | undefined,
) {
  const { kit, parts } = shared;
  const tools: Tool[] = [...builtinTools(kit, setup), ...((await hub?.tools()) ?? [])];
  const hooks: Hooks[] = [...(hub ? [hub.hooks()] : []), ...(gate ? [gate] : [])];
  if (parts.has('planning')) {
    const childHooks = [...hooks, kit.planModeHooks(control)];
    tools.push(...planningTools(shared, setup, control, childHooks, () => tools));
    hooks.push(kit.planModeHooks(control));
  }
  if (parts.has('executor')) hooks.push(kit.outputBudget({ cwd: setup.cwd, maxChars: OUTPUT_BUDGET }));
  if (parts.has('sessions'))
    hooks.push(
      kit.compactionHook({ provider: shared.provider, model: shared.smallFastModel, keep: 6, threshold: COMPACT_AT }),
    );
  const executor = parts.has('executor') ? kit.parallelExecutor() : undefined;
  return new kit.Agent({
    provider: shared.provider,
    tools: new kit.ToolSet(tools),
    cwd: setup.cwd,
    system: systemPrompt(shared, setup),
    hooks,
    executor,
  });
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
 * The kit's own wiring of a session, for a tree whose chapter 15 is not finished: a session's gate, saved session
 * and MCP servers, then its agent, from the parts the tree has.
 */
function partsSession(shared: Shared) {
  return async (setup: SessionSetup): Promise<SessionParts> => {
    const { parts } = shared;
    if (setup.resume && !parts.has('sessions'))
      throw new Error('saved sessions are chapter 12, which is not finished in this tree');
    const cleanups: Array<() => unknown> = [];
    const cleanup = async () => {
      for (const step of cleanups) {
        try {
          await step();
        } catch (error) {
          note(
            `error while closing session ${setup.sessionId}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    };
    try {
      const gate = parts.has('permissions') ? await permissionGate(shared, setup) : undefined;
      const control = gate ?? heldMode();
      const saved = parts.has('sessions') ? savedSession(shared, setup) : undefined;
      if (saved) cleanups.push(() => saved.close());
      const hub = parts.has('mcp') ? await mcpServers(shared, setup) : undefined;
      if (hub) cleanups.push(() => hub.close());
      const agent = await sessionAgent(shared, setup, gate, control, hub);
      const trusted = workspaceTrusted(shared.home, setup.cwd, shared.trustAll);
      return { agent, control, saved, cleanup, trusted };
    } catch (error) {
      await cleanup();
      throw error;
    }
  };
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

/**
 * The provider of the flag or the environment, from the tree's code. Retried here when the tree has chapter 10 but
 * not the factory (`factory`: buildAgent wraps it itself).
 */
function chooseProvider(args: Args, loaded: Awaited<ReturnType<typeof load>>, parts: Set<PartName>, factory: boolean) {
  const kind = args.provider ?? providerFromEnv(process.env);
  const chosen = makeProvider(kind, loaded, { model: args.model, offlineDelayMs: 0 });
  const { model, smallFastModel } = chosen.provider as { model?: string; smallFastModel?: string };
  const fallbackModel = smallFastModel && smallFastModel !== model ? smallFastModel : undefined;
  const provider =
    parts.has('retries') && !factory
      ? loaded.kit.withRetries(chosen.provider, {
          maxAttempts: DEFAULT_MAX_RETRIES + 1,
          maxWaitMs: DEFAULT_MAX_WAIT_S * 1000,
          fallbackModel,
        })
      : chosen.provider;
  return { provider, label: chosen.label, model, smallFastModel, kind };
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
  const loaded = await load(tree.src);
  const { kit } = loaded;
  const home = process.env.HOME || homedir();
  // The tree's chapter 15 factory when it is finished; before that, the kit's wiring of the parts the tree has.
  const todo = tree.own ? await capstoneTodo(kit) : undefined;
  if (todo)
    note(
      `(chapter ${todo.chapter} is not finished yet (${todo.stub}): serving your chapters through the kit's own wiring)`,
    );
  const parts = todo ? await availableParts(kit, tree.own) : new Set(Object.keys(PROBES) as PartName[]);
  let chosen: ReturnType<typeof chooseProvider>;
  try {
    chosen = chooseProvider(args, loaded, parts, !todo);
  } catch (error) {
    note(isTodo(error) ? todoAdvice(error) : `error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const build = todo
    ? partsSession({
        kit,
        parts,
        provider: chosen.provider,
        model: chosen.model,
        smallFastModel: chosen.smallFastModel,
        home,
        trustAll: args.trustWorkspace,
      })
    : factorySession(
        kit,
        chosen.provider,
        { model: chosen.model, smallFastModel: chosen.smallFastModel, choices: modelChoices(kit, chosen.kind) },
        home,
        args.trustWorkspace,
      );
  const factory = sessionFactory(kit, build);
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const price = parts.has('sessions') ? kit.priceFor(chosen.model) : undefined;
  const mapError = todoAsRequestError(() => server);
  const sessions = parts.has('sessions') ? kit.savedSessions(home) : undefined;
  const { app, server } = kit.createAcpAgent({
    openSession: factory.openSession,
    sessions,
    imageInput: chosen.provider.imageInput === true,
    name: 'coding-agent',
    version,
    contextWindow: CONTEXT_WINDOW,
    price,
    mapError,
  });
  note(
    `acp · ${chosen.label} · ${tree.label} · ${todo ? [...parts].join(', ') || 'no later parts' : "chapter 15's factory"} · waiting for a client on stdin`,
  );

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
