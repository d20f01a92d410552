/**
 * Chapter 15: the run as a person reads it in a terminal.
 *
 * Every consumer of chapter 7's events keeps what it needs; the terminal keeps what a person wants to watch. The
 * answer streams in as it is written. Each tool call gets one line when it is decided to run (`● read(src/app.ts)`)
 * and one `⎿` block when it ends: ok or error and the first few lines of its output, or for an edit the change
 * itself. The task list is drawn whenever it changes, a sub-agent's calls are indented under the call that started
 * it, and the run ends with why it stopped (when that is news) and what it cost.
 *
 * `Renderer.render(event)` returns exactly the text to write for one event, so it is tested without a terminal and
 * the CLI only has to `process.stdout.write` what it gets. Colours come from a `Style`: plain in tests, pipes and
 * under NO_COLOR; ANSI escapes (picocolors) in a colour terminal.
 */
import { addUsage, noUsage, type AgentEvent } from '../agent-events.js';
import type { Usage } from '../messages.js';
import {
  clip,
  editDiff,
  plainStyle,
  resultLines,
  summarizeArguments,
  todoLines,
  usageLine,
  visible,
  DEFAULT_MAX_LINES,
  DEFAULT_WIDTH,
  type Style,
} from './render-lines.js';

export * from './render-lines.js';

/**
 * The scope of the top agent's calls (their keys are their bare ids), and `Renderer.current` when the screen ends with
 * no call's output (after streamed text, or before anything).
 */
const TOP = '';

export interface RendererOptions {
  /** plainStyle when not given. */
  style?: Style;
  /** The workspace: paths inside it are shown relative to it. */
  cwd: string;
  /** Columns a line may take (the terminal's width; DEFAULT_WIDTH when not given). */
  width?: number;
  /** The model in use, to price the run's usage (`cost unknown` without one). */
  model?: string;
  /** Output lines shown under a call (DEFAULT_MAX_LINES). */
  maxLines?: number;
}

/** A call as it will run: its name and its arguments (a hook's changed arguments once decided). */
interface CallInfo {
  name: string;
  arguments: unknown;
}

/**
 * Turns a run's events into terminal text, one event at a time.
 *
 * A class rather than a function: what to write for an event depends on what was written before it (is the cursor
 * mid-line after streamed text? was this turn's thinking header shown? which call's line is the last one on
 * screen? what have the turns cost so far?), and that memory belongs to one output. Two renderers writing to two
 * places must not share it; one renderer serves every run of a session (each `done` forgets its run).
 */
export class Renderer {
  readonly style: Style;
  readonly cwd: string;
  readonly width: number;
  readonly model: string | undefined;
  readonly maxLines: number;
  /** True when the cursor is at the start of a line (as it is before anything was written). */
  atLineStart = true;
  /** What was streamed last: a switch between answer text and thinking starts a new line. */
  private streaming: 'text' | 'thinking' | undefined;
  /** The turn whose `✻ Thinking…` line has been written. */
  private thinkingTurn: number | undefined;
  /** The calls seen so far, by key: the call id, prefixed by the ids of the task calls around it (`t1/k1`). */
  private readonly calls = new Map<string, CallInfo>();
  /** Calls already shown whole (a blocked call): their result event adds nothing. */
  private readonly ended = new Set<string>();
  /**
   * Whose output is the last thing on screen, as a scope: `t1/` when it is call t1's line or output, `t1/k1/` for
   * call k1 of t1's sub-agent; '' when it is no call's (text, or nothing yet).
   */
  private current = TOP;
  /** The run's usage events added up: they count what sub-agents spent, which done.usage does not. */
  private usage: Usage | undefined;

  constructor(options: RendererOptions) {
    this.style = options.style ?? plainStyle;
    this.cwd = options.cwd;
    this.width = options.width ?? DEFAULT_WIDTH;
    this.model = options.model;
    this.maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  }

