/** claude-compare's report: a markdown table of every case, a summary line, and the cases where the kit is looser. */
import type { Call, Case } from './case.js';
import type { Outcome, Row, Verdict } from './outcome.js';

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A code span for a table cell: the fence longer than any run of backticks inside, pipes escaped. */
function code(text: string): string {
  const flat = text.replaceAll('\n', '⏎');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat.replaceAll('|', '\\|')}${pad}${fence}`;
}

function callText(call: Call): string {
  switch (call.tool) {
    case 'bash':
      return `Bash ${call.command}`;
    case 'read':
      return `Read ${call.path}`;
    case 'write':
      return `Write ${call.path}`;
    case 'edit':
      return `Edit ${call.path}`;
  }
}

function rulesText(item: Case): string {
  const parts: string[] = [];
  for (const [level, settings] of [
    ['user', item.user],
    ['project', item.project],
    ['local', item.local],
  ] as const) {
    if (!settings) continue;
    for (const kind of ['allow', 'ask', 'deny'] as const)
      for (const rule of settings.permissions?.[kind] ?? []) parts.push(`${level} ${kind} ${rule}`);
    if (settings.permissions?.defaultMode) parts.push(`${level} defaultMode ${settings.permissions.defaultMode}`);
    if (settings.skipDangerousModePermissionPrompt) parts.push(`${level} skipDangerousModePermissionPrompt`);
    for (const [event, groups] of Object.entries(settings.hooks ?? {}))
      for (const group of groups)
        for (const hook of group.hooks)
          parts.push(
            `${level} ${event} hook${group.matcher ? ` (${group.matcher})` : ''}: ${/permissionDecision":"(\w+)/.exec(hook.command)?.[1] ?? hook.command}`,
          );
  }
  return parts.join('; ') || 'no rules';
}

function setupText(item: Case): string {
  return [
    ...(item.mode ? [`--permission-mode ${item.mode}`] : []),
    ...(item.flags?.length ? [item.flags.join(' ')] : []),
    item.trusted ? 'trusted' : 'untrusted',
    rulesText(item),
  ].join('; ');
}

function outcomeText(outcome: Outcome): string {
  if (!outcome.started) return `failed: ${oneLine(outcome.failure ?? '', 90)}`;
  const word = outcome.effect ? 'effect' : 'no effect';
  const denial = outcome.denied ? ' (denied)' : '';
  return `${word}${denial}: ${oneLine(outcome.result?.text ?? '', 70)}`;
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function verdictText(row: Row): string {
  if (row.verdict === 'kit LOOSER' && row.item.deliberate) return `kit looser (deliberate: ${row.item.deliberate})`;
  return row.verdict === 'kit LOOSER' ? '**kit LOOSER**' : row.verdict;
}

export function table(rows: readonly Row[]): string {
  const lines = [
    '| # | case | setup (flags; trust; rules) | call | Claude Code | kit | verdict |',
    '|---|---|---|---|---|---|---|',
  ];
  rows.forEach((row, index) => {
    lines.push(
      `| ${index + 1} | ${row.item.name} | ${cell(setupText(row.item))} | ${code(callText(row.item.call))} | ${cell(outcomeText(row.claude))} | ${cell(outcomeText(row.kit))} | ${cell(verdictText(row))} |`,
    );
  });
  return lines.join('\n');
}

export function summary(rows: readonly Row[]): string {
  const count = (verdict: Verdict) => rows.filter((row) => row.verdict === verdict).length;
  const deliberate = rows.filter((row) => row.verdict === 'kit LOOSER' && row.item.deliberate).length;
  return `${rows.length} cases: ${count('agree')} agree, ${count('kit stricter')} kit stricter, ${count('kit LOOSER')} kit looser${deliberate ? ` (${deliberate} deliberate)` : ''}, ${count('claude failed')} claude failed, ${count('kit failed')} kit failed`;
}

export function looserList(rows: readonly Row[]): string {
  const looser = rows.filter((row) => row.verdict === 'kit LOOSER');
  if (looser.length === 0) return 'No case in which the kit is looser.';
  return looser
    .map(
      (row) =>
        `- ${row.item.name}${row.item.deliberate ? ` (deliberate: ${row.item.deliberate})` : ''}: ${code(callText(row.item.call))} with ${setupText(row.item)}. Claude Code: ${oneLine(row.claude.result?.text ?? '', 160)}`,
    )
    .join('\n');
}
