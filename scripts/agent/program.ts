/**
 * What the parts of npm run agent share once start-up is done: the tree's code, the workspace and what was decided
 * for it (settings, trust), the provider, and the terminal (one line reader, one renderer).
 */
import type { Kit } from '../lib/agent-kit.js';
import type { AgentTree } from '../lib/learner-tree.js';
import type { lineReader } from '../lib/line-reader.js';
import type { Workspace } from './command-line.js';
import type { MadeProvider } from './provider.js';

type CliOptions = import('../../solution/src/capstone/flags.js').CliOptions;
type WorkspaceTrust = import('../../solution/src/capstone/trust.js').WorkspaceTrust;

export interface Program extends Workspace {
  kit: Kit;
  /** The tree it runs, as the banner names it. */
  tree: { label: string };
  /** What of a learner's tree was filled or left out (scripts/lib/learner-tree.ts); undefined for the reference. */
  filled?: AgentTree;
  env: NodeJS.ProcessEnv;
  /** The options as parsed (`factoryOptions` are what the factory reads). */
  options: CliOptions;
  made: MadeProvider;
  /** The provider's models, as far as it says. */
  models: { model?: string; smallFastModel?: string };
  settings: Awaited<ReturnType<Kit['loadAgentSettings']>>;
  trust: WorkspaceTrust;
  style: ReturnType<Kit['styleFor']>;
  /** The one reader of stdin: the prompt and every question. */
  reader: ReturnType<typeof lineReader>;
  renderer: InstanceType<Kit['Renderer']>;
  /** How events are shown: text in a session, -p's --output-format otherwise. */
  format: CliOptions['outputFormat'];
  /** A session in the terminal (not -p): questions are asked. */
  interactive: boolean;
}
