/**
 * The line `npm run agent` shows while the model writes a tool call (chapter 7's tool_call_start and tool_call_delta
 * events): `… writing write (1,234 characters)`, redrawn in place as the pieces arrive, and wiped as soon as any other
 * event comes, so the call's own ● line, drawn once the call is decided, is not printed twice. A long `write` call
 * otherwise shows nothing for many seconds. Only on a terminal: piped output and `--output-format stream-json`
 * stay as they were.
 */
type AgentEvent = import('../../solution/src/agent-events.js').AgentEvent;

export interface CallPreviewIO {
  /** Writes to the terminal as it is (no redaction needed: only a tool name and a count are written). */
  write(text: string): void;
  /** Moves to the start of a fresh line if the cursor is not at one, and says so to the renderer. */
  lineBreak(): void;
  dim(text: string): string;
}

/** Returns `show(event)`: true when the event was a call being written (shown here, or skipped off a terminal). */
export function callPreview(io: CallPreviewIO, tty: boolean): (event: AgentEvent) => boolean {
  const calls = new Map<string, { name: string; chars: number }>();
  let live = false;
  const draw = (name: string, chars: number) => {
    if (!live) io.lineBreak();
    io.write(`\r\x1b[K${io.dim(`  … writing ${name} (${chars.toLocaleString('en')} characters)`)}`);
    live = true;
  };
  return (event) => {
    if (event.type === 'tool_call_start' || event.type === 'tool_call_delta') {
      if (!tty) return true;
      const call = event.type === 'tool_call_start' ? { name: event.name, chars: 0 } : calls.get(event.callId);
      if (!call) return true;
      if (event.type === 'tool_call_delta') call.chars += event.argumentsDelta.length;
      calls.set(event.callId, call);
      draw(call.name, call.chars);
      return true;
    }
    if (live) io.write('\r\x1b[K');
    live = false;
    if (event.type === 'turn_start' || event.type === 'done') calls.clear();
    return false;
  };
}
