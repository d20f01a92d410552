/**
 * Chapter 12: a session, and the recorder that keeps it on disk while a run goes on.
 *
 * A session is a conversation that outlives the process: its id, the folder it works in, when it started and
 * when it last changed, its messages, its status, the model, and what it has cost so far. The recorder is one
 * more consumer of chapter 7's events: it passes every event on unchanged, and writes a record for each new
 * message of the history and for the events worth keeping (usage, compaction, the end of a run). It never runs
 * the loop itself.
 *
 * The file is a list of records, one JSON object per line (store.ts). Replaying the records in order gives the
 * session back: that is what resume does.
 *
 * A session also remembers the system prompt it ran under (a `system` record each time it changes). A resumed
 * session runs under the prompt of today (CLAUDE.md as it is now, today's flags), as Claude Code does: the person
 * who edits the instructions means them to apply. What it must not do is change silently: useSystem says so.
 */
import { TodoError } from '../todo.js';
import { addUsage, noUsage, type AgentEvent, type CompactionEvent, type DoneReason } from '../agent-events.js';
import type { Message, Usage } from '../messages.js';
import { summaryMessage } from './compaction.js';
import { costOf, priceFor, PRICES, type PriceTable } from './cost.js';

export type SessionStatus = 'idle' | 'running' | 'paused' | 'ended';

export interface Session {
  id: string;
  /** The folder the session works in (its project). */
  cwd: string;
  /** ISO times. */
  createdAt: string;
  updatedAt: string;
  model?: string;
  /** The system prompt the session last ran under (its last `system` record); undefined before its first run. */
  system?: string;
  /** idle (waiting for a prompt), running, paused (a client-side tool is waiting), ended (closed). */
  status: SessionStatus;
  /** The reason the last run ended. */
  endReason?: DoneReason;
  /** The history; the agent runs on this very array. */
  messages: Message[];
  /** Every model call's usage, added up. */
  usage: Usage;
  /** Dollars so far; undefined when a model's price is unknown (never 0 for "unknown"). */
  cost: number | undefined;
  /** For a fork: the session and the number of its messages it started from. */
  forkedFrom?: { id: string; messages: number };
}

/** One line of a session file. Every record has `at`, the ISO time it was written. */
export type SessionRecord =
  | {
      type: 'session';
      at: string;
      version: 1;
      id: string;
      cwd: string;
      model?: string;
      forkedFrom?: { id: string; messages: number };
    }
  | { type: 'message'; at: string; message: Message }
  | { type: 'usage'; at: string; usage: Usage; model?: string }
  | { type: 'system'; at: string; system: string }
  | ({ at: string } & CompactionEvent)
  | { type: 'status'; at: string; status: SessionStatus; reason?: DoneReason; message?: string };

/** What a result says for a call that a crash left without one. */
export const INTERRUPTED_RESULT = 'The session stopped before this call finished; it may or may not have run.';

/** A new, empty session. */
export function newSession(fields: { id: string; cwd: string; now: string; model?: string }): Session {
  return {
    id: fields.id,
    cwd: fields.cwd,
    createdAt: fields.now,
    updatedAt: fields.now,
    ...(fields.model ? { model: fields.model } : {}),
    status: 'idle',
    messages: [],
    usage: noUsage(),
    cost: 0,
  };
}

/** The cost of the session after one more model call's usage: unknown stays unknown. */
function addCost(
  cost: number | undefined,
  usage: Usage,
  model: string | undefined,
  prices: PriceTable,
): number | undefined {
  const more = costOf(usage, priceFor(model, prices));
  return cost === undefined || more === undefined ? undefined : cost + more;
}

/**
 * The session a file's records describe, replayed in order. Throws when the first record is not a `session`
 * record. A session whose process died mid-run comes back as it was: status running, maybe with calls that have no
 * result (SessionStore.resume repairs that before the next run).
 */
export function sessionFromRecords(records: readonly SessionRecord[], prices: PriceTable = PRICES): Session {
  // #region chapter 12: sessionFromRecords
  // Write it from the contract above. Step by step instead: npm run reset -- chapter12 --guided
  throw new TodoError(12, 'sessionFromRecords');
  // #endregion
}

export interface RecorderOptions {
  /** The clock, for the records' times (tests pass a fixed one). */
  now?: () => Date;
  prices?: PriceTable;
}

/**
 * Writes a session's records as its runs go on. `write` appends one record (store.ts's SessionWriter.append).
 * The agent must run on `session.messages`: the recorder compares that array with what it has already written.
 */
export class SessionRecorder {
  /** How many of session.messages are already in the file. */
  written: number;
  private readonly now: () => Date;
  private readonly prices: PriceTable;

  constructor(
    readonly session: Session,
    private readonly write: (record: SessionRecord) => void,
    options: RecorderOptions = {},
  ) {
    this.written = session.messages.length;
    this.now = options.now ?? (() => new Date());
    this.prices = options.prices ?? PRICES;
  }

  /**
   * Takes one event of a run (in the order the run yields them) and writes what it means for the session:
   * - first, a compaction: the history has already been shortened (the hook replaced `count` messages from `from`
   *   with one summary), so `written` shrinks by count - 1, and the event is written as a compaction record;
   * - then, every message of the history not yet written, in order, one message record each;
   * - turn_start while the session is not running: status running (a status record);
   * - usage: added to the totals and the cost, and written as a usage record with the session's model;
   * - done: status paused for paused_for_client_tool, else idle, with the reason (and message) as a status record.
   * Every record's `at` is the clock's time, which also becomes the session's updatedAt.
   */
  record(event: AgentEvent): void {
    // #region chapter 12: SessionRecorder.record
    // Write it from the contract above. Step by step instead: npm run reset -- chapter12 --guided
    throw new TodoError(12, 'SessionRecorder.record');
    // #endregion
  }

  /**
   * The system prompt the session's next runs use. When it is not the one the session last ran under, writes a
   * `system` record (the first prompt of a session too), and when the session already had another one, returns a
   * sentence that says so, for the person to read; otherwise undefined. The runs use the prompt given here.
   */
  useSystem(system: string): string | undefined {
    const before = this.session.system;
    if (before === system) return undefined;
    const at = this.now().toISOString();
    this.session.system = system;
    this.session.updatedAt = at;
    this.write({ type: 'system', at, system });
    if (before === undefined) return undefined;
    return `the system prompt has changed since this session last ran (${before.length} characters then, ${system.length} now: CLAUDE.md, AGENTS.md or the prompt flags differ); it goes on under the current one`;
  }

  /** Records every event of a run and passes it on unchanged: `for await (const e of recorder.watch(agent.run(...)))`. */
  async *watch(events: AsyncIterable<AgentEvent>): AsyncGenerator<AgentEvent, void, undefined> {
    for await (const event of events) {
      this.record(event);
      yield event;
    }
  }

  /** Writes any messages added outside a run (a prompt the run refused), and the status `ended`. */
  close(): void {
    const at = this.now().toISOString();
    for (; this.written < this.session.messages.length; this.written++) {
      this.write({ type: 'message', at, message: this.session.messages[this.written]! });
    }
    this.session.status = 'ended';
    this.session.updatedAt = at;
    this.write({ type: 'status', at, status: 'ended' });
  }
}
