/**
 * Ends a command-line program (npm run agent, npm run acp) once what it printed has been written. It exits explicitly,
 * because an SDK's idle keep-alive connection must not hold the program open: at once when nothing waits to be
 * written, else at stdout's 'drain', and in any case within a second. (The callback of an empty
 * `process.stdout.write('')` was once never called in a CI run, and the program stayed after its last line.)
 */
export function exitOnceWritten(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 1000).unref();
  if (process.stdout.writableLength === 0) process.exit(code);
  else process.stdout.once('drain', () => process.exit(code));
}

/** Output piped into `head` and closed early is not an error: the program ends quietly with 0 (any other fails). */
export function exitWhenStdoutCloses(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
