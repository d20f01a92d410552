/**
 * The error every unfinished stub throws. Its message names the chapter, the stub and the hint command, and
 * nothing else: the stack is dropped so that a test failing on a stub shows one clear line.
 */
export class TodoError extends Error {
  override name = 'TodoError';
  readonly chapter: number;
  readonly stub: string;

  constructor(chapter: number, stub: string) {
    super(`TODO(chapter ${chapter}): ${stub} — run "npm run hint -- chapter${chapter}"`);
    this.chapter = chapter;
    this.stub = stub;
    this.stack = `${this.name}: ${this.message}`;
    todoHits.push(this);
  }
}

/**
 * Every TodoError made since the list was last cleared. Code under test may catch a stub's error (the loop turns
 * a throwing tool into an error result, for instance); the test set-up reads this list so that such a test still
 * fails with the stub's message.
 */
export const todoHits: TodoError[] = ((globalThis as Record<symbol, unknown>)[Symbol.for('kit.todoHits')] ??=
  []) as TodoError[];
