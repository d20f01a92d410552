/** One reader of stdin for a terminal program's prompts and its questions (npm run agent, before and after chapter 15). */
import { createInterface } from 'node:readline';

/**
 * Ctrl-C for a terminal program: the first stops the turn that runs (`running()`); a second one, while it stops or
 * within 1.5 s, or one when nothing runs, calls `exit`.
 */
export function interruptHandler(running: () => AbortController | undefined, exit: () => void): () => void {
  let last = 0;
  return () => {
    const twice = Date.now() - last < 1500;
    last = Date.now();
    const controller = running();
    if (controller && !controller.signal.aborted && !twice) {
      controller.abort(new Error('stopped with Ctrl-C'));
      return;
    }
    exit();
  };
}

/**
 * Lines from stdin, one at a time, for the prompt and for the parts' questions alike (two readers of one stdin
 * would each take lines meant for the other). Interactive once `open` has been called (the session's prompt loop);
 * in one-prompt mode (-p) there is nobody to ask, so questions get no answer.
 */
export function lineReader() {
  const queue: string[] = [];
  // Everyone waiting for a line, first come first served: a second wait never pushes out the first (a question left
  // without an answer would hang its run, and the program with it).
  const waiting: Array<(line: string | undefined) => void> = [];
  let closed = false;
  let rl: ReturnType<typeof createInterface> | undefined;
  return {
    get interactive() {
      return rl !== undefined && !closed;
    },
    open(onInterrupt: () => void) {
      // Opened again (a question at start-up, then the session's prompt): the same reader, with the new handler.
      if (rl) {
        rl.removeAllListeners('SIGINT');
        rl.on('SIGINT', onInterrupt);
        return rl;
      }
      rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY });
      rl.on('SIGINT', onInterrupt);
      rl.on('line', (line) => {
        const take = waiting.shift();
        if (take) take(line);
        else queue.push(line);
      });
      rl.on('close', () => {
        closed = true;
        for (const take of waiting.splice(0)) take(undefined);
      });
      return rl;
    },
    /**
     * The answer to a one-key question (y, n, a). In a terminal, the next key pressed, with no Enter: the key is
     * taken out of the prompt's line again, so it never starts the next request. With input piped in (no
     * terminal), the next line. Undefined at the end of input or once `signal` aborts.
     */
    key(signal?: AbortSignal): Promise<string | undefined> {
      const input = process.stdin;
      if (!rl || !input.isTTY) return this.next(signal);
      // An Enter pressed while the turn ran left an empty line: it answers nothing.
      while (queue.length > 0 && queue[0]!.trim() === '') queue.shift();
      if (queue.length > 0) return Promise.resolve(queue.shift());
      if (closed || signal?.aborted) return Promise.resolve(undefined);
      const line = rl as unknown as { line: string; cursor: number };
      return new Promise((resolve) => {
        const finish = (answer: string | undefined) => {
          input.off('keypress', onKey);
          signal?.removeEventListener('abort', onAbort);
          const index = waiting.indexOf(onLine);
          if (index !== -1) waiting.splice(index, 1);
          resolve(answer);
        };
        // readline saw the key first (it listens to the same stream): it echoed it and added it to its line.
        const onKey = (text: string | undefined, key: { ctrl?: boolean; meta?: boolean } | undefined) => {
          if (key?.ctrl || key?.meta || text === undefined || text.length !== 1 || text < ' ') return;
          line.line = '';
          line.cursor = 0;
          process.stdout.write('\n');
          finish(text);
        };
        const onLine = (typed: string | undefined) => finish(typed);
        const onAbort = () => finish(undefined);
        waiting.push(onLine);
        input.on('keypress', onKey);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    /** Ends the input, as Ctrl-D does: the line waited for is undefined. */
    close() {
      rl?.close();
    },
    /** The next line, or undefined at the end of input or once `signal` aborts. */
    next(signal?: AbortSignal): Promise<string | undefined> {
      if (queue.length > 0) return Promise.resolve(queue.shift());
      if (closed || signal?.aborted) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const onAbort = () => {
          const index = waiting.indexOf(take);
          if (index !== -1) waiting.splice(index, 1);
          resolve(undefined);
        };
        const take = (line: string | undefined) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(line);
        };
        waiting.push(take);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
  };
}
