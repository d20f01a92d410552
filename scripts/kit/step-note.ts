/**
 * The graded tests' messages name the step they check (`executeToolCall step 3: …`, `step 2: …`). The stubs a learner
 * gets state a contract and show no steps (scripts/lib/regions.ts), so a message that names one says where the
 * steps are.
 */

/** A line for under a failure whose message names a step, or undefined when it names none. */
export function stepNote(message: string, chapter: number): string | undefined {
  const step = /(?:^|[^\w.])steps? (\d+)/.exec(message);
  if (!step) return undefined;
  return (
    `"step ${step[1]}" is a step of the guided edition: the second hint ("npm run hint -- chapter${chapter}") ` +
    `lists them, and "npm run reset -- chapter${chapter} --guided" writes them into the stubs you have not started.`
  );
}
