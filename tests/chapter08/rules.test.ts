import { describe, expect, test } from 'vitest';
import { parseRule, RuleSyntaxError } from 'kit/permissions/rules';

describe('parseRule (src/permissions/rules.ts)', () => {
  test.each([
    ['Bash', { tool: 'Bash' }],
    ['Bash(npm run test:*)', { tool: 'Bash', specifier: 'npm run test:*' }],
    ['Bash(git diff *)', { tool: 'Bash', specifier: 'git diff *' }],
    ['Bash(echo $(date))', { tool: 'Bash', specifier: 'echo $(date)' }],
    ['Read(./.env)', { tool: 'Read', specifier: './.env' }],
    ['  Edit(src/**)  ', { tool: 'Edit', specifier: 'src/**' }],
    ['Write(**/*.ts)', { tool: 'Write', specifier: '**/*.ts' }],
    ['WebFetch(domain:example.com)', { tool: 'WebFetch', specifier: 'domain:example.com' }],
    ['mcp__github', { tool: 'mcp__github' }],
    ['mcp__my-server__create_issue', { tool: 'mcp__my-server__create_issue' }],
  ])('reads %s', (text, expected) => {
    const rule = parseRule(text, 'deny', '/p/.claude/settings.json');
    expect(
      rule,
      `parseRule: ${JSON.stringify(text)} is a valid rule; keep the behaviour and the source, and leave specifier out when there are no parentheses (guided steps 1-4)`,
    ).toEqual({ behavior: 'deny', source: '/p/.claude/settings.json', ...expected });
  });

  test.each([
    ['', 'an empty rule', /tool name/],
    ['Bash(npm test', 'an unclosed parenthesis', /tool name/],
    ['Bash(ls) now', 'text after the closing parenthesis', /tool name/],
    ['Read Edit', 'two names', /tool name/],
    ['Bash()', 'empty parentheses (leave them out to match every call)', /empty/],
    ['Bash(   )', 'parentheses with only spaces', /empty/],
    [
      'bash(ls)',
      'the kit tool name instead of the Claude Code name Bash',
      /(?=[^]*\bbash\b)(?=[^]*\bBash\b)(?=[^]*\bRead\b)(?=[^]*\bEdit\b)/,
    ],
    ['Shell(ls)', 'an unknown tool', /unknown tool Shell/],
    ['mcp__github__create_issue(repo)', 'an MCP name with a specifier', /MCP/],
    ['mcp__git*', 'a * that is not a whole __* at the end of an MCP name', /unknown tool/],
    ['mcp__*mcp__git', 'an MCP name with a * in the middle', /unknown tool/],
    ['WebFetch(example.com)', 'a WebFetch specifier without domain:', /domain:/],
    ['WebFetch(see domain:example.com)', 'text before domain:', /domain:/],
    ['WebFetch(domain:example.com/path)', 'a path after the host', /domain:/],
  ])('refuses %j (%s) with an error that names the rule and the file', (text, why, says) => {
    let error: unknown;
    try {
      parseRule(text, 'allow', '/home/ada/.claude/settings.json');
    } catch (caught) {
      error = caught;
    }
    if (error instanceof Error && error.name === 'TodoError') throw error;
    expect(
      error,
      `parseRule: ${why} must throw a RuleSyntaxError, never become a rule that allows something (guided steps 1-3)`,
    ).toBeInstanceOf(RuleSyntaxError);
    const message = (error as Error).message;
    expect(message, 'parseRule: the message quotes the rule as written (guided step 4)').toContain(
      JSON.stringify(text),
    );
    expect(message, 'parseRule: the message names the file the rule came from (guided step 4)').toContain(
      '/home/ada/.claude/settings.json',
    );
    expect(message, `parseRule: the message says what is wrong (${why}) (guided steps 1-3)`).toMatch(says);
  });
});