  /**
   * The text to write for `event`: streamed text as it comes, whole lines for everything else ('' for events a
   * person does not need to see). Never throws for an event it does not know: it writes nothing for it.
   *
   * - Text and thinking stream as they come, made visible except their new lines and tabs (visible: a model's escape
   *   codes must not move the cursor or hide what follows); thinking is dim, and the first thought of a turn comes
   *   after a line `✻ Thinking…` (dim). Going from thought to text, or back, in mid-line starts a new line first.
   * - Whole lines always begin at the start of a line (a new line first when the cursor is mid-line: atLineStart
   *   knows) and each ends with a new line.
   * - Usage events are added up (addUsage) and write nothing: they count what sub-agents spent, done.usage does not.
   * - done writes nothing for end_turn; `(stopped)` (dim) for a cancel; one red line for the other ends,
   *   `stopped: `, `error: ` or `paused: ` and why: the done's message, or for a pause without one
   *   `waiting for the client: ` and the pending calls' names joined by `, `. Then, dim, usageLine of the usage added
   *   up (done.usage when no usage event came) at this.model. Then the run is forgotten: its calls, its usage, its
   *   thinking turn (the next run counts turns from 1 again).
   * - Every other event is eventLines' at the top agent's scope (TOP).
   * - After streamed text or done, the screen no longer ends with a call's output: `current` is TOP again.
   */
  render(event: AgentEvent): string {
    // #region chapter 15: Renderer.render
    // 1. Collect the text in a string. Whole lines are written like this: nothing for no lines; otherwise "\n" first
    //    when the cursor is mid-line (!this.atLineStart), then each line followed by "\n"; the cursor is then at a
    //    line start.
    // 2. text_delta: the text made visible except its new lines and tabs (visible(text, '\n\t'): the model's escape
    //    codes must not move the cursor or hide what comes next), no new line added, but a "\n" first when thinking
    //    was streamed last and the cursor is mid-line. Afterwards the cursor is at a line start only if the text ends with "\n"; remember that
    //    text was streamed last, and that the screen no longer ends with a call's output (this.current = TOP).
    // 3. thinking_delta: when this.thinkingTurn is not the event's turn, write the line `✻ Thinking…` (dim) and
    //    remember the turn. Then stream the thought, made visible as in step 2 and dimmed (a "\n" first when text was streamed last
    //    and the cursor is mid-line).
    // 4. usage: add event.usage to this.usage (addUsage, from noUsage()); it writes nothing.
    // 5. done: the lines: for cancelled `(stopped)` dim; for turn_limit, error and paused_for_client_tool one red
    //    line `stopped: `, `error: ` or `paused: ` and why: the done's message, or for a pause without one
    //    `waiting for the client: ` and the names of the pending calls joined by ", " (the reason otherwise); nothing
    //    for end_turn. Then usageLine (dim) of this.usage, or done.usage when no usage event came, with this.model.
    //    Then forget the run: its calls, its usage and its thinking turn (the next run counts turns from 1 again),
    //    and that the screen ended with a call's output (this.current = TOP: it now ends with the usage line).
    // 6. Any other event: the lines of this.eventLines(event, TOP) (TOP, given, is '': the top agent's scope).
    let out = '';
    const lines = (list: readonly string[]) => {
      if (list.length === 0) return;
      out += `${this.atLineStart ? '' : '\n'}${list.map((line) => `${line}\n`).join('')}`;
      this.atLineStart = true;
    };
    const stream = (kind: 'text' | 'thinking', text: string, painted: string) => {
      if (this.streaming !== kind && !this.atLineStart) out += '\n';
      out += painted;
      this.atLineStart = text.endsWith('\n');
      this.streaming = kind;
      this.current = TOP;
    };
    switch (event.type) {
      case 'text_delta':
        stream('text', event.text, visible(event.text, '\n\t'));
        break;
      case 'thinking_delta':
        if (this.thinkingTurn !== event.turn) {
          this.thinkingTurn = event.turn;
          lines([this.style.dim('✻ Thinking…')]);
        }
        stream('thinking', event.thinking, this.style.dim(visible(event.thinking, '\n\t')));
        break;
      case 'usage':
        this.usage = addUsage(this.usage ?? noUsage(), event.usage);
        break;
      case 'done': {
        const pending = (event.pending ?? []).map((call) => call.name).join(', ');
        const why =
          event.message ??
          (event.reason === 'paused_for_client_tool' ? `waiting for the client: ${pending}` : event.reason);
        const label = { turn_limit: 'stopped', error: 'error', paused_for_client_tool: 'paused' } as const;
        const ending =
          event.reason === 'end_turn'
            ? []
            : event.reason === 'cancelled'
              ? [this.style.dim('(stopped)')]
              : [this.style.red(`${label[event.reason]}: ${why}`)];
        lines([...ending, this.style.dim(usageLine(this.usage ?? event.usage, this.model))]);
        this.calls.clear();
        this.usage = this.thinkingTurn = undefined;
        this.current = TOP;
        break;
      }
      default:
        lines(this.eventLines(event, TOP));
    }
    return out;
    // #endregion
  }

