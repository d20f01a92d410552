/**
 * The guide's diagrams drawn ahead of the build (book/.vitepress/lib/diagram-store.ts says why): every ```mermaid block
 * of book/src, drawn by mermaid in the machine's Chromium (Debian's, /usr/bin/chromium: nothing is downloaded) and
 * stored as book/diagrams/<key>.svg, the key a hash of the source and of how it is drawn.
 *
 *   npm run diagrams            draws the diagrams that have no drawing yet, and deletes the drawings no page uses
 *   npm run diagrams -- --check lists what is missing or unused, and exits 1 if anything is
 *
 * checkGuide (guide.ts) reports a diagram without its drawing as verify's problem.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIAGRAM_DIR, diagramConfig, diagramFile, diagramKey } from '../../book/.vitepress/lib/diagram-store.js';
import { bookSrc, guidePages } from './guide-pages.js';
import { fencedBlocks } from './markdown.js';
import { ROOT } from './paths.js';

export interface GuideDiagram {
  page: string;
  /** The line of its ```mermaid fence (1-based). */
  line: number;
  source: string;
  key: string;
}

/** Every ```mermaid block of the guide's pages, in every language. */
export function guideDiagrams(root = ROOT): GuideDiagram[] {
  return guidePages(root).flatMap((page) =>
    fencedBlocks(readFileSync(path.join(bookSrc(root), page), 'utf8'))
      .filter((b) => b.info.split(/\s+/)[0] === 'mermaid')
      .map((b) => ({ page, line: b.line, source: b.content, key: diagramKey(b.content) })),
  );
}

/** The diagrams whose drawing is missing, and the stored drawings no diagram uses (file names). */
export function diagramDrawings(root = ROOT): { missing: GuideDiagram[]; unused: string[] } {
  const diagrams = guideDiagrams(root);
  const keys = new Set(diagrams.map((d) => d.key));
  const dir = path.join(root, DIAGRAM_DIR);
  const stored = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.svg')) : [];
  return {
    missing: diagrams.filter((d) => !existsSync(diagramFile(root, d.key))),
    unused: stored.filter((f) => !keys.has(f.replace(/\.svg$/, ''))),
  };
}

/**
 * verify's sentences for diagramDrawings (checkGuide): a diagram without its drawing. A drawing no diagram uses is
 * harmless (nothing loads it) and is not one: `npm run diagrams`, which an author runs after changing a diagram,
 * deletes it, and `--check` lists it (`unused`).
 */
export function checkDiagramDrawings(root = ROOT, options: { unused?: boolean } = {}): string[] {
  const { missing, unused } = diagramDrawings(root);
  return [
    ...missing.map(
      (d) =>
        `book/src/${d.page}:${d.line}: this diagram has no drawing (${DIAGRAM_DIR}/${d.key}.svg): the site would draw it in the reader's browser, late and moving the page (npm run diagrams draws it)`,
    ),
    ...(options.unused ? unused : []).map(
      (f) => `${DIAGRAM_DIR}/${f} is the drawing of no diagram of the guide (npm run diagrams deletes it)`,
    ),
  ];
}

/** Runs in the drawing page: mermaid draws each source; the drawing's viewBox takes in all of it, its size set. */
const DRAW = (config: object, items: Array<{ key: string; source: string }>) => `(async () => {
  const mermaid = (await import('/mermaid/mermaid.esm.min.mjs')).default;
  mermaid.initialize(${JSON.stringify(config)});
  const out = [];
  for (const { key, source } of ${JSON.stringify(items)}) {
    try {
      const { svg } = await mermaid.render('d-' + key, source);
      const holder = document.createElement('div');
      holder.innerHTML = svg;
      document.body.append(holder);
      const el = holder.querySelector('svg');
      // mermaid's viewBox can miss a part of the drawing (a sequence note wider than its actor): take the union.
      const vb = el.viewBox.baseVal, bb = el.getBBox();
      const x = Math.floor(Math.min(vb.x, bb.x - 4)), y = Math.floor(Math.min(vb.y, bb.y - 4));
      const w = Math.ceil(Math.max(vb.x + vb.width, bb.x + bb.width + 4) - x);
      const h = Math.ceil(Math.max(vb.y + vb.height, bb.y + bb.height + 4) - y);
      el.setAttribute('viewBox', x + ' ' + y + ' ' + w + ' ' + h);
      el.setAttribute('width', String(w));
      el.setAttribute('height', String(h));
      el.removeAttribute('style');
      out.push({ key, svg: el.outerHTML });
      holder.remove();
    } catch (error) {
      out.push({ key, error: String(error && error.message || error) });
    }
  }
  return out;
})()`;

