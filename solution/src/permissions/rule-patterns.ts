/**
 * Chapter 8, given: what a rule's name and the text in its parentheses stand for.
 *
 * ruleMatches (evaluate.ts) decides whether a rule covers a subject; these say what the rule's parts mean as data:
 * the kit tools a rule's name covers, an MCP rule's server, a path pattern as an absolute glob and that glob as a
 * regular expression, whether a glob reaches into a folder, and a Bash specifier as a regular expression.
 */
import path from 'node:path';
import { ALLOW_TOOLS, CLAUDE_TOOLS, type Rule } from './rules.js';
import type { Workspace } from './command.js';

/** The kit tools a rule covers: CLAUDE_TOOLS's, narrowed for an allow rule by ALLOW_TOOLS (`Edit` allows edits, not new files). */
export const ruleTools = (rule: Rule): readonly string[] =>
  (rule.behavior === 'allow' && Object.hasOwn(ALLOW_TOOLS, rule.tool)
    ? ALLOW_TOOLS[rule.tool]
    : CLAUDE_TOOLS[rule.tool]) ?? [];

/**
 * The absolute glob a path rule's pattern stands for: `//abs`, `~/x` (home), `/x` and `./x` or `x` (workspace). A
 * trailing `/` names the folder, which a rule covers with everything in it (`Edit(src/)` is `Edit(src)`).
 */
export function rulePathGlob(pattern: string, ws: Workspace): string {
  const glob = pattern.startsWith('//')
    ? pattern.slice(1)
    : pattern === '~' || pattern.startsWith('~/')
      ? path.posix.join(ws.home, pattern.slice(1))
      : path.posix.join(ws.root, pattern.startsWith('/') ? pattern.slice(1) : pattern);
  return glob.length > 1 ? glob.replace(/\/+$/, '') : glob;
}

/** Whether a path glob could match something inside `folder`: its fixed start (before any wildcard) lies in the folder, or leads to it and goes on with a wildcard. */
export function globReachesInto(glob: string, folder: string): boolean {
  const fixed = glob.split(/[*?\\]/)[0]!;
  const within = folder.endsWith('/') ? folder : `${folder}/`;
  return fixed.startsWith(within) || (fixed.length < glob.length && within.startsWith(fixed));
}

/**
 * A Bash rule's specifier as a RegExp over a command: a trailing `:*` or ` *` matches the prefix alone or followed
 * by a space and more (a word boundary); any other `*` matches anything; `\x` is a plain x; the rest is itself.
 */
export function commandPattern(specifier: string): RegExp {
  const prefix = /(?<!\\)(?::| )\*$/.test(specifier);
  const body = prefix ? specifier.slice(0, -2) : specifier;
  let source = '';
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\' && i + 1 < body.length) source += body[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (body[i] === '*') source += '.*';
    else source += body[i]!.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}${prefix ? '( .*)?' : ''}$`, 's');
}

/** An MCP rule's name: a whole server (`mcp__github`, `mcp__github__*`), or one tool, exactly (`mcp__github__get_issue`). */
export function mcpRuleServer(tool: string): string | undefined {
  const parts = tool.split('__');
  return parts.length === 2 || (parts.length === 3 && parts[2] === '*') ? `mcp__${parts[1]}` : undefined;
}

/** A glob as a regular expression over absolute paths: `**` any folders, `*` and `?` within one name, `\x` a plain x. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '\\' && i + 1 < glob.length) source += glob[++i]!.replace(/[.*?+^${}()|[\]\\/]/g, '\\$&');
    else if (ch === '*' && glob[i + 1] === '*') {
      source += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
