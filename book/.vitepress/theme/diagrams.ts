/**
 * The page's diagrams once the app answers clicks. Most are drawn before the build (lib/diagram-store.ts, `npm run
 * diagrams`) and arrive in the page as SVG, already sized by CSS (lib/markdown.ts mermaidPlugin): here they only learn
 * to open full size when the column shows them too small to read (below MIN_SCALE, labels under 12px): one click,
 * Enter or Space opens the drawing full size (labels at 16px, scrolling both ways); Escape, the close button or a
 * click outside the drawing closes it. Nothing here changes the page's layout (the caption's room is CSS's).
 *
 * A diagram without a stored drawing (one just written, while `npm run book` runs; verify reports it) is its source
 * until drawn here: mermaid is loaded only then, once the app has hydrated and the browser is idle, and fetches only
 * the code of the diagram kinds on the page. The built site serves mermaid's own prebuilt ESM files (config.ts
 * buildEnd) for that.
 */
import type { Mermaid } from 'mermaid';
import { withBase } from 'vitepress';
import { DIAGRAM_FONT, diagramConfig, MAX_HEIGHT, MIN_SCALE } from '../lib/diagram-config';
import { langOf, STRINGS } from '../lib/i18n';

/** The page's language, from <html lang> (VitePress sets it per locale, on every route change). */
const pageLanguage = () => langOf(document.documentElement.lang);

export { DIAGRAM_FONT, diagramConfig, MAX_HEIGHT, MIN_SCALE };

let mermaid: Promise<Mermaid> | undefined;
let queue: Promise<void> = Promise.resolve();
let counter = 0;

const idle = () =>
  new Promise<void>((resolve) => {
    if ('requestIdleCallback' in window) window.requestIdleCallback(() => resolve(), { timeout: 1000 });
    else setTimeout(resolve, 100);
  });
const nextFrame = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Sizes a drawn diagram: natural size if it fits, else shrunk to the column; below MIN_SCALE it opens full size. */
function fit(block: HTMLElement, svg: SVGSVGElement): void {
  // mermaid's viewBox can miss a part of the drawing (a sequence note wider than its actor): take the union.
  const vb = svg.viewBox.baseVal;
  const bb = svg.getBBox();
  if (vb && vb.width && bb.width) {
    const x = Math.min(vb.x, bb.x - 4);
    const y = Math.min(vb.y, bb.y - 4);
    const right = Math.max(vb.x + vb.width, bb.x + bb.width + 4);
    const bottom = Math.max(vb.y + vb.height, bb.y + bb.height + 4);
    svg.setAttribute('viewBox', `${x} ${y} ${right - x} ${bottom - y}`);
  }
  const natural = svg.viewBox.baseVal?.width || svg.getBoundingClientRect().width;
  const naturalHeight = svg.viewBox.baseVal?.height || svg.getBoundingClientRect().height;
  const room = block.clientWidth;
  // Fit the column; shrink a tall one to MAX_HEIGHT too, but never below readable for its height alone.
  const widthScale = Math.min(1, room / natural);
  const scale = Math.min(widthScale, Math.max(MAX_HEIGHT / naturalHeight, Math.min(widthScale, MIN_SCALE)));
  svg.style.maxWidth = 'none';
  svg.style.width = `${Math.floor(natural * scale)}px`;
  svg.style.height = 'auto';
  svg.removeAttribute('height');
  if (widthScale < MIN_SCALE) opensFullSize(block);
  else closesNothing(block);
}

function closesNothing(block: HTMLElement): void {
  delete block.dataset.opens;
  block.removeAttribute('tabindex');
  block.removeAttribute('role');
  block.removeAttribute('aria-label');
}

/** A preview: one click (or Enter, Space) opens the drawing full size. */
function opensFullSize(block: HTMLElement): void {
  block.dataset.opens = '';
  block.tabIndex = 0;
  block.setAttribute('role', 'button');
  block.setAttribute('aria-label', STRINGS[pageLanguage()].diagramOpens);
  if (block.dataset.opener) return;
  block.dataset.opener = '';
  block.addEventListener('click', () => block.dataset.opens !== undefined && openFull(block));
  block.addEventListener('keydown', (event) => {
    if (block.dataset.opens !== undefined && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      openFull(block);
    }
  });
}

