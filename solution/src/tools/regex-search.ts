/**
 * Chapter 4, given: running a model's regular expression where it cannot freeze the agent.
 *
 * JavaScript's regular expressions backtrack: `^(a+)+$` on a line of thirty `a`s and a `!` tries every way of
 * splitting the `a`s into groups (about a billion) before it gives up. A match runs to its end on the thread that
 * started it, and while it runs nothing else does: no timer, no abort, no other tool. A timeout checked between
 * lines cannot help, because a single `test()` call is what takes the time.
 *
 * So the matching runs on a worker thread, which has its own event loop and can be terminated from outside in the
 * middle of a match. The main thread waits for its answer with a timer; when the time limit passes, it terminates
 * the worker and rejects with RegexTimeoutError, whose message tells the model what to do instead.
 */
import { Worker } from 'node:worker_threads';

/** The search ran past its time limit and was stopped. The message is written for the model. */
export class RegexTimeoutError extends Error {
  override name = 'RegexTimeoutError';
}

/** The worker: compiles the regex once, then answers each list of lines with the indexes of those that match. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.source, workerData.flags);
parentPort.on('message', (lines) => {
  const hits = [];
  for (let i = 0; i < lines.length; i++) if (regex.test(lines[i])) hits.push(i);
  parentPort.postMessage(hits);
});
`;

/**
 * One search: a regex and a time limit that counts from the moment the search is created. Call matchingLines()
 * once per file, then close() (in a `finally`) to end the worker.
 */
export class RegexSearch {
  /** How many searches have a worker running right now. A grep that forgets close() leaves one behind. */
  static running = 0;

  private worker: Worker | undefined;
  private readonly deadline: number;

  constructor(
    private readonly regex: RegExp,
    readonly timeLimitMs: number,
  ) {
    this.deadline = Date.now() + timeLimitMs;
  }

  /**
   * The indexes (from 0) of the lines that `regex` matches, in order. Rejects with RegexTimeoutError when the
   * time limit passes first (the worker is then terminated, and every later call rejects the same way).
   */
  matchingLines(lines: string[]): Promise<number[]> {
    if (!this.worker) {
      this.worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { source: this.regex.source, flags: this.regex.flags },
      });
      RegexSearch.running++;
    }
    const worker = this.worker;
    return new Promise<number[]>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
      };
      const onMessage = (hits: number[]) => {
        finish();
        resolve(hits);
      };
      const onError = (error: Error) => {
        finish();
        reject(error);
      };
      const timer = setTimeout(
        () => {
          finish();
          this.close();
          reject(
            new RegexTimeoutError(
              `The search for /${this.regex.source}/ took longer than ${this.timeLimitMs} ms and was stopped. The pattern ` +
                'probably backtracks: nested repetition such as (a+)+ or (.*)* can try exponentially many ways on a line ' +
                'it does not match. Simplify the pattern, or search fewer files with path or glob.',
            ),
          );
        },
        Math.max(0, this.deadline - Date.now()),
      );
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage(lines);
    });
  }

  /** Ends the worker. Safe to call more than once. */
  close(): void {
    if (!this.worker) return;
    void this.worker.terminate();
    this.worker = undefined;
    RegexSearch.running--;
  }
}
