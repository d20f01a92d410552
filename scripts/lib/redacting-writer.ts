/**
 * Streamed text written with credentials taken out, even when one arrives split over two chunks (`sk-ab` then
 * `cd…`): redacting each chunk on its own would miss it. A credential is one word, so the end of a chunk after its
 * last white space (a word that may go on in the next chunk) is held back, and redacted together with what follows.
 * It is written at the next white space, at flush(), or once the stream pauses for `holdMs` (so a word the model is
 * still thinking about shows up after a moment, not at the end of the answer). A run of more than MAX_HELD characters
 * with no white space at all is written as it stands.
 */
export const HOLD_MS = 50;
export const MAX_HELD = 65_536;

export interface RedactingWriter {
  write(text: string): void;
  /** Writes what is held back now (before a prompt, a question on another stream, or the end). */
  flush(): void;
}

export function redactingWriter(
  write: (text: string) => void,
  redact: () => (text: string) => string,
  {
    holdMs = HOLD_MS,
    timers = { setTimeout, clearTimeout },
  }: { holdMs?: number; timers?: { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout } } = {},
): RedactingWriter {
  let held = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
    if (held === '') return;
    const text = held;
    held = '';
    write(redact()(text));
  };
  return {
    write(text) {
      if (!text) return;
      const all = held + text;
      const cut = all.search(/\S*$/);
      held = '';
      if (cut > 0) write(redact()(all.slice(0, cut)));
      held = all.slice(cut);
      if (held.length > MAX_HELD) return flush();
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = held === '' ? undefined : timers.setTimeout(flush, holdMs);
    },
    flush,
  };
}
