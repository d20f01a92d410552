/**
 * The guide's diagrams, drawn before the site is built. Mermaid lays a diagram out by measuring its labels, so it
 * needs a browser; a reader's browser drawing it after the page loads showed the source first and then pushed the
 * page down (a layout shift of 0.3 on chapter 3). Instead an author runs `npm run diagrams`
 * (scripts/lib/guide-diagrams.ts), which draws every ```mermaid block of book/src with the machine's Chromium and stores
 * each drawing as book/diagrams/<key>.svg; the build (lib/markdown.ts mermaidPlugin) puts the stored SVG into the page,
 * sized from its own width and height, so the page is laid out once, in its final form, before any script runs.
 *
 * A drawing is keyed by what it is drawn from: the diagram's source, the mermaid version and the drawing settings
 * below. A changed source, a new mermaid or new settings is a new key, so a stale drawing is never used: the key it
 * needs is missing, and verify says so (checkGuide: "run npm run diagrams"). One drawing serves both themes (dark mode
 * inverts its colours, theme/custom.css).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { diagramConfig, MAX_HEIGHT, MIN_SCALE } from './diagram-config';

export { DIAGRAM_FONT, diagramConfig, MAX_HEIGHT, MIN_SCALE } from './diagram-config';

/** Where the drawings are kept, relative to the repository's root. */
export const DIAGRAM_DIR = 'book/diagrams';

/** Bumped when the way a drawing is made changes (scripts/lib/guide-diagrams.ts), so every drawing is made again. */
const DRAWING_VERSION = 1;

let mermaidVersion: string | undefined;
function mermaidVersionOf(): string {
  mermaidVersion ??= (
    JSON.parse(readFileSync(createRequire(import.meta.url).resolve('mermaid/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  return mermaidVersion;
}

/** The key of a diagram's drawing: 16 hex digits of a hash of its source and of how it is drawn. */
export function diagramKey(source: string): string {
  const what = JSON.stringify([DRAWING_VERSION, mermaidVersionOf(), diagramConfig(false), source.trimEnd()]);
  return createHash('sha256').update(what).digest('hex').slice(0, 16);
}

/** The stored drawing's file, for a repository root. */
export const diagramFile = (root: string, key: string) => path.join(root, DIAGRAM_DIR, `${key}.svg`);

/** A stored drawing: the SVG and its natural size (px), or undefined when it has not been drawn. */
export function storedDiagram(
  root: string,
  source: string,
): { svg: string; width: number; height: number } | undefined {
  const file = diagramFile(root, diagramKey(source));
  if (!existsSync(file)) return undefined;
  const svg = readFileSync(file, 'utf8');
  const box = /viewBox="([-\d.]+)[ ,]+([-\d.]+)[ ,]+([\d.]+)[ ,]+([\d.]+)"/.exec(svg);
  if (!box) return undefined;
  return { svg, width: Number(box[3]), height: Number(box[4]) };
}

/**
 * The CSS width of a drawing shown in the column: its natural width when it fits, else the column's (100%); a tall one
 * shrunk to MAX_HEIGHT, but never below MIN_SCALE for its height alone. Below MIN_SCALE (a column narrower than
 * MIN_SCALE × its width) it is a preview that opens full size (theme/diagrams.ts).
 */
export function diagramWidth(width: number, height: number): string {
  const w = Math.ceil(width);
  const tall = height > MAX_HEIGHT ? Math.ceil((width * MAX_HEIGHT) / height) : undefined;
  if (tall === undefined) return `min(100%, ${w}px)`;
  return `min(100%, ${w}px, max(${tall}px, min(100%, ${Math.ceil(width * MIN_SCALE)}px)))`;
}
