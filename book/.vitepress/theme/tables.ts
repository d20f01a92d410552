/**
 * A table wider than the column scrolls sideways inside its frame (lib/markdown.ts tableFramePlugin), and says so: the
 * frame is marked `data-more="right"` (or left, or both) while part of the table is hidden on that side, and the CSS
 * draws a shadow on that edge (custom.css). The marks change no layout: the shadow is drawn over the table.
 */
let watching: ResizeObserver | undefined;

function mark(frame: HTMLElement): void {
  const table = frame.querySelector<HTMLElement>(':scope > table');
  if (!table) return;
  const hidden = table.scrollWidth - table.clientWidth;
  const left = table.scrollLeft > 1;
  const right = hidden > 1 && table.scrollLeft < hidden - 1;
  const more = left && right ? 'both' : left ? 'left' : right ? 'right' : '';
  if (more) frame.dataset.more = more;
  else delete frame.dataset.more;
}

/** Marks the page's tables, and again whenever one scrolls or the page's width changes. */
export function markTables(): void {
  const frames = [...document.querySelectorAll<HTMLElement>('.vp-doc .table-frame')];
  watching?.disconnect();
  watching = new ResizeObserver((entries) => entries.forEach((e) => mark(e.target as HTMLElement)));
  for (const frame of frames) {
    mark(frame);
    watching.observe(frame);
    if (frame.dataset.watched) continue;
    frame.dataset.watched = '';
    frame.querySelector(':scope > table')?.addEventListener('scroll', () => mark(frame), { passive: true });
  }
}
