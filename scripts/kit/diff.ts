/** A small line diff (LCS) printed as a unified diff. Region bodies are short, so O(n·m) is fine. */

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

export function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ kind: ' ', line: a[i]!, a: i++, b: j++ });
    else if (i < n && (j >= m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!))
      ops.push({ kind: '-', line: a[i]!, a: i++, b: j });
    else ops.push({ kind: '+', line: b[j]!, a: i, b: j++ });
  }
  return ops;
}

/**
 * A unified diff of `a` against `b`. `aStart`/`bStart` are the 1-based file lines of a[0] and b[0], so the hunk
 * headers point into the real files. Empty string when the two are equal.
 */
export function unifiedDiff(
  a: readonly string[],
  b: readonly string[],
  labels: { a: string; b: string },
  aStart = 1,
  bStart = 1,
  context = 3,
): string {
  const ops = diffLines(a, b);
  if (ops.every((op) => op.kind === ' ')) return '';
  const out = [`--- ${labels.a}`, `+++ ${labels.b}`];
  let index = 0;
  while (index < ops.length) {
    const change = ops.findIndex((op, k) => k >= index && op.kind !== ' ');
    if (change < 0) break;
    let start = Math.max(index, change - context);
    let end = change;
    // Extend the hunk while the next change is within 2*context unchanged lines.
    for (let k = change; k < ops.length; k++) {
      if (ops[k]!.kind !== ' ') end = k;
      else if (k - end > 2 * context) break;
    }
    end = Math.min(ops.length - 1, end + context);
    const hunk = ops.slice(start, end + 1);
    const aLines = hunk.filter((op) => op.kind !== '+').length;
    const bLines = hunk.filter((op) => op.kind !== '-').length;
    const first = hunk[0]!;
    out.push(
      `@@ -${aStart + first.a - (aLines === 0 ? 1 : 0)},${aLines} +${bStart + first.b - (bLines === 0 ? 1 : 0)},${bLines} @@`,
    );
    for (const op of hunk) out.push(`${op.kind}${op.line}`);
    index = end + 1;
    start = index;
  }
  return out.join('\n');
}
