/**
 * `npm run agent`: the part of chapter 13, plan mode, the task list and sub-agents.
 *
 * Adds `todo_write`, `exit_plan_mode` and `task`, and plan mode's hooks on the mode the permissions part keeps (its
 * gate). `--permission-mode plan` starts in plan mode: when the model hands in its plan, the plan is shown and the
 * person answers at the terminal (with nobody there, -p, the model is told to give the plan as its answer). The task
 * list is drawn whenever it changes, and a sub-agent's work is shown indented under its call. Children are built like
 * the agent itself: the same provider, the same permission hooks, fewer tools.
 */
import type { AgentEvent, ApprovePlan } from '../../solution/src/agent-events.js';
import type * as Planning from '../../solution/src/planning/index.js';
import type { Hooks } from '../../solution/src/hooks.js';
import type { Tool } from '../../solution/src/tool.js';
import type { AgentPart, PartContext } from './part.js';

const MARK = { pending: '☐', in_progress: '◐', completed: '☒' } as const;

/** The person's answer to "approve the plan?", read from one line: y (default mode), a (accept edits), else keep planning. */
export function readPlanAnswer(line: string): 'default' | 'acceptEdits' | undefined {
  const answer = line.trim().toLowerCase();
  if (answer === 'y' || answer === 'yes') return 'default';
  if (answer === 'a' || answer === 'accept') return 'acceptEdits';
  return undefined;
}

/** One short line for an event of a sub-agent, indented by its depth; undefined for the ones not worth a line. */
export function nestedLine(event: AgentEvent, depth: number, paint: PartContext['paint']): string | undefined {
  const bar = paint.dim(`${'  '.repeat(depth)}│ `);
  switch (event.type) {
    case 'subagent':
      return nestedLine(event.event, depth + 1, paint);
    case 'tool_call_requested': {
      const args = JSON.stringify(event.arguments) ?? '';
      return `${bar}● ${event.name}(${args.length > 80 ? `${args.slice(0, 80)}…` : args})`;
    }
    case 'tool_result': {
      const first = event.content.split('\n', 1)[0] ?? '';
      return `${bar}${paint.dim(`  ⎿ ${event.isError ? 'error: ' : ''}${first.length > 80 ? `${first.slice(0, 80)}…` : first}`)}`;
    }
    case 'done':
      return `${bar}${paint.dim(`done (${event.reason}${event.message ? `: ${event.message}` : ''})`)}`;
    default:
      return undefined;
  }
}

export const part: AgentPart = {
  name: 'planning',
  chapter: 13,
  options: [
    {
      name: 'subagent-depth',
      value: true,
      help: 'N how deep sub-agents may nest (default 1: children, no grandchildren)',
    },
  ],
  async setup(ctx) {
    const planning = await ctx.load<typeof Planning>('planning/index.ts');
    // With --starter, an unfinished chapter 13 throws its TodoError here and the agent runs without this part.
    planning.planRequest({ messages: [], tools: [] }, 'default');
    planning.todoProblems([]);
    planning.childTools(
      {
        makeChild: () => {
          throw new Error('unused');
        },
        tools: () => [],
      },
      0,
    );

    const depthOption = ctx.options['subagent-depth'];
    const maxDepth = typeof depthOption === 'string' ? Number(depthOption) : 1;
    if (!Number.isInteger(maxDepth) || maxDepth < 0)
      throw new Error(`--subagent-depth takes a whole number, got ${String(depthOption)}`);
    const held = {
      mode: 'default' as Planning.ModeControl['mode'],
      setMode(mode: Planning.ModeControl['mode']) {
        held.mode = mode;
      },
    };
    const control = (ctx.earlier.find((part) => part.modeControl)?.modeControl ?? held) as Planning.ModeControl;
    const approve: ApprovePlan = async (plan, signal) => {
      // The plan is shown here, before the question (the plan_proposed event reaches render a moment later).
      ctx.line(
        `${ctx.paint.bold('  The plan:')}\n${plan
          .split('\n')
          .map((line) => `  ${line}`)
          .join('\n')}`,
      );
      const line = await ctx.ask(
        `  ${ctx.paint.yellow('Approve this plan?')} [y]es, ask before edits / [a]ccept edits / [n]o, keep planning`,
        signal,
      );
      if (line === undefined)
        return {
          approved: false,
          feedback: 'Nobody is at the terminal to approve a plan: give the plan as your answer.',
        };
      const mode = readPlanAnswer(line);
      if (mode) return { approved: true, mode };
      const feedback = await ctx.ask(`  ${ctx.paint.dim('What should change? (Enter to skip)')}`, signal);
      return { approved: false, ...(feedback?.trim() ? { feedback } : {}) };
    };
    const hooks: Hooks[] = ctx.earlier.flatMap((part) => (part.hooks ? [part.hooks] : []));
    const own: Tool[] = [planning.todoWriteTool(), planning.exitPlanModeTool(control, approve)];
    const task = planning.createTaskTool({
      maxDepth,
      tools: () => ctx.tools, // the agent's tools as set up (this part's included, once the main script added them)
      makeChild: (spec) =>
        new ctx.kit.Agent({
          provider: ctx.provider,
          tools: spec.tools,
          cwd: ctx.cwd,
          system: spec.system,
          maxTurns: spec.maxTurns,
          hooks: [...hooks, planning.planModeHooks(control)],
        }),
    });
    // The task tool itself touches nothing: each call its child makes goes through the same permission hooks, so the
    // task call is not asked about (as in Claude Code). Marked read-only for the gate, children keep every tool.
    const delegate: Tool = { ...task, readOnly: true };
    return {
      tools: maxDepth > 0 ? [...own, delegate] : own,
      hooks: planning.planModeHooks(control),
      banner: control.mode === 'plan' ? 'plan mode: the agent reads and plans; it asks before it acts' : undefined,
      render(event: AgentEvent) {
        switch (event.type) {
          case 'todo_list':
            return event.todos.length === 0
              ? ctx.paint.dim('  tasks: (cleared)')
              : event.todos
                  .map(
                    (todo) =>
                      `  ${MARK[todo.status]} ${todo.status === 'completed' ? ctx.paint.dim(todo.content) : todo.status === 'in_progress' ? ctx.paint.bold(todo.activeForm || todo.content) : todo.content}`,
                  )
                  .join('\n');
          case 'plan_decided':
            return ctx.paint.dim(
              event.approved
                ? `  ✓ plan approved`
                : `  ✗ plan not approved: keep planning${event.feedback ? ` (${event.feedback})` : ''}`,
            );
          case 'mode_changed':
            return ctx.paint.dim(`  mode: ${event.previous} → ${event.mode}`);
          case 'subagent':
            return nestedLine(event.event, 1, ctx.paint);
          default:
            return undefined;
        }
      },
    };
  },
};