/** The drawing with its geometry to two decimals (a hundredth of a pixel): mermaid writes 15 digits, a third of the file. */
function compact(svg: string): string {
  return svg.replace(
    /(\s(?:d|transform|points|x|y|x1|x2|y1|y2|cx|cy|r|rx|ry)=")([^"]*)"/g,
    (_, name: string, value: string) => `${name}${value.replace(/(\d\.\d\d)\d+/g, '$1')}"`,
  );
}

/** Draws the given diagrams in Chromium and stores their drawings; returns the ones mermaid could not draw. */
export async function drawAndStore(root: string, diagrams: GuideDiagram[]): Promise<string[]> {
  if (!diagrams.length) return [];
  // The browser's driver (no package: Chromium's DevTools protocol over a pipe), loaded only to draw.
  const { CHROMIUM, serveDir, withBrowser } = await import('../../tests/kit/browser-check.js');
  if (!CHROMIUM) throw new Error('drawing diagrams needs Chromium (apt-get install chromium fonts-wqy-microhei)');
  const unique = [...new Map(diagrams.map((d) => [d.key, d])).values()];
  const site = mkdtempSync(path.join(tmpdir(), 'kit-diagrams-'));
  const mermaidDist = path.join(path.dirname(createRequire(import.meta.url).resolve('mermaid/package.json')), 'dist');
  symlinkSync(mermaidDist, path.join(site, 'mermaid'));
  writeFileSync(
    path.join(site, 'index.html'),
    '<!doctype html><html><head><meta charset="utf-8"></head><body></body></html>',
  );
  const server = await serveDir(site);
  const problems: string[] = [];
  try {
    const drawn: Array<{ key: string; svg?: string; error?: string }> = await withBrowser(async (page) => {
      await page('Page.enable');
      await page('Page.navigate', { url: `${server.url}/index.html` });
      for (let i = 0; i < 200; i++) {
        const r = await page('Runtime.evaluate', { expression: 'document.readyState', returnByValue: true });
        if (r.result.value === 'complete') break;
        await new Promise((done) => setTimeout(done, 50));
      }
      const r = await page('Runtime.evaluate', {
        expression: DRAW(
          diagramConfig(false),
          unique.map((d) => ({ key: d.key, source: d.source })),
        ),
        awaitPromise: true,
        returnByValue: true,
      });
      if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
      return r.result.value;
    });
    mkdirSync(path.join(root, DIAGRAM_DIR), { recursive: true });
    for (const d of drawn) {
      const at = unique.find((u) => u.key === d.key)!;
      if (d.svg) writeFileSync(diagramFile(root, d.key), `${compact(d.svg)}\n`);
      else problems.push(`book/src/${at.page}:${at.line}: mermaid could not draw this diagram: ${d.error}`);
    }
  } finally {
    await server.close();
    rmSync(site, { recursive: true, force: true });
  }
  return problems;
}

// npm run diagrams [-- --check]
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { missing, unused } = diagramDrawings(ROOT);
  if (process.argv.includes('--check')) {
    const problems = checkDiagramDrawings(ROOT, { unused: true });
    console.log(problems.length ? problems.join('\n') : `every diagram has its drawing (${DIAGRAM_DIR})`);
    process.exit(problems.length ? 1 : 0);
  }
  for (const f of unused) rmSync(path.join(ROOT, DIAGRAM_DIR, f));
  const problems = await drawAndStore(ROOT, missing);
  const drawn = new Set(missing.map((d) => d.key)).size;
  console.log(
    `${drawn} drawing(s) made, ${unused.length} unused one(s) deleted, in ${DIAGRAM_DIR} (${guideDiagrams(ROOT).length} diagrams in the guide)`,
  );
  if (problems.length) {
    console.log(problems.join('\n'));
    process.exit(1);
  }
}
