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
