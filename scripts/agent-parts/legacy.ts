/**
 * npm run agent before chapter 15: with --starter, until the learner's chapter 15 (the factory, the renderer, the
 * flags) is finished, scripts/agent.ts runs this instead: the kit's own wiring of the learner's chapters 1-14.
 *
 *   npm run agent                          an interactive session (Ctrl-C stops a turn; Ctrl-C at the prompt exits)
 *   npm run agent -- -p "what is in here?" one prompt: the streamed answer and each tool call, then exit
 *
 * Options: --provider anthropic|openai|offline, --model NAME, --cwd DIR, --starter (run your own code from
 * starter/src instead of the reference solution). The provider comes from the environment: ANTHROPIC_API_KEY or
 * ANTHROPIC_AUTH_TOKEN (and ANTHROPIC_BASE_URL, ANTHROPIC_MODEL), else OPENAI_API_KEY (and OPENAI_BASE_URL,
 * OPENAI_MODEL), else the bundled offline provider. The tools work in the folder npm was run from (INIT_CWD).
 *
 * Chapter 12: every session is saved (scripts/agent-parts/session.ts: --list, --resume ID, --continue, /compact, /cost;
 * usage and cost printed at exit), the system prompt comes from the project's CLAUDE.md / AGENTS.md, and Anthropic
 * requests carry prompt-caching breakpoints.
 *
 * The loop is chapter 7's Agent, and everything printed comes from its events. With --starter, where the learner's
 * chapter 7 is unfinished it falls back to chapter 6's StreamingAgent, and where chapter 6 is unfinished to chapter
 * 3's SimpleAgent (whose tool calls are printed from the history once the turn is over).
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
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
  type TodoLike,
} from '../lib/agent-kit.js';
import { callPreview } from '../lib/call-preview.js';
import { interruptHandler, lineReader } from '../lib/line-reader.js';
import { workspaceTrusted } from '../lib/workspace-trust.js';
import { PARTS, type PartOption, type PartResult, type SlashCommand } from './index.js';

type Provider = import('../../solution/src/provider.js').Provider;
type Message = import('../../solution/src/messages.js').Message;
type AgentEvent = import('../../solution/src/agent-events.js').AgentEvent;

const USAGE = `Usage: npm run agent [-- options]

  -p, --prompt TEXT     run one prompt, print the answer and the tool calls, and exit
  --provider NAME       anthropic, openai or offline (default: chosen from the environment)
  --model NAME          the model, instead of ANTHROPIC_MODEL / OPENAI_MODEL
  --cwd DIR             the folder the tools work in (default: where you ran npm)
  --starter             run your own code (starter/src) instead of the reference solution
  --trust-workspace     let the folder's settings allow and set the mode, and start its .mcp.json servers
${PARTS.flatMap((part) => part.options.map(optionLine)).join('\n')}
  -h, --help            this text

Provider from the environment: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (with ANTHROPIC_MODEL, and
ANTHROPIC_BASE_URL for a gateway), else OPENAI_API_KEY (with OPENAI_MODEL, and OPENAI_BASE_URL for Ollama,
vLLM or any compatible server), else a small offline stand-in that needs no network.`;

/** `  --max-parallel N     text`: a help that starts with a placeholder in capitals (N, FILE) names the value. */
function optionLine(option: PartOption): string {
  const [first = '', ...rest] = option.help.split(' ');
  const named = option.value && /^[A-Z]+$/.test(first);
  const left = `--${option.name}${option.value ? ` ${named ? first : 'VALUE'}` : ''}`;
  return `  ${left.padEnd(21)} ${named ? rest.join(' ').trim() : option.help}`;
}

