/** The progress line the kit's commands show on stderr while tests run (which chapters, how many files done). */

const span = (chapters: readonly number[]) => {
  const parts: string[] = [];
  for (let i = 0; i < chapters.length; ) {
    let j = i;
    while (j + 1 < chapters.length && chapters[j + 1] === chapters[j]! + 1) j++;
    parts.push(j > i + 1 ? `${chapters[i]}-${chapters[j]}` : chapters.slice(i, j + 1).join(', '));
    i = j + 1;
  }
  return parts.join(', ');
};

/** The progress line: which chapters run, which were reused, and (on a terminal) how many test files are done. */
export function progressText(
  running: readonly number[],
  reused: readonly number[],
  done?: number,
  total?: number,
): string {
  const what = running.length
    ? `Running the tests of chapter${running.length > 1 ? 's' : ''} ${span(running)}`
    : 'Running the tests';
  const kept = reused.length
    ? ` (chapter${reused.length > 1 ? 's' : ''} ${span(reused)} unchanged: results reused)`
    : '';
  const count = total ? ` ${done ?? 0}/${total} test files` : '';
  return `${what}${kept}…${count}`;
}

/** What the kit's reporter prints after each test file when KIT_PROGRESS_LINES is set. */
export const PROGRESS_MARK = '\u0000kit:file-done\u0000';

/**
 * A line on stderr that appears once the work has taken a second: kept up to date in place on a terminal, printed
 * once otherwise. `stop` clears it (on a terminal) so the command's own output starts on a clean line.
 */
export function progressLine(text: () => string, stream: NodeJS.WriteStream = process.stderr) {
  let shown = false;
  let stopped = false;
  const tty = Boolean(stream.isTTY);
  const draw = () => stream.write(`\r\u001b[2K${text()}`);
  const timer = setTimeout(() => {
    if (stopped) return;
    shown = true;
    if (tty) draw();
    else stream.write(`${text()}\n`);
  }, 1000);
  return {
    update() {
      if (shown && tty && !stopped) draw();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      if (shown && tty) stream.write('\r\u001b[2K');
    },
  };
}
