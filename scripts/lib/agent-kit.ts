/**
 * What `npm run agent` (scripts/agent.ts) and `npm run acp` (scripts/acp.ts) share: the source tree they run (the
 * reference, the learner's starter, or any tree named by KIT_SRC), the provider they talk to (chosen by a flag or
 * from the environment), and the advice for a stub the learner has not written yet.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './paths.js';

export type Kit = typeof import('../../solution/src/index.js');
type Providers = typeof import('../../solution/src/providers/index.js');
type Offline = typeof import('../../solution/src/offline-provider.js');
type Provider = import('../../solution/src/provider.js').Provider;

export const PROVIDER_KINDS = ['anthropic', 'openai', 'offline'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** A mistake in the command line: the program prints it with its usage and exits with 2. */
export class UsageError extends Error {}

/**
 * The command line as `parse` reads it, or the exit code when the program has nothing more to do: 0 once --help has
 * printed the usage (stdout), 2 once a mistake has been printed with the usage (stderr).
 */
export function commandLine<A extends { help: boolean }>(
  argv: readonly string[],
  parse: (argv: readonly string[]) => A,
  usage: string,
): A | number {
  let args: A;
  try {
    args = parse(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}\n`);
    return 2;
  }
  if (!args.help) return args;
  process.stdout.write(`${usage}\n`);
  return 0;
}

/** The value of option `arg`, the argument at `i`, or a UsageError when the command line ends before it. */
export function optionValue(argv: readonly string[], i: number, arg: string): string {
  const value = argv[i];
  if (value === undefined) throw new UsageError(`${arg} needs a value`);
  return value;
}

/** The value of `--provider`, or a UsageError. */
export function providerKind(name: string): ProviderKind {
  if (!(PROVIDER_KINDS as readonly string[]).includes(name)) throw new UsageError(`unknown provider "${name}"`);
  return name as ProviderKind;
}

/** One line about a retry event, for a program's log: `overloaded (529), retrying in 2.0 s (attempt 2 of 5)`. */
export function retryLine(event: {
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  reason: string;
  model?: string;
}): string {
  const model = event.model ? `, with ${event.model}` : '';
  return `${event.reason}, retrying in ${(event.delayMs / 1000).toFixed(1)} s (attempt ${event.attempt} of ${event.maxAttempts}${model})`;
}

/** The provider the environment asks for: Anthropic, then OpenAI, then offline. */
export function providerFromEnv(env: NodeJS.ProcessEnv): ProviderKind {
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_AUTH_TOKEN) return 'anthropic';
  if (env.OPENAI_API_KEY) return 'openai';
  return 'offline';
}

/** The kit's TodoError, as the scripts see it (their tree's class is not theirs to import). */
export interface TodoLike {
  name: string;
  chapter: number;
  stub: string;
}
export const isTodo = (error: unknown): error is TodoLike => error instanceof Error && error.name === 'TodoError';
export const todoAdvice = (todo: TodoLike) =>
  `This needs chapter ${todo.chapter} (${todo.stub}): finish chapter ${todo.chapter} first ` +
  `(npm test -- chapter${todo.chapter}, npm run hint -- chapter${todo.chapter}), or run without --starter.`;

/** The kit's source tree: solution/src, starter/src, or (for the kit's own tests) any tree named by KIT_SRC. */
export function sourceTree(starter: boolean): { src: string; label: string; own: boolean } {
  if (process.env.KIT_SRC) return { src: path.resolve(process.env.KIT_SRC), label: process.env.KIT_SRC, own: true };
  return starter
    ? { src: path.join(ROOT, 'starter/src'), label: 'your code', own: true }
    : { src: path.join(ROOT, 'solution/src'), label: 'reference solution', own: false };
}

export type LoadedTree = Awaited<ReturnType<typeof load>>;

/** The tree's index (everything the kit exports), its offline provider, and its real providers when it has them. */
export async function load(src: string) {
  const url = (rel: string) => pathToFileURL(path.join(src, rel)).href;
  const kit = (await import(url('index.ts'))) as Kit;
  const offline = (await import(url('offline-provider.ts'))) as Offline;
  // The real providers are chapter 5; a tree without them still runs offline.
  const providers = (await import(url('providers/index.ts')).catch(() => undefined)) as Providers | undefined;
  return { kit, offline, providers };
}

export interface ProviderChoice {
  /** The model, instead of ANTHROPIC_MODEL / OPENAI_MODEL. */
  model?: string;
  /** Milliseconds between the offline provider's events (so that its text visibly streams in a terminal). */
  offlineDelayMs: number;
}

/**
 * The provider of `kind` from the tree's own code, and a line that says which it is. A base URL in that line has its
 * user, password and query values taken out (chapter 15's shownUrl): a gateway's URL often carries a key.
 */
export function makeProvider(
  kind: ProviderKind,
  loaded: LoadedTree,
  choice: ProviderChoice,
): { provider: Provider; label: string } {
  const env = process.env;
  const options = choice.model ? { model: choice.model } : {};
  const shown = (url: string) =>
    typeof loaded.kit.shownUrl === 'function' ? loaded.kit.shownUrl(url) : '(a base URL, not shown)';
  if (kind === 'offline') {
    const offline = new loaded.offline.OfflineProvider({ delayMs: choice.offlineDelayMs });
    return { provider: offline, label: 'offline stand-in (no API key found; no network)' };
  }
  if (!loaded.providers) throw new Error(`the ${kind} provider (chapter 5) is not in this tree`);
  if (kind === 'anthropic') {
    const caching = promptCaching(loaded.kit);
    const provider = new loaded.providers.AnthropicProvider(caching ? { ...options, fetch: caching } : options, env);
    return {
      provider,
      label: `anthropic ${provider.model}${env.ANTHROPIC_BASE_URL ? ` at ${shown(env.ANTHROPIC_BASE_URL)}` : ''}`,
    };
  }
  const provider = new loaded.providers.OpenAIProvider(options, env);
  return {
    provider,
    label: `openai ${provider.model}${env.OPENAI_BASE_URL ? ` at ${shown(env.OPENAI_BASE_URL)}` : ''}`,
  };
}

/**
 * A fetch that adds chapter 12's prompt-caching breakpoints to Anthropic requests, or undefined when the tree's
 * chapter 12 cannot do it yet (the learner's addCacheBreakpoints is still a stub).
 */
function promptCaching(kit: Kit): typeof fetch | undefined {
  if (typeof kit.promptCachingFetch !== 'function') return undefined;
  try {
    kit.addCacheBreakpoints({
      model: 'probe',
      max_tokens: 1,
      system: 'probe',
      messages: [{ role: 'user', content: 'probe' }],
    });
    return kit.todoHits.length > 0 ? undefined : kit.promptCachingFetch();
  } catch {
    return undefined;
  } finally {
    kit.todoHits.length = 0;
  }
}

/**
 * A saved session's cost as text. A session's cost starts at 0 and turns unknown at the first turn its model has no
 * price for (chapter 12), so a session on an unpriced model that used nothing yet would read "$0.0000": say "cost
 * unknown" then, as the usage line does.
 */
export function sessionCostText(
  kit: Pick<Kit, 'formatCost' | 'priceFor'>,
  session: { cost: number | undefined; model?: string },
): string {
  return kit.formatCost((session.cost ?? 0) > 0 || kit.priceFor(session.model) ? session.cost : undefined);
}
