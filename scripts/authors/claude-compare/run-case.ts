/** One case of claude-compare run by both agents, each in its own folder against its own fake API, and the verdict. */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../lib/paths.js';
import type { Case, Effect } from './case.js';
import { located, modeFlags, scripted, setUp } from './case-folder.js';
import { CLAUDE_TOOLS } from './claude-home.js';
import type { Agent, Outcome, Row, Verdict } from './outcome.js';
import { agentEnv, type Finished, RUN_TIMEOUT_MS, run, startFake } from './processes.js';

/** What both agents' runs use: Claude Code's binary, the fake Anthropic server, the HOME prepared for Claude Code. */
export interface CompareSetup {
  claude: string;
  fake: string;
  home0: string;
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
async function runAgent(item: Case, agent: Agent, dir: string, setup: CompareSetup): Promise<Outcome> {
  const place = setUp(item, dir, setup.home0);
  const effect: Effect = item.effect;
  const target = 'path' in effect ? located(effect.path, place) : undefined;
  const before = target ? snapshot(target) : undefined;
  if (effect.kind === 'exists' && target && existsSync(target))
    throw new Error(`${item.name}: ${effect.path} exists before the run`);
  const calls = scripted(item.call, agent, place);
  const callId = `toolu_fake_${calls.length}`;
  const log = path.join(dir, 'fake.log');
  const fake = await startFake(setup.fake, calls, log);
  let done: Finished;
  try {
    const env = agentEnv(place.home, fake.url);
    done =
      agent === 'claude'
        ? await run(
            setup.claude,
            ['-p', 'go', '--output-format', 'json', '--tools', CLAUDE_TOOLS, ...modeFlags(item)],
            {
              cwd: place.ws,
              env,
            },
          )
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

export async function runCase(item: Case, base: string, setup: CompareSetup): Promise<Row> {
  const dir = mkdtempSync(path.join(base, `${item.name}-`));
  const outcome = async (agent: Agent, attempt = 1): Promise<Outcome> => {
    try {
      const where = path.join(dir, attempt === 1 ? agent : `${agent}-${attempt}`);
      const result = await runAgent(item, agent, where, setup);
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
