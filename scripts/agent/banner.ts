import path from 'node:path';
import { note } from './output.js';
import type { Program } from './program.js';

type BuiltAgent = import('../../solution/src/capstone/factory.js').BuiltAgent;

/** What the agent was built with, for the person (stderr): its warnings, then one line per part. */
export function showBanner(program: Program, agent: BuiltAgent): void {
  for (const warning of agent.warnings) note(program.style.dim(`(${warning})`));
  note(program.style.dim(bannerLines(program, agent).join('\n')));
}

/** One line per part of the agent; a part a learner's tree leaves out has none (the tree's own line says so, once). */
function bannerLines(program: Program, agent: BuiltAgent): string[] {
  const { kit, factoryOptions: o, settings, trust, models, made, tree, filled, cwd, home } = program;
  const rules = kit.permissionSetup(o, kit.trustedSettings(settings, trust).settings).rules.length;
  const retries = o.maxRetries ?? kit.DEFAULT_MAX_RETRIES;
  const policy = kit.retryPolicy(o, models);
  const parallel = o.maxParallel ?? kit.DEFAULT_MAX_PARALLEL;
  const budget = o.outputBudget ?? kit.DEFAULT_OUTPUT_BUDGET;
  const tools = [...agent.tools].map((tool) => tool.name);
  const has = (chapter: number) => !filled?.leftOut.includes(chapter);
  return [
    `agent · ${made.label} · ${tree.label} · workspace ${cwd}${trust.trusted ? ' (trusted)' : ''}`,
    ...(filled?.note ? [filled.note] : []),
    ...(has(8)
      ? [
          `permissions: ${agent.gate.mode} mode, ${rules} rule${rules === 1 ? '' : 's'}${settings.files.length > 0 ? `, settings: ${settings.files.join(', ')}` : ''}`,
        ]
      : []),
    !has(12)
      ? undefined
      : agent.session
        ? `session ${agent.sessionId}${o.forkSession && agent.session.session.forkedFrom ? ` forked from ${agent.session.session.forkedFrom.id} (${agent.history.length} messages)` : agent.resumed ? ` resumed (${agent.history.length} messages)` : ''}, kept in ${homeShown(new kit.SessionStore({ home, cwd }).file(agent.sessionId), home)} · ${agent.instructionFiles.length} instruction file(s)`
        : `no session saved · ${agent.instructionFiles.length} instruction file(s)`,
    ...(agent.mcp
      ? [
          `mcp: ${agent.mcp.connections.map((c) => `${c.name} (${tools.filter((name) => name.startsWith(`mcp__${c.name}__`)).length} tools)`).join(', ') || 'no server started'}`,
        ]
      : []),
    has(9)
      ? `executor: up to ${parallel} read-only call${parallel === 1 ? '' : 's'} at once; ${budget > 0 ? `tool output cut at ${budget} characters` : 'no output budget'}`
      : undefined,
    sandboxLine(agent),
    !has(10)
      ? undefined
      : retries === 0
        ? 'retries: off'
        : `retries: up to ${retries} (waits of up to ${(policy.maxWaitMs ?? 0) / 1000} s)${policy.fallbackModel ? `; falls back to ${policy.fallbackModel} when overloaded` : ''}`,
  ].filter((line) => line !== undefined);
}

/** Chapter 16: the sandbox the commands run in, when it runs. */
function sandboxLine(agent: BuiltAgent): string | undefined {
  const state = agent.sandbox;
  if (!state?.policy.enabled || !state.available) return undefined;
  const { policy } = state;
  const writes = policy.filesystem.allowWrite.length - 1;
  const hosts = policy.network.allowedDomains;
  return `sandbox: on · commands write only in the workspace${writes > 0 ? ` and ${writes} more folder(s)` : ''}, reach ${hosts.length > 0 ? hosts.join(', ') : 'no host'} · ${policy.autoAllowBashIfSandboxed ? 'a command inside runs without a question' : 'commands are still asked about'}${policy.excludedCommands.length > 0 ? ` · outside: ${policy.excludedCommands.join(', ')}` : ''}`;
}

/** A path under the home folder written from `~`, as a person reads it. */
function homeShown(file: string, home: string): string {
  const relative = path.relative(home, file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? `~/${relative}` : file;
}
