/**
 * `npm run agent`: the part of chapter 8, the permission gate.
 *
 * Loads the Claude Code settings of the workspace (and of HOME), adds the rules of `--allowedTools` and
 * `--disallowedTools`, and puts the gate in front of every tool call in the mode of `--permission-mode` (else the
 * settings' defaultMode, else default). A call that needs asking is asked about in the terminal:
 * "Allow bash(rm x)? [y]es / [n]o / [a]lways". With nobody at the terminal (-p), such a call is rejected with a
 * message that says how to allow it. Shows a line for a denied call and for an "always" rule added.
 */
import { homedir } from 'node:os';
import type { AgentEvent } from '../../solution/src/agent-events.js';
import type { ToolCall } from '../../solution/src/messages.js';
import type * as Permissions from '../../solution/src/permissions/index.js';
// The reference solution's splitRuleList (chapter 15): the kit's own wiring reads the flags the same way.
import { splitRuleList } from '../../solution/src/capstone/flags.js';
import type { AgentPart } from './part.js';

const MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const;

/** `bash(rm x)`, `write(src/a.ts)`: the call as the question shows it. */
function describeCall(call: ToolCall): string {
  const args = (typeof call.arguments === 'object' && call.arguments !== null ? call.arguments : {}) as Record<string, unknown>;
  const main = args.command ?? args.path ?? args.url ?? args.pattern;
  const text = typeof main === 'string' ? main : JSON.stringify(call.arguments);
  return `${call.name}(${text.length > 100 ? `${text.slice(0, 100)}…` : text})`;
}

/** The person's answer to the question, as an ACP option kind (anything but yes or always is a no). */
export function readAnswer(line: string): Permissions.PermissionAnswer {
  const answer = line.trim().toLowerCase();
  if (answer === 'y' || answer === 'yes') return 'allow_once';
  if (answer === 'a' || answer === 'always') return 'allow_always';
  return 'reject_once';
}

export const part: AgentPart = {
  name: 'permissions',
  chapter: 8,
  options: [
    { name: 'permission-mode', value: true, choices: MODES, help: "MODE default, acceptEdits, plan or bypassPermissions (else the settings' defaultMode)" },
    { name: 'allowedTools', value: true, repeat: true, help: 'RULES rules to allow, as in settings: "Bash(npm test:*) Edit(src/**)"' },
    { name: 'disallowedTools', value: true, repeat: true, help: 'RULES rules to deny, as in settings: "Bash(rm:*)"' },
  ],
  async setup(ctx) {
    const perms = await ctx.load<typeof Permissions>('permissions/index.ts');
    const home = ctx.env.HOME || homedir();
    const settings = await perms.loadSettings(ctx.cwd, home);
    const values = (name: string) => {
      const value = ctx.options[name];
      return (Array.isArray(value) ? value : typeof value === 'string' ? [value] : []).flatMap(splitRuleList);
    };
    const rules = [
      ...values('disallowedTools').map((text) => perms.parseRule(text, 'deny', '--disallowedTools')),
      ...values('allowedTools').map((text) => perms.parseRule(text, 'allow', '--allowedTools')),
      ...settings.rules,
    ];
    const mode = (ctx.options['permission-mode'] as Permissions.PermissionMode | undefined) ?? settings.defaultMode ?? 'default';
    /** The rules an "always" answer added, by call id, for the line render shows. */
    const added = new Map<string, { answer: Permissions.PermissionAnswer; rules: string[] }>();
    const gate = perms.createPermissionGate({
      workspace: { root: ctx.cwd, home },
      rules,
      mode,
      ask: async (request, signal) => {
        const line = await ctx.ask(`  ${ctx.paint.yellow(`Allow ${describeCall(request.call)}?`)} ${ctx.paint.dim(`(${request.reason})`)} [y]es / [n]o / [a]lways`, signal);
        if (line === undefined) return undefined;
        const answer = readAnswer(line);
        if (answer === 'allow_always') added.set(request.call.id, { answer, rules: request.suggestedRules });
        return answer;
      },
    });
    const files = settings.files.length > 0 ? `, settings: ${settings.files.join(', ')}` : '';
    return {
      hooks: gate,
      modeControl: gate,
      banner: `permissions: ${mode} mode, ${rules.length} rule${rules.length === 1 ? '' : 's'}${files}`,
      render(event: AgentEvent) {
        if (event.type !== 'tool_call_decided') return undefined;
        const always = added.get(event.callId);
        if (always) {
          added.delete(event.callId);
          return always.rules.length > 0
            ? ctx.paint.dim(`  ✓ allowed from now on in this session: ${always.rules.join(', ')}`)
            : ctx.paint.dim('  ✓ allowed (no narrower rule to remember: asked again next time)');
        }
        const note = event.decision.type === 'block' ? event.decision.permission : undefined;
        if (note?.outcome === 'denied') return ctx.paint.red(`  ✗ ${event.name} denied: ${note.reason}`);
        if (note?.answer === 'reject_always') return ctx.paint.dim(`  ✗ denied from now on in this session: ${(note.added ?? []).join(', ')}`);
        return undefined;
      },
    };
  },
};
