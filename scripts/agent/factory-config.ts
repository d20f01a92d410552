import type { EventDisplay } from './event-display.js';
import { note } from './output.js';
import type { Program } from './program.js';
import { permissionQuestion, planQuestion } from './questions.js';

type CliOptions = import('../../solution/src/capstone/flags.js').CliOptions;
type FactoryConfig = import('../../solution/src/capstone/factory.js').FactoryConfig;

/**
 * What chapter 15's buildAgent is given, for the options with `overrides` (/clear and /resume build the agent again):
 * the workspace, the provider, the settings and trust decided at start-up, the terminal's questions (none with -p),
 * and chapter 16's sandbox, when the settings turn it on.
 */
export function factoryConfig(
  program: Program,
  display: EventDisplay,
): (overrides?: Partial<CliOptions>) => FactoryConfig {
  const { kit, cwd, home, env, made, models, factoryOptions, settings, trust, style, interactive } = program;
  const ask = interactive ? permissionQuestion(program, display) : undefined;
  const approvePlan = interactive ? planQuestion(program, display) : undefined;
  return (overrides = {}) => ({
    cwd,
    home,
    env,
    provider: made.provider,
    models,
    options: { ...factoryOptions, ...overrides },
    settings,
    trust,
    report: (text) => note(style.dim(`(${text})`)),
    ask,
    approvePlan,
    // Chapter 16: the settings' sandbox, a runtime of its own for each build (the agent is built again on /clear).
    sandbox: kit.sandboxFor(),
  });
}
