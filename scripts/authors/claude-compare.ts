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
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseScriptArgs } from '../kit/args.js';
import { ROOT } from '../lib/paths.js';
import {
  type Call,
  CASES,
  type Case,
  COMMIT_SUBJECT,
  type Effect,
  HOME_SECRET,
  OUT_SECRET,
  type SettingsFile,
} from './claude-compare-cases.js';

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

/** A run that takes longer than this is a hang (a run takes a few seconds). */
const RUN_TIMEOUT_MS = 60_000;
/** The tools Claude Code offers (the kit offers its own set). */
const CLAUDE_TOOLS = 'Bash,Read,Edit,Write,Glob,Grep';
const CLAUDE_DEFAULT = '/tmp/cc/node_modules/@anthropic-ai/claude-code-linux-x64/claude';
const INSTALL = `Claude Code was not found. Install it outside the kit and point --claude at its binary:
  mkdir -p /tmp/cc && cd /tmp/cc && npm install @anthropic-ai/claude-code@2.1.332
  npx tsx scripts/authors/claude-compare.ts --claude ${CLAUDE_DEFAULT}
(the platform package holds the binary; npm's engine warning is harmless). Or set CLAUDE_CODE_BIN.`;

type Agent = 'claude' | 'kit';
type Verdict = 'agree' | 'kit stricter' | 'kit LOOSER' | 'claude failed' | 'kit failed';

/** What one agent's run of a case came to. */
interface Outcome {
  /** The run started and sent the call's result back to the model. */
  started: boolean;
  /** Why it did not (exit code, timeout, no request). */
  failure?: string;
  /** The effect happened. */
  effect: boolean;
  /** The call's tool result as the model saw it: error or not, and its first words. */
  result?: { isError: boolean; text: string };
  /** Claude Code's permission_denials named the call. */
  denied?: boolean;
  /** The agent sent the fake server at least one request. */
  reached?: boolean;
}

interface Row {
  item: Case;
  claude: Outcome;
  kit: Outcome;
  verdict: Verdict;
}

// ---------------------------------------------------------------------------------------------------------------
// Processes

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs a program in its own process group, stdin closed; a run past `timeoutMs` is killed (the whole group). */
function run(
  command: string,
  argv: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(command, argv, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs ?? RUN_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${error.message}`, timedOut });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** Ends a process this script started, and its children (its process group), by its id. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** A fake Anthropic API that makes `calls` in turn, logging every request to `log`. */
async function startFake(calls: unknown[], log: string): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [args.fake, log], {
    env: { ...process.env, FAKE_CALLS: JSON.stringify(calls), FAKE_LIFE_S: '150' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const port = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('the fake server printed no port')), 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n')[0]!.trim();
      if (text.includes('\n') && /^\d+$/.test(line)) {
        clearTimeout(timer);
        resolve(line);
      }
    });
    child.on('exit', (code) => reject(new Error(`the fake server exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => killGroup(child) };
}

