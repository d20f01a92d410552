/**
 * Chapter 15: the pieces of terminal text the Renderer (render.ts) puts together: colours (a Style), a call's
 * arguments in a few words, a result's first lines, an edit's diff, the task list, the usage line. Each is a pure
 * function of its input, tested on its own.
 */
import { TodoError } from '../todo.js';
import path from 'node:path';
import pc from 'picocolors';
import type { TodoItem } from '../agent-events.js';
import type { Usage } from '../messages.js';
import { costOf, formatCost, priceFor } from '../session/cost.js';
import { displayPath, isInside } from '../workspace.js';
import { oneLine as clippedLine } from '../acp/tool-info.js';

/** How each kind of text is painted. Every function returns its input, maybe wrapped in escape codes. */
export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const same = (text: string) => text;

/** No colour at all: tests, pipes, files, NO_COLOR. */
export const plainStyle: Style = { dim: same, bold: same, red: same, green: same, yellow: same, cyan: same };

// createColors(true): escape codes whatever picocolors guessed about this process's own stdout; styleFor decides.
const ansi = pc.createColors(true);

/** ANSI colours, for a terminal. */
export const ansiStyle: Style = {
  dim: ansi.dim,
  bold: ansi.bold,
  red: ansi.red,
  green: ansi.green,
  yellow: ansi.yellow,
  cyan: ansi.cyan,
};

/**
 * The style for an output stream: plain when NO_COLOR has any non-empty value (https://no-color.org, which wins
 * over everything), colours when FORCE_COLOR is set to anything but '' , '0' or 'false' (a CI log that shows colours),
 * else colours only when the stream is a terminal.
 */
export function styleFor(stream: { isTTY?: boolean }, env: Record<string, string | undefined> = process.env): Style {
  if (env.NO_COLOR) return plainStyle;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force === '0' || force === 'false' ? plainStyle : ansiStyle;
  return stream.isTTY ? ansiStyle : plainStyle;
}

/**
 * `text` with every control character made visible, so that nothing a model or a file wrote can move the cursor,
 * clear the screen, set the window's title or reorder what a person reads: C0 controls as their Control Pictures
 * (`␛` for ESC, `␊` for a new line, `␉` for a tab, `␍` for a carriage return), DEL as `␡`, C1 controls and the
 * bidirectional controls as `\u` and four hex digits. Characters in `keep` stay as they are (output keeps its tabs,
 * streamed text its new lines). Every other character stays. Never throws.
 */
export function visible(text: string, keep = ''): string {
  // #region chapter 15: visible
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'visible');
  // #endregion
}

/**
 * `text` in pieces of at most `width` characters (at least one), in order, nothing left out: the whole of a long
 * command on several lines instead of cut at the edge. '' is one empty piece. Characters, not UTF-16 units, so a
 * piece never ends in half of an emoji.
 */
export function wrapText(text: string, width: number): string[] {
  const chars = Array.from(text);
  const size = Math.max(1, Math.floor(width));
  const pieces: string[] = [];
  for (let start = 0; start < chars.length; start += size) pieces.push(chars.slice(start, start + size).join(''));
  return pieces.length > 0 ? pieces : [''];
}

/** Output lines shown under a call before `… +K lines`. */
export const DEFAULT_MAX_LINES = 4;
/** Columns a line may take when the terminal's width is not known. */
export const DEFAULT_WIDTH = 100;

/** `text` cut to `max` characters, the last one an ellipsis when anything was cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}

/** Runs of white space (new lines included) as one space, trimmed: chapter 14's oneLine, without its clipping. */
const oneLine = (text: string): string => clippedLine(text, Infinity);

/** `1 line`, `3 lines`. */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** A path argument as a person reads it: relative to `cwd` when it points inside it, else as the model wrote it. */
export function shownPath(cwd: string, requested: string): string {
  const absolute = path.resolve(cwd, requested);
  return isInside(cwd, absolute) ? displayPath(cwd, absolute) : requested;
}