  /**
   * The lines of one event other than streamed text and `done`, for an agent whose call ids are prefixed by `scope`
   * ('' for the top agent, `t1/` for the sub-agent of task call t1). A sub-agent's event is drawn by the same rules,
   * two spaces further in, without its text.
   *
   * - A call's own events are callLines'. What belongs to a call (its task list, a proposed plan and the decision on
   *   it, a sub-agent's events) is drawn under that call with the given `under` (the key of a call is its scope and
   *   its id), so it lands below the right call line even when other output came between.
   * - The tests compare whole lines: the task list as todoLines draws it; the plan four spaces in (an empty line
   *   stays empty), made visible but for its tabs; `  ✓ plan approved (mode: M)` green, or
   *   `  ✗ plan not approved: keep planning` yellow with ` (feedback)` when there is feedback;
   *   `  mode: previous → mode` dim; `⟳ retrying in S s (attempt A of M): reason` yellow, S in seconds with one
   *   decimal and `, with MODEL` after the attempts when the retry names a model;
   *   `(compacted N older messages into a summary: about X → Y tokens)` dim, the figures with thousands separators.
   * - A sub-agent's event that draws nothing draws nothing at all, not even its task's call line.
   * - Text, thinking, usage, turn starts and done: no lines (only the top agent shows those).
   */
  private eventLines(event: AgentEvent, scope: string): string[] {
    // #region chapter 15: Renderer.eventLines
    // 1. Calls: tool_call_requested, tool_call_decided and tool_result go to this.callLines(event, scope).
    // 2. todo_list: todoLines of its list (with this.style), under its call (this.under, given: the key of a call
    //    is scope + callId). plan_proposed: every line of the plan indented by four spaces ('' stays ''), under its
    //    call, each made visible (keeping tabs). plan_decided, under its call: approved `  ✓ plan approved (mode: M)` green; not approved
    //    `  ✗ plan not approved: keep planning` yellow, with ` (feedback)` after it when there is feedback.
    // 3. mode_changed: `  mode: previous → mode`, dim.
    // 4. retry: `⟳ retrying in S s (attempt A of M): reason`, yellow, S the delay in seconds with one decimal,
    //    and `, with MODEL` after the attempts when it names a model.
    // 5. compaction: `(compacted N older messages into a summary: about X → Y tokens)`, dim, N the count and the
    //    token figures with thousands separators (toLocaleString('en-US')).
    // 6. subagent: the lines of the inner event at scope + callId + '/', each with two more spaces in front, under
    //    the task call; when the inner event has no lines, no lines (and no call line).
    // 7. Anything else (text, thinking, usage, turn_start and done: only the top agent shows those): no lines.
    const n = (value: number) => value.toLocaleString('en-US');
    switch (event.type) {
      case 'tool_call_requested':
      case 'tool_call_decided':
      case 'tool_result':
        return this.callLines(event, scope);
      case 'todo_list':
        return this.under(scope + event.callId, () => todoLines(event.todos, this.style));
      case 'plan_proposed':
        return this.under(scope + event.callId, () =>
          event.plan.split('\n').map((line) => (line ? `    ${visible(line, '\t')}` : '')),
        );
      case 'plan_decided':
        return this.under(scope + event.callId, () => [
          event.approved
            ? this.style.green(`  ✓ plan approved (mode: ${event.mode})`)
            : this.style.yellow(`  ✗ plan not approved: keep planning${event.feedback ? ` (${event.feedback})` : ''}`),
        ]);
      case 'mode_changed':
        return [this.style.dim(`  mode: ${event.previous} → ${event.mode}`)];
      case 'retry': {
        const model = event.model ? `, with ${event.model}` : '';
        return [
          this.style.yellow(
            `⟳ retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt} of ${event.maxAttempts}${model}): ${event.reason}`,
          ),
        ];
      }
      case 'compaction':
        return [
          this.style.dim(
            `(compacted ${n(event.count)} older messages into a summary: about ${n(event.tokensBefore)} → ${n(event.tokensAfter)} tokens)`,
          ),
        ];
      case 'subagent':
        return this.under(scope + event.callId, () =>
          this.eventLines(event.event, `${scope}${event.callId}/`).map((line) => `  ${line}`),
        );
      default:
        return [];
    }
    // #endregion
  }

