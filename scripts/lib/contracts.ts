/**
 * A stub's contract: the doc comment of the innermost declaration around its region (the function, the method, the
 * tool's `execute`, or the constant that holds them). In the contract edition it is all the learner reads about what
 * the stub must do (regions.ts); npm run dictation measures how much of the reference code it spells out.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from '@babel/parser';
import { listSources, parseRegions } from './regions.js';

interface Node {
  type: string;
  start: number;
  end: number;
  leadingComments?: Array<{ type: string; value: string; end: number }>;
  [key: string]: unknown;
}

/** A parsed source file: its program, with comments attached, and its tokens. */
export interface ParsedSource {
  program: Node;
  tokens: unknown[];
}

/** Parses TypeScript with Babel's parser (what Stryker uses too), comments attached to the nodes after them. */
export function parseSource(text: string): ParsedSource {
  return parse(text, {
    sourceType: 'module',
    plugins: ['typescript', 'decorators-legacy'],
    tokens: true,
    attachComment: true,
    errorRecovery: true,
  }) as unknown as ParsedSource;
}

/** The nodes that contain `offset`, outermost first. */
function enclosing(node: Node, offset: number, into: Node[] = []): Node[] {
  into.push(node);
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc' || key.endsWith('Comments')) continue;
    for (const child of Array.isArray(value) ? value : [value]) {
      const c = child as Node | null;
      if (c && typeof c === 'object' && typeof c.type === 'string' && c.start <= offset && offset < c.end) {
        return enclosing(c, offset, into);
      }
    }
  }
  return into;
}

/**
 * The doc comment (`/** … *\/`) of the innermost declaration around `offset` that has one: its text without the
 * comment markers' stars, and where it ends.
 */
export function docComment(source: ParsedSource, offset: number): { text: string; end: number } | undefined {
  for (const node of enclosing(source.program, offset).reverse()) {
    const doc = node.leadingComments?.filter((c) => c.type === 'CommentBlock' && c.value.startsWith('*')).at(-1);
    if (doc) return { text: doc.value.replace(/^\s*\*+ ?/gm, '').trim(), end: doc.end };
  }
  return undefined;
}

/** The offset at which each line of `text` starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}

/** Every stub's contract in a source tree (`solution/src` or `starter/src`), by `chapter N: name`; '' for none. */
export function stubContracts(root: string, workspace: 'solution' | 'starter'): Map<string, string> {
  const src = path.join(root, workspace, 'src');
  const contracts = new Map<string, string>();
  for (const rel of listSources(src)) {
    const text = readFileSync(path.join(src, rel), 'utf8');
    const regions = parseRegions(text, rel);
    if (regions.length === 0) continue;
    const parsed = parseSource(text);
    const lineStart = lineStarts(text);
    for (const region of regions)
      contracts.set(
        `chapter ${region.chapter}: ${region.name}`,
        docComment(parsed, lineStart[region.start]!)?.text ?? '',
      );
  }
  return contracts;
}
