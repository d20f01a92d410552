/**
 * Reads an mdBook SUMMARY.md, the guide's single table of contents:
 *
 *   # Summary
 *   [Introduction](README.md)            <- prefix chapter (no bullet)
 *   # Part I: The loop                   <- a part title
 *   - [Messages and the mock provider](chapter01.md)
 *     - [A sub-section](chapter01-more.md)
 *   - [Streaming]()                      <- a draft: no page yet
 *   ---                                  <- a separator
 */
export interface SummaryEntry {
  title: string;
  /** The page, relative to book/src; undefined for a draft. */
  file?: string;
  /** The part title the entry sits under, if any. */
  part?: string;
  /** Nesting depth of the bullet (0 for top level and prefix chapters). */
  depth: number;
  /** 1-based line in SUMMARY.md. */
  line: number;
}

export function parseSummary(markdown: string): SummaryEntry[] {
  const entries: SummaryEntry[] = [];
  let part: string | undefined;
  let sawTitle = false;
  markdown.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\s+$/, '');
    const heading = /^#{1,6}\s+(.+)$/.exec(line);
    if (heading) {
      if (!sawTitle && /^#\s/.test(line) && entries.length === 0 && part === undefined) sawTitle = true;
      else part = heading[1]!.trim();
      return;
    }
    const link = /^(\s*)(?:[-*]\s+)?\[(.+?)\]\(\s*([^)]*?)\s*\)\s*$/.exec(line);
    if (!link) return;
    const depth = Math.floor(link[1]!.replace(/\t/g, '  ').length / 2);
    const target = link[3]!.replace(/^\.\//, '');
    entries.push({
      title: link[2]!.trim(),
      ...(target ? { file: decodeURI(target) } : {}),
      ...(part ? { part } : {}),
      depth,
      line: index + 1,
    });
  });
  return entries;
}

/** The URL VitePress serves a page at: README.md and index.md become their folder. */
export function pageLink(file: string): string {
  const clean = file.replace(/#.*$/, '').replace(/\.md$/, '');
  const folder = /(^|\/)(README|index)$/.exec(clean);
  return `/${folder ? clean.slice(0, clean.length - folder[2]!.length) : clean}`;
}
