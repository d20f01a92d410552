/**
 * Chapter 8: permission rules as data, read from Claude Code's syntax.
 *
 * A person who uses Claude Code already writes rules like `Bash(npm run test:*)`, `Read(./.env)` or
 * `Edit(src/**)` in `.claude/settings.json`. The kit reads the same text, so their agent respects the same rules.
 * A rule is a Claude Code tool name, optionally with a specifier in parentheses, and a behaviour: allow, ask or
 * deny. `CLAUDE_TOOLS` maps each Claude Code name onto the kit's tools.
 */
import { TodoError } from '../todo.js';

export type Behavior = 'allow' | 'ask' | 'deny';

/** One rule, parsed. `source` says where it came from (a settings file, a flag, the session). */
export interface Rule {
  behavior: Behavior;
  /** A Claude Code tool name (`Bash`, `Edit`, ...) or an MCP name (`mcp__server`, `mcp__server__*` or `mcp__server__tool`). */
  tool: string;
  /** What is inside the parentheses, if anything: a command pattern, a path pattern, `domain:host`. */
  specifier?: string;
  /** Where the rule was written: a file path, `--allowedTools`, `session`. */
  source: string;
}

/**
 * The kit's tools each Claude Code tool name covers. Claude Code's Read rules cover every tool that reads files,
 * its Edit rules every tool that changes them. A name with no kit tool (WebSearch) is accepted, so a person's real
 * settings load, and matches nothing.
 */
export const CLAUDE_TOOLS: Readonly<Record<string, readonly string[]>> = Object.assign(
  Object.create(null) as Record<string, readonly string[]>,
  {
    Bash: ['bash'],
    Read: ['read', 'glob', 'grep'],
    Edit: ['edit', 'write'],
    MultiEdit: ['edit'],
    Write: ['write'],
    Glob: ['glob'],
    Grep: ['grep'],
    LS: ['glob'],
    WebFetch: ['web_fetch'],
    WebSearch: [],
    NotebookEdit: [],
    Task: ['task'],
    TodoWrite: ['todo_write'],
  },
);

/**
 * Where an allow rule covers less than a deny or ask rule of the same name: `Edit` allows changing a file that
 * exists (the edit tool), not creating one with the write tool, which Claude Code allows only by `Write`. A deny
 * of `Edit` still covers both.
 */
export const ALLOW_TOOLS: Readonly<Record<string, readonly string[]>> = Object.assign(
  Object.create(null) as Record<string, readonly string[]>,
  { Edit: ['edit'] },
);

/** The tools whose rules take a path pattern. */
export const PATH_RULE_TOOLS: ReadonlySet<string> = new Set([
  'Read',
  'Edit',
  'MultiEdit',
  'Write',
  'Glob',
  'Grep',
  'LS',
  'NotebookEdit',
]);

/** A rule that cannot be read: names the rule and where it was written. */
export class RuleSyntaxError extends Error {
  override name = 'RuleSyntaxError';
}

/** The rule as a person writes it: `Bash(npm test:*)`, `mcp__github`. */
export function formatRule(rule: Pick<Rule, 'tool' | 'specifier'>): string {
  return rule.specifier === undefined ? rule.tool : `${rule.tool}(${rule.specifier})`;
}

/**
 * Parses one rule written in Claude Code's syntax (`Bash(npm run test:*)`, `Read(./.env)`, `mcp__github`), as found
 * in `source`: a name, then optionally a specifier in parentheses that reaches to the very end; spaces around the
 * whole rule do not count (`  Edit(src/**)  ` reads as `Edit(src/**)`). It fails closed: a
 * rule that cannot be read is never guessed at (a misread deny would be a silent allow), so every problem is a
 * RuleSyntaxError whose message quotes the rule as written (as a string literal, quotes and all) and names the
 * source, then says what is wrong:
 * - not that shape (empty, unbalanced, text after the `)`, two names): that a rule is a `tool name`, optionally
 *   followed by (specifier);
 * - a name that is neither Claude Code's (a key of CLAUDE_TOOLS, looked up as data: `toString` or `__proto__` is
 *   none) nor an MCP name (`mcp__<server>`, `mcp__<server>__*` or `mcp__<server>__<tool>`, a star only as a whole
 *   `__*` at the end): `unknown tool <name>`, and the names that are known (the kit's `bash` is not Claude Code's
 *   `Bash`);
 * - parentheses that are `empty` or hold only spaces (leave them out to cover every call);
 * - a specifier on an MCP name (say an `MCP` rule takes none);
 * - a WebFetch specifier that is not exactly `domain:<host>` (nothing before it, no path after the host).
 * A rule that reads keeps its behaviour and its source; it has no specifier at all without parentheses.
 */
export function parseRule(text: string, behavior: Behavior, source: string): Rule {
  // #region chapter 8: parseRule
  // Write it from the contract above. Step by step instead: npm run reset -- chapter8 --guided
  throw new TodoError(8, 'parseRule');
  // #endregion
}
