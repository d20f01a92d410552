/** Markdown as the guide's checks read it: its fenced code blocks. */
export interface FencedBlock {
  /** The info string after the fence, e.g. `ts check`. */
  info: string;
  content: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The fenced code blocks of a markdown text (``` or ~~~, any length, nested longer fences respected). */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { fence: string; info: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((line, index) => {
    if (!open) {
      const start = /^ {0,3}(`{3,}|~{3,})\s*([^`]*)$/.exec(line);
      if (start) open = { fence: start[1]!, info: start[2]!.trim(), line: index + 1, lines: [] };
      return;
    }
    const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
    if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
      blocks.push({ info: open.info, content: open.lines.join('\n'), line: open.line });
      open = undefined;
    } else open.lines.push(line);
  });
  return blocks;
}
