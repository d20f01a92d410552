/**
 * The offline provider: what `npm run agent` talks to when no API key is set.
 *
 * It is not a language model. It reads the last prompt, picks real tool calls from a few simple rules (list the
 * folder, read a named file, search for a word), and writes its answer from the tool results it is sent back, so the
 * whole loop runs for real: requests, tool calls, results, a second request, an answer. It says plainly that it is
 * offline and how to connect a real model. Deterministic, no network. Given, not a chapter stub.
 */
import { turnToEvents } from './accumulate.js';
import { refuseImages } from './images.js';
import type { AssistantMessage, ToolCall, ToolResultMessage } from './messages.js';
import type { ModelRequest, Provider } from './provider.js';
import type { StreamEvent } from './stream-events.js';

/** How to leave offline mode; the offline provider ends its first answer of a conversation with it. */
export const OFFLINE_NOTE =
  "Offline mode: no API key is set, so the kit's scripted stand-in answered, not a real model. To connect one, set " +
  'ANTHROPIC_API_KEY and ANTHROPIC_MODEL, or OPENAI_API_KEY and OPENAI_MODEL (with OPENAI_BASE_URL for a local ' +
  'server such as Ollama), then run npm run agent again.';

export interface OfflineOptions {
  /** Milliseconds between streamed events, so the text visibly streams (default 0). */
  delayMs?: number;
}

type Plan =
  | { kind: 'glob'; pattern: string }
  | { kind: 'read'; path: string }
  | { kind: 'grep'; pattern: string }
  | { kind: 'help' };