  /**
   * The lines of a call's events: nothing when it is asked for (a hook may still block it or change its arguments),
   * its line when it is decided, its end when it ends. A call is known by `scope` and its id together: a sub-agent's
   * ids may repeat its parent's. Its line is the given headline, of the arguments that run.
   *
   * - Allowed, or changed (then the change's arguments are the ones shown from now on): the line, bold.
   * - Blocked: the line in red, and a red line `  ⎿ denied: `, `  ⎿ rejected: ` or `  ⎿ blocked: ` (a rule's
   *   refusal, the person's no, or a block without a permission note) and the reason (the note's, else the first
   *   line of the decision's message), made visible and clipped to the width. That call's result then draws nothing: it says the same again.
   * - A result, drawn under its call (under, given: it draws the line of a call it never saw): for an edit or write
   *   that succeeded `  ⎿ ok` (dim) and its editDiff, for anything else its resultLines, both as the renderer's
   *   options say.
   * - `current` says whose output the screen ends with (under relies on it): after an allowed line, this call's
   *   (what runs inside it is scoped by the call and `/`); after a block or a result, the agent around it.
   */
  private callLines(
    event: Extract<AgentEvent, { type: 'tool_call_requested' | 'tool_call_decided' | 'tool_result' }>,
    scope: string,
  ): string[] {
    // #region chapter 15: Renderer.callLines
    // 1. The call's key is scope + callId: ids are unique within one agent only, and a sub-agent's ids may repeat
    //    its parent's. The call's line is this.headline(call) (given): `● name(summary)`.
    // 2. tool_call_requested: remember { name, arguments } under the key (this.calls). No lines yet: a hook may
    //    still block the call or change its arguments.
    // 3. tool_call_decided (the remembered call, or { name, arguments: undefined } when it was never seen):
    //    - change: remember it with the decision's arguments, the ones that run; then as allow, with those.
    //    - allow: the call's line, bold. The screen now ends with this call's output: this.current = key + '/'.
    //    - block: the call's line in red, then in red `  ⎿ denied: `, `  ⎿ rejected: ` or `  ⎿ blocked: ` (the
    //      permission note's outcome denied, asked, or no note) and the reason: the note's reason, else the first
    //      line of the decision's message, made visible and clipped to this.width. The call has ended (this.ended): its result says
    //      the same thing again. The screen ends with the output of the agent around it: this.current = scope.
    // 4. tool_result of an ended call: no lines (forget it is ended). Otherwise, under the call (this.under, given;
    //    pass it the call, so that even a call never seen before gets its line): for an edit or write that
    //    succeeded, `  ⎿ ok` (dim) and the editDiff of the arguments it ran with; for anything else resultLines.
    //    Both with this.style, this.maxLines and this.width. Afterwards this.current = scope (the task call around
    //    this one, or '' at the top).
    const key = scope + event.callId;
    const call = this.calls.get(key) ?? { name: event.name, arguments: undefined };
    const options = { style: this.style, max: this.maxLines, width: this.width };
    switch (event.type) {
      case 'tool_call_requested':
        this.calls.set(key, { name: event.name, arguments: event.arguments });
        return [];
      case 'tool_call_decided': {
        const decision = event.decision;
        if (decision.type === 'change') this.calls.set(key, { name: call.name, arguments: decision.arguments });
        const ran = this.calls.get(key) ?? call;
        if (decision.type !== 'block') {
          this.current = `${key}/`;
          return [this.style.bold(this.headline(ran))];
        }
        const outcome = decision.permission?.outcome;
        const word = outcome === 'denied' ? 'denied' : outcome === 'asked' ? 'rejected' : 'blocked';
        const reason = decision.permission?.reason ?? decision.message.split('\n', 1)[0]!;
        this.ended.add(key);
        this.current = scope;
        return [
          this.style.red(this.headline(ran)),
          this.style.red(clip(`  ⎿ ${word}: ${visible(reason)}`, this.width)),
        ];
      }
      case 'tool_result': {
        if (this.ended.delete(key)) return [];
        const diff = event.isError ? undefined : editDiff(call.name, call.arguments, options);
        const lines = this.under(
          key,
          () => (diff ? [this.style.dim('  ⎿ ok'), ...diff] : resultLines(event.content, event.isError, options)),
          call,
        );
        this.current = scope;
        return lines;
      }
    }
    // #endregion
  }

  /** `● name(summary)`, made visible and clipped to the width; `● name` when its arguments are not known. */
  private headline(call: CallInfo): string {
    const summary = call.arguments === undefined ? '' : `(${summarizeArguments(call.arguments, this.cwd)})`;
    return clip(visible(`● ${call.name}${summary}`), this.width);
  }

  /**
   * Lines that belong under the line of call `key` (its output, its task list, its sub-agent's calls). When the
   * last thing on screen is another call's (parallel calls end in any order), the call's line is shown again first,
   * so nothing ever sits under the wrong call. The call (or one inside it) is then the current one. No lines: no
   * call line either, and nothing changes. `call` is what the line shows (by default the call remembered under `key`;
   * without one there is no line to show).
   */
  private under(key: string, make: () => string[], call: CallInfo | undefined = this.calls.get(key)): string[] {
    const before = this.current;
    const inside = before.startsWith(`${key}/`);
    if (!inside) this.current = `${key}/`;
    const lines = make();
    if (lines.length === 0) {
      this.current = before;
      return [];
    }
    return inside || !call ? lines : [this.style.bold(this.headline(call)), ...lines];
  }

  /**
   * For a program that writes its own lines between events (a permission question): "\n" when the cursor is
   * mid-line, else ''; either way the cursor is then at a line start.
   */
  lineBreak(): string {
    const text = this.atLineStart ? '' : '\n';
    this.atLineStart = true;
    return text;
  }
}
