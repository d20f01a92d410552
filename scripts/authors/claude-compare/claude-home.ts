/** Claude Code for claude-compare: where its binary is, and one HOME in which it has started once. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentEnv, git, run, startFake } from './processes.js';

/** The tools Claude Code offers (the kit offers its own set). */
export const CLAUDE_TOOLS = 'Bash,Read,Edit,Write,Glob,Grep';
const CLAUDE_DEFAULT = '/tmp/cc/node_modules/@anthropic-ai/claude-code-linux-x64/claude';
export const INSTALL = `Claude Code was not found. Install it outside the kit and point --claude at its binary:
  mkdir -p /tmp/cc && cd /tmp/cc && npm install @anthropic-ai/claude-code@2.1.332
  npx tsx scripts/authors/claude-compare.ts --claude ${CLAUDE_DEFAULT}
(the platform package holds the binary; npm's engine warning is harmless). Or set CLAUDE_CODE_BIN.`;

/** The Claude Code binary: `named` (--claude), else $CLAUDE_CODE_BIN, /tmp/cc/..., `claude` on PATH. */
export function findClaude(named = process.env.CLAUDE_CODE_BIN): string | undefined {
  if (named) return existsSync(named) ? path.resolve(named) : undefined;
  if (existsSync(CLAUDE_DEFAULT)) return CLAUDE_DEFAULT;
  const which = spawnSync('sh', ['-c', 'command -v claude'], { encoding: 'utf8' });
  const found = which.stdout.trim();
  return which.status === 0 && found ? found : undefined;
}

/**
 * One HOME in which Claude Code has started once (its first start writes ~/.claude.json and is slow), emptied of
 * that run's project: every run gets a copy. A failure here is said and the cases go on (they then fail).
 */
export async function prepareHome(claude: string, fake: string, base: string): Promise<string> {
  const home = path.join(base, 'home0');
  const ws = path.join(base, 'prepare-ws');
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
  git(ws, 'init', '-q');
  const server = await startFake(fake, [], path.join(base, 'prepare.log'));
  try {
    const done = await run(claude, ['-p', 'go', '--output-format', 'json', '--tools', CLAUDE_TOOLS], {
      cwd: ws,
      env: agentEnv(home, server.url),
    });
    if (done.code !== 0 || !done.stdout.includes('"result"'))
      process.stderr.write(
        `warning: Claude Code's first run failed (exit ${done.code}${done.timedOut ? ', timed out' : ''}): ${done.stderr.slice(0, 400)}\n`,
      );
  } finally {
    server.stop();
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
