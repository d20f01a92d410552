/**
 * Chapter 13: the task list the model keeps.
 *
 * A long task goes better when the model writes down its steps and ticks them off, and the person can watch the list
 * move. The `todo_write` tool takes the WHOLE list every time (Claude Code's TodoWrite does the same): the model
 * never edits one entry in place, so there is no id to get wrong and the list the person sees is always the list the
 * model last wrote. A list that breaks the rules (an empty task, a task written twice, two tasks in progress) is
 * refused as a whole, with every problem named, and the old list stays.
 */
import { TodoError } from '../todo.js';
import { z } from 'zod';
import type { TodoItem } from '../agent-events.js';
import { defineTool, type Tool } from '../tool.js';

export type { TodoItem } from '../agent-events.js';

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;

const todoItem = z.object({
  content: z.string().describe('The task, in the imperative: "Run the tests"'),
  status: z.enum(TODO_STATUSES),
  activeForm: z.string().optional().describe('The task while it is being done: "Running the tests"'),
  priority: z.enum(['high', 'medium', 'low']).optional(),
});

/** The list, as the model last wrote it. `todos` hands out copies: nobody outside changes the list by accident. */
export class TodoList {
  private items: TodoItem[] = [];

  get todos(): TodoItem[] {
    return this.items.map((item) => ({ ...item }));
  }

  /** Replaces the whole list (with copies of the items given). */
  set(todos: readonly TodoItem[]): void {
    this.items = todos.map((item) => ({ ...item }));
  }
}

/**
 * What is wrong with a list the model wrote, one sentence per problem, tasks numbered from 1 as the model sees them
 * (none: the list is fine; an empty list is fine too, it clears the list). Every problem is reported, not only the
 * first: the model fixes them in one go. The tests match these sentences:
 *
 * - A task whose content is empty once trimmed: `task N has no content`.
 * - A task with the same content as an earlier one (trimmed, ignoring case): `task N repeats task M`, M the first
 *   task that had it. A content is only text: tasks called "Constructor", "toString" or "__proto__" are ordinary.
 * - More than one task in progress is ONE problem that names each of them:
 *   `only one task may be in progress at a time; tasks 2 and 4 are` (`tasks 1, 2 and 4 are` for three).
 */
export function todoProblems(todos: readonly TodoItem[]): string[] {
  // #region chapter 13: todoProblems
  // Write it from the contract above. Step by step instead: npm run reset -- chapter13 --guided
  throw new TodoError(13, 'todoProblems');
  // #endregion
}

/** One line for the model after a change: the counts, and the task in progress. */
export function todoSummary(todos: readonly TodoItem[]): string {
  const count = (status: TodoItem['status']) => todos.filter((todo) => todo.status === status).length;
  const current = todos.find((todo) => todo.status === 'in_progress');
  const counts = `${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending`;
  return `Task list saved: ${todos.length} task${todos.length === 1 ? '' : 's'} (${counts}).${current ? ` Now: ${current.content.trim()}.` : ''}`;
}

/**
 * The `todo_write` tool, keeping its list in `list`. Read-only in the permission sense: it touches no file, so it
 * runs without asking, in plan mode too.
 */
export function todoWriteTool(list: TodoList = new TodoList()): Tool<{ todos: TodoItem[] }> {
  return defineTool({
    name: 'todo_write',
    description:
      'Write your task list for the current work: the whole list every time, each task pending, in_progress or completed. ' +
      'Keep exactly one task in progress while you work, and mark a task completed as soon as it is done. Use it for work of three steps or more.',
    input: z.object({ todos: z.array(todoItem).describe('The whole list, in order') }),
    readOnly: true,
    /**
     * Replaces all the tasks with those the model wrote, tells the run's consumers, and sums them up for the model.
     *
     * - New tasks that todoProblems finds fault with are refused as a whole, with an error result the model reads:
     *   it says the tasks were `not changed` and gives every problem, separated by `; `. Nothing else happens: the
     *   old tasks stay and no event is sent.
     * - What is kept has each task's content and activeForm trimmed (an absent activeForm stays absent); nothing of
     *   the old tasks is merged in.
     * - Before the result, the consumers get all the new tasks as a `todo_list` event (agent-events.ts), with the
     *   turn and the call id of ctx (0 and '' when it has none; a ctx that cannot tell anyone is fine). The event
     *   holds copies, as TodoList hands them out: a consumer that changes it changes neither what is kept nor a
     *   later event.
     * - The result is todoSummary of what was kept (given).
     */
    async execute({ todos }, ctx) {
      // #region chapter 13: todo_write
      // Write it from the contract above. Step by step instead: npm run reset -- chapter13 --guided
      throw new TodoError(13, 'todo_write');
      // #endregion
    },
  });
}
