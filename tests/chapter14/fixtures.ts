/**
 * Helpers for the chapter 14 tests: a session factory on scripted providers (chapter 7's Agent, chapter 8's gate,
 * chapter 13's plan mode), and an editor: the SDK's own client, connected to the learner's server in-process, that
 * records every update and answers permission questions and file requests as a test tells it.
 */
import * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import type { SessionCommand } from 'kit/acp/commands';
import { modelControl, switchableProvider } from 'kit/acp/config-options';
import { createAcpAgent } from 'kit/acp/app';
import type { AcpServerOptions, SessionHandle, SessionSetup } from 'kit/acp/server';
import { Agent } from 'kit/agent';
import type { Message } from 'kit/messages';
import { MockProvider, type ScriptStep } from 'kit/mock-provider';
import { createPermissionGate } from 'kit/permissions/gate';
import type { PermissionMode } from 'kit/permissions/evaluate';
import { exitPlanModeTool, planModeHooks } from 'kit/planning/plan-mode';
import type { Provider } from 'kit/provider';
import type { StreamEvent } from 'kit/stream-events';
import { defineTool, ToolSet, type Tool } from 'kit/tool';
import { builtinTools } from 'kit/tools/index';
import { HANG_MS, waitUntil } from '../helpers/wait.js';

export type Update = acp.SessionUpdate;

/** A tool that waits until the run is cancelled (or `ms` pass, far beyond any wait of the tests), and says which. */
export const waitTool = (ms = 10 * HANG_MS): Tool =>
  defineTool({
    name: 'wait',
    description: 'Waits',
    input: z.object({}),
    readOnly: true,
    execute: (_input, ctx) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve('waited'), ms);
        ctx.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(ctx.signal!.reason)), { once: true });
      }),
  });

/**
 * A provider that streams `text` and then waits for the run to be cancelled (it throws the signal's reason), on
 * its model call number `holdAt` (from 1); every other call is the mock's.
 */
