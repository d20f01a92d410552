/**
 * Draws the page's ```mermaid blocks (rendered by lib/markdown.ts as `<div class="mermaid">` holding the source).
 *
 * The page must answer clicks first: mermaid is loaded only once the app has hydrated and the browser is idle, only
 * on a page that has a diagram, and mermaid itself then fetches only the code of the diagram kinds on the page.
 * Diagrams are drawn one at a time, yielding to the browser between them. The built site serves mermaid's own
 * prebuilt ESM files (copied by config.ts buildEnd, MERMAID_DIR) rather than bundling mermaid again: the build is
 * much faster, and mermaid's files already load each diagram kind's code only when a diagram of that kind is drawn.
 *
 * Readable labels: diagrams are drawn at their natural size (labels at the page's 16px) and shrunk to fit the column
 * (and MAX_HEIGHT while labels stay readable). When fitting the column would take the labels below MIN_SCALE (12px),
 * the diagram is still shown whole in the
 * column, as a preview, and opens full size (labels at 16px, scrolling both ways) with one click, Enter or Space;
 * Escape, the close button or a click outside the drawing closes it. Nothing scrolls sideways inside the column.
 */
import type { Mermaid, MermaidConfig } from 'mermaid';
import { withBase } from 'vitepress';
import { langOf, STRINGS } from '../lib/i18n';

/** The page's language, from <html lang> (VitePress sets it per locale, on every route change). */
const pageLanguage = () => langOf(document.documentElement.lang);

export const DIAGRAM_FONT =
  'ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
/** The smallest scale a diagram is shown at in the column as readable: 16px labels stay at least 12px on screen. */
export const MIN_SCALE = 0.75;
/** The tallest a diagram is shown in the column, px, as long as its labels stay readable (MIN_SCALE). */
export const MAX_HEIGHT = 1000;

export function diagramConfig(dark: boolean): MermaidConfig {
  return {
    startOnLoad: false,
    securityLevel: 'strict',
    theme: dark ? 'dark' : 'default',
    // A local font: a label measured before a web font loads would be clipped once it does.
    fontFamily: DIAGRAM_FONT,
    themeVariables: { fontFamily: DIAGRAM_FONT, fontSize: '16px' },
    flowchart: { useMaxWidth: false },
    state: { useMaxWidth: false },
    sequence: {
      useMaxWidth: false,
      actorFontSize: 16,
      messageFontSize: 16,
      noteFontSize: 16,
      actorFontFamily: DIAGRAM_FONT,
      messageFontFamily: DIAGRAM_FONT,
      noteFontFamily: DIAGRAM_FONT,
    },
  };
}

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
  const blocks = [...document.querySelectorAll<HTMLElement>('.vp-doc div.mermaid')].filter(
    (b) => redraw || !b.dataset.drawn,
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

/** Draws the diagrams not yet drawn (all of them with `redraw`, after a theme change), after any earlier call. */
export function drawDiagrams(redraw = false): Promise<void> {
  queue = queue.then(() => draw(redraw)).catch((error) => console.error(error));
  return queue;
}
