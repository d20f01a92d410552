/**
 * Chapter 16: the sandbox, and the plug a program hands to chapter 15's factory (FactoryConfig.sandbox).
 *
 * sandboxFor reads the `sandbox` key of the settings files, merges it under the trust decision (sandboxPolicy),
 * starts the runtime (startSandbox) and gives the factory what changes: a gate that asks sandboxDecision first, and a
 * bash tool that runs inside. Settings without a `sandbox` key change nothing, and reach none of this chapter's code.
 */
import type { SandboxFor, SandboxPlug } from '../capstone/factory-config.js';
import type { Workspace } from '../permissions/command.js';
import { rulePathGlob, ruleTools } from '../permissions/evaluate.js';
import type { Rule } from '../permissions/rules.js';
import { bashTool } from '../tools/bash.js';
import { sandboxedBash } from './bash.js';
import { sandboxGate } from './gate.js';
import { sandboxPolicy } from './policy.js';
import { osSandbox, type SandboxRuntime } from './runtime.js';
import { readSandboxLayers } from './settings.js';
import { startSandbox } from './start.js';

export * from './bash.js';
export * from './decision.js';
export * from './gate.js';
export * from './policy.js';
export * from './runtime.js';
export * from './settings.js';
export * from './start.js';

/**
 * What chapter 8's file deny rules mean inside the sandbox, as Claude Code carries them there: a deny rule for
 * reading (`Read(./.env)`, `Read(~/.aws/**)`) hides its paths from every command, one for editing (`Edit(dist/**)`)
 * makes them read-only, so that `python3 -c "open('.env').read()"`, which chapter 8 could only ask about, cannot read
 * what a rule denies even when it runs without a question. A rule for a whole tool (`Read`) is left to the gate; a
 * pattern ending in `/**` names its folder; other patterns go to the runtime as globs.
 */
export function deniedPaths(rules: readonly Rule[], workspace: Workspace): { denyRead: string[]; denyWrite: string[] } {
  const denyRead: string[] = [];
  const denyWrite: string[] = [];
  for (const rule of rules) {
    if (rule.behavior !== 'deny' || rule.specifier === undefined) continue;
    const tools = ruleTools(rule);
    const target = rulePathGlob(rule.specifier, workspace).replace(/\/\*\*$/, '');
    if (tools.includes('read') && !denyRead.includes(target)) denyRead.push(target);
    if ((tools.includes('edit') || tools.includes('write')) && !denyWrite.includes(target)) denyWrite.push(target);
  }
  return { denyRead, denyWrite };
}

/**
 * The factory's sandbox for a workspace: undefined when no settings file has a `sandbox` key; one that changes
 * nothing but says what was dropped when the merged policy is off; otherwise the merged policy started with `runtime` (the machine's, by default), every line of what was dropped and why the sandbox is
 * not running as a warning, a gate with the sandbox's decision, and the bash tool (the client's, when it brings
 * one: an editor's terminal) run inside. Throws SandboxUnavailableError with failIfUnavailable.
 */
export function sandboxFor(runtime: SandboxRuntime = osSandbox()): SandboxFor {
  return async ({ cwd, home, trusted, rules }) => {
    const layers = readSandboxLayers(cwd, home);
    if (layers.length === 0) return undefined;
    const workspace = { root: cwd, home };
    const { policy, dropped } = await sandboxPolicy(layers, workspace, trusted);
    const fromRules = deniedPaths(rules, workspace);
    for (const [list, more] of [
      [policy.filesystem.denyRead, fromRules.denyRead],
      [policy.filesystem.denyWrite, fromRules.denyWrite],
    ] as const)
      for (const entry of more) if (!list.includes(entry)) list.push(entry);
    if (policy.enableWeakerNestedSandbox)
      dropped.push(
        "sandbox: enableWeakerNestedSandbox is on: commands see this machine's /proc, so the agent's own environment (its API keys) can be read again",
      );
    if (!policy.enabled) {
      const state = { policy, available: false };
      return {
        state,
        warnings: dropped,
        gate: (parts) => parts,
        tools: (client = []) => [...client],
        close: async () => {},
      };
    }
    const started = await startSandbox(policy, runtime);
    const plug: SandboxPlug = {
      state: started.state,
      warnings: [...dropped, ...started.notes],
      gate: (parts) => sandboxGate(parts, rules, workspace, started.state),
      tools: (client = []) => {
        const bash = client.find((tool) => tool.name === 'bash') ?? bashTool;
        return [...client.filter((tool) => tool !== bash), sandboxedBash(bash, started.state, runtime)];
      },
      close: () => started.stop(),
    };
    return plug;
  };
}
