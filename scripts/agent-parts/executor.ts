/**
 * `npm run agent`: the part of chapter 9, tool execution.
 *
 * Every turn's calls run through chapter 9's parallelExecutor: consecutive read-only calls side by side (at most
 * `--max-parallel N`, default 4), anything that writes alone, permission questions one at a time, results in call
 * order. Every tool result is kept within `--output-budget N` characters (default 30000; 0 turns the budget off):
 * a longer one is cut, and the whole text is kept in `.agent/outputs/` in the workspace for the read tool.
 * A group of calls that ran side by side gets one line once it has finished: `⎿ 3 calls ran in parallel`.
 */
import type { AgentEvent } from '../../solution/src/agent-events.js';
import type { AgentPart } from './part.js';

export const DEFAULT_MAX_PARALLEL = 4;
export const DEFAULT_OUTPUT_BUDGET = 30_000;

/** A whole number from an option's value, or an Error that names the option. */
function wholeNumber(value: unknown, name: string, fallback: number, least: number): number {
  if (value === undefined) return fallback;
  const text = String(value);
  const number = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(number) || number < least) {
    throw new Error(`--${name} takes a whole number of at least ${least}, not "${text}"`);
  }
  return number;
}

export const part: AgentPart = {
  name: 'executor',
  chapter: 9,
  options: [
    {
      name: 'max-parallel',
      value: true,
      help: `N  read-only tool calls run side by side, at most N at once (default ${DEFAULT_MAX_PARALLEL}; 1 runs them one by one)`,
    },
    {
      name: 'output-budget',
      value: true,
      help: `N  cut tool output over N characters, keeping the whole in .agent/outputs/ (default ${DEFAULT_OUTPUT_BUDGET}; 0: no limit)`,
    },
  ],
  async setup(ctx) {
    const maxParallel = wholeNumber(ctx.options['max-parallel'], 'max-parallel', DEFAULT_MAX_PARALLEL, 1);
    const budget = wholeNumber(ctx.options['output-budget'], 'output-budget', DEFAULT_OUTPUT_BUDGET, 0);
    const { kit } = ctx;
    const executor = kit.parallelExecutor({ concurrency: maxParallel });
    const hooks = budget > 0 ? kit.outputBudget({ cwd: ctx.cwd, maxChars: budget }) : undefined;
    if (ctx.own) {
      // The learner's tree: reach each stub once now, so an unfinished chapter 9 is noted at start-up and the agent
      // runs without this part, instead of failing in the middle of a run.
      const turn = { signal: new AbortController().signal, tools: new kit.ToolSet(), record: () => {} };
      await executor(
        [],
        async function* () {
          return undefined;
        },
        turn,
      ).next();
      const probe = { type: 'tool_call' as const, id: 'probe', name: 'probe', arguments: {} };
      await hooks?.afterToolCall?.(probe, kit.toolResult(probe, 'ok'), {
        signal: turn.signal,
        turn: 1,
        history: [],
        emit: () => {},
      });
    }

    // Calls whose tools overlapped in time, shown as one line after the group has finished.
    const running = new Set<string>();
    let group = 0;
    let most = 0;
    let summary: string | undefined;
    const render = (event: AgentEvent): string | undefined => {
      if (event.type === 'tool_call_decided') {
        if (running.size === 0) {
          group = 0;
          most = 0;
        }
        running.add(event.callId);
        group++;
        most = Math.max(most, running.size);
        return undefined;
      }
      if (event.type === 'tool_result') {
        running.delete(event.callId);
        if (running.size === 0 && most > 1) summary = ctx.paint.dim(`  ⎿ ${group} calls ran in parallel`);
        return undefined;
      }
      const line = summary;
      summary = undefined;
      return line;
    };
    return {
      executor,
      hooks,
      render,
      banner: `executor: up to ${maxParallel} read-only call${maxParallel === 1 ? '' : 's'} at once; ${budget > 0 ? `tool output cut at ${budget} characters` : 'no output budget'}`,
    };
  },
};
