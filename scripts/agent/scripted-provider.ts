/**
 * The scripted model of `npm run demo` (scripts/demo.ts): what npm run agent talks to when KIT_DEMO_SCRIPT names a
 * script file. Like chapter 1's MockProvider it answers from a script, but by conversation, not by call, so that the
 * agent's own extra requests (a sub-agent's conversation, a retry of the same turn) find their turn:
 *
 * - a conversation is chosen by its first user message: the first whose `when` it contains (`when` left out: any);
 * - its turn is the number of assistant messages in the request after that user message;
 * - a turn may fail its first `fail.times` attempts with an error that carries `fail.status` (a 529 is "overloaded"
 *   for chapter 10's classify), counted per conversation and turn;
 * - its text is streamed word by word (`delayMs` between events), and each call gets an id of its own.
 *
 * Deterministic, no network. Not a chapter stub: the kit's own plumbing, as the offline provider is.
 */
import { readFileSync } from 'node:fs';

type AssistantMessage = import('../../solution/src/messages.js').AssistantMessage;
type Message = import('../../solution/src/messages.js').Message;
type ModelRequest = import('../../solution/src/provider.js').ModelRequest;
type StreamEvent = import('../../solution/src/stream-events.js').StreamEvent;

export interface ScriptedTurn {
  text?: string;
  calls?: Array<{ name: string; arguments: Record<string, unknown> }>;
  /** The turn's first `times` attempts fail with this status (and message) before it is answered. */
  fail?: { status: number; message: string; times: number };
}

export interface DemoScript {
  conversations: Array<{ when?: string; turns: ScriptedTurn[] }>;
  /** Milliseconds between streamed events (default 0). */
  delayMs?: number;
}

/** The error a provider throws for an HTTP failure, as chapter 10's classify reads it (status, a message). */
export class ScriptedHttpError extends Error {
  override name = 'ProviderError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const textOf = (message: Message | undefined): string => {
  if (!message || message.role !== 'user') return '';
  const { content } = message as { content: unknown };
  if (typeof content === 'string') return content;
  return Array.isArray(content)
    ? content
        .map((block: { type?: string; text?: string }) => (block.type === 'text' ? (block.text ?? '') : ''))
        .join('')
    : '';
};

export class ScriptedProvider {
  readonly name = 'scripted';
  readonly model = 'scripted-demo';
  readonly imageInput = false;
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly script: DemoScript,
    /** The tree's turnToEvents (chapter 6): a turn as the events a provider streams. */
    private readonly turnToEvents: (turn: AssistantMessage) => Iterable<StreamEvent>,
  ) {}

  static fromFile(file: string, turnToEvents: (turn: AssistantMessage) => Iterable<StreamEvent>): ScriptedProvider {
    return new ScriptedProvider(JSON.parse(readFileSync(file, 'utf8')) as DemoScript, turnToEvents);
  }

  async complete(request: ModelRequest): Promise<AssistantMessage> {
    if (request.signal?.aborted) throw request.signal.reason;
    const firstUser = request.messages.findIndex((m) => m.role === 'user');
    const prompt = textOf(request.messages[firstUser]);
    const index = this.script.conversations.findIndex((c) => c.when === undefined || prompt.includes(c.when));
    const conversation = this.script.conversations[index];
    const turnIndex = request.messages.slice(firstUser + 1).filter((m) => m.role === 'assistant').length;
    const turn = conversation?.turns[turnIndex];
    if (!turn)
      return {
        role: 'assistant',
        content: [{ type: 'text', text: '(the demo script has no more turns for this conversation)' }],
        stopReason: 'end_turn',
        usage: { inputTokens: 0, outputTokens: 0 },
      };
    const key = `${index}:${turnIndex}`;
    const tried = this.attempts.get(key) ?? 0;
    if (turn.fail && tried < turn.fail.times) {
      this.attempts.set(key, tried + 1);
      throw new ScriptedHttpError(turn.fail.message, turn.fail.status);
    }
    const used = request.messages.flatMap((m) =>
      m.role === 'assistant' ? m.content.filter((b) => b.type === 'tool_call') : [],
    ).length;
    return {
      role: 'assistant',
      content: [
        ...(turn.text ? [{ type: 'text' as const, text: turn.text }] : []),
        ...(turn.calls ?? []).map((call, i) => ({
          type: 'tool_call' as const,
          id: `demo_${index}_${used + i + 1}`,
          name: call.name,
          arguments: call.arguments,
        })),
      ],
      stopReason: turn.calls?.length ? 'tool_use' : 'end_turn',
      usage: { inputTokens: 0, outputTokens: 0 },
    };
  }

  async *stream(request: ModelRequest): AsyncIterable<StreamEvent> {
    const turn = await this.complete(request);
    const delay = this.script.delayMs ?? 0;
    for (const event of this.turnToEvents(turn)) {
      // Text a word at a time, as a model writes it.
      const pieces =
        event.type === 'text_delta'
          ? event.text.split(/(?<=\s)/).map((text): StreamEvent => ({ ...event, text }))
          : [event];
      for (const piece of pieces) {
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        if (request.signal?.aborted) throw request.signal.reason;
        yield piece;
      }
    }
  }
}