interface Args {
  prompt?: string;
  provider?: ProviderKind;
  model?: string;
  cwd?: string;
  starter: boolean;
  trustWorkspace: boolean;
  help: boolean;
  /** The values of the parts' own options, by option name. */
  parts: Record<string, string | string[] | true | undefined>;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { starter: false, trustWorkspace: false, help: false, parts: {} };
  const partOptions = new Map<string, PartOption>(
    PARTS.flatMap((part) => part.options.map((option) => [`--${option.name}`, option] as const)),
  );
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => optionValue(argv, ++i, arg);
    if (arg === '-p' || arg === '--prompt') args.prompt = value();
    else if (arg === '--provider') args.provider = providerKind(value());
    else if (arg === '--model') args.model = value();
    else if (arg === '--cwd') args.cwd = value();
    else if (arg === '--starter') args.starter = true;
    else if (arg === '--trust-workspace') args.trustWorkspace = true;
    else if (arg === '--solution') args.starter = false;
    else if (arg === '-h' || arg === '--help') args.help = true;
    else if (partOptions.has(arg)) {
      const option = partOptions.get(arg)!;
      if (!option.value) args.parts[option.name] = true;
      else {
        const given = value();
        if (option.choices && !option.choices.includes(given))
          throw new UsageError(`${arg} must be one of ${option.choices.join(', ')} (not "${given}")`);
        const before = args.parts[option.name];
        args.parts[option.name] = option.repeat ? [...(Array.isArray(before) ? before : []), given] : given;
      }
    } else throw new UsageError(`unknown option "${arg}"`);
  }
  return args;
}

// ---------------------------------------------------------------------------------------------------------------

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: string) => (text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const dim = paint('2');
const bold = paint('1');
const red = paint('31');
const yellow = paint('33');
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Writes to stdout and knows whether the cursor is at the start of a line. */
const out = {
  atLineStart: true,
  write(text: string) {
    if (!text) return;
    process.stdout.write(text);
    this.atLineStart = text.endsWith('\n');
  },
  line(text = '') {
    if (!this.atLineStart) this.write('\n');
    this.write(`${text}\n`);
  },
};
const note = (text: string) => process.stderr.write(`${dim(text)}\n`);

/** `glob(pattern: "**\/*")`: the call with its arguments, short. */
function describeCall(name: string, args: unknown): string {
  const parts =
    args && typeof args === 'object' && !Array.isArray(args)
      ? Object.entries(args).map(([key, value]) => `${key}: ${clip(JSON.stringify(value) ?? 'undefined', 60)}`)
      : [clip(JSON.stringify(args) ?? '', 60)];
  return `${name}(${clip(parts.join(', '), 120)})`;
}

/** One line about a tool result: the error, the only line, or how many lines. */
function describeResult(content: string, isError: boolean): string {
  const lines = content.split('\n');
  if (isError) return `error: ${clip(lines[0] ?? '', 100)}`;
  if (lines.length === 1) return clip(lines[0]!, 100) || '(empty)';
  return `${lines.length} lines`;
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * Whether the tree's chapter 7 runs: one offline run of its Agent on a scripted provider, with a tool round and a
 * hook. Returns the first unfinished stub it reached (any chapter), or undefined when the run ended with an answer.
 */
async function firstTodoOfAgent(kit: Kit): Promise<TodoLike | undefined> {
  kit.todoHits.length = 0;
  try {
    const probe = kit.defineTool({
      name: 'probe',
      description: 'A probe',
      input: z.object({}),
      execute: async () => 'ok',
    });
    const provider = new kit.MockProvider([
      kit.assistantToolCalls([{ id: 'p1', name: 'probe', arguments: {} }], 'Probing. '),
      kit.assistantText('ok'),
    ]);
    const agent = new kit.Agent({
      provider,
      tools: new kit.ToolSet([probe]),
      cwd: process.cwd(),
      hooks: { afterToolCall: () => undefined },
    });
    const done = await kit.drain(agent.run([kit.userMessage('probe')]));
    const hit = kit.todoHits[0];
    if (hit) return hit;
    return done.reason === 'end_turn'
      ? undefined
      : { name: 'TodoError', chapter: 7, stub: `Agent.run (a test run ended with ${done.reason})` };
  } catch (error) {
    return isTodo(error)
      ? error
      : {
          name: 'TodoError',
          chapter: 7,
          stub: `Agent.run (${error instanceof Error ? error.message : String(error)})`,
        };
  } finally {
    kit.todoHits.length = 0;
  }
}

/** Prints what a SimpleAgent run added to the history: each turn's text, its calls and their results. */
function printRounds(messages: readonly Message[]): void {
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const block of message.content) {
        if (block.type === 'text' && block.text) out.line(block.text);
        if (block.type === 'tool_call') out.line(bold(`● ${describeCall(block.name, block.arguments)}`));
      }
    } else if (message.role === 'tool') out.line(dim(`  ⎿ ${describeResult(message.content, message.isError)}`));
  }
}

