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
 * The session a file's records describe (SessionRecord lists them), replayed in order; each record's time becomes
 * the session's last change. It must come out exactly as the recorder left it, so each record is replayed as the
 * run did it: a compaction shortens the history as the hook did (summaryMessage), usage adds to the totals and the
 * cost at its model's price (unknown stays unknown), a status record also gives the reason the last run ended, a
 * later system prompt replaces an earlier one, and a fork's origin comes back only when the first record has one.
 *
 * The first record must be the `session` record: otherwise it throws an Error (not a TypeError) that names what the
 * file starts with instead, as `a message record`, or `nothing` for no records. A session whose process died mid-run
 * comes back as it was: status running, maybe with calls that have no result (SessionStore.resume repairs that
 * before the next run).
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
   * Takes one event of a run (in the order the run yields them) and writes what it means for the session, so that
   * sessionFromRecords replays the file into the same session. The clock's time is every record's `at` and the
   * session's last change.
   *
   * - Every message of the history not yet in the file is written at each event, in order, one record each
   *   (`written` counts them), whatever the event.
   * - A compaction has already shortened the history (one summary for `count` messages): `written` must follow, and
   *   the event is written as a record, before the messages that came after it, as replaying needs.
   * - The first turn of a run makes the session running; a later one writes nothing more.
   * - Usage adds to the totals and the cost (at the session's model's price; unknown stays unknown), and is written
   *   with that model.
   * - The end of a run leaves the session paused when a client-side tool waits, else idle, with the reason (and the
   *   message, when there is one) written as a status record.
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
