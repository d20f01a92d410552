/**
 * How the guide's diagrams are drawn and shown, for both the drawing made ahead of the build (lib/diagram-store.ts,
 * in Node) and the theme (theme/diagrams.ts, in the browser): no Node module here.
 */
import type { MermaidConfig } from 'mermaid';

export const DIAGRAM_FONT =
  'ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
/** The smallest scale a diagram is shown at in the column as readable: its 16px labels stay at least 12px on screen. */
export const MIN_SCALE = 0.75;
/** The tallest a diagram is shown in the column, px, as long as its labels stay readable (MIN_SCALE). */
export const MAX_HEIGHT = 1000;

/** How mermaid draws the guide's diagrams: labels at the page's 16px, at their natural size (the page fits them). */
export function diagramConfig(dark = false): MermaidConfig {
  return {
    startOnLoad: false,
    securityLevel: 'strict',
    theme: dark ? 'dark' : 'default',
    // A local font: a label measured in a web font that has not loaded yet would be clipped once it does.
    fontFamily: DIAGRAM_FONT,
    themeVariables: { fontFamily: DIAGRAM_FONT, fontSize: '16px' },
    flowchart: { useMaxWidth: false },
    state: { useMaxWidth: false },
    sequence: {
      useMaxWidth: false,
      actorFontSize: 16,
      messageFontSize: 16,
      noteFontSize: 16,
      actorFontFamily: DIAGRAM_FONT,
      messageFontFamily: DIAGRAM_FONT,
      noteFontFamily: DIAGRAM_FONT,
    },
  };
}
