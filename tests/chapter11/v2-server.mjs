// A small MCP server built on the v2 server package (@modelcontextprotocol/server 2.4.0), run by the chapter 11
// tests as a real child process over stdio: `node tests/chapter11/v2-server.mjs`. Plain JavaScript, so it starts
// with `node` alone. It writes nothing to stdout but protocol frames (a stdio server's one rule).
//
// Revisions: by default it is served by the SDK's `serveStdio`, which speaks both eras: it answers `server/discover`
// (2026-07-28, stateless) and `initialize` (2025-11-25 and older). With `--legacy` it is a 2025-11-25 server: the same
// tools on a plain StdioServerTransport, where `server/discover` is an unknown method (-32601), as on any server
// written before the 2026-07-28 revision.
//
// Tools:
// - echo {message}: "v2 echo: <message>" (readOnlyHint true).
// - confirm {action}: asks the person "Really <action>?" with one boolean field `confirm`, then answers with what came
//   back: "<action>: <accept|decline|cancel> <content as JSON>". The question is an `input_required` result
//   (2026-07-28: the client answers it and calls again with `inputResponses`); on a 2025 connection the SDK's legacy
//   shim sends the same question as an elicitation/create request instead. The answer names the revision's way:
//   "(asked in the result)" or "(asked by request)".
// - ask_name {}: asks for a required string field `name` (a form no yes/no question can fill), answers the same way.
// - wait_for_file {path}: reports progress 1 of 2 ("waiting for the file"), waits until the file exists, reports 2 of
//   2 ("found it"), then answers "found <path>". The test creates the file only once it has seen the first
//   progress event, so a client that holds progress back until the call ends never gets an answer.
// - progress_then_fail {}: reports progress 1 of 1, then fails (an error result).
import { existsSync } from 'node:fs';
import { McpServer, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

async function progress(ctx, value, total, message) {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return;
  await ctx.mcpReq.notify({
    method: 'notifications/progress',
    params: { progressToken: token, progress: value, total, message },
  });
}

const said = (result) => `${result.action} ${JSON.stringify(result.content ?? null)}`;

/**
 * Asks one form question the stateless way: the first call returns `input_required` with the question under `key`;
 * the client's retried call brings the answer in `ctx.mcpReq.inputResponses`, and `answered` makes the tool's result.
 */
function askOnce(ctx, key, params, answered) {
  const response = inputResponse(ctx.mcpReq.inputResponses, key);
  if (response.kind === 'missing') return inputRequired({ inputRequests: { [key]: inputRequired.elicit(params) } });
  const how = ctx.mcpReq.envelope === undefined ? '(asked by request)' : '(asked in the result)';
  return { content: [{ type: 'text', text: `${answered(response)} ${how}` }] };
}

function makeServer() {
  const server = new McpServer({ name: 'kit-v2-fixture', version: '2.4.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'echo',
    {
      description: 'Echoes the message back',
      inputSchema: z.object({ message: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ message }) => ({ content: [{ type: 'text', text: `v2 echo: ${message}` }] }),
  );
  server.registerTool(
    'confirm',
    { description: 'Asks the person to confirm an action', inputSchema: z.object({ action: z.string() }) },
    async ({ action }, ctx) =>
      askOnce(
        ctx,
        'confirm',
        {
          message: `Really ${action}?`,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Confirm', description: `Yes, ${action}` } },
            required: ['confirm'],
          },
        },
        (result) => `${action}: ${said(result)}`,
      ),
  );
  server.registerTool(
    'ask_name',
    { description: 'Asks the person for their name', inputSchema: z.object({}) },
    async (_args, ctx) =>
      askOnce(
        ctx,
        'name',
        {
          message: 'What is your name?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string', title: 'Name' } },
            required: ['name'],
          },
        },
        (result) => `name: ${said(result)}`,
      ),
  );
  server.registerTool(
    'wait_for_file',
    { description: 'Waits until a file exists', inputSchema: z.object({ path: z.string() }) },
    async ({ path }, ctx) => {
      await progress(ctx, 1, 2, 'waiting for the file');
      while (!existsSync(path)) {
        if (ctx.mcpReq.signal.aborted) throw new Error('cancelled');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await progress(ctx, 2, 2, 'found it');
      return { content: [{ type: 'text', text: `found ${path}` }] };
    },
  );
  server.registerTool(
    'progress_then_fail',
    { description: 'Reports progress, then fails', inputSchema: z.object({}) },
    async (_args, ctx) => {
      await progress(ctx, 1, 1, 'about to fail');
      return { content: [{ type: 'text', text: 'it failed after its progress' }], isError: true };
    },
  );
  return server;
}

if (process.argv.includes('--legacy')) await makeServer().connect(new StdioServerTransport());
else serveStdio(makeServer);
