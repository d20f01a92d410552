/**
 * npx tsx scripts/authors/claude-compare.ts [--claude PATH] [--only NAME] [--jobs 2] [--markdown FILE] [--keep]
 *
 * The kit's permission engine measured against Claude Code itself, offline. Each case of claude-compare-cases.ts (a
 * workspace, settings at user, project and local level, a mode and flags, one scripted tool call and an effect) is
 * run twice: by Claude Code and by the kit's agent (`npm run -s agent -- -p go`, the reference solution), each against
 * its own fake Anthropic API on 127.0.0.1 (../shared/tools/fake-anthropic.mjs, which makes the call), in its own copy
 * of the workspace and of a HOME prepared by one first run of Claude Code. Then the effect is checked in each copy (a
 * file made, removed or changed; a secret sent back to the model; the call's result not an error) and the case is
 * classified:
 *
 *   agree          both ran it, or both refused it
 *   kit stricter   Claude Code ran it, the kit refused
 *   kit LOOSER     the kit ran (or leaked) what Claude Code refused; exit 1, unless the case is `deliberate`
 *   claude failed  Claude Code did not start or never sent the call's result (a hang, a crash): not an agreement
 *   kit failed     the same for the kit's agent
 *
 * It prints a markdown table and a summary line (and writes both to --markdown FILE). Exit 0: no looser case and no
 * failure; 1: a looser case not marked deliberate, or a run that failed; 2: no Claude Code binary (it says how to
 * install one) or bad usage. Never part of `npm run verify` or CI: it needs Claude Code, which the kit does not ship.
 *
 *   --claude PATH   the Claude Code binary (else $CLAUDE_CODE_BIN, /tmp/cc/..., `claude` on PATH)
 *   --only NAME     only the cases of that name, or whose name contains it (comma-separated for several)
 *   --jobs N        cases at once (1 or 2; default 2: each case runs its two agents one after the other)
 *   --fake FILE     the fake server (default ../shared/tools/fake-anthropic.mjs beside the checkout)
 *   --markdown FILE also write the table, the summary and the looser cases there
 *   --keep          keep the scratch folders (their path is printed)
 *
 * Its parts are in scripts/authors/claude-compare/: run-case.ts (one case, both agents, the verdict), case-folder.ts
 * (the case's workspace and HOME, its call as each agent makes it), claude-home.ts, processes.ts and report.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseScriptArgs } from '../kit/args.js';
import { ROOT } from '../lib/paths.js';
import { CASES } from './claude-compare-cases.js';
import { findClaude, INSTALL, prepareHome } from './claude-compare/claude-home.js';
import { looserList, summary, table } from './claude-compare/report.js';
import type { Row } from './claude-compare/outcome.js';
import { runCase } from './claude-compare/run-case.js';

const USAGE =
  'npx tsx scripts/authors/claude-compare.ts [--claude PATH] [--only NAME] [--jobs 2] [--fake FILE] [--markdown FILE] [--keep]';
const { values: args } = parseScriptArgs(USAGE, {
  options: {
    claude: { type: 'string' },
    only: { type: 'string' },
    jobs: { type: 'string', default: '2' },
    fake: { type: 'string', default: path.resolve(ROOT, '../shared/tools/fake-anthropic.mjs') },
    markdown: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

async function main(): Promise<number> {
  const claude = findClaude(args.claude);
  if (!claude) {
    process.stderr.write(`${INSTALL}\n`);
    return 2;
  }
  if (!existsSync(args.fake)) {
    process.stderr.write(`The fake Anthropic server is not at ${args.fake}: pass --fake FILE (fake-anthropic.mjs).\n`);
    return 2;
  }
  const jobs = Number(args.jobs);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 2) {
    process.stderr.write(`--jobs ${args.jobs}: 1 or 2 (the machine is shared)\nUsage: ${USAGE}\n`);
    return 2;
  }
  const wanted = args.only?.split(',').map((name) => name.trim()) ?? [];
  const cases = wanted.length
    ? CASES.filter((item) => wanted.some((name) => item.name === name || item.name.includes(name)))
    : CASES;
  if (cases.length === 0) {
    process.stderr.write(`--only ${args.only}: no such case\n`);
    return 2;
  }
  const names = new Set<string>();
  for (const item of CASES) {
    if (names.has(item.name)) throw new Error(`two cases are named ${item.name}`);
    names.add(item.name);
  }
  const version = spawnSync(claude, ['--version'], { encoding: 'utf8', timeout: 30_000 }).stdout?.trim() || 'unknown';
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const changed = spawnSync(
    'git',
    ['status', '--porcelain', '--', 'solution', 'scripts/agent.ts', 'scripts/agent', 'scripts/lib'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  )
    .stdout.split('\n')
    .filter((line) => line.trim()).length;
  const commit = changed ? `${head} (with ${changed} uncommitted file${changed === 1 ? '' : 's'} of the agent)` : head;
  const base = mkdtempSync(path.join(tmpdir(), 'claude-compare-'));
  process.stderr.write(`Claude Code ${version} (${claude}) against the kit at ${commit}: ${cases.length} cases\n`);
  const home0 = await prepareHome(claude, args.fake, base);
  const setup = { claude, fake: args.fake, home0 };

  const rows: Row[] = new Array(cases.length);
  let next = 0;
  let finished = 0;
  const worker = async () => {
    for (;;) {
      const index = next++;
      const item = cases[index];
      if (!item) return;
      const row = await runCase(item, base, setup);
      rows[index] = row;
      finished++;
      process.stderr.write(`[${finished}/${cases.length}] ${item.name}: ${row.verdict}\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, cases.length) }, worker));

  const text = table(rows);
  const line = summary(rows);
  process.stdout.write(`${text}\n\n${line}\n`);
  if (args.markdown) {
    const report = [
      '# The kit against Claude Code',
      '',
      `Made by \`npx tsx scripts/authors/claude-compare.ts\` (scripts/authors/claude-compare-cases.ts) on ${new Date().toISOString().slice(0, 10)}: Claude Code ${version} against the kit's reference solution at ${commit}, offline (a scripted fake Anthropic API). Each case gives both agents one tool call in the same workspace, with the same settings and flags, and checks what happened (a file made, removed or changed; a secret sent back to the model; the result not an error). "effect": it happened, "no effect": it did not; the text after it is the call's result as the model saw it ("(denied)": the call is in Claude Code's permission_denials). Runs are \`-p\`, so a question nobody can answer is a refusal. The kit's tree is the checkout's: a kit run that did not start is tried once more.`,
      '',
      `**${line}.**`,
      '',
      '## Where the kit is looser',
      '',
      looserList(rows),
      '',
      '## Every case',
      '',
      text,
      '',
    ].join('\n');
    mkdirSync(path.dirname(path.resolve(args.markdown)), { recursive: true });
    writeFileSync(args.markdown, report);
  }
  if (args.keep) process.stderr.write(`scratch folders kept in ${base}\n`);
  else rmSync(base, { recursive: true, force: true });
  const failing = rows.some(
    (row) =>
      (row.verdict === 'kit LOOSER' && !row.item.deliberate) ||
      row.verdict === 'claude failed' ||
      row.verdict === 'kit failed',
  );
  return failing ? 1 : 0;
}

process.exitCode = await main();
