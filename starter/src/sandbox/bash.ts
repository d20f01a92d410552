/**
 * Chapter 16: the bash tool, run inside the sandbox.
 *
 * Chapter 4's tool stays as it was: the sandbox only changes the command it is given. The runtime turns `npm test`
 * into a longer command that starts bubblewrap with the policy and runs `npm test` inside it, and chapter 4's
 * runCommand runs that, with its timeout, its output cap and its clean-up of what the command left running. What
 * the sandbox refused comes back in the result, so that the model can change course instead of trying again: the
 * runtime's `<sandbox_violations>` block for the hosts its proxy refused, and a sentence for a write the filesystem
 * refused (on Linux a read-only mount leaves no record; the command only sees `Read-only file system`).
 */
import { TodoError } from '../todo.js';
import { z } from 'zod';
import type { Tool, ToolContext } from '../tool.js';
import { type SandboxedInput, type SandboxState, willSandbox } from './decision.js';
import { newCommandId, type SandboxRuntime } from './runtime.js';

/** The sentence added to a result in which a write was refused by the sandbox. */
export const READ_ONLY_NOTE =
  'The sandbox refused a write: commands may write only inside the workspace and the folders ' +
  'sandbox.filesystem.allowWrite adds. Write inside the workspace, or ask the person.';

const leave = z
  .boolean()
  .optional()
  .describe(
    'Run this command outside the sandbox. Only when it failed inside because of the sandbox; the person is asked.',
  );

/** The input of the sandboxed bash tool: chapter 4's, and dangerouslyDisableSandbox. */
export type SandboxedBashInput = SandboxedInput & { timeout_ms?: number };

/**
 * `text` without chapter 4's note about processes left running when every one it names is the runtime's own: its
 * network bridge inside the sandbox (a `socat ... UNIX-CONNECT:`) or bubblewrap itself, caught while it exits after
 * the command. They end with the sandbox, and they are not the command's.
 */
export function withoutRuntimeLeftovers(text: string): string {
  return text
    .split('\n')
    .filter((line) => {
      const stopped = /^Stopped \d+ process\(es\) the command left running in the background: (.*)$/.exec(line);
      return !stopped?.[1]!.split('; ').every((one) => /^\d+ (socat .*UNIX-CONNECT:|bwrap )/.test(one));
    })
    .join('\n');
}

/**
 * What the model reads when the sandbox refused something while the command ran: `text`, then the runtime's
 * violations for `id`, then READ_ONLY_NOTE on a line of its own when the text shows a write refused (`Read-only
 * file system`).
 */
export function withViolations(text: string, id: string, runtime: SandboxRuntime): string {
  const annotated = runtime.violations(id, withoutRuntimeLeftovers(text));
  return /Read-only file system/.test(annotated) ? `${annotated}\n${READ_ONLY_NOTE}` : annotated;
}

/**
 * The bash tool `inner` (chapter 4's, or an editor's terminal over ACP), run inside the sandbox. The tool keeps its
 * name; its input adds `dangerouslyDisableSandbox`, which is never passed on to `inner`.
 *
 * - A command that does not run sandboxed (willSandbox: the sandbox off or not started, an excluded command, or one
 *   the model asked to run outside, which the gate has already asked about) runs through `inner` as it is.
 * - Otherwise the command runs through `inner` wrapped by the runtime (runtime.wrap), under a new id (newCommandId, given) and
 *   with the call's signal; the result, or the message of the error `inner` throws (a timeout, a cancelled run), gets
 *   what the sandbox refused (withViolations, given, with that id). runtime.afterCommand(id) runs after every wrapped
 *   command, however it ended, and after a wrap that failed.
 */
export function sandboxedBash(inner: Tool, sandbox: SandboxState, runtime: SandboxRuntime): Tool<SandboxedBashInput> {
  const input = (inner.input as z.ZodObject).extend({ dangerouslyDisableSandbox: leave });
  return {
    name: inner.name,
    description: `${inner.description} Commands run inside a sandbox: writes only in the workspace, hosts only on the list.`,
    input: input as unknown as z.ZodType<SandboxedBashInput>,
    readOnly: inner.readOnly,
    async execute(args: SandboxedBashInput, ctx: ToolContext): Promise<string> {
      // #region chapter 16: sandboxedBash.execute
      // Write it from the contract above. Step by step instead: npm run reset -- chapter16 --guided
      throw new TodoError(16, 'sandboxedBash.execute');
      // #endregion
    },
  };
}