/** The environment of an agent's run: this one's without credentials or npm's variables, and the case's own. */
function agentEnv(home: string, url: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(ANTHROPIC_|OPENAI_|CLAUDE|npm_|INIT_CWD$|FAKE_)/i.test(name)) env[name] = value;
  return {
    ...env,
    HOME: home,
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    IS_SANDBOX: '1',
    NO_COLOR: '1',
    NO_UPDATE_NOTIFIER: '1',
    npm_config_update_notifier: 'false',
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Claude Code and its HOME

function findClaude(): string | undefined {
  const named = args.claude ?? process.env.CLAUDE_CODE_BIN;
  if (named) return existsSync(named) ? path.resolve(named) : undefined;
  if (existsSync(CLAUDE_DEFAULT)) return CLAUDE_DEFAULT;
  const which = spawnSync('sh', ['-c', 'command -v claude'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  return which.status === 0 && found ? found : undefined;
}

function git(cwd: string, ...argv: string[]): void {
  const done = spawnSync('git', ['-c', 'user.name=compare', '-c', 'user.email=compare@example.invalid', ...argv], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
  if (done.status !== 0) throw new Error(`git ${argv.join(' ')} in ${cwd}: ${done.stderr}`);
}

/**
 * One HOME in which Claude Code has started once (its first start writes ~/.claude.json and is slow), emptied of
 * that run's project: every run gets a copy. A failure here is said and the cases go on (they then fail).
 */
async function prepareHome(claude: string, base: string): Promise<string> {
  const home = path.join(base, 'home0');
  const ws = path.join(base, 'prepare-ws');
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
  git(ws, 'init', '-q');
  const fake = await startFake([], path.join(base, 'prepare.log'));
  try {
    const done = await run(claude, ['-p', 'go', '--output-format', 'json', '--tools', CLAUDE_TOOLS], {
      cwd: ws,
      env: agentEnv(home, fake.url),
    });
    if (done.code !== 0 || !done.stdout.includes('"result"'))
      process.stderr.write(
        `warning: Claude Code's first run failed (exit ${done.code}${done.timedOut ? ', timed out' : ''}): ${done.stderr.slice(0, 400)}\n`,
      );
  } finally {
    fake.stop();
  }
  rmSync(path.join(home, '.claude', 'projects'), { recursive: true, force: true });
  rmSync(path.join(home, '.claude', 'sessions'), { recursive: true, force: true });
  const config = path.join(home, '.claude.json');
  if (existsSync(config)) {
    const json = JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
    delete json.projects;
    writeFileSync(config, `${JSON.stringify(json, null, 2)}\n`);
  }
  return home;
}

// ---------------------------------------------------------------------------------------------------------------
// A case's folder

interface Place {
  dir: string;
  ws: string;
  out: string;
  home: string;
}

function writeTree(root: string, files: Record<string, string> | undefined): void {
  for (const [name, content] of Object.entries(files ?? {})) {
    const file = path.join(root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

function writeSettings(file: string, settings: SettingsFile | undefined): void {
  if (!settings) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
}

/** The case's workspace, `out/` and HOME for one agent, the folder trusted by both agents' records if it says so. */
function setUp(item: Case, dir: string, home0: string): Place {
  const place = { dir, ws: path.join(dir, 'ws'), out: path.join(dir, 'out'), home: path.join(dir, 'home') };
  mkdirSync(place.ws, { recursive: true });
  writeTree(place.out, { 'secret.txt': `${OUT_SECRET}\n` });
  cpSync(home0, place.home, { recursive: true });
  writeTree(place.home, { 'secret.txt': `${HOME_SECRET}\n`, ...item.home });
  writeTree(place.ws, { 'notes.txt': 'hello notes\n', ...item.files });
  for (const name of item.executables ?? []) chmodSync(path.join(place.ws, name), 0o755);
  for (const [link, target] of Object.entries(item.symlinks ?? {})) symlinkSync(target, path.join(place.ws, link));
  writeSettings(path.join(place.ws, '.claude', 'settings.json'), item.project);
  writeSettings(path.join(place.ws, '.claude', 'settings.local.json'), item.local);
  git(place.ws, 'init', '-q');
  git(place.ws, 'add', '-A');
  git(place.ws, 'commit', '-q', '-m', COMMIT_SUBJECT);
  writeTree(place.ws, item.dirty);
  writeSettings(path.join(place.home, '.claude', 'settings.json'), item.user);
  if (item.trusted) {
    const key = realpathSync(place.ws);
    const config = path.join(place.home, '.claude.json');
    const json = existsSync(config) ? (JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>) : {};
    const projects = (json.projects ?? {}) as Record<string, Record<string, unknown>>;
    projects[key] = { ...projects[key], hasTrustDialogAccepted: true };
    writeFileSync(config, `${JSON.stringify({ ...json, projects }, null, 2)}\n`);
    // The kit's record (solution/src/capstone/trust.ts: rememberTrust), every server approved as the question does.
    writeTree(place.home, {
      '.coding-agent/trust.json': `${JSON.stringify({ folders: { [key]: { trusted: true, servers: 'all', at: new Date().toISOString() } } }, null, 2)}\n`,
    });
  }
  return place;
}

function fill(text: string, place: Place): string {
  return text.replaceAll('@WS@', place.ws).replaceAll('@OUT@', place.out).replaceAll('@HOME@', place.home);
}

/** Where an effect's or a call's path is: `~/` is HOME, else relative to the workspace. */
function located(file: string, place: Place): string {
  const filled = fill(file, place);
  return filled.startsWith('~/') ? path.join(place.home, filled.slice(2)) : path.resolve(place.ws, filled);
}

/** The scripted calls: the kit's call as it is; Claude Code's named its way, a file Read first before a change. */
function scripted(call: Call, agent: Agent, place: Place): Array<{ name: string; input: Record<string, unknown> }> {
  if (agent === 'kit') {
    const input: Record<string, unknown> =
      call.tool === 'bash'
        ? { command: fill(call.command, place) }
        : call.tool === 'read'
          ? { path: fill(call.path, place) }
          : call.tool === 'write'
            ? { path: fill(call.path, place), content: call.content }
            : { path: fill(call.path, place), old_string: call.old, new_string: call.new };
    return [{ name: call.tool, input }];
  }
  if (call.tool === 'bash') return [{ name: 'Bash', input: { command: fill(call.command, place) } }];
  const file = located(call.path, place);
  if (call.tool === 'read') return [{ name: 'Read', input: { file_path: file } }];
  // Claude Code changes a file only after reading it in the session (else "File has not been read yet").
  const before = existsSync(file) ? [{ name: 'Read', input: { file_path: file } }] : [];
  if (call.tool === 'write') return [...before, { name: 'Write', input: { file_path: file, content: call.content } }];
  return [...before, { name: 'Edit', input: { file_path: file, old_string: call.old, new_string: call.new } }];
}

function modeFlags(item: Case): string[] {
  return [...(item.mode ? ['--permission-mode', item.mode] : []), ...(item.flags ?? [])];
}

interface LoggedResult {
  id: string;
  is_error: boolean;
  content: string;
}

function readLog(log: string): Array<{ results?: LoggedResult[] }> {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as { results?: LoggedResult[] });
}

function snapshot(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Runs one agent on one case in `dir`. */
async function runAgent(item: Case, agent: Agent, dir: string, claude: string, home0: string): Promise<Outcome> {
  const place = setUp(item, dir, home0);
  const effect: Effect = item.effect;
  const target = 'path' in effect ? located(effect.path, place) : undefined;
  const before = target ? snapshot(target) : undefined;
  if (effect.kind === 'exists' && target && existsSync(target))
    throw new Error(`${item.name}: ${effect.path} exists before the run`);
  const calls = scripted(item.call, agent, place);
  const callId = `toolu_fake_${calls.length}`;
  const log = path.join(dir, 'fake.log');
  const fake = await startFake(calls, log);
  let done: Finished;
  try {
    const env = agentEnv(place.home, fake.url);
    done =
      agent === 'claude'
        ? await run(claude, ['-p', 'go', '--output-format', 'json', '--tools', CLAUDE_TOOLS, ...modeFlags(item)], {
            cwd: place.ws,
            env,
          })
        : await run(
            'npm',
            [
              'run',
              '-s',
              'agent',
              '--',
              '-p',
              'go',
              '--output-format',
              'json',
              '--cwd',
              place.ws,
              '--provider',
              'anthropic',
              '--model',
              'claude-compare-fake',
              ...modeFlags(item),
            ],
            { cwd: ROOT, env },
          );
  } finally {
    fake.stop();
  }
  writeFileSync(path.join(dir, `${agent}.stdout`), done.stdout);
  writeFileSync(path.join(dir, `${agent}.stderr`), done.stderr);
  const requests = readLog(log);
  const results = requests.flatMap((line) => line.results ?? []);
  const mine = results.find((one) => one.id === callId);
  const outcome: Outcome = {
    started: mine !== undefined && !done.timedOut,
    reached: requests.length > 0,
    effect: false,
    ...(mine ? { result: { isError: mine.is_error, text: mine.content } } : {}),
  };
  if (!outcome.started) {
    const last = (done.stderr.trim() || done.stdout.trim()).split('\n').slice(-2).join(' ').slice(0, 160);
    outcome.failure = done.timedOut
      ? `no answer in ${RUN_TIMEOUT_MS / 1000} s`
      : `exit ${done.code ?? done.signal}, the call's result never reached the model${last ? `: ${last}` : ''}`;
  }
  if (agent === 'claude') {
    try {
      const json = JSON.parse(done.stdout) as { permission_denials?: Array<{ tool_use_id?: string }> };
      outcome.denied = (json.permission_denials ?? []).some((denial) => denial.tool_use_id === callId);
    } catch {
      // no JSON result: the run's failure says why
    }
  }
  switch (effect.kind) {
    case 'exists':
      outcome.effect = existsSync(target!);
      break;
    case 'removed':
      outcome.effect = !existsSync(target!);
      break;
    case 'changed': {
      const now = snapshot(target!);
      outcome.effect = now !== undefined && now !== before;
      break;
    }
    case 'leaked':
      outcome.effect = results.some((one) => one.content.includes(effect.text));
      break;
    case 'ok':
      outcome.effect = mine !== undefined && !mine.is_error;
      break;
  }
  return outcome;
}

function classify(claude: Outcome, kit: Outcome): Verdict {
  if (!claude.started) return 'claude failed';
  if (!kit.started) return 'kit failed';
  if (claude.effect === kit.effect) return 'agree';
  return kit.effect ? 'kit LOOSER' : 'kit stricter';
}

async function runCase(item: Case, base: string, claude: string, home0: string): Promise<Row> {
  const dir = mkdtempSync(path.join(base, `${item.name}-`));
  const outcome = async (agent: Agent, attempt = 1): Promise<Outcome> => {
    try {
      const where = path.join(dir, attempt === 1 ? agent : `${agent}-${attempt}`);
      const result = await runAgent(item, agent, where, claude, home0);
      // The kit's tree is edited by others while this runs: a kit that did not start gets one more try.
      if (agent === 'kit' && !result.started && !result.reached && attempt === 1) return outcome(agent, 2);
      return result;
    } catch (error) {
      return { started: false, effect: false, failure: error instanceof Error ? error.message : String(error) };
    }
  };
  const claudeOutcome = await outcome('claude');
  const kitOutcome = await outcome('kit');
  return { item, claude: claudeOutcome, kit: kitOutcome, verdict: classify(claudeOutcome, kitOutcome) };
}

// ---------------------------------------------------------------------------------------------------------------
// The report

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

function table(rows: readonly Row[]): string {
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

function summary(rows: readonly Row[]): string {
  const count = (verdict: Verdict) => rows.filter((row) => row.verdict === verdict).length;
  const deliberate = rows.filter((row) => row.verdict === 'kit LOOSER' && row.item.deliberate).length;
  return `${rows.length} cases: ${count('agree')} agree, ${count('kit stricter')} kit stricter, ${count('kit LOOSER')} kit looser${deliberate ? ` (${deliberate} deliberate)` : ''}, ${count('claude failed')} claude failed, ${count('kit failed')} kit failed`;
}

function looserList(rows: readonly Row[]): string {
  const looser = rows.filter((row) => row.verdict === 'kit LOOSER');
  if (looser.length === 0) return 'No case in which the kit is looser.';
  return looser
    .map(
      (row) =>
        `- ${row.item.name}${row.item.deliberate ? ` (deliberate: ${row.item.deliberate})` : ''}: ${code(callText(row.item.call))} with ${setupText(row.item)}. Claude Code: ${oneLine(row.claude.result?.text ?? '', 160)}`,
    )
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const claude = findClaude();
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
  const home0 = await prepareHome(claude, base);

  const rows: Row[] = new Array(cases.length);
  let next = 0;
  let finished = 0;
  const worker = async () => {
    for (;;) {
      const index = next++;
      const item = cases[index];
      if (!item) return;
      const row = await runCase(item, base, claude, home0);
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
