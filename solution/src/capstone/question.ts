/**
 * Chapter 15: the question a person answers before a call runs.
 *
 * A "y" is only as good as what the person saw when they typed it. The question shows the whole of what they approve:
 * the whole command, wrapped to the terminal's width instead of cut at its edge; every control character the model
 * put in it made visible, so an escape code cannot rub out the line and draw a harmless one in its place; for an edit
 * or a write, the change itself. The answer is one key, and anything else asks again: a typo is not a "no", and it is
 * never a "yes".
 *
 * Questions come from every agent of a run: the main agent and the task tool's children, which run side by side. One
 * person answers them, so they are put one at a time, in the order they were asked, none dropped. `queuedQuestions`
 * does that for the factory, so the terminal and an editor over ACP both get it.
 */
import type { ApprovePlan, PermissionAnswer } from '../agent-events.js';
import type { AskPermission, PermissionRequest } from '../permissions/gate.js';
import { editDiff, plainStyle, shownPath, visible, wrapText, DEFAULT_WIDTH, type Style } from './render-lines.js';

/** Where the question is shown and how. */
export interface QuestionOptions {
  /** The workspace: a path inside it is shown relative to it. */
  cwd: string;
  /** Columns a line may take (DEFAULT_WIDTH when not given). */
  width?: number;
  /** plainStyle when not given. */
  style?: Style;
}

/**
 * The lines of a permission question: `  Allow bash? (why it asks)`, then what the call will do, whole and wrapped,
 * with every control character visible, then for an edit or write every line of the change. Never throws: the
 * arguments come from the model and may be anything.
 *
 * - `Allow NAME?` is yellow and `(REASON)` dim, both made visible first: an MCP server names its own tools, and a
 *   reason may quote the call.
 * - What the call will do is bash's command, an edit's or write's path (shownPath), else the arguments' JSON; made
 *   visible with nothing kept, so a new line shows as ␊, and wrapped (wrapText) to four spaces less than the width
 *   (DEFAULT_WIDTH), four spaces in. Never clipped: what the person cannot see, they approve all the same.
 * - The change is editDiff's with no line left out and none cut.
 */
export function questionLines(request: PermissionRequest, options: QuestionOptions): string[] {
  // #region chapter 15: questionLines
  // 1. The first line: two spaces, `Allow NAME?` painted yellow, a space, `(REASON)` painted dim. Make the name and
  //    the reason visible (visible) before painting: an MCP server names its own tools, and a reason may quote the
  //    call.
  // 2. What the call will do: for bash with a string command, the command; for edit or write with a string path,
  //    the path (shownPath, given); for anything else, the JSON of the arguments. Make it visible with nothing kept
  //    (a new line shows as ␊, ESC as ␛), then cut it into pieces of width - 4 characters (wrapText, given; width
  //    is DEFAULT_WIDTH when not given) and make each piece a line after four spaces. Never clip it: whatever the
  //    person cannot see, they approve all the same.
  // 3. Then for an edit or write every line of the change: editDiff of the call's name and arguments with the style,
  //    max and width both Infinity (no line left out, none cut). It gives undefined for other tools: nothing more.
  const { cwd, width = DEFAULT_WIDTH, style = plainStyle } = options;
  const { call, reason } = request;
  const args = call.arguments;
  const record = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  const edits = call.name === 'edit' || call.name === 'write';
  const subject =
    call.name === 'bash' && typeof record.command === 'string'
      ? record.command
      : edits && typeof record.path === 'string'
        ? shownPath(cwd, record.path)
        : (JSON.stringify(args) ?? String(args));
  const lines = [`  ${style.yellow(`Allow ${visible(call.name)}?`)} ${style.dim(`(${visible(reason)})`)}`];
  for (const piece of wrapText(visible(subject), width - 4)) lines.push(`    ${piece}`);
  lines.push(...(editDiff(call.name, args, { style, max: Infinity, width: Infinity }) ?? []));
  return lines;
  // #endregion
}

/** Waits for its turn, then shows a question (see oneAtATime). */
export type QuestionTurn = <T>(show: () => Promise<T>, signal: AbortSignal) => Promise<T>;

/**
 * A line of questions for one person: each question given to the function it returns is shown only once every
 * question given before it has settled (answered, or failed), in the order they came, none dropped. A question whose
 * signal aborted while it waited is never shown: it rejects with the signal's reason.
 */
export function oneAtATime(): QuestionTurn {
  // #region chapter 15: oneAtATime
  // 1. Remember the question that came last, as a promise (an already resolved one before the first).
  // 2. Each new question waits for that promise, then becomes the one that came last: the next waits for it. Every
  //    question waits for the one just before it, not only for the first, so a third waits for the second.
  // 3. A question that failed (rejected) must not stop the ones after it: the next waits for it to settle, either way.
  // 4. When its turn comes: if its signal has aborted meanwhile (its run was stopped), reject with the signal's
  //    reason without showing it. Otherwise call show() and settle as it settles; the caller gets that answer.
  let last: Promise<unknown> = Promise.resolve();
  return (show, signal) => {
    const turn = last.then(() => {
      if (signal.aborted) throw signal.reason;
      return show();
    });
    last = turn.catch(() => undefined);
    return turn;
  };
  // #endregion
}

/**
 * The program's questions (permission and plan), put to the person one at a time through one oneAtATime line: every
 * agent of a run asks through the same gate, so the main agent and every sub-agent wait their turn. A callback that is
 * not given stays undefined.
 */
export function queuedQuestions(config: { ask?: AskPermission; approvePlan?: ApprovePlan }): {
  ask?: AskPermission;
  approvePlan?: ApprovePlan;
} {
  const turn = oneAtATime();
  const { ask, approvePlan } = config;
  return {
    ask: ask && ((request, signal) => turn(() => ask(request, signal), signal)),
    approvePlan: approvePlan && ((plan, signal) => turn(() => approvePlan(plan, signal), signal)),
  };
}

/** The keys a permission question takes, as the last line of the question shows them. */
export const ANSWER_KEYS = '[y]es / [n]o / [a]lways';

/** The answer a typed line gives: y or yes, n or no, a or always (any case, spaces around ignored); else none. */
export function answerKey(line: string): PermissionAnswer | undefined {
  const key = line.trim().toLowerCase();
  if (key === 'y' || key === 'yes') return 'allow_once';
  if (key === 'a' || key === 'always') return 'allow_always';
  if (key === 'n' || key === 'no') return 'reject_once';
  return undefined;
}

/** How a terminal program shows text and reads the person's lines. */
export interface QuestionIO {
  write(text: string): void;
  /** The next line typed, or undefined at the end of input (Ctrl-D) or once `signal` aborts. */
  read(signal: AbortSignal): Promise<string | undefined>;
}

/**
 * AskPermission for a terminal: writes questionLines and the keys, reads a line; a line that is not one of the keys
 * asks again (never a "no" by accident, never a "yes"). The end of input answers undefined: nobody can answer, so the
 * gate rejects the call.
 */
export function terminalQuestion(io: QuestionIO, options: QuestionOptions): AskPermission {
  const style = options.style ?? plainStyle;
  return async (request, signal) => {
    io.write(`${[...questionLines(request, options), `  ${ANSWER_KEYS}`].join('\n')}\n`);
    for (;;) {
      const line = await io.read(signal);
      if (line === undefined) return undefined;
      const answer = answerKey(line);
      if (answer) return answer;
      io.write(`  ${style.yellow('Answer with one key:')} ${ANSWER_KEYS}\n`);
    }
  };
}