function openFull(block: HTMLElement): void {
  const svg = block.querySelector<SVGSVGElement>('.mermaid-drawing svg');
  if (!svg || document.querySelector('.diagram-full')) return;
  const view = document.createElement('div');
  view.className = 'diagram-full';
  view.setAttribute('role', 'dialog');
  view.setAttribute('aria-modal', 'true');
  view.setAttribute('aria-label', STRINGS[pageLanguage()].diagramFull);
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'diagram-full-close';
  close.textContent = STRINGS[pageLanguage()].close;
  const area = document.createElement('div');
  area.className = 'diagram-full-area';
  const copy = svg.cloneNode(true) as SVGSVGElement;
  copy.style.width = `${Math.ceil(svg.viewBox.baseVal.width)}px`;
  copy.style.maxWidth = 'none';
  area.append(copy);
  view.append(close, area);
  const done = () => {
    view.remove();
    document.removeEventListener('keydown', onKey, true);
    document.documentElement.classList.remove('diagram-full-open');
    block.focus({ preventScroll: true });
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      done();
    }
  };
  close.addEventListener('click', done);
  view.addEventListener('click', (event) => {
    if (event.target === view || event.target === area) done();
  });
  document.addEventListener('keydown', onKey, true);
  document.documentElement.classList.add('diagram-full-open');
  document.body.append(view);
  close.focus();
}

async function draw(redraw: boolean): Promise<void> {
  await idle();
  markOpeners();
  const blocks = [...document.querySelectorAll<HTMLElement>('.vp-doc div.mermaid')].filter(
    (b) => b.dataset.drawn !== 'build' && (redraw || !b.dataset.drawn),
  );
  if (!blocks.length) return;
  mermaid ??= (
    import.meta.env.DEV ? import('mermaid') : import(/* @vite-ignore */ withBase('/mermaid/mermaid.esm.min.mjs'))
  ).then((m) => m.default as Mermaid);
  const api = await mermaid;
  await nextFrame(); // loading mermaid was one long task; let a waiting click through before drawing
  const dark = document.documentElement.classList.contains('dark');
  api.initialize(diagramConfig(dark));
  for (const block of blocks) {
    await idle();
    const source = block.querySelector('.mermaid-source')?.textContent;
    if (!source || !block.isConnected) continue;
    try {
      const { svg } = await api.render(`kit-diagram-${++counter}`, source);
      let drawing = block.querySelector<HTMLElement>(':scope > .mermaid-drawing');
      if (!drawing) {
        drawing = document.createElement('div');
        drawing.className = 'mermaid-drawing';
        block.append(drawing);
      }
      drawing.innerHTML = svg;
      const el = drawing.querySelector('svg');
      if (el) fit(block, el);
      block.dataset.drawn = dark ? 'dark' : 'light';
    } catch (error) {
      block.dataset.drawn = 'error';
      console.error('mermaid could not draw a diagram:', error);
    }
  }
}

/** Whether a drawing is shown below readable size in the column (its caption says it opens: theme/custom.css). */
function shrunk(block: HTMLElement): boolean {
  const svg = block.querySelector<SVGSVGElement>('.mermaid-drawing svg');
  const natural = svg?.viewBox.baseVal?.width;
  return !!svg && !!natural && svg.getBoundingClientRect().width / natural < MIN_SCALE - 0.005;
}

let watching: ResizeObserver | undefined;

/** The drawings that came with the page open full size when they are shown too small to read; again on a resize. */
export function markOpeners(): void {
  const blocks = [...document.querySelectorAll<HTMLElement>('.vp-doc div.mermaid[data-drawn="build"]')];
  const mark = (block: HTMLElement) => (shrunk(block) ? opensFullSize(block) : closesNothing(block));
  blocks.forEach(mark);
  watching?.disconnect();
  watching = new ResizeObserver((entries) => entries.forEach((e) => mark(e.target as HTMLElement)));
  for (const block of blocks) watching.observe(block);
}

/** Draws the diagrams not yet drawn (all of them with `redraw`, after a theme change), after any earlier call. */
export function drawDiagrams(redraw = false): Promise<void> {
  queue = queue.then(() => draw(redraw)).catch((error) => console.error(error));
  return queue;
}
