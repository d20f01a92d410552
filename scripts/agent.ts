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
 * the project's .claude/commands take part. This file is the plumbing around them: the provider, the terminal (line
 * editing, questions, Ctrl-C), the slash commands and the exit code (0 done, 1 a failed run, 2 bad usage, 130
 * interrupted).
 *
 * With --starter it runs the learner's code (starter/src), built the same way at every stage of the course: the stubs
 * of chapters 6, 7 and 15 they have not written run the kit's code, and a chapter of 8-13 they have not finished is left
 * out of the agent (scripts/lib/learner-tree.ts); one line under the banner says which.
 */
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import {
  isTodo,
  load,
  makeProvider,
  providerFromEnv,
  sessionCostText,
  sourceTree,
  todoAdvice,
  type Kit,
  type LoadedTree,
} from './lib/agent-kit.js';
import { callPreview } from './lib/call-preview.js';
import { interruptHandler, lineReader } from './lib/line-reader.js';
import { redactingWriter } from './lib/redacting-writer.js';
import { type AgentTree, agentTree } from './lib/learner-tree.js';
import { ROOT } from './lib/paths.js';
import { exitOnceWritten } from './lib/exit.js';

type AgentEvent = import('../solution/src/agent-events.js').AgentEvent;
type DoneEvent = import('../solution/src/agent-events.js').DoneEvent;
type Usage = import('../solution/src/messages.js').Usage;
type CliOptions = import('../solution/src/capstone/flags.js').CliOptions;
type BuiltAgent = import('../solution/src/capstone/factory.js').BuiltAgent;
type FactoryConfig = import('../solution/src/capstone/factory.js').FactoryConfig;
type CustomCommand = import('../solution/src/capstone/custom-commands.js').CustomCommand;
type PermissionMode = import('../solution/src/permissions/evaluate.js').PermissionMode;
type WorkspaceTrust = import('../solution/src/capstone/trust.js').WorkspaceTrust;
type AgentSettings = import('../solution/src/capstone/trust.js').AgentSettings;

/** How often Stop hooks may send one prompt's run back to work: a hook that always asks must not loop forever. */
const MAX_STOP_CONTINUATIONS = 5;

/** Takes credentials out of what is printed (set once the tree's code is loaded: redactCredentials, chapter 15). */
let redact = (text: string) => text;
/** stdout, redacted as it streams: a credential split over two chunks is still caught (scripts/lib/redacting-writer.ts). */
const stdout = redactingWriter(
  (text) => process.stdout.write(text),
  () => redact,
);
const note = (text: string) => {
  stdout.flush();
  process.stderr.write(`${redact(text)}\n`);
};
const out = (text: string) => stdout.write(text);

/** The person's answer to "approve the plan?", read from one line: y (default mode), a (accept edits), else keep planning. */
function readPlanAnswer(line: string): 'default' | 'acceptEdits' | undefined {
  const answer = line.trim().toLowerCase();
  if (answer === 'y' || answer === 'yes') return 'default';
  if (answer === 'a' || answer === 'accept') return 'acceptEdits';
  return undefined;
}

/** `--starter` or `--solution`, whichever comes last (before `--`), read before the tree's own parser is loaded. */
function wantsStarter(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  return words.lastIndexOf('--starter') > words.lastIndexOf('--solution');
}

async function main(argv: string[]): Promise<number> {
  const tree = sourceTree(wantsStarter(argv));
  // The learner's tree, with what they have not written yet filled or left out (scripts/lib/learner-tree.ts).
  const filled = tree.own ? agentTree(tree.src) : undefined;
  return capstone(argv, tree, await load(filled?.src ?? tree.src), filled);
}