const FILE_NAME = /(?:^|[\s"'`(])((?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8})(?=$|[\s"'`),?!:;]|\.(?:\s|$))/;
const SEARCH =
  /\b(?:search(?:\s+for)?|grep(?:\s+for)?|find|look\s+for|where\s+is|occurrences\s+of)\s+["'`]?([^"'`?\n]+?)["'`]?\s*(?:\?|$|\bin\b)/i;
const LISTING = /\b(folder|directory|dir|files|project|repo|repository|workspace|here|ls|list)\b|what(?:'s| is) in\b/i;

/** What the prompt asks for, by a few plain rules. */
export function planFor(prompt: string): Plan {
  const search = SEARCH.exec(prompt);
  if (search && search[1]!.trim()) return { kind: 'grep', pattern: search[1]!.trim() };
  const file = FILE_NAME.exec(prompt);
  if (file) return { kind: 'read', path: file[1]! };
  if (LISTING.test(prompt)) return { kind: 'glob', pattern: '**/*' };
  return { kind: 'help' };
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
/** The text of a read result without its line numbers. */
const unnumbered = (content: string) =>
  content
    .split('\n')
    .filter((line) => /^\s*\d+\t/.test(line))
    .map((line) => line.replace(/^\s*\d+\t/, ''));

export class OfflineProvider implements Provider {
  readonly name = 'offline';
  private readonly delayMs: number;

  constructor(options: OfflineOptions = {}) {
    this.delayMs = options.delayMs ?? 0;
  }

  async complete(request: ModelRequest): Promise<AssistantMessage> {
    if (request.signal?.aborted) throw request.signal.reason;
    // Not a model: it cannot look at a picture, so it says so rather than answer as if there were none.
    refuseImages(this, request.messages);
    return this.nextTurn(request);
  }

  async *stream(request: ModelRequest): AsyncIterable<StreamEvent> {
    const events = turnToEvents(await this.complete(request));
    for (const event of events) {
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      if (request.signal?.aborted) throw request.signal.reason;
      yield event;
    }
  }

  private nextTurn(request: ModelRequest): AssistantMessage {
    const { messages } = request;
    const lastUser = messages.findLastIndex((m) => m.role === 'user');
    const prompt = lastUser >= 0 ? (messages[lastUser] as { content: string }).content : '';
    const since = messages.slice(lastUser + 1);
    const results = since.filter((m): m is ToolResultMessage => m.role === 'tool');
    const calls = since.flatMap((m) =>
      m.role === 'assistant' ? m.content.filter((b): b is ToolCall => b.type === 'tool_call') : [],
    );
    const usedIds = messages.flatMap((m) =>
      m.role === 'assistant' ? m.content.filter((b) => b.type === 'tool_call') : [],
    ).length;
    const has = (name: string) => request.tools.some((tool) => tool.name === name);
    const saidNote = messages.some(
      (m) => m.role === 'assistant' && m.content.some((b) => b.type === 'text' && b.text.includes('Offline mode')),
    );
    const answer = (text: string): AssistantMessage => ({
      role: 'assistant',
      content: [{ type: 'text', text: saidNote ? text : `${text}\n\n${OFFLINE_NOTE}` }],
      stopReason: 'end_turn',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    const call = (text: string, ...wanted: Array<[name: string, args: Record<string, unknown>]>): AssistantMessage => ({
      role: 'assistant',
      content: [
        { type: 'text', text },
        ...wanted.map(
          ([name, args], i): ToolCall => ({
            type: 'tool_call',
            id: `offline_${usedIds + i + 1}`,
            name,
            arguments: args,
          }),
        ),
      ],
      stopReason: 'tool_use',
      usage: { inputTokens: 0, outputTokens: 0 },
    });

    // First step after the prompt: decide on a tool call.
    if (results.length === 0) {
      const plan = planFor(prompt);
      if (plan.kind === 'glob' && has('glob')) {
        return call(
          'Let me list the files at the top, and one level down.',
          ['glob', { pattern: '*' }],
          ['glob', { pattern: '*/*' }],
        );
      }
      if (plan.kind === 'read' && has('read'))
        return call(`Let me read ${plan.path}.`, ['read', { path: plan.path, limit: 60 }]);
      if (plan.kind === 'grep' && has('grep')) {
        return call(`Let me search for "${plan.pattern}".`, [
          'grep',
          { pattern: escapeRegex(plan.pattern), ignore_case: true },
        ]);
      }
      return answer(
        'I am the offline stand-in, so I only understand a few kinds of request, each answered with real tools: ' +
          '"what is in this folder?", "read README.md", "search for TODO".',
      );
    }

    // Later steps: write the answer from the results received.
    const last = results.at(-1)!;
    const lastCall = calls.find((c) => c.id === last.toolCallId);
    if (last.isError)
      return answer(`The ${last.toolName} tool failed: ${clip(last.content.split('\n')[0] ?? '', 200)}`);
    const listings = results.filter((r) => r.toolName === 'glob' && !r.isError).map((r) => r.content);
    if (last.toolName === 'glob') {
      const files = listings.flatMap((listing) => listing.split('\n'));
      const readme = files.find((file) => /^readme(\.\w+)?$/i.test(file));
      if (readme && has('read') && !calls.some((c) => c.name === 'read')) {
        return call(`There is a ${readme}; let me read it.`, ['read', { path: readme, limit: 40 }]);
      }
      return answer(describeListing(listings));
    }
    if (last.toolName === 'read') {
      const path = String((lastCall?.arguments as { path?: unknown } | undefined)?.path ?? 'the file');
      const about = describeFile(path, last.content);
      return answer(listings.length ? `${describeListing(listings)}\n\n${about}` : about);
    }
    if (last.toolName === 'grep') return answer(describeMatches(last.content));
    return answer(`The ${last.toolName} tool answered: ${clip(last.content, 300)}`);
  }
}

/**
 * Glob listings summarised: the files at the top level, and the folders seen in the listings with how many files
 * each holds directly.
 */
export function describeListing(listings: readonly string[]): string {
  const lines = [...new Set(listings.flatMap((listing) => listing.split('\n')))].filter(
    (line) => line && !line.startsWith('No files'),
  );
  const more = lines.some((line) => line.startsWith('('));
  const files = lines.filter((line) => !line.startsWith('('));
  if (files.length === 0) return 'This folder has no files (node_modules and .git are left out).';
  const top = files.filter((file) => !file.includes('/'));
  const folders = new Map<string, number>();
  for (const file of files)
    if (file.includes('/')) folders.set(file.split('/')[0]!, (folders.get(file.split('/')[0]!) ?? 0) + 1);
  const list = (items: string[]) =>
    `${items.slice(0, 15).join(', ')}${items.length > 15 ? `, and ${items.length - 15} more` : ''}`;
  const parts: string[] = [];
  parts.push(
    top.length
      ? `At the top level there ${top.length === 1 ? 'is 1 file' : `are ${top.length} files`}: ${list(top)}.`
      : 'There are no files at the top level.',
  );
  if (folders.size) {
    const named = [...folders].map(([name, count]) => `${name}/ (${count} file${count === 1 ? '' : 's'})`);
    parts.push(`Folders: ${list(named)}${more ? ', and more the listing cut off' : ''}.`);
  }
  return parts.join(' ');
}

/** What a read result shows: how long the file is and how it begins. */
export function describeFile(path: string, content: string): string {
  if (content === '(empty file)') return `${path} is empty.`;
  const lines = unnumbered(content);
  const more = /\((\d+) more lines/.exec(content);
  const total = lines.length + (more ? Number(more[1]) : 0);
  const title = lines.find((line) => /^#\s/.test(line))?.replace(/^#+\s*/, '');
  const isProse = (line: string) => line.trim() !== '' && !/^[#>`|<!\-=*]/.test(line.trim());
  const first = lines.findIndex(isProse);
  const end = first < 0 ? -1 : lines.findIndex((line, i) => i > first && !isProse(line));
  const prose =
    first < 0
      ? undefined
      : lines
          .slice(first, end < 0 ? undefined : end)
          .map((line) => line.trim())
          .join(' ');
  const parts = [`${path} has ${total} line${total === 1 ? '' : 's'}.`];
  if (title) parts.push(`Its title is "${clip(title, 100)}".`);
  if (prose) parts.push(`It begins: "${clip(prose.trim(), 240)}"`);
  else parts.push(`Its first line is: "${clip(lines[0] ?? '', 160)}"`);
  return parts.join(' ');
}

/** A grep result summarised: how many matches in how many files, and the first few. */
export function describeMatches(content: string): string {
  if (content.startsWith('No matches')) return `${content}.`;
  const hits = content.split('\n').filter((line) => line && !line.startsWith('('));
  const files = new Set(hits.map((hit) => hit.split(':')[0]));
  const first = hits.slice(0, 5).map((hit) => `- ${clip(hit, 120)}`);
  return [
    `${hits.length} match${hits.length === 1 ? '' : 'es'} in ${files.size} file${files.size === 1 ? '' : 's'}${/more matches/.test(content) ? ' (and more not listed)' : ''}:`,
    ...first,
  ].join('\n');
}
