/**
 * Exact wording only where the stub gives it (issue 44, point 6): where a graded test matches a phrase in a stub's
 * result, the stub's contract (its doc comment in starter/src, as the learner reads it) states that phrase.
 */
import { describe, expect, it } from 'vitest';
import { stubContracts } from '../../scripts/lib/contracts.js';
import { REPO, read } from './helpers.js';

/** A stub, a test file that matches exact words in its result, and those words as the stub must state them. */
const CASES = [
  {
    stub: 'chapter 2: readTool.execute',
    test: 'tests/chapter02/read.test.ts',
    demanded: /\b3 lines\b/,
    stated: '`3 lines`',
  },
  {
    stub: 'chapter 2: readTool.execute',
    test: 'tests/chapter02/read.test.ts',
    demanded: /\b500 more lines\b/,
    stated: '`N more lines`',
  },
  {
    stub: 'chapter 6: MockProvider.stream',
    test: 'tests/chapter06/mock-stream.test.ts',
    demanded: /\b1 turn/,
    stated: '`1 turn`',
  },
  {
    stub: 'chapter 6: MockProvider.stream',
    test: 'tests/chapter06/mock-stream.test.ts',
    demanded: /turn 2\b/,
    stated: '`turn 2`',
  },
  {
    stub: 'chapter 8: parseRule',
    test: 'tests/chapter08/rules.test.ts',
    demanded: /tool name/,
    stated: '`tool name`',
  },
  {
    stub: 'chapter 8: parseRule',
    test: 'tests/chapter08/rules.test.ts',
    demanded: /unknown tool Shell/,
    stated: '`unknown tool <name>`',
  },
  {
    stub: 'chapter 8: parseRule',
    test: 'tests/chapter08/rules.test.ts',
    demanded: /empty/,
    stated: '`empty`',
  },
  {
    stub: 'chapter 8: parseRule',
    test: 'tests/chapter08/rules.test.ts',
    demanded: /MCP/,
    stated: '`MCP`',
  },
  {
    stub: 'chapter 8: parseRule',
    test: 'tests/chapter08/rules.test.ts',
    demanded: /domain:/,
    stated: '`domain:<host>`',
  },
  {
    stub: 'chapter 8: loadSettings',
    test: 'tests/chapter08/settings.test.ts',
    demanded: /JSON/,
    stated: '`JSON`',
  },
  {
    stub: 'chapter 8: evaluate',
    test: 'tests/chapter08/fail-closed.test.ts',
    demanded: /not understood/,
    stated: '`not understood`',
  },
  {
    stub: 'chapter 8: evaluate',
    test: 'tests/chapter08/gate.test.ts',
    demanded: /plan/,
    stated: '`plan`',
  },
  {
    stub: 'chapter 8: createPermissionGate.beforeToolCall',
    test: 'tests/chapter08/gate.test.ts',
    demanded: /denied/i,
    stated: '`denied`',
  },
  {
    stub: 'chapter 8: createPermissionGate.beforeToolCall',
    test: 'tests/chapter08/gate.test.ts',
    demanded: /rejected/,
    stated: '`rejected`',
  },
  {
    stub: 'chapter 8: createPermissionGate.beforeToolCall',
    test: 'tests/chapter08/gate.test.ts',
    demanded: /--allowedTools|settings/,
    stated: '`--allowedTools`',
  },
  {
    stub: 'chapter 8: createPermissionGate.beforeToolCall',
    test: 'tests/chapter08/gate.test.ts',
    demanded: /(?=[^]*--allowedTools)(?=[^]*settings\.json)/,
    stated: '`.claude/settings.json`',
  },
  {
    stub: 'chapter 9: outputBudget.afterToolCall',
    test: 'tests/chapter09/output-budget.test.ts',
    demanded: /could not be kept/,
    stated: '`could not be kept`',
  },
  {
    stub: 'chapter 9: outputBudget.afterToolCall',
    test: 'tests/chapter09/output-budget.test.ts',
    demanded: /...]/,
    stated: '`...]`',
  },
  {
    stub: 'chapter 10: classifyError',
    test: 'tests/chapter10/classify.test.ts',
    demanded: /rate limited/,
    stated: '`rate limited (429)`',
  },
  {
    stub: 'chapter 10: classifyError',
    test: 'tests/chapter10/classify.test.ts',
    demanded: /not a provider failure/,
    stated: '`not a provider failure`',
  },
  {
    stub: 'chapter 10: classifyError',
    test: 'tests/chapter10/classify.test.ts',
    demanded: /timed out/,
    stated: '`timed out`',
  },
  {
    stub: 'chapter 10: classifyError',
    test: 'tests/chapter10/classify.test.ts',
    demanded: /connection failed/,
    stated: '`connection failed (ECONNRESET)`',
  },
  {
    stub: 'chapter 10: RetryingProvider.nextTry',
    test: 'tests/chapter10/with-retries.test.ts',
    demanded: /gave up after 3 attempts/,
    stated: '`gave up after 3 attempts',
  },
  {
    stub: 'chapter 10: RetryingProvider.nextTry',
    test: 'tests/chapter10/with-retries.test.ts',
    demanded: /gave up after 1 attempt/,
    stated: '`1 attempt`',
  },
  {
    stub: 'chapter 10: RetryingProvider.nextTry',
    test: 'tests/chapter10/with-retries.test.ts',
    demanded: /the server asked to wait/,
    stated: 'the server asked to wait 3600.0 s before retrying',
  },
  {
    stub: 'chapter 11: McpConnection.connect',
    test: 'tests/chapter11/servers.test.ts',
    demanded: /did not start/,
    stated: '`MCP server "<name>" did not start:`',
  },
  {
    stub: 'chapter 11: McpConnection.callTool',
    test: 'tests/chapter11/servers.test.ts',
    demanded: /has stopped and could not be restarted/,
    stated: '`MCP server "<name>" has stopped and could not be restarted: <why>`',
  },
  {
    stub: 'chapter 11: McpConnection.callTool',
    test: 'tests/chapter11/servers.test.ts',
    demanded: /stopped while running/,
    stated: '`MCP server "<name>" stopped while running <tool>`',
  },
  {
    stub: 'chapter 11: McpConnection.callTool',
    test: 'tests/chapter11/servers.test.ts',
    demanded: /did not answer/,
    stated: '`MCP server "<name>" did not answer <tool> within <ms> ms`',
  },
  {
    stub: 'chapter 11: McpConnection.callTool',
    test: 'tests/chapter11/servers.test.ts',
    demanded: /closed/,
    stated: '`MCP server "<name>" is closed`',
  },
  {
    stub: 'chapter 11: jsonSchemaInput',
    test: 'tests/chapter11/adapter.test.ts',
    demanded: /schema is invalid/,
    stated: '`schema is invalid:`',
  },
  {
    stub: 'chapter 11: toolResultText',
    test: 'tests/chapter11/adapter.test.ts',
    demanded: /content]/,
    stated: '`[<type> content]`',
  },
  {
    stub: 'chapter 11: toolResultText',
    test: 'tests/chapter11/adapter.test.ts',
    demanded: /(no content)/,
    stated: '`(no content)`',
  },
  {
    stub: 'chapter 11: toolResultText',
    test: 'tests/chapter11/adapter.test.ts',
    demanded: /binary/,
    stated: '<mimeType or binary>',
  },
  {
    stub: 'chapter 11: parseMcpConfig',
    test: 'tests/chapter11/config.test.ts',
    demanded: /server "fs": cwd/,
    stated: '`server "fs": cwd`',
  },
  {
    stub: 'chapter 11: parseMcpConfig',
    test: 'tests/chapter11/config.test.ts',
    demanded: /mcpServers/,
    stated: '`mcpServers`',
  },
  {
    stub: 'chapter 13: todoProblems',
    test: 'tests/chapter13/todo.test.ts',
    demanded: /has no content/,
    stated: '`task N has no content`',
  },
  {
    stub: 'chapter 13: todoProblems',
    test: 'tests/chapter13/todo.test.ts',
    demanded: /repeats task/,
    stated: '`task N repeats task M`',
  },
  {
    stub: 'chapter 13: todoProblems',
    test: 'tests/chapter13/todo.test.ts',
    demanded: /only one task may be in progress at a time; tasks 1, 2 and 3 are/,
    stated: '`only one task may be in progress at a time; tasks 2 and 4 are` (`tasks 1, 2 and 4 are`',
  },
  {
    stub: 'chapter 13: todo_write',
    test: 'tests/chapter13/todo.test.ts',
    demanded: /not changed/,
    stated: '`not changed`',
  },
  {
    stub: 'chapter 13: todo_write',
    test: 'tests/chapter13/todo.test.ts',
    demanded: /has no content; only one task/,
    stated: 'separated by `; `',
  },
  {
    stub: 'chapter 13: exit_plan_mode',
    test: 'tests/chapter13/plan-mode.test.ts',
    demanded: /keep planning/,
    stated: '`keep planning`',
  },
  {
    stub: 'chapter 13: exit_plan_mode',
    test: 'tests/chapter13/plan-mode.test.ts',
    demanded: /approved[\s\S]*acceptEdits/,
    stated: '`approved`',
  },
  {
    stub: 'chapter 13: exit_plan_mode',
    test: 'tests/chapter13/plan-mode.test.ts',
    demanded: /empty/,
    stated: '`empty`',
  },
  {
    stub: 'chapter 13: runTask',
    test: 'tests/chapter13/task.test.ts',
    demanded: /task: the sub-agent did not finish (no done event)/,
    stated: '`task: the sub-agent did not finish (',
  },
  {
    stub: 'chapter 13: runTask',
    test: 'tests/chapter13/task.test.ts',
    demanded: /task: the sub-agent did not finish (no done event)/,
    stated: '`(no done event)`',
  },
  {
    stub: 'chapter 13: runTask',
    test: 'tests/chapter13/task.test.ts',
    demanded: /empty/,
    stated: '`empty`',
  },
  {
    stub: 'chapter 14: toolTitle',
    test: 'tests/chapter14/tool-info.test.ts',
    demanded: /Read src/,
    stated: '`Read src/app.ts`',
  },
  {
    stub: 'chapter 14: toolTitle',
    test: 'tests/chapter14/tool-info.test.ts',
    demanded: /Update the task list/,
    stated: '`Update the task list`',
  },
  {
    stub: 'chapter 14: toolTitle',
    test: 'tests/chapter14/tool-info.test.ts',
    demanded: /Hand in the plan/,
    stated: '`Hand in the plan`',
  },
  {
    stub: 'chapter 14: toolTitle',
    test: 'tests/chapter14/tool-info.test.ts',
    demanded: /Sub-agent: Find callers/,
    stated: '`Sub-agent: Find callers`',
  },
  {
    stub: 'chapter 14: toolTitle',
    test: 'tests/chapter14/tool-info.test.ts',
    demanded: /get-sum (MCP server everything)/,
    stated: '`get-sum (MCP server everything)`',
  },
  {
    stub: 'chapter 14: promptText',
    test: 'tests/chapter14/setup.test.ts',
    demanded: /<context ref="zed:/,
    stated: '`<context ref="',
  },
  {
    stub: 'chapter 14: promptText',
    test: 'tests/chapter14/setup.test.ts',
    demanded: /resource.*blob/,
    stated: 'the `resource` and the `blob`',
  },
  {
    stub: 'chapter 14: promptText',
    test: 'tests/chapter14/setup.test.ts',
    demanded: /empty/,
    stated: '`empty`',
  },
  {
    stub: 'chapter 14: promptImages',
    test: 'tests/chapter14/images.test.ts',
    demanded: /not read images/,
    stated: '`not read images`',
  },
  {
    stub: 'chapter 14: systemPromptFromMeta',
    test: 'tests/chapter14/setup.test.ts',
    demanded: /append/,
    stated: '`replace` and `append`',
  },
  {
    stub: 'chapter 14: resumeFromMeta',
    test: 'tests/chapter14/meta.test.ts',
    demanded: /session ?id/,
    stated: '`session id`',
  },
  {
    stub: 'chapter 14: AcpServer.prompt',
    test: 'tests/chapter14/server.test.ts',
    demanded: /already running/,
    stated: '`already running`',
  },
  {
    stub: 'chapter 14: AcpServer.setMode',
    test: 'tests/chapter14/server.test.ts',
    demanded: /default, acceptEdits, plan, bypassPermissions/,
    stated: '`default, acceptEdits, plan, bypassPermissions`',
  },
  {
    stub: 'chapter 14: AcpServer.setConfigOption',
    test: 'tests/chapter14/config-options.test.ts',
    demanded: /string/,
    stated: '`string`',
  },
  {
    stub: 'chapter 14: AcpServer.slashCommand',
    test: 'tests/chapter14/commands.test.ts',
    demanded: /\/help/,
    stated: '`/help`',
  },
  {
    stub: 'chapter 14: askThroughClient',
    test: 'tests/chapter14/setup.test.ts',
    demanded: /'reject_once'/,
    stated: '`reject_once`',
  },
  {
    stub: 'chapter 14: clientReadTool.execute',
    test: 'tests/chapter14/setup.test.ts',
    demanded: /(more lines; read again with offset=4)/,
    stated: '`(more lines; read again with offset=4)`',
  },
  {
    stub: 'chapter 14: clientReadTool.execute',
    test: 'tests/chapter14/setup.test.ts',
    demanded: /output capped at 50000 bytes; /,
    stated: '`output capped at 50000 bytes; `',
  },
  {
    stub: 'chapter 14: clientReadTool.execute',
    test: 'tests/chapter14/setup.test.ts',
    demanded: /(empty file)/,
    stated: '`(empty file)`',
  },
  {
    stub: 'chapter 14: clientWriteTool.execute',
    test: 'tests/chapter14/setup.test.ts',
    demanded: /Wrote 13 bytes (2 lines) to docs/,
    stated: '`Wrote 13 bytes (2 lines) to docs/é.md`',
  },
  {
    stub: 'chapter 14: clientBashTool.execute',
    test: 'tests/chapter14/terminal.test.ts',
    demanded: /not run/,
    stated: '`not run`',
  },
  {
    stub: 'chapter 14: clientBashTool.execute',
    test: 'tests/chapter14/terminal.test.ts',
    demanded: /timed out after 20 ms/,
    stated: '`Command timed out after 20 ms and was stopped. Output so far:`',
  },
  {
    stub: 'chapter 14: clientBashTool.execute',
    test: 'tests/chapter14/terminal.test.ts',
    demanded: /Command aborted. Output so far:/,
    stated: '`Command aborted. Output so far:`',
  },
  {
    stub: 'chapter 12: sessionFromRecords',
    test: 'tests/chapter12/session.test.ts',
    demanded: /a message record/,
    stated: '`a message record`',
  },
  {
    stub: 'chapter 12: parseSessionFile',
    test: 'tests/chapter12/store.test.ts',
    demanded: /the last line is incomplete/,
    stated: 'the last line is incomplete (the process stopped while writing it);',
  },
  {
    stub: 'chapter 12: parseSessionFile',
    test: 'tests/chapter12/store.test.ts',
    demanded: /not valid JSON/,
    stated: '`not valid JSON`',
  },
  {
    stub: 'chapter 12: SessionStore.fork',
    test: 'tests/chapter12/store.test.ts',
    demanded: /split/,
    stated: '`split`',
  },
  {
    stub: 'chapter 12: SessionStore.fork',
    test: 'tests/chapter12/store.test.ts',
    demanded: /1 to 7/,
    stated: '`1 to <n>`',
  },
  {
    stub: 'chapter 12: compact',
    test: 'tests/chapter12/compaction.test.ts',
    demanded: /no text/,
    stated: '`no text`',
  },
  {
    stub: 'chapter 12: buildSystemPrompt',
    test: 'tests/chapter12/system-prompt.test.ts',
    demanded: /# Instructions from/,
    stated: '# Instructions from <path>',
  },
  {
    stub: 'chapter 12: resolveImports',
    test: 'tests/chapter12/instruction-links.test.ts',
    demanded: /was not imported/,
    stated: '`<file>: @<path> was not imported: <why>`',
  },
  {
    stub: 'chapter 12: resolveImports',
    test: 'tests/chapter12/system-prompt.test.ts',
    demanded: /no such file/,
    stated: '`no such file`',
  },
  {
    stub: 'chapter 12: resolveImports',
    test: 'tests/chapter12/system-prompt.test.ts',
    demanded: /it is outside/,
    stated: '`it is outside <root>`',
  },
  {
    stub: 'chapter 12: resolveImports',
    test: 'tests/chapter12/system-prompt.test.ts',
    demanded: /it imports itself (a cycle)/,
    stated: '`it imports itself (a cycle)`',
  },
  {
    stub: 'chapter 12: resolveImports',
    test: 'tests/chapter12/system-prompt.test.ts',
    demanded: /deep/,
    stated: '`imports go at most 5 deep`',
  },
];

describe('the stubs state the exact words their tests look for', () => {
  for (const { stub, test, demanded, stated } of CASES)
    it(`${stub} states ${stated}`, () => {
      expect(read(REPO, test), `${test} still looks for ${demanded.source}`).toContain(demanded.source);
      const contract = stubContracts(REPO, 'starter').get(stub);
      expect(contract, `${stub} is in starter/src`).toBeDefined();
      expect(contract, `the stub's contract gives ${stated}, the words the test matches`).toContain(stated);
    });
});
