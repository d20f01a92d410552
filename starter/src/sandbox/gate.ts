/**
 * Chapter 16, given: chapter 8's gate with the sandbox's decision in front of it.
 *
 * The gate stays chapter 8's: its questions, its "always" rules, its answer when nobody can be asked. In front of it,
 * sandboxDecision judges each call with the sandbox in mind. What it allows (a command inside the sandbox that only
 * the mode would have asked about) runs without the gate; what it denies never reaches it; what it must ask (a command
 * that asks to leave the sandbox) goes to the gate with a question forced through the gate's mustAsk seam, as a
 * PreToolUse hook's `ask` does, so a rule that allows the command cannot answer for the person. The rest is the gate's.
 */
import type { GateParts } from '../capstone/factory-config.js';
import type { Workspace } from '../permissions/command.js';
import { READ_ONLY_TOOLS } from '../permissions/evaluate.js';
import type { PermissionGate } from '../permissions/gate.js';
import { formatRule, type Rule } from '../permissions/rules.js';
import { type SandboxState, sandboxDecision } from './decision.js';

/** `parts` with a gate that asks sandboxDecision first (rules: the gate's own, before the session's). */
export function sandboxGate(
  parts: GateParts,
  rules: readonly Rule[],
  workspace: Workspace,
  sandbox: SandboxState,
): GateParts {
  const inner = parts.gate;
  const gate: PermissionGate = {
    get mode() {
      return inner.mode;
    },
    setMode: (mode) => inner.setMode(mode),
    get sessionRules() {
      return inner.sessionRules;
    },
    async beforeToolCall(call, ctx) {
      const readOnly = READ_ONLY_TOOLS.has(call.name) || ctx.tools?.get(call.name)?.readOnly === true;
      const mode = inner.mode;
      const decision = await sandboxDecision(
        call,
        { rules: [...rules, ...inner.sessionRules], mode, workspace, readOnly },
        sandbox,
      );
      const hookAsked = parts.hookAsks.has(call.id);
      if (decision.behavior === 'allow' && !hookAsked) {
        const permission = { outcome: 'allowed' as const, reason: decision.reason, mode };
        if (decision.rule) Object.assign(permission, { rule: formatRule(decision.rule), source: decision.rule.source });
        return { type: 'allow', permission };
      }
      if (decision.behavior === 'deny') {
        const permission = { outcome: 'denied' as const, reason: decision.reason, mode };
        if (decision.rule) Object.assign(permission, { rule: formatRule(decision.rule), source: decision.rule.source });
        return {
          type: 'block',
          message: `Permission denied: ${decision.reason}. Do not retry this call; do something else or ask the person.`,
          permission,
        };
      }
      if (decision.behavior === 'ask' && !hookAsked) parts.hookAsks.set(call.id, decision.reason);
      try {
        return await inner.beforeToolCall(call, ctx);
      } finally {
        parts.hookAsks.delete(call.id);
      }
    },
  };
  return { ...parts, gate };
}
