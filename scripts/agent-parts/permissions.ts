/**
 * `npm run agent`: the part of chapter 8, the permission gate.
 *
 * Loads the Claude Code settings of the workspace (and of HOME), adds the rules of `--allowedTools` and
 * `--disallowedTools`, and puts the gate in front of every tool call in the mode of `--permission-mode` (else the
 * settings' defaultMode, else default). A call that needs asking is asked about in the terminal with the reference
 * solution's question (chapter 15: the whole command, its control characters visible, "[y]es / [n]o / [a]lways",
 * asked again until the answer is one of the keys, one question at a time). With nobody at the terminal (-p), such a
 * call is rejected with a message that says how to allow it. Shows a line for a denied call and for an "always" rule added.
 */
import { homedir } from 'node:os';
import type { AgentEvent } from '../../solution/src/agent-events.js';
import type * as Permissions from '../../solution/src/permissions/index.js';
// The reference solution's splitRuleList (chapter 15): the kit's own wiring reads the flags the same way.
import { splitRuleList } from '../../solution/src/capstone/flags.js';
// And its question (chapter 15): the whole command, wrapped, its control characters visible, one key, one at a time.
import { answerKey, oneAtATime, questionLines, ANSWER_KEYS } from '../../solution/src/capstone/question.js';
import { plainStyle } from '../../solution/src/capstone/render-lines.js';
import { workspacePermissions } from '../lib/workspace-trust.js';
import type { AgentPart } from './part.js';

const MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions'] as const;

/** The person's answer to the question, as an ACP option kind; undefined for a line that is none of the keys. */
export const readAnswer = (line: string): Permissions.PermissionAnswer | undefined => answerKey(line);

export const part: AgentPart = {
  name: 'permissions',
  chapter: 8,
  options: [
    {
      name: 'permission-mode',
      value: true,
      choices: MODES,
      help: "MODE default, acceptEdits, plan or bypassPermissions (else the settings' defaultMode)",
    },
    {
      name: 'allowedTools',
      value: true,
      repeat: true,
      help: 'RULES rules to allow, as in settings: "Bash(npm test:*) Edit(src/**)"',
    },
    { name: 'disallowedTools', value: true, repeat: true, help: 'RULES rules to deny, as in settings: "Bash(rm:*)"' },
  ],
  async setup(ctx) {
    const perms = await ctx.load<typeof Permissions>('permissions/index.ts');
    const home = ctx.env.HOME || homedir();
    // An untrusted folder's settings may add questions, never remove them (scripts/lib/workspace-trust.ts).
    const settings = workspacePermissions(await perms.loadSettings(ctx.cwd, home), {
      home,
      cwd: ctx.cwd,
      trusted: ctx.trusted,
    });
    for (const line of settings.notes) ctx.note(`(${line})`);
    const values = (name: string) => {
      const value = ctx.options[name];
      return (Array.isArray(value) ? value : typeof value === 'string' ? [value] : []).flatMap(splitRuleList);
    };
    const rules = [
      ...values('disallowedTools').map((text) => perms.parseRule(text, 'deny', '--disallowedTools')),
      ...values('allowedTools').map((text) => perms.parseRule(text, 'allow', '--allowedTools')),
      ...settings.rules,
    ];
    const mode =
      (ctx.options['permission-mode'] as Permissions.PermissionMode | undefined) ?? settings.defaultMode ?? 'default';
    /** The rules an "always" answer added, by call id, for the line render shows. */
    const added = new Map<string, { answer: Permissions.PermissionAnswer; rules: string[] }>();
    /** Sub-agents ask through the same gate: their questions wait their turn. */
    const turn = oneAtATime();
    const style = { ...plainStyle, ...ctx.paint };
    const gate = perms.createPermissionGate({
      workspace: { root: ctx.cwd, home },
      rules,
      mode,
      ask: (request, signal) =>
        turn(async () => {
          const question = [
            ...questionLines(request, { cwd: ctx.cwd, width: process.stdout.columns, style }),
            `  ${ANSWER_KEYS}`,
          ].join('\n');
          let line = await ctx.ask(question, signal);
          let answer = line === undefined ? undefined : readAnswer(line);
          while (line !== undefined && answer === undefined) {
            line = await ctx.ask(`  ${ctx.paint.yellow('Answer with one key:')} ${ANSWER_KEYS}`, signal);
            answer = line === undefined ? undefined : readAnswer(line);
          }
          if (answer === 'allow_always') added.set(request.call.id, { answer, rules: request.suggestedRules });
          return answer;
        }, signal),
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
        if (note?.answer === 'reject_always')
          return ctx.paint.dim(`  ✗ denied from now on in this session: ${(note.added ?? []).join(', ')}`);
        return undefined;
      },
    };
  },
};