export function holding(mock: MockProvider, holdAt: number, text = 'Let me think'): Provider & { calls: number } {
  const provider = {
    name: 'holding',
    calls: 0,
    complete: (request: Parameters<Provider['complete']>[0]) => mock.complete(request),
    async *stream(request: Parameters<Provider['complete']>[0]): AsyncIterable<StreamEvent> {
      provider.calls++;
      if (provider.calls !== holdAt) return yield* mock.stream(request);
      yield { type: 'text_delta', index: 0, text };
      await new Promise((_, reject) => {
        const signal = request.signal!;
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    },
  };
  return provider;
}

export interface FactoryOptions {
  /** The script of every session's model (a new MockProvider per session), or a provider per session. */
  script?: ScriptStep[];
  provider?: (setup: SessionSetup) => Provider;
  /** Extra tools besides the built-in ones (after setup.tools took their place). */
  tools?: Tool[];
  mode?: PermissionMode;
  /** Saved histories by session id: what load and resume find. */
  saved?: Map<string, Message[]>;
  /** The sessions' models: each session gets a ModelControl on them, and its provider sends the chosen model. */
  models?: { model: string; smallFastModel?: string; choices?: string[] };
  /** The handle's trusted flag (left out when not given). */
  trusted?: boolean;
  /** The sessions' own slash commands. */
  commands?: SessionCommand[];
}

/**
 * The factory a test server uses: per session an Agent with the built-in tools (setup.tools in place of the ones of
 * the same name), a permission gate asking through setup.ask, plan mode with setup.approvePlan, and the system
 * prompt the setup chooses. Records the setups, the providers, and every session it closed (with its history).
 */
export function testFactory(options: FactoryOptions = {}) {
  const setups: SessionSetup[] = [];
  const providers: Array<MockProvider | Provider> = [];
  const closed: Array<{ id: string; history: Message[] }> = [];
  const saved = options.saved ?? new Map<string, Message[]>();
  const openSession = async (setup: SessionSetup): Promise<SessionHandle> => {
    setups.push(setup);
    // A fork starts from the saved session it copies and is saved under its own id; load and resume from their own.
    const from = setup.forkedFrom ?? setup.sessionId;
    if (setup.resume && !saved.has(from)) throw new Error(`no saved session ${from}`);
    const history = setup.resume ? structuredClone(saved.get(from)!) : [];
    const provider = options.provider ? options.provider(setup) : new MockProvider(options.script ?? []);
    providers.push(provider);
    const models = options.models && modelControl(options.models, options.models.choices);
    const gate = createPermissionGate({
      workspace: { root: setup.cwd, home: setup.cwd },
      ask: setup.ask,
      mode: options.mode ?? 'default',
    });
    const own = new Map(setup.tools.map((tool) => [tool.name, tool]));
    const tools = new ToolSet([
      ...[...builtinTools()].map((tool) => own.get(tool.name) ?? tool),
      ...(options.tools ?? []),
      exitPlanModeTool(gate, setup.approvePlan),
    ]);
    const base = 'You are a test agent.';
    const choice = setup.systemPrompt;
    const system = choice === undefined ? base : 'replace' in choice ? choice.replace : `${base}\n\n${choice.append}`;
    const agent = new Agent({
      provider: models ? switchableProvider(provider, models, options.models?.smallFastModel) : provider,
      tools,
      cwd: setup.cwd,
      system,
      hooks: [gate, planModeHooks(gate)],
    });
    return {
      ...(models ? { models } : {}),
      ...(options.trusted !== undefined ? { trusted: options.trusted } : {}),
      ...(options.commands ? { commands: options.commands } : {}),
      history,
      run: (messages, runOptions) => agent.run(messages, runOptions),
      modes: gate,
      async close() {
        closed.push({ id: setup.sessionId, history: structuredClone(history) });
        saved.set(setup.sessionId, structuredClone(history));
      },
    };
  };
  return { openSession, setups, providers, closed, saved };
}

/** How the test editor answers permission questions: an option id, 'cancelled', or a function of the request. */
export type PermissionReply =
  | string
  | 'cancelled'
  | ((request: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse>);

/** How the test editor's terminal runs a command: what it prints and how it ends. */
export interface TerminalScript {
  output?: string;
  /** The client says it dropped the start of the output. */
  truncated?: boolean;
  exitCode?: number | null;
  signal?: string | null;
  /** The command never ends by itself: wait_for_exit answers only once it is killed (or released). */
  never?: boolean;
  /** This request fails with an internal error. */
  failOn?: 'create' | 'output' | 'wait_for_exit' | 'kill';
}

export interface EditorOptions {
  permission?: PermissionReply;
  /** Offer terminals: each terminal/create runs the script this gives for its request. */
  terminal?: (request: acp.CreateTerminalRequest) => TerminalScript;
  /** Offer fs.readTextFile / fs.writeTextFile, answered from / into `files` (absolute path → text). */
  files?: Map<string, string>;
}

/**
 * A server made by the learner's createAcpAgent with `server` options, and the SDK's client connected to it
 * in-process. `updates` holds every session/update in order; `questions` every permission request.
 */
export function editor(
  server: Partial<AcpServerOptions> & Pick<AcpServerOptions, 'openSession'>,
  options: EditorOptions = {},
) {
  const updates: acp.SessionNotification[] = [];
  const questions: acp.RequestPermissionRequest[] = [];
  const fileRequests: string[] = [];
  /** Every terminal request, in order: `create t1 bash -c <command> in <cwd> limit <n>`, `wait t1`, `output t1`, `kill t1`, `release t1`. */
  const terminalLog: string[] = [];
  const terminals = new Map<string, { script: TerminalScript; ended: () => void; exit: Promise<void> }>();
  let terminalCount = 0;
  const terminalOf = (id: string, what: string) => {
    terminalLog.push(`${what} ${id}`);
    const terminal = terminals.get(id);
    if (!terminal) throw acp.RequestError.invalidParams(undefined, `no terminal ${id} (released already?)`);
    if (terminal.script.failOn === what.replace('wait', 'wait_for_exit'))
      throw acp.RequestError.internalError(undefined, `the editor failed: ${what}`);
    return terminal;
  };
  let counter = 0;
  const { app, server: acpServer } = createAcpAgent({ newId: () => `s${++counter}`, ...server });
  const client = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params))
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      questions.push(params);
      const reply = options.permission ?? 'allow_once';
      if (typeof reply === 'function') return reply(params);
      if (reply === 'cancelled') return { outcome: { outcome: 'cancelled' } };
      return { outcome: { outcome: 'selected', optionId: reply } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      fileRequests.push(
        `read ${params.path}${params.line ? ` line ${params.line}` : ''}${params.limit ? ` limit ${params.limit}` : ''}`,
      );
      const text = options.files?.get(params.path);
      if (text === undefined) throw acp.RequestError.resourceNotFound(params.path);
      const lines = text.split('\n');
      const from = (params.line ?? 1) - 1;
      return { content: lines.slice(from, params.limit ? from + params.limit : undefined).join('\n') };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      fileRequests.push(`write ${params.path}`);
      options.files?.set(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, async ({ params }) => {
      const id = `t${++terminalCount}`;
      terminalLog.push(
        `create ${id} ${params.command} ${(params.args ?? []).join(' ')} in ${params.cwd} limit ${params.outputByteLimit}`,
      );
      const script = options.terminal!(params);
      if (script.failOn === 'create') throw acp.RequestError.internalError(undefined, 'the editor failed: create');
      let ended!: () => void;
      const exit = new Promise<void>((resolve) => (ended = resolve));
      if (!script.never) ended();
      terminals.set(id, { script, ended, exit });
      return { terminalId: id };
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => {
      const terminal = terminalOf(params.terminalId, 'wait');
      await terminal.exit;
      return {
        exitCode: terminal.script.never ? null : (terminal.script.exitCode ?? 0),
        signal: terminal.script.never ? 'SIGKILL' : (terminal.script.signal ?? null),
      };
    })
    .onRequest(acp.methods.client.terminal.output, async ({ params }) => {
      const terminal = terminalOf(params.terminalId, 'output');
      return { output: terminal.script.output ?? '', truncated: terminal.script.truncated ?? false };
    })
    .onRequest(acp.methods.client.terminal.kill, async ({ params }) => {
      terminalOf(params.terminalId, 'kill').ended();
      return {};
    })
    .onRequest(acp.methods.client.terminal.release, async ({ params }) => {
      terminalLog.push(`release ${params.terminalId}`);
      terminals.get(params.terminalId)?.ended();
      terminals.delete(params.terminalId);
      return {};
    });
  const connection = client.connect(app);
  const agent = connection.agent;
  const capabilities: acp.ClientCapabilities = {
    ...(options.files ? { fs: { readTextFile: true, writeTextFile: true } } : {}),
    ...(options.terminal ? { terminal: true } : {}),
  };
  return {
    agent,
    connection,
    server: acpServer,
    updates,
    questions,
    fileRequests,
    terminalLog,
    /** The terminals not released yet. */
    openTerminals: () => [...terminals.keys()],
    /** initialize then session/new in `cwd`; returns the new session's response. */
    async open(cwd: string, extra: Partial<acp.NewSessionRequest> = {}) {
      await agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: capabilities,
      });
      return agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [], ...extra });
    },
    /** session/prompt with one text block. */
    prompt(sessionId: string, text: string) {
      return agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
    },
    /**
     * The updates of session `sessionId` (all sessions when omitted), in order, without available_commands_update
     * (sent once a session is open, after its answer: when it lands among the others is not the test's business).
     */
    of(sessionId?: string): Update[] {
      return this.all(sessionId).filter((update) => update.sessionUpdate !== 'available_commands_update');
    },
    /** Every update of session `sessionId` (all sessions when omitted), in order. */
    all(sessionId?: string): Update[] {
      return updates.filter((n) => sessionId === undefined || n.sessionId === sessionId).map((n) => n.update);
    },
    close: () => connection.close(),
  };
}

