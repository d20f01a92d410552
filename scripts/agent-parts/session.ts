/**
 * Chapter 12 in `npm run agent`: every session saved, resumed, compacted, and priced.
 *
 *   npm run agent                          a new session, saved in ~/.coding-agent/sessions/<project>/<id>.jsonl
 *   npm run agent -- --list                this project's sessions, the one changed last first
 *   npm run agent -- --resume ID           go on with a session
 *   npm run agent -- --continue            go on with the session changed last
 *   /compact, /cost                        at the prompt: compact now; the totals so far
 *
 * The system prompt comes from the project (CLAUDE.md / AGENTS.md, ~/.claude/CLAUDE.md), changed by
 * --system-prompt and --append-system-prompt. The recorder is this part's `render`: it sees every event of every run,
 * in order, and writes what it means. The usage and cost are printed when the agent exits.
 */
import { sessionCostText } from '../lib/agent-kit.js';
import type { AgentPart, PartResult, SlashCommand } from './part.js';

type Sessions = typeof import('../../solution/src/session/index.js');

const DEFAULT_COMPACT_AT = 150_000;

export const part: AgentPart = {
  name: 'sessions',
  chapter: 12,
  options: [
    { name: 'resume', value: true, help: 'ID go on with session ID of this project (see --list)' },
    { name: 'continue', value: false, help: 'go on with the session of this project changed last' },
    { name: 'list', value: false, help: "list this project's saved sessions and exit" },
    { name: 'no-session', value: false, help: 'save nothing (no session file)' },
    {
      name: 'system-prompt',
      value: true,
      help: "TEXT replace the kit's base system prompt with TEXT (CLAUDE.md still follows)",
    },
    { name: 'append-system-prompt', value: true, help: 'TEXT add TEXT at the end of the system prompt' },
    {
      name: 'compact-at',
      value: true,
      help: `TOKENS compact when the context passes TOKENS tokens (${DEFAULT_COMPACT_AT})`,
    },
  ],
  async setup(ctx): Promise<PartResult | undefined> {
    const s = await ctx.load<Sessions>('session/index.ts');
    const { options, paint } = ctx;
    const text = (name: string) => (typeof options[name] === 'string' ? (options[name] as string) : undefined);
    const compactAt = text('compact-at') === undefined ? DEFAULT_COMPACT_AT : Number(text('compact-at'));
    if (!Number.isFinite(compactAt) || compactAt < 1)
      throw new Error(`--compact-at needs a number of tokens, not "${text('compact-at')}"`);

    const prompt = s.buildSystemPrompt({
      cwd: ctx.cwd,
      home: ctx.home,
      replace: text('system-prompt'),
      append: text('append-system-prompt'),
    });
    for (const warning of prompt.warnings) ctx.note(`(system prompt: ${warning})`);
    const store = new s.SessionStore({ home: ctx.home, cwd: ctx.cwd, secrets: ctx.kit.secretsOf(ctx.env) });

    if (options.list) {
      const sessions = store.list();
      if (sessions.length === 0) ctx.line(`No saved sessions for ${ctx.cwd}.`);
      for (const one of sessions) {
        ctx.line(
          one.problem
            ? `${one.id}  ${paint.red(`cannot be read: ${one.problem}`)}`
            : `${one.id}  ${one.updatedAt}  ${String(one.messages).padStart(4)} messages  ${one.title}`,
        );
      }
      return { exitCode: 0 };
    }
    const resumeId = text('resume');
    if (options['no-session'] && (resumeId || options.continue))
      throw new Error('--no-session cannot be used with --resume or --continue');
    if (resumeId && options.continue) throw new Error('use --resume ID or --continue, not both');

    let open: ReturnType<typeof store.create> | undefined;
    if (resumeId) open = store.resume(resumeId);
    else if (options.continue) {
      const latest = store.latest();
      if (!latest) throw new Error(`there is no saved session to continue for ${ctx.cwd}`);
      open = store.resume(latest);
    } else if (!options['no-session']) open = store.create(ctx.model);
    for (const warning of open?.warnings ?? []) ctx.note(`(${warning})`);
    if (open && ctx.model) open.session.model = ctx.model; // usage from now on is priced at the model in use
    const changed = open?.recorder.useSystem(prompt.text); // recorded; a resumed session whose prompt changed says so
    if (changed) ctx.note(`(session: ${changed})`);

    const history = open?.session.messages ?? [];
    const compactWith = { provider: ctx.provider, model: ctx.smallFastModel, keep: 6 };
    const totals = () => {
      if (!open) return 'no session saved (--no-session)';
      const session = open.session;
      return `session ${session.id} · ${s.formatUsage(session.usage)} · ${sessionCostText(s, session)}`;
    };
    const commands: SlashCommand[] = [
      {
        name: 'compact',
        help: 'summarise the older part of the conversation now',
        async run(_args, signal) {
          const event = await s.compact(history, { ...compactWith, signal });
          if (!event) return ctx.line('Nothing to compact yet.');
          const manual = { ...event, manual: true };
          open?.recorder.record(manual);
          ctx.line(
            `Compacted ${event.count} messages into a summary (about ${event.tokensBefore} -> ${event.tokensAfter} tokens).`,
          );
        },
      },
      { name: 'cost', help: 'the usage and cost of this session so far', run: async () => ctx.line(totals()) },
    ];
    const resumed = resumeId || options.continue;
    return {
      system: prompt.text,
      history,
      hooks: s.compactionHook({ ...compactWith, threshold: compactAt }),
      commands,
      banner: open
        ? `session ${open.session.id}${resumed ? ` resumed (${history.length} messages)` : ''} · ${prompt.files.length} instruction file(s)`
        : `no session saved · ${prompt.files.length} instruction file(s)`,
      render(event) {
        open?.recorder.record(event);
        if (event.type === 'compaction') return paint.dim(`(compacted ${event.count} older messages into a summary)`);
        return undefined;
      },
      async close() {
        ctx.note(totals());
        if (open) {
          open.close();
          ctx.note(`resume with: npm run agent -- --resume ${open.session.id}`);
        }
      },
    };
  },
};
