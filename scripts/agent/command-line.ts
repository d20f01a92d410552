/**
 * npm run agent's command line, read with the tree's own parser (chapter 15's parseFlags): the options, the
 * workspace they name, and the prompt of `-p`. Each function prints what is wrong and returns the exit code when the
 * program has nothing more to do.
 */
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Kit } from '../lib/agent-kit.js';
import { kitVersion } from '../lib/kit-version.js';
import { out } from './output.js';

type CliOptions = import('../../solution/src/capstone/flags.js').CliOptions;

/** `--starter` or `--solution`, whichever comes last (before `--`), read before the tree's own parser is loaded. */
export function wantsStarter(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  return words.lastIndexOf('--starter') > words.lastIndexOf('--solution');
}

/** The options, or the exit code: 2 after a usage error (stderr), 0 after --help or --version (stdout). */
export function readOptions(kit: Kit, argv: string[]): CliOptions | number {
  let options: CliOptions;
  try {
    options = kit.parseFlags(argv);
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'UsageError') throw error;
    process.stderr.write(`${error.message}\n\n${kit.USAGE}\n`);
    return 2;
  }
  if (options.help) {
    out(`${kit.USAGE}\n`);
    return 0;
  }
  if (options.version) {
    out(`${kitVersion()} (coding-agent kit)\n`);
    return 0;
  }
  return options;
}

/** Where the agent works, and the options as the factory reads them there. */
export interface Workspace {
  /** The workspace folder: --cwd, relative to where the person ran npm. */
  cwd: string;
  home: string;
  /** The options with --mcp-config's files relative to `cwd`. */
  factoryOptions: CliOptions;
}

/** The workspace, or 2 when --cwd names no folder. */
export function workspace(options: CliOptions, env: NodeJS.ProcessEnv): Workspace | number {
  const base = env.INIT_CWD ?? process.cwd();
  const cwd = path.resolve(base, options.cwd ?? '.');
  if (!isFolder(cwd)) {
    process.stderr.write(`--cwd ${options.cwd ?? '.'}: ${cwd} is not a folder\n`);
    return 2;
  }
  const home = env.HOME || homedir();
  // --mcp-config files are named relative to where the person ran npm, like every path they type; the factory reads
  // them relative to the workspace (the same folder unless --cwd says otherwise).
  const factoryOptions = {
    ...options,
    mcpConfig: options.mcpConfig.map((file) => path.relative(cwd, path.resolve(base, file))),
  };
  return { cwd, home, factoryOptions };
}

/** The prompt of `-p`: on the command line, else all of stdin when it is not a terminal; 2 when there is none. */
export async function printPrompt(kit: Kit, options: CliOptions): Promise<string | number> {
  let prompt = options.prompt;
  if (prompt === undefined && !process.stdin.isTTY) prompt = (await readStdin()).trim() || undefined;
  if (prompt !== undefined) return prompt;
  process.stderr.write(`-p needs a prompt: npm run agent -- -p "what is in here?" (or on stdin)\n\n${kit.USAGE}\n`);
  return 2;
}

/** True when `dir` is an existing folder. */
function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** All of stdin, for `-p` without a prompt on the command line (`git diff | npm run agent -- -p`). */
async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}