/** The whole program, before chapter 15: the exit code. */
export async function legacyMain(argv: string[]): Promise<number> {
  const args = commandLine(argv, parseArgs, USAGE);
  if (typeof args === 'number') return args;
  const base = process.env.INIT_CWD ?? process.cwd();
  const cwd = path.resolve(base, args.cwd ?? '.');
  const tree = sourceTree(args.starter);
  const loaded = await load(tree.src);
  const { kit } = loaded;
  const kind = args.provider ?? providerFromEnv(process.env);

  let provider: Provider;
  let label: string;
  let tools: ReturnType<Kit['builtinTools']>;
  try {
    ({ provider, label } = makeProvider(kind, loaded, {
      model: args.model,
      offlineDelayMs: process.stdout.isTTY ? 8 : 0,
    }));
    tools = kit.builtinTools();
  } catch (error) {
    if (isTodo(error)) process.stderr.write(`${todoAdvice(error)}\n`);
    else if (error instanceof Error && error.name === 'ProviderConfigError') {
      process.stderr.write(`${error.message}\nOr choose another provider with --provider (offline needs no key).\n`);
    } else process.stderr.write(`${red('error:')} ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }

  // One reader of stdin for both the prompts and the parts' questions (a permission prompt in the middle of a run).
  const reader = lineReader();
  const ask = async (question: string, signal?: AbortSignal): Promise<string | undefined> => {
    if (!reader.interactive) return undefined;
    out.line(question);
    return reader.next(signal);
  };

  const system =
    `You are a coding agent in a terminal, working in the folder ${cwd}. Paths are relative to it. ` +
    'Look at files with the tools before you answer questions about them. Keep answers short and concrete.';
  const options = { provider, tools, cwd, system };
  const streaming = new kit.StreamingAgent(options);
  const simple = new kit.SimpleAgent(options);
  const todo = tree.own ? await firstTodoOfAgent(kit) : undefined;
  let loop: 'agent' | 'streaming' | 'simple' = todo ? 'streaming' : 'agent';

  note(`agent · ${label} · ${tree.label} · workspace ${cwd}`);
  if (todo?.chapter === 7)
    note(
      `(events, hooks and cancellation are chapter 7, not finished yet (${todo.stub}): using the streaming loop of chapter 6)`,
    );

  // The later chapters' parts, on chapter 7's seams. With --starter, a part whose chapter is unfinished is left out.
  const parts: PartResult[] = [];
  const home = process.env.HOME || homedir();
  const trusted = workspaceTrusted(home, cwd, args.trustWorkspace);
  if (loop === 'agent') {
    let partProvider = provider;
    const partTools = [...tools];
    for (const part of PARTS) {
      kit.todoHits.length = 0;
      try {
        const result = await part.setup({
          kit,
          load: (relative) => import(pathToFileURL(path.join(tree.src, relative)).href),
          own: tree.own,
          cwd,
          env: process.env,
          home,
          trusted,
          model: (provider as { model?: string }).model,
          smallFastModel: (provider as { smallFastModel?: string }).smallFastModel,
          system,
          options: Object.fromEntries(part.options.map((option) => [option.name, args.parts[option.name]])),
          provider: partProvider,
          tools: partTools,
          note,
          ask,
          line: (text) => out.line(text),
          earlier: [...parts],
          paint: { dim, bold, red, yellow },
        });
        const hit = kit.todoHits[0];
        if (hit && tree.own) throw hit;
        if (!result) continue;
        parts.push(result);
        if (result.provider) partProvider = result.provider;
        if (result.tools) partTools.push(...result.tools);
        if (result.banner) note(result.banner);
      } catch (error) {
        if (tree.own && isTodo(error))
          note(`(${part.name} is chapter ${error.chapter}, not finished yet (${error.stub}): running without it)`);
        else {
          process.stderr.write(
            `${red('error:')} ${part.name}: ${error instanceof Error ? error.message : String(error)}\n`,
          );
          for (const done of parts) await done.close?.();
          return 2;
        }
      } finally {
        kit.todoHits.length = 0;
      }
    }
    Object.assign(options, { provider: partProvider, tools: new kit.ToolSet(partTools) });
    const exit = parts.find((part) => part.exitCode !== undefined);
    if (exit) {
      for (const done of parts) await done.close?.().catch(() => undefined);
      return exit.exitCode!;
    }
    const chosen = parts.reduce<string | undefined>((text, part) => part.system ?? text, undefined);
    if (chosen !== undefined) options.system = chosen;
  }
  const hooks = parts.flatMap((part) => (part.hooks ? [part.hooks] : []));
  const executor = parts.reduce<PartResult['executor']>((chosen, part) => part.executor ?? chosen, undefined);
  const agent = loop === 'agent' ? new kit.Agent({ ...options, hooks, executor }) : undefined;
  // A part that keeps the history (a saved session) gives the array the agent runs on.
  const kept = parts.find((part) => part.history)?.history;
  const history: Message[] = kept ?? [];
  const commands = new Map<string, SlashCommand>(
    parts.flatMap((part) => (part.commands ?? []).map((command) => [command.name, command] as const)),
  );
  const closeParts = async () => {
    for (const part of parts) await part.close?.().catch(() => undefined);
  };

  /** Prints which stub a tool reached (a tool's TodoError becomes an error result, so the loop goes on). */
  const reportTodos = () => {
    const hit = kit.todoHits[0];
    kit.todoHits.length = 0;
    if (hit) out.line(red(todoAdvice(hit)));
  };

  /** Prints one event of chapter 7's Agent: text as it comes, a ● line as each call starts, a ⎿ line for its result. */
  const shown = new Map<string, Extract<AgentEvent, { type: 'tool_call_requested' }>>();
  const showCall = (callId: string, args?: unknown) => {
    const call = shown.get(callId);
    if (!call) return;
    shown.delete(callId);
    out.line(bold(`● ${describeCall(call.name, args === undefined ? call.arguments : args)}`));
  };
  const preview = callPreview(
    { write: (text) => process.stdout.write(text), lineBreak: () => void (out.atLineStart || out.write('\n')), dim },
    Boolean(process.stdout.isTTY),
  );
  const render = (event: AgentEvent) => {
    if (preview(event)) return;
    for (const part of parts) {
      const line = part.render?.(event);
      if (line !== undefined) out.line(line);
    }
    switch (event.type) {
      case 'text_delta':
        return out.write(event.text);
      case 'thinking_delta':
        return out.write(dim(event.thinking));
      case 'tool_call_requested':
        shown.set(event.callId, event);
        return;
      case 'tool_call_decided':
        return showCall(event.callId, event.decision.type === 'change' ? event.decision.arguments : undefined);
      case 'tool_result':
        showCall(event.callId);
        return out.line(dim(`  ⎿ ${describeResult(event.content, event.isError)}`));
      default:
        return;
    }
  };

  /** Runs one prompt; returns 'ok', 'aborted' or 'failed'. The history stays valid whatever happens. */
  async function turn(prompt: string, signal: AbortSignal): Promise<'ok' | 'aborted' | 'failed'> {
    const before = history.length;
    history.push(kit.userMessage(prompt));
    kit.todoHits.length = 0;
    if (agent) {
      const done = await kit.drain(agent.run(history, { signal }), render);
      shown.clear();
      for (const part of parts) await part.afterRun?.(done);
      // Nothing happened: forget the prompt (unless a part keeps the history: it has recorded the prompt already).
      if (history.length === before + 1 && !kept) history.pop();
      if (done.reason === 'end_turn') {
        out.line();
        reportTodos();
        return 'ok';
      }
      if (done.reason === 'cancelled') {
        out.line(dim('(stopped)'));
        return 'aborted';
      }
      const hit = kit.todoHits[0];
      kit.todoHits.length = 0;
      out.line(
        hit
          ? red(todoAdvice(hit))
          : `${red(done.reason === 'turn_limit' ? 'stopped:' : 'error:')} ${done.message ?? done.reason}`,
      );
      return 'failed';
    }
    for (;;) {
      try {
        if (loop === 'streaming') {
          await streaming.chat(history, {
            signal,
            onText: (text) => out.write(text),
            onThinking: (text) => out.write(dim(text)),
            onToolCall: (call) => out.line(bold(`● ${describeCall(call.name, call.arguments)}`)),
            onToolResult: (result) => out.line(dim(`  ⎿ ${describeResult(result.content, result.isError)}`)),
          });
        } else {
          const answer = await simple.chat(history);
          printRounds(history.slice(before + 1, -1));
          out.line(answer);
        }
        out.line();
        reportTodos();
        return 'ok';
      } catch (error) {
        if (loop === 'streaming' && tree.own && isTodo(error) && error.chapter === 6 && history.length === before + 1) {
          out.line(
            dim('(streaming is chapter 6, not finished yet: using the plain loop of chapter 3, without streaming)'),
          );
          kit.todoHits.length = 0;
          loop = 'simple';
          continue;
        }
        if (loop === 'simple') printRounds(history.slice(before + 1));
        if (history.length === before + 1) history.pop(); // nothing happened: forget the prompt
        if (signal.aborted) {
          out.line(dim('(stopped)'));
          return 'aborted';
        }
        out.line(
          isTodo(error)
            ? red(todoAdvice(error))
            : `${red('error:')} ${error instanceof Error ? error.message : String(error)}`,
        );
        return 'failed';
      }
    }
  }

  // Ctrl-C: the first stops the running turn; a second one (while it stops, or within 1.5 s), or one at the
  // prompt, exits.
  let controller: AbortController | undefined;
  const interrupt = interruptHandler(
    () => controller,
    () => {
      out.line();
      process.exit(130);
    },
  );

  /** `/name args`: a part's command, or /help. */
  async function slashCommand(text: string): Promise<void> {
    const [word = '', ...rest] = text.slice(1).split(/\s+/);
    const command = commands.get(word);
    if (!command) {
      const known = [...commands.values()].map((c) => `  /${c.name.padEnd(10)}${c.help}`).join('\n');
      out.line(
        word === 'help' ? known || 'No commands.' : `Unknown command /${word}.${known ? ` Commands:\n${known}` : ''}`,
      );
      return;
    }
    controller = new AbortController();
    try {
      await command.run(rest.join(' '), controller.signal);
    } catch (error) {
      out.line(`${red('error:')} /${word}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      controller = undefined;
    }
  }

  process.on('SIGINT', interrupt);
  if (args.prompt !== undefined) {
    controller = new AbortController();
    const outcome = await turn(args.prompt, controller.signal);
    await closeParts();
    return outcome === 'ok' ? 0 : outcome === 'aborted' ? 130 : 1;
  }

  const rl = reader.open(interrupt);
  note('Type a request. Ctrl-C stops a turn; Ctrl-C at the prompt (or Ctrl-D) exits.');
  rl.setPrompt(bold('> '));
  for (;;) {
    // Once stdin has ended (a script piped its lines), lines already read are still taken, without a prompt: Node 24's
    // readline throws on prompt() after close, where Node 20 did nothing.
    if (reader.interactive) rl.prompt();
    const line = await reader.next();
    if (line === undefined) break;
    const prompt = line.trim();
    if (prompt.startsWith('/') && loop === 'agent') {
      await slashCommand(prompt);
      continue;
    }
    if (prompt) {
      controller = new AbortController();
      await turn(prompt, controller.signal);
      controller = undefined;
    }
  }
  out.line();
  await closeParts();
  return 0;
}
