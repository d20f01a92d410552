/**
 * Chapter 15: one factory builds the agent.
 *
 * Every earlier chapter made a part: a provider (5), the loop and its seams (7), the permission gate (8), the
 * parallel executor and the output budget (9), retries (10), MCP servers (11), the saved session, the system prompt
 * and compaction (12), plan mode, the task list and sub-agents (13). `buildAgent` puts them together from
 * configuration: the command line's options, the settings files, the environment, and what the program around it
 * brings (how to ask the person, the provider, an editor's own tools). `npm run agent`, `npm run acp` and the task
 * tool's children are all built here, so what a chapter's tests proved is what a person meets.
 *
 * Where a setting can come from several places, the narrower one wins: a flag over the settings files, the settings
 * over the kit's default. Rules are not a choice but a list: the flags' rules come first, then the files' (chapter 8's
 * evaluate decides between them: deny, then ask, then allow).
 *
 * buildAgent itself is given: it decides the trust once (trustedSettings), makes each part in order with the
 * functions of factory-steps.ts (the gate, the saved session, the command hooks, the system prompt, the MCP servers,
 * the agent), and closes what was started when a part fails. A program that brings a sandbox (chapter 16's
 * sandboxFor, in config.sandbox) has it started first: it puts its decision in front of the gate and its bash tool
 * in place of chapter 4's. The smaller pieces are in factory-pieces.ts, the types
 * in factory-config.ts.
 */

import { withRetries } from '../retry/with-retries.js';
import { lifetime, type BuiltAgent, type FactoryConfig } from './factory-config.js';
import { permissionSetup, retryPolicy } from './factory-pieces.js';
import { assembleAgent, commandHooksFor, gateFor, mcpFor, savedSessionFor, systemPromptFor } from './factory-steps.js';
import { trustedSettings } from './trust.js';

export * from './factory-config.js';
export * from './factory-pieces.js';
export * from './factory-steps.js';
export { loadAgentSettings } from './agent-settings.js';
export { CREDENTIAL_SHAPES, redactCredentials, secretsOf } from './secrets.js';
export type { AgentSettings } from './trust.js';

/**
 * Builds the agent from its configuration. The trust is decided once: the folder is untrusted unless config.trust
 * says otherwise (never a guess in favour of running something), and every part gets trustedSettings' settings,
 * never config.settings; what was left out is in the warnings. Whatever was started before something failed (the
 * session file, the servers) is closed again before the error is thrown.
 */
export async function buildAgent(config: FactoryConfig): Promise<BuiltAgent> {
  const trust = config.trust ?? { trusted: false };
  const life = lifetime();
  try {
    const { settings, dropped } = trustedSettings(config.settings, trust);
    life.warnings.push(...dropped);
    const sandbox = await config.sandbox?.({
      cwd: config.cwd,
      home: config.home,
      trusted: trust.trusted,
      rules: permissionSetup(config.options ?? {}, settings).rules,
    });
    if (sandbox) {
      life.cleanups.push(() => sandbox.close());
      life.warnings.push(...sandbox.warnings);
    }
    const gate = sandbox ? sandbox.gate(gateFor(config, settings)) : gateFor(config, settings);
    const provider = withRetries(config.provider, {
      ...retryPolicy(config.options ?? {}, config.models ?? {}),
      ...config.retry,
    });
    const saved = savedSessionFor(config, life);
    const { commands, around } = commandHooksFor(config, settings, saved, gate);
    const prompt = await systemPromptFor(config, saved, around, life);
    const mcp = await mcpFor(config, settings, trust, gate.ask, life);
    const { agent, tools } = await assembleAgent({
      config: sandbox ? { ...config, clientTools: sandbox.tools(config.clientTools) } : config,
      provider,
      gate,
      saved,
      commands,
      system: prompt.system,
      mcp,
    });
    return {
      agent,
      history: saved.session?.session.messages ?? [],
      gate: gate.gate,
      session: saved.session,
      sessionId: saved.sessionId,
      resumed: saved.resumed,
      provider,
      system: prompt.system,
      instructionFiles: prompt.files,
      tools,
      mcp,
      sessionHooks: around,
      warnings: life.warnings,
      ...(sandbox ? { sandbox: sandbox.state } : {}),
      close: life.close,
    };
  } catch (error) {
    await life.close();
    throw error;
  }
}