/** Short lines for updates, to compare sequences: `tool_call c1 read pending`, `message "Hi"`. */
export function brief(updates: readonly Update[]): string[] {
  return updates.map((u) => {
    switch (u.sessionUpdate) {
      case 'agent_message_chunk':
      case 'agent_thought_chunk':
      case 'user_message_chunk':
        return `${u.sessionUpdate.replace('_chunk', '')} ${JSON.stringify(u.content.type === 'text' ? u.content.text : u.content.type)}`;
      case 'tool_call':
        return `tool_call ${u.toolCallId} ${u.kind} ${u.status}`;
      case 'tool_call_update':
        return `tool_call_update ${u.toolCallId} ${u.status ?? '(no status)'}`;
      case 'plan':
        return `plan ${u.entries.map((e) => `${e.status}:${e.content}`).join(', ')}`;
      case 'current_mode_update':
        return `mode ${u.currentModeId}`;
      case 'usage_update':
        return `usage ${u.used}/${u.size}`;
      default:
        return u.sessionUpdate;
    }
  });
}

/** Waits until `check` is true; fails with `message` once only a hang would still be waiting (HANG_MS). */
export async function until(check: () => boolean, message: string, ms = HANG_MS): Promise<void> {
  await waitUntil(check, message, ms);
}
