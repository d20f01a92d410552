import { isTodo, type LoadedTree, makeProvider, providerFromEnv, todoAdvice } from '../lib/agent-kit.js';
import { note } from './output.js';
import { ScriptedProvider } from './scripted-provider.js';

type CliOptions = import('../../solution/src/capstone/flags.js').CliOptions;

export type MadeProvider = ReturnType<typeof makeProvider>;

/**
 * The provider --provider names (else the one the environment asks for), from the tree's own code; undefined once
 * what stops it has been said on stderr (a stub not written yet, a missing key, anything else).
 */
export function chooseProvider(
  options: CliOptions,
  loaded: LoadedTree,
  env: NodeJS.ProcessEnv,
): MadeProvider | undefined {
  // npm run demo: the scripted model of scripts/demo.ts, streamed through the tree's own turnToEvents.
  if (env.KIT_DEMO_SCRIPT) {
    const provider = ScriptedProvider.fromFile(env.KIT_DEMO_SCRIPT, (turn) => loaded.kit.turnToEvents(turn));
    return { provider, label: 'scripted demo model (npm run demo; no network)' };
  }
  try {
    return makeProvider(options.provider ?? providerFromEnv(env), loaded, {
      model: options.model,
      offlineDelayMs: process.stdout.isTTY ? 8 : 0,
    });
  } catch (error) {
    if (isTodo(error)) note(todoAdvice(error));
    else if (error instanceof Error && error.name === 'ProviderConfigError')
      note(`${error.message}\nOr choose another provider with --provider (offline needs no key).`);
    else note(`error: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
