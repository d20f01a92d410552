import { callPreview } from '../lib/call-preview.js';
import type { Kit } from '../lib/agent-kit.js';
import { out } from './output.js';
import type { Program } from './program.js';

type AgentEvent = import('../../solution/src/agent-events.js').AgentEvent;
type Usage = import('../../solution/src/messages.js').Usage;
export type StreamJsonWriter = InstanceType<Kit['StreamJsonWriter']>;

/** The session's events on the terminal (or as stream-json lines), and the usage they add up to. */
export class EventDisplay {
  /** The plan approvePlan showed: its plan_proposed event adds nothing. */
  planShown = false;
  /** The session's usage so far, sub-agents included. */
  total: Usage | undefined;
  /** A call the model is still writing: one line redrawn in place (scripts/lib/call-preview.ts). */
  private readonly preview: (event: AgentEvent) => boolean;

  constructor(private readonly program: Program) {
    const { renderer, style } = program;
    this.preview = callPreview(
      { write: (text) => process.stdout.write(text), lineBreak: () => out(renderer.lineBreak()), dim: style.dim },
      Boolean(process.stdout.isTTY),
    );
  }

  /** Shows one event: as terminal text, or as stream-json lines. */
  show(event: AgentEvent, writer?: StreamJsonWriter): void {
    const { kit, renderer, style } = this.program;
    if (event.type === 'usage') this.total = kit.addUsage(this.total ?? kit.noUsage(), event.usage);
    if (writer) return out(writer.write(event));
    if (this.preview(event)) return;
    if (event.type === 'plan_proposed' && this.planShown) return;
    if (event.type === 'plan_decided') this.planShown = false;
    // Chapter 11: an MCP server's progress on a running call, one dim line each (the server's words made visible).
    if (event.type === 'tool_progress')
      return out(`${renderer.lineBreak()}${style.dim(kit.visible(`  ⋯ ${kit.progressText(event)}`))}\n`);
    out(renderer.render(event));
  }

  /** Wipes a call preview still on screen (the run ended while a call was being written). */
  endPreview(): void {
    this.preview({ type: 'turn_start', turn: 0 });
  }

  /** Writes the program's own lines (the questions, a note in the answer's flow) on a line of their own. */
  say(text: string): void {
    out(`${this.program.renderer.lineBreak()}${text}`);
  }
}
