/**
 * Chapter 15: the pieces of terminal text the Renderer (render.ts) puts together: colours (a Style), a call's
 * arguments in a few words, a result's first lines, an edit's diff, the task list, the usage line. Each is a pure
 * function of its input, tested on its own.
 */
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
  // 1. Look at every character; one listed in keep stays as it is.
  // 2. A C0 control (code 0x00 to 0x1f) becomes the Control Picture at 0x2400 plus its code: ESC (0x1b) is ␛
  //    (0x241b), a new line ␊, a tab ␉, a carriage return ␍.
  // 3. DEL (0x7f) becomes ␡ (0x2421).
  // 4. A C1 control (0x80 to 0x9f: a terminal may read 0x9b as ESC [) or a bidirectional control (0x200e, 0x200f,
  //    0x202a to 0x202e, 0x2066 to 0x2069: they reorder what is shown) becomes `\u` and its code as four lower-case
  //    hex digits, `\u009b`.
  // 5. Everything else stays; the whole text is looked at, not only its start.
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (ch) => {
    const code = ch.charCodeAt(0);
    if (keep.includes(ch)) return ch;
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    return `\\u${code.toString(16).padStart(4, '0')}`;
  });
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
  // 1. Arguments that are not a plain object (a string that failed to parse, a list, null): their JSON on one line
  //    (oneLine, given), clipped to max (clip, given).
  // 2. The main argument: the first of MAIN_ARGUMENTS (command, pattern, url, path) that is a string. A path is
  //    shown relative to cwd when it points inside it (as written otherwise); put it on one line and clip it to max.
  // 3. No main argument: every key as `key: value`, joined with ", " and clipped to max as a whole; a string value
  //    is its JSON, clipped to 30 characters first; a list is `[N items]` (`[1 item]`); an object is `{…}`; anything
  //    else is its JSON. An empty object gives ''.
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return clip(oneLine(JSON.stringify(args) ?? String(args)), max);
  const record = args as Record<string, unknown>;
  for (const key of MAIN_ARGUMENTS) {
    const value = record[key];
    if (typeof value === 'string') return clip(oneLine(key === 'path' ? shownPath(cwd, value) : value), max);
  }
  return clip(
    Object.entries(record)
      .map(([key, value]) => `${key}: ${valueText(value)}`)
      .join(', '),
    max,
  );
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
  // 1. Drop the new lines at the end of content; what is left, split on "\n", is the output ([] when nothing is left).
  // 2. The first line: `  ⎿ ok`, or `  ⎿ error` for an error, followed by ` (no output)` when the output is empty.
  // 3. Then at most max (DEFAULT_MAX_LINES) lines of output, each as four spaces and the line made visible (visible,
  //    keeping tabs: a file's escape codes must not clear the screen), clipped to width (DEFAULT_WIDTH) with clip.
  // 4. When lines were left out: one more line, `    … +K lines` where K is how many (`… +1 line` for one).
  // 5. Paint every line after clipping (escape codes take no columns): style.red for an error, style.dim otherwise
  //    (style: plainStyle when none is given).
  const { style = plainStyle, max = DEFAULT_MAX_LINES, width = DEFAULT_WIDTH } = options;
  const text = content.replace(/\n+$/, '');
  const output = text === '' ? [] : text.split('\n');
  const lines = [`  ⎿ ${isError ? 'error' : 'ok'}${output.length === 0 ? ' (no output)' : ''}`];
  for (const line of output.slice(0, max)) lines.push(clip(`    ${visible(line, '\t')}`, width));
  if (output.length > max) lines.push(`    … +${plural(output.length - max, 'line')}`);
  return lines.map(isError ? style.red : style.dim);
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
  // 1. Read the texts from the arguments (a plain object): edit needs string old_string and new_string, write a
  //    string content. Any other tool, or a text missing or not a string: return undefined.
  // 2. Each text, with its trailing new lines dropped, is split into lines ('' gives none).
  // 3. edit: the old lines as `- line` painted red, then the new lines as `+ line` painted green. write: only the
  //    `+` lines of the content.
  // 4. Each side shows at most max (DEFAULT_MAX_LINES) lines, then `… +K lines` (dim) when lines were left out.
  //    Every line is made visible (visible, keeping tabs), indented by four spaces and clipped to width
  //    (DEFAULT_WIDTH) before it is painted.
  const { style = plainStyle, max = DEFAULT_MAX_LINES, width = DEFAULT_WIDTH } = options;
  const record = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  const sides: Array<[string, string, (text: string) => string]> = [];
  if (name === 'edit' && typeof record.old_string === 'string' && typeof record.new_string === 'string') {
    sides.push([record.old_string, '-', style.red], [record.new_string, '+', style.green]);
  } else if (name === 'write' && typeof record.content === 'string') {
    sides.push([record.content, '+', style.green]);
  } else return undefined;
  const lines: string[] = [];
  for (const [text, mark, paint] of sides) {
    const trimmed = text.replace(/\n+$/, '');
    const all = trimmed === '' ? [] : trimmed.split('\n');
    for (const line of all.slice(0, max)) lines.push(paint(clip(`    ${mark} ${visible(line, '\t')}`, width)));
    if (all.length > max) lines.push(style.dim(`    … +${plural(all.length - max, 'line')}`));
  }
  return lines;
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
  // 1. An empty list: one line, `  (no tasks)`, dim.
  // 2. Otherwise one line per task, in the list's order: two spaces, its mark (TODO_MARKS: ☐ pending,
  //    ◐ in_progress, ☒ completed), a space and its text.
  // 3. The text: for the task in progress its activeForm (its content when it has none), bold; for a completed
  //    task its content, dim; for a pending one its content as it is. Only the text is painted, not the mark, and
  //    it is made visible first (visible): the model wrote it.
  if (todos.length === 0) return [style.dim('  (no tasks)')];
  return todos.map((todo) => {
    const text =
      todo.status === 'in_progress'
        ? style.bold(visible(todo.activeForm || todo.content))
        : todo.status === 'completed'
          ? style.dim(visible(todo.content))
          : visible(todo.content);
    return `  ${TODO_MARKS[todo.status]} ${text}`;
  });
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
  // 1. `↑ N in · ↓ N out`, each count with thousands separators (toLocaleString('en-US')).
  // 2. Then ` · N cache read` and ` · N cache write` when the usage has those counts (0 included).
  // 3. Last ` · ` and the cost: costOf(usage, priceFor(model)) from chapter 12, written with formatCost (`$0.0123`,
  //    or `cost unknown` for a model without a price: never `$0.0000` for a cost nobody knows).
  const n = (value: number) => value.toLocaleString('en-US');
  const parts = [`↑ ${n(usage.inputTokens)} in`, `↓ ${n(usage.outputTokens)} out`];
  if (usage.cacheReadTokens !== undefined) parts.push(`${n(usage.cacheReadTokens)} cache read`);
  if (usage.cacheWriteTokens !== undefined) parts.push(`${n(usage.cacheWriteTokens)} cache write`);
  parts.push(formatCost(costOf(usage, priceFor(model))));
  return parts.join(' · ');
  // #endregion
}