/** The program, on chapter 15's parts of the tree (`filled`: what of a learner's tree was filled or left out). */
async function capstone(
  argv: string[],
  tree: ReturnType<typeof sourceTree>,
  loaded: LoadedTree,
  filled?: AgentTree,
): Promise<number> {
  const { kit } = loaded;
  let options: CliOptions;
  try {
    options = kit.parseFlags(argv);
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'UsageError') throw error;
    process.stderr.write(`${error.message}\n\n${kit.USAGE}\n`);
    return 2;
  }
  if (options.help) {
    out(`${kit.USAGE}\n`);
    return 0;
  }
  if (options.version) {
    out(`${kitVersion()} (coding-agent kit)\n`);
    return 0;
  }
  const env = process.env;
  const secrets = kit.secretsOf(env);
  redact = (text) => kit.redactCredentials(text, secrets);
  const base = env.INIT_CWD ?? process.cwd();
  const cwd = path.resolve(base, options.cwd ?? '.');
  if (!isFolder(cwd)) {
    process.stderr.write(`--cwd ${options.cwd ?? '.'}: ${cwd} is not a folder\n`);
    return 2;
  }
  const home = env.HOME || homedir();
  // --mcp-config files are named relative to where the person ran npm, like every path they type; the factory reads
  // them relative to the workspace (the same folder unless --cwd says otherwise).
  const factoryOptions = {
    ...options,
    mcpConfig: options.mcpConfig.map((file) => path.relative(cwd, path.resolve(base, file))),
  };
  const style = kit.styleFor(process.stdout, env);

  if (options.list) {
    const sessions = new kit.SessionStore({ home, cwd }).list();
    if (sessions.length === 0) out(`No saved sessions for ${cwd}.\n`);
    for (const one of sessions)
      out(
        `${one.problem ? `${one.id}  ${style.red(`cannot be read: ${one.problem}`)}` : `${one.id}  ${one.updatedAt}  ${String(one.messages).padStart(4)} messages  ${one.title}`}\n`,
      );
    return 0;
  }

  let made: ReturnType<typeof makeProvider>;
  try {
    made = makeProvider(options.provider ?? providerFromEnv(env), loaded, {
      model: options.model,
      offlineDelayMs: process.stdout.isTTY ? 8 : 0,
    });
  } catch (error) {
    if (isTodo(error)) note(todoAdvice(error));
    else if (error instanceof Error && error.name === 'ProviderConfigError')
      note(`${error.message}\nOr choose another provider with --provider (offline needs no key).`);
    else note(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const models = made.provider as { model?: string; smallFastModel?: string };

  let settings: Awaited<ReturnType<Kit['loadAgentSettings']>>;
  try {
    settings = await kit.loadAgentSettings(cwd, home);
  } catch (error) {
    note(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }

  const reader = lineReader();
  const askLine = () => {
    reader.open(() => process.exit(130));
    return reader.next();
  };
  const trust = await decideTrust(kit, {
    cwd,
    home,
    settings,
    interactive: !options.print,
    flag: options.trustWorkspace,
    style,
    askLine,
  });

  let prompt = options.prompt;
  if (options.print && prompt === undefined && !process.stdin.isTTY) prompt = (await readStdin()).trim() || undefined;
  if (options.print && prompt === undefined) {
    process.stderr.write(`-p needs a prompt: npm run agent -- -p "what is in here?" (or on stdin)\n\n${kit.USAGE}\n`);
    return 2;
  }

  const interactive = !options.print;
  const renderer = new kit.Renderer({ style, cwd, width: process.stdout.columns, model: models.model });
  const format = options.print ? options.outputFormat : 'text';
  /** The plan approvePlan showed: its plan_proposed event adds nothing. */
  let planShown = false;
  /** Writes the program's own lines (the questions) on a line of their own. */
  const say = (text: string) => out(`${renderer.lineBreak()}${text}`);
  /** The permission question (chapter 15's questionLines), asked until the answer is one of its keys (one key press in a terminal). */
  const question = kit.terminalQuestion(
    { write: say, read: (signal) => reader.key(signal) },
    { cwd, width: process.stdout.columns, style },
  );
  /** A line of the plan question: y, a or n (the plan's own keys), or undefined to ask again. */
  const planKey = (line: string) => {
    const key = line.trim().toLowerCase();
    return key === 'n' || key === 'no' ? ('keep' as const) : readPlanAnswer(line);
  };

  const config = (overrides: Partial<CliOptions> = {}): FactoryConfig => ({
    cwd,
    home,
    env,
    provider: made.provider,
    models,
    options: { ...factoryOptions, ...overrides },
    settings,
    trust,
    report: (text) => note(style.dim(`(${text})`)),
    ask: interactive
      ? async (request, signal) => {
          const answer = await question(request, signal);
          if (answer === 'allow_always') {
            out(
              style.dim(
                request.stillAsks
                  ? `  ✓ allowed this time; asked again next time: ${request.stillAsks}\n`
                  : request.suggestedRules.length > 0
                    ? `  ✓ allowed from now on in this session: ${request.suggestedRules.join(', ')}\n`
                    : '  ✓ allowed (no narrower rule to remember: asked again next time)\n',
              ),
            );
          }
          return answer;
        }
      : undefined,
    approvePlan: interactive
      ? async (plan, signal) => {
          planShown = true;
          const keys = '[y]es, ask before edits / [a]ccept edits / [n]o, keep planning';
          say(
            `${style.bold('  The plan:')}\n${plan
              .split('\n')
              .map((line) => `    ${kit.visible(line, '\t')}`)
              .join('\n')}\n`,
          );
          say(`  ${style.yellow('Approve this plan?')} ${keys}\n`);
          let mode: ReturnType<typeof planKey>;
          for (;;) {
            const line = await reader.key(signal);
            if (line === undefined)
              return { approved: false, feedback: 'Nobody answered: give the plan as your answer.' };
            mode = planKey(line);
            if (mode) break;
            say(`  ${style.yellow('Answer with one key:')} ${keys}\n`);
          }
          if (mode !== 'keep') return { approved: true, mode };
          out(`  ${style.dim('What should change? (Enter to skip)')}\n`);
          const feedback = (await reader.next(signal))?.trim();
          return { approved: false, ...(feedback ? { feedback } : {}) };
        }
      : undefined,
  });

  let built: BuiltAgent;
  try {
    built = await kit.buildAgent(config());
  } catch (error) {
    note(isTodo(error) ? todoAdvice(error) : `error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  /** What the agent was built with, for the person (stderr): one line per part. */
  const banner = (agent: BuiltAgent) => {
    for (const warning of agent.warnings) note(style.dim(`(${warning})`));
    const o = factoryOptions;
    const rules = kit.permissionSetup(o, kit.trustedSettings(settings, trust).settings).rules.length;
    const retries = o.maxRetries ?? kit.DEFAULT_MAX_RETRIES;
    const policy = kit.retryPolicy(o, models);
    const parallel = o.maxParallel ?? kit.DEFAULT_MAX_PARALLEL;
    const budget = o.outputBudget ?? kit.DEFAULT_OUTPUT_BUDGET;
    const tools = [...agent.tools].map((tool) => tool.name);
    // A part a learner's tree leaves out has no line: the tree's own line says so, once.
    const has = (chapter: number) => !filled?.leftOut.includes(chapter);
    const lines = [
      `agent · ${made.label} · ${tree.label} · workspace ${cwd}${trust.trusted ? ' (trusted)' : ''}`,
      ...(filled?.note ? [filled.note] : []),
      ...(has(8)
        ? [
            `permissions: ${agent.gate.mode} mode, ${rules} rule${rules === 1 ? '' : 's'}${settings.files.length > 0 ? `, settings: ${settings.files.join(', ')}` : ''}`,
          ]
        : []),
      !has(12)
        ? undefined
        : agent.session
          ? `session ${agent.sessionId}${agent.resumed ? ` resumed (${agent.history.length} messages)` : ''}, kept in ${homeShown(new kit.SessionStore({ home, cwd }).file(agent.sessionId), home)} · ${agent.instructionFiles.length} instruction file(s)`
          : `no session saved · ${agent.instructionFiles.length} instruction file(s)`,
      ...(agent.mcp
        ? [
            `mcp: ${agent.mcp.connections.map((c) => `${c.name} (${tools.filter((name) => name.startsWith(`mcp__${c.name}__`)).length} tools)`).join(', ') || 'no server started'}`,
          ]
        : []),
      has(9)
        ? `executor: up to ${parallel} read-only call${parallel === 1 ? '' : 's'} at once; ${budget > 0 ? `tool output cut at ${budget} characters` : 'no output budget'}`
        : undefined,
      !has(10)
        ? undefined
        : retries === 0
          ? 'retries: off'
          : `retries: up to ${retries} (waits of up to ${(policy.maxWaitMs ?? 0) / 1000} s)${policy.fallbackModel ? `; falls back to ${policy.fallbackModel} when overloaded` : ''}`,
    ].filter((line) => line !== undefined);
    note(style.dim(lines.join('\n')));
  };
  banner(built);

  const loadedCommands = await kit.loadCustomCommands({ cwd, home });
  for (const problem of loadedCommands.problems) note(style.dim(`(${problem.file}: ${problem.message})`));
  const commands: CustomCommand[] = loadedCommands.commands;

  /** The session's usage so far, sub-agents included. */
  let total: Usage | undefined;

  /** A call the model is still writing: one line redrawn in place (scripts/lib/call-preview.ts). */
  const preview = callPreview(
    { write: (text) => process.stdout.write(text), lineBreak: () => out(renderer.lineBreak()), dim: style.dim },
    Boolean(process.stdout.isTTY),
  );

  /** Shows one event: as terminal text, or as stream-json lines. */
  const show = (event: AgentEvent, writer?: InstanceType<Kit['StreamJsonWriter']>) => {
    if (event.type === 'usage') total = kit.addUsage(total ?? kit.noUsage(), event.usage);
    if (writer) return out(writer.write(event));
    if (preview(event)) return;
    if (event.type === 'plan_proposed' && planShown) return;
    if (event.type === 'plan_decided') planShown = false;
    // Chapter 11: an MCP server's progress on a running call, one dim line each (the server's words made visible).
    if (event.type === 'tool_progress')
      return out(`${renderer.lineBreak()}${style.dim(kit.visible(`  ⋯ ${kit.progressText(event)}`))}\n`);
    out(renderer.render(event));
  };

  /** Runs one prompt: UserPromptSubmit, the run (again while a Stop hook asks), the advice for a stub it reached. */
  async function turn(text: string, signal: AbortSignal): Promise<DoneEvent['reason'] | 'blocked'> {
    const verdict = await built.sessionHooks
      .onPromptSubmit(text, signal)
      .catch((error: unknown) => ({ blocked: true as const, reason: String(error) }));
    if (verdict.blocked) {
      if (format === 'text')
        out(`${renderer.lineBreak()}${style.red(`✗ prompt blocked by a UserPromptSubmit hook: ${verdict.reason}`)}\n`);
      else note(`prompt blocked by a UserPromptSubmit hook: ${verdict.reason}`);
      return 'blocked';
    }
    built.history.push(kit.userMessage(verdict.context ? `${text}\n\n${verdict.context}` : text));
    const writer =
      format === 'text'
        ? undefined
        : new kit.StreamJsonWriter(built.history, {
            format,
            sessionId: built.sessionId,
            cwd,
            model: models.model ?? made.provider.name,
            tools: [...built.tools].map((tool) => tool.name),
            permissionMode: built.gate.mode,
            mcpServers: mcpStatus(built),
            slashCommands: [
              ...kit.builtinCommands('terminal').map((command) => command.name),
              ...commands.map((command) => command.name),
            ],
            version: kitVersion(),
          });
    kit.todoHits.length = 0;
    let stopHookActive = false;
    let continuations = 0;
    for (;;) {
      let done: DoneEvent | undefined;
      const events = built.agent.run(built.history, { signal });
      for await (const event of built.session ? built.session.recorder.watch(events) : events) {
        if (event.type === 'done') done = event;
        else show(event, writer);
      }
      preview({ type: 'turn_start', turn: 0 }); // wipes a call preview still on screen
      if (!done) return 'error';
      if (done.reason === 'end_turn' && !signal.aborted) {
        const stop = await built.sessionHooks
          .onStop(done.text, { stopHookActive, signal })
          .catch(() => ({ continue: false as const }));
        if (stop.continue && continuations >= MAX_STOP_CONTINUATIONS) {
          const text = `(a Stop hook asks to go on again: stopping here, after ${MAX_STOP_CONTINUATIONS} continuations of this prompt)`;
          if (format === 'text') out(`${renderer.lineBreak()}${style.dim(text)}\n`);
          else note(text);
        } else if (stop.continue) {
          if (format === 'text')
            out(`${renderer.lineBreak()}${style.dim(`(a Stop hook asks to go on: ${stop.reason})`)}\n`);
          built.history.push(kit.userMessage(stop.reason));
          stopHookActive = true;
          continuations++;
          continue;
        }
      }
      show(done, writer);
      const hit = kit.todoHits[0];
      kit.todoHits.length = 0;
      if (hit) note(style.red(todoAdvice(hit)));
      return done.reason;
    }
  }

  // Ctrl-C: the first stops the running turn; a second one (while it stops, or within 1.5 s), or one at the
  // prompt, exits with 130.
  let controller: AbortController | undefined;
  let finish: (() => Promise<void>) | undefined;
  const interrupt = interruptHandler(
    () => controller,
    () => {
      out(renderer.lineBreak());
      void (finish?.() ?? Promise.resolve()).finally(() => process.exit(130));
    },
  );
  process.on('SIGINT', interrupt);

  finish = async () => {
    finish = undefined;
    await built.close();
    const saved = built.session?.session;
    if (saved)
      note(style.dim(`session ${saved.id} · ${kit.formatUsage(saved.usage)} · ${sessionCostText(kit, saved)}`));
    else if (total) note(style.dim(`total: ${kit.usageLine(total, models.model)}`));
    if (saved) note(style.dim(`resume with: npm run agent -- --resume ${saved.id}`));
  };

  if (options.print) {
    controller = new AbortController();
    const reason = await turn(prompt!, controller.signal);
    await finish?.();
    return reason === 'end_turn' ? 0 : reason === 'cancelled' ? 130 : 1;
  }

  /** Builds the agent again with other options (/clear, /resume); the old one is closed once the new one works. */
  async function rebuild(overrides: Partial<CliOptions>): Promise<void> {
    const next = await kit.buildAgent(config(overrides));
    await built.close();
    built = next;
    total = undefined;
    banner(built);
  }

  // The slash commands every terminal session has (kit.builtinCommands: one table with the editor's); a custom command
  // of the same name does not replace them.
  const builtins = kit.builtinCommands('terminal');
  const builtinNames = builtins.map((command) => command.name);
  async function builtin(name: string, args: string, signal: AbortSignal): Promise<void> {
    switch (name) {
      case 'help': {
        const lines = builtins.map((command) => `  /${command.name.padEnd(12)}${command.description}`);
        for (const command of commands)
          lines.push(`  /${command.name.padEnd(12)}${command.description} (${kit.commandLabel(command)})`);
        return out(`${lines.join('\n')}\n`);
      }
      case 'clear':
        await rebuild({ resume: undefined, continue: false });
        return out(style.dim('(a new conversation)\n'));
      case 'compact': {
        const event = await kit.compact(built.history, {
          provider: built.provider,
          model: models.smallFastModel,
          keep: kit.COMPACT_KEEP,
          signal,
        });
        if (!event) return out('Nothing to compact yet.\n');
        const manual = { ...event, manual: true };
        built.session?.recorder.record(manual);
        return out(renderer.render(manual));
      }
      case 'usage':
        return out(`${total ? kit.usageLine(total, models.model) : 'Nothing used yet in this session.'}\n`);
      case 'mode': {
        const wanted = args.trim();
        if (!wanted) return out(`mode: ${built.gate.mode} (modes: ${kit.PERMISSION_MODES.join(', ')})\n`);
        if (!(kit.PERMISSION_MODES as readonly string[]).includes(wanted))
          return out(`${style.red(`unknown mode "${wanted}"`)}: one of ${kit.PERMISSION_MODES.join(', ')}\n`);
        const previous = built.gate.mode;
        built.gate.setMode(wanted as PermissionMode);
        return out(renderer.render({ type: 'mode_changed', turn: 0, previous, mode: wanted as PermissionMode }));
      }
      case 'resume': {
        const id = args.trim();
        if (!id) {
          const sessions = new kit.SessionStore({ home, cwd })
            .list()
            .filter((one) => !one.problem && one.id !== built.sessionId);
          if (sessions.length === 0) return out('No other saved sessions for this project.\n');
          return out(
            `${sessions.map((one) => `  ${one.id}  ${one.updatedAt}  ${one.title}`).join('\n')}\n/resume ID goes on with one.\n`,
          );
        }
        return rebuild({ resume: id, continue: false, noSession: false });
      }
    }
  }

  const rl = reader.open(interrupt);
  note(
    style.dim('Type a request; /help lists the commands. Ctrl-C stops a turn; Ctrl-C at the prompt (or Ctrl-D) exits.'),
  );
  rl.setPrompt(style.bold('> '));
  for (;;) {
    // Once stdin has ended (a script piped its lines), lines already read are still taken, without a prompt: Node 24's
    // readline throws on prompt() after close, where Node 20 did nothing.
    stdout.flush();
    if (reader.interactive) rl.prompt();
    const line = await reader.next();
    if (line === undefined) break;
    const typed = line.trim();
    if (!typed) continue;
    controller = new AbortController();
    try {
      if (typed.startsWith('/')) {
        const slash = kit.parseSlashLine(typed, commands, builtinNames);
        if (slash.kind === 'builtin' && slash.name === 'exit') break;
        if (slash.kind === 'builtin') await builtin(slash.name, slash.args, controller.signal);
        else if (slash.kind === 'custom') await turn(slash.prompt, controller.signal);
        else
          out(
            `Unknown command /${slash.name}.${slash.suggestion ? ` Did you mean /${slash.suggestion}?` : ''} /help lists the commands.\n`,
          );
      } else await turn(typed, controller.signal);
    } catch (error) {
      if (!controller.signal.aborted)
        out(
          `${renderer.lineBreak()}${style.red(`error: ${error instanceof Error ? error.message : String(error)}`)}\n`,
        );
    } finally {
      controller = undefined;
    }
  }
  out('\n'); // the prompt is still on the last line (Ctrl-D, /exit)
  await finish?.();
  return 0;
}

/** The kit's version (package.json): what --version prints, and stream-json's init gives as claude_code_version. */
function kitVersion(): string {
  return (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The MCP servers for stream-json's init: those that started are connected, those that did not, failed. */
function mcpStatus(agent: BuiltAgent): Array<{ name: string; status: 'connected' | 'failed' }> {
  return [
    ...(agent.mcp?.connections ?? []).map((connection) => ({ name: connection.name, status: 'connected' as const })),
    ...(agent.mcp?.failures ?? []).map((failure) => ({ name: failure.name, status: 'failed' as const })),
  ];
}

/** True when `dir` is an existing folder. */
function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Chapter 15's trust decision at start-up: what the folder asks to run (its hooks, .mcp.json servers, raised
 * settings), and the person's answer: --trust-workspace, else the remembered answer, else (interactive) a question
 * whose answer is remembered in ~/.coding-agent/trust.json, else (-p) untrusted, said on stderr.
 */
async function decideTrust(
  kit: Kit,
  where: {
    cwd: string;
    home: string;
    settings: AgentSettings;
    interactive: boolean;
    flag: boolean;
    style: ReturnType<Kit['styleFor']>;
    askLine(): Promise<string | undefined>;
  },
): Promise<WorkspaceTrust> {
  const { cwd, home, settings, style } = where;
  if (where.flag) return { trusted: true, servers: 'all' };
  const mcpFile = path.join(cwd, '.mcp.json');
  let mcpJson: { file: string; json: unknown } | undefined;
  try {
    mcpJson = { file: mcpFile, json: JSON.parse(kit.readConfigFile(mcpFile, { roots: [cwd] })) };
  } catch {
    mcpJson = undefined; // missing, refused or broken: the factory says which
  }
  const requests = kit.folderRequests(settings, mcpJson);
  const remembered = kit.rememberedTrust(home, cwd);
  const servers = requests.flatMap((request) => (request.server === undefined ? [] : [request.server]));
  /** The folder's servers the answer has not approved (the person's answer only: never the folder's own files). */
  const unapproved = (answer: WorkspaceTrust) =>
    servers.filter((name) => answer.servers !== 'all' && !answer.servers?.includes(name));
  if (requests.length === 0) return remembered ?? { trusted: false };
  if (remembered && (!remembered.trusted || unapproved(remembered).length === 0)) return remembered;
  if (!where.interactive) {
    note(
      style.yellow(
        remembered?.trusted
          ? `(this folder is trusted, but .mcp.json servers you have not approved are skipped: ${kit.visible(unapproved(remembered).join(', '))}; npm run agent asks about them, --trust-workspace approves them)`
          : `(this folder is not trusted: its hooks, .mcp.json servers and raised settings are skipped; --trust-workspace trusts it)`,
      ),
    );
    return remembered ?? { trusted: false };
  }
  note(style.yellow(`This folder asks to run or change:`));
  for (const line of kit.describeRequests(requests)) note(`  ${line}`);
  note(
    style.yellow(
      `Trust ${kit.visible(cwd)}? Its hooks and servers run as you, with what you give them. [y]es / [n]o (remembered)`,
    ),
  );
  const answer = (await where.askLine()) ?? '';
  const trust: WorkspaceTrust = /^y(es)?$/i.test(answer.trim()) ? { trusted: true, servers } : { trusted: false };
  kit.rememberTrust(home, cwd, trust);
  note(
    style.dim(
      trust.trusted
        ? '(trusted; remembered in ~/.coding-agent/trust.json)'
        : "(not trusted: the folder's hooks, servers and raised settings are skipped; remembered)",
    ),
  );
  return trust;
}

/** All of stdin, for `-p` without a prompt on the command line (`git diff | npm run agent -- -p`). */
async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const code = await main(process.argv.slice(2));
stdout.flush();
exitOnceWritten(code);

/** A path under the home folder written from `~`, as a person reads it. */
function homeShown(file: string, home: string): string {
  const relative = path.relative(home, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? `~/${relative}` : file;
}