/** One value of `key: value`: strings quoted and short, lists and objects by their size, the rest as JSON. */
function valueText(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(clip(value, 30));
  if (Array.isArray(value)) return `[${plural(value.length, 'item')}]`;
  if (typeof value === 'object' && value !== null) return '{…}';
  return JSON.stringify(value) ?? String(value);
}

/** The arguments a tool names its main one by, in the order they are looked for. */
export const MAIN_ARGUMENTS = ['command', 'pattern', 'url', 'path'] as const;

/**
 * What goes between the parentheses of a call line: `src/app.ts` for read, `npm test` for bash, `**\/*.ts` for
 * glob; `todos: [3 items]` for a tool without a main argument. One line, at most `max` characters. Never throws:
 * the arguments come from the model and may be anything.
 */
export function summarizeArguments(args: unknown, cwd: string, max = 60): string {
  // #region chapter 15: summarizeArguments
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'summarizeArguments');
  // #endregion
}

/** How many lines to show and how wide, and how to paint them. */
export interface LineOptions {
  style?: Style;
  /** Lines of output shown before `… +K lines` (DEFAULT_MAX_LINES). */
  max?: number;
  /** Columns a line may take (DEFAULT_WIDTH). */
  width?: number;
}

/**
 * The end of a call as shown under its line: `  ⎿ ok` or `  ⎿ error`, then the first `max` lines of the output
 * (indented by four spaces, clipped to `width`) and `    … +K lines` for the rest. Dim for ok, red for an error.
 * Trailing new lines are not output: none left is `  ⎿ ok (no output)`. One line left out reads `… +1 line`.
 * Every line is made visible but for its tabs (a file's escape codes must not clear the screen), and painted after
 * it is clipped (escape codes take no columns). The defaults are DEFAULT_MAX_LINES, DEFAULT_WIDTH and plainStyle.
 */
export function resultLines(content: string, isError: boolean, options: LineOptions = {}): string[] {
  // #region chapter 15: resultLines
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'resultLines');
  // #endregion
}

/**
 * The change a successful edit or write made, from its arguments, to show instead of its output: the replaced
 * text as `- ` lines (red) and the new text as `+ ` lines (green); for write, only `+ ` lines (its arguments do not
 * hold the old file). Undefined for any other call, or arguments without the texts.
 * Each side shows at most `max` lines (trailing new lines dropped; an empty text has none), then a dim `… +K lines`;
 * each line is four spaces in, made visible but for its tabs, clipped to `width`, then painted. The same defaults
 * as resultLines.
 */
export function editDiff(name: string, args: unknown, options: LineOptions = {}): string[] | undefined {
  // #region chapter 15: editDiff
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'editDiff');
  // #endregion
}

/** The marks of the task list, by status. */
export const TODO_MARKS = { pending: '☐', in_progress: '◐', completed: '☒' } as const;

/**
 * The task list, one line per task: `  ☐ Write the test`, `  ◐ Running the tests` (bold), `  ☒ Read the code` (dim).
 * The marks are TODO_MARKS'. The task in progress shows its activeForm (its content when it has none). Only the text
 * is painted, after it is made visible: the model wrote it. An empty list is one dim line, `  (no tasks)`.
 */
export function todoLines(todos: readonly TodoItem[], style: Style = plainStyle): string[] {
  // #region chapter 15: todoLines
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'todoLines');
  // #endregion
}

/**
 * The last line of a run: `↑ 1,200 in · ↓ 300 out · $0.0123` (cache counts when there are some). The counts have
 * thousands separators (`1,200`); `N cache read` and `N cache write` come before the cost whenever the usage has
 * them, 0 included. The cost is chapter 12's, at the model's price (priceFor), written by formatCost:
 * `cost unknown` for a model without a price, never `$0.0000` for a cost nobody knows.
 */
export function usageLine(usage: Usage, model?: string): string {
  // #region chapter 15: usageLine
  // Write it from the contract above. Step by step instead: npm run reset -- chapter15 --guided
  throw new TodoError(15, 'usageLine');
  // #endregion
}
