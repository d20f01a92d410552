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
 *
 * This file reads the command line, chooses the provider and serves; the sessions are built in scripts/acp/sessions.ts,
 * a stub reached while a request is handled is answered by scripts/acp/request-errors.ts, notes go through
 * scripts/acp/notes.ts.
 */
import * as acp from '@agentclientprotocol/sdk';
import { Console } from 'node:console';
import { homedir } from 'node:os';
import { Readable, Writable } from 'node:stream';
import {
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
import { exitOnceWritten, exitWhenStdoutCloses } from './lib/exit.js';
import { kitVersion } from './lib/kit-version.js';
import { agentTree } from './lib/learner-tree.js';
import { note, redactWith } from './acp/notes.js';
import { todoAsRequestError } from './acp/request-errors.js';
import { factorySession, sessionFactory } from './acp/sessions.js';

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
  redactWith((text) => kit.redactCredentials(text, secrets));
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
  const mapError = todoAsRequestError(() => server);
  const { app, server } = kit.createAcpAgent({
    openSession: factory.openSession,
    sessions: kit.savedSessions(home),
    imageInput: chosen.provider.imageInput === true,
    name: 'coding-agent',
    version: kitVersion(),
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

exitWhenStdoutCloses();

const code = await main(process.argv.slice(2));
exitOnceWritten(code);
