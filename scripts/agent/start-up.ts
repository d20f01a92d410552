/**
 * npm run agent's start-up, up to the point where the agent can be built: the command line, the workspace, the
 * provider, the settings files and the trust decision, each said on stderr when it stops the program.
 */
import type { LoadedTree, sourceTree } from '../lib/agent-kit.js';
import type { AgentTree } from '../lib/learner-tree.js';
import { lineReader } from '../lib/line-reader.js';
import { printPrompt, readOptions, workspace } from './command-line.js';
import { note, redactWith } from './output.js';
import type { Program } from './program.js';
import { chooseProvider } from './provider.js';
import { listSessions } from './session-list.js';
import { decideTrust } from './trust.js';

/** The program, with -p's prompt; or the exit code once there is nothing more to do (--help, --list, a mistake). */
export async function startUp(
  argv: string[],
  tree: ReturnType<typeof sourceTree>,
  loaded: LoadedTree,
  filled?: AgentTree,
): Promise<{ program: Program; prompt?: string } | number> {
  const { kit } = loaded;
  const options = readOptions(kit, argv);
  if (typeof options === 'number') return options;
  const env = process.env;
  const secrets = kit.secretsOf(env);
  redactWith((text) => kit.redactCredentials(text, secrets));
  const where = workspace(options, env);
  if (typeof where === 'number') return where;
  const { cwd, home } = where;
  const style = kit.styleFor(process.stdout, env);
  if (options.list) {
    listSessions(kit, { home, cwd }, style);
    return 0;
  }
  const made = chooseProvider(options, loaded, env);
  if (!made) return 2;
  const models = made.provider as { model?: string; smallFastModel?: string };

  let settings: Program['settings'];
  try {
    settings = await kit.loadAgentSettings(cwd, home);
  } catch (error) {
    note(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }

  const reader = lineReader();
  const trust = await decideTrust(kit, {
    cwd,
    home,
    settings,
    interactive: !options.print,
    flag: options.trustWorkspace,
    style,
    askLine: () => {
      reader.open(() => process.exit(130));
      return reader.next();
    },
  });

  const prompt = options.print ? await printPrompt(kit, options) : undefined;
  if (typeof prompt === 'number') return prompt;

  const renderer = new kit.Renderer({ style, cwd, width: process.stdout.columns, model: models.model });
  const program: Program = {
    ...where,
    kit,
    tree,
    filled,
    env,
    options,
    made,
    models,
    settings,
    trust,
    style,
    reader,
    renderer,
    format: options.print ? options.outputFormat : 'text',
    interactive: !options.print,
  };
  return { program, prompt };
}
