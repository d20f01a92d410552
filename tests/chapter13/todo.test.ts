import { describe, expect, test } from 'vitest';
import type { TodoItem } from 'kit/agent-events';
import { Agent } from 'kit/agent';
import { MockProvider } from 'kit/mock-provider';
import { createPermissionGate } from 'kit/permissions/gate';
import { TodoList, todoProblems, todoWriteTool } from 'kit/planning/todo-list';
import { ToolSet } from 'kit/tool';
import { requestOn } from '../helpers/transcript.js';
import { ask, assistantText, call, callsTurn, collect, fakeTools, names, ofType } from './fixtures.js';

const task = (content: string, status: TodoItem['status'] = 'pending', extra: Partial<TodoItem> = {}): TodoItem => ({
  content,
  status,
  ...extra,
});

/** An agent whose model writes each list of `lists` with todo_write, one turn each, then answers. */
function writingAgent(lists: unknown[], list = new TodoList()) {
  const provider = new MockProvider([
    ...lists.map((todos, i) => callsTurn(call(`t${i + 1}`, 'todo_write', { todos }))),
    assistantText('done'),
  ]);
  const agent = new Agent({ provider, tools: new ToolSet([todoWriteTool(list)]), cwd: process.cwd() });
  return { agent, provider, list };
}

describe('todoProblems (src/planning/todo-list.ts)', () => {
  test('a good list has no problems, and an empty list is a good list (it clears the list)', () => {
    expect(
      todoProblems([task('Read the code', 'completed'), task('Fix the bug', 'in_progress'), task('Run the tests')]),
      'todoProblems: a list that breaks no rule gives []',
    ).toEqual([]);
    expect(todoProblems([]), 'todoProblems: an empty list is allowed').toEqual([]);
  });

  test('a task with no content is named by its number, counting from 1', () => {
    expect(
      todoProblems([task('Read'), task('   '), task('')]),
      'todoProblems: "task N has no content", for every empty task (guided step 1)',
    ).toEqual(['task 2 has no content', 'task 3 has no content']);
  });

  test('a task written twice (ignoring case and spaces around it) names both tasks', () => {
    expect(
      todoProblems([task('Run the tests'), task('Fix it'), task('  run THE tests ')]),
      'todoProblems: "task N repeats task M", compared trimmed and ignoring case (guided step 2)',
    ).toEqual(['task 3 repeats task 1']);
  });

  test('more than one task in progress is one problem that names every one of them', () => {
    expect(
      todoProblems([task('a', 'in_progress'), task('b'), task('c', 'in_progress')]),
      'todoProblems guided step 3',
    ).toEqual(['only one task may be in progress at a time; tasks 1 and 3 are']);
    expect(
      todoProblems([task('a', 'in_progress'), task('b', 'in_progress'), task('c', 'in_progress')]),
      'todoProblems: three in progress (guided step 3)',
    ).toEqual(['only one task may be in progress at a time; tasks 1, 2 and 3 are']);
    expect(todoProblems([task('a', 'in_progress'), task('b', 'completed')]), 'one in progress is fine').toEqual([]);
  });

  test('tasks named like Object.prototype\'s members ("Constructor", "toString", "__proto__") are ordinary tasks', () => {
    expect(
      todoProblems([task('Constructor'), task('toString'), task('__proto__'), task('hasOwnProperty')]),
      'todoProblems: keep the tasks seen in a Map or Set (a plain object already "has" constructor and toString) (guided step 2)',
    ).toEqual([]);
    expect(
      todoProblems([task('toString'), task('TOSTRING')]),
      'todoProblems: a real repeat is still found (guided step 2)',
    ).toEqual(['task 2 repeats task 1']);
  });

  test('every problem is reported at once, not only the first', () => {
    const problems = todoProblems([task('x', 'in_progress'), task(''), task('X', 'in_progress')]);
    expect(problems, 'todoProblems: return all of them, so the model fixes them in one go (guided step 4)').toEqual([
      'task 2 has no content',
      'task 3 repeats task 1',
      'only one task may be in progress at a time; tasks 1 and 3 are',
    ]);
  });
});

describe('todo_write (src/planning/todo-list.ts)', () => {
  test('a new list is kept, told as a todo_list event with the whole list before the result, and summed up for the model', async () => {
    const todos = [
      task('Read the code', 'completed'),
      task('Fix the bug', 'in_progress', { activeForm: 'Fixing the bug' }),
      task('Run the tests'),
    ];
    const { agent, provider, list } = writingAgent([todos]);
    const events = await collect(agent.run(ask('fix it')));
    expect(
      names(events).slice(2, 5),
      'todo_write: the todo_list event comes while the tool runs, before its result (guided step 3)',
    ).toEqual(['tool_call_decided t1', 'todo_list', 'tool_result t1']);
    const [event] = ofType(events, 'todo_list');
    expect(event, 'todo_write: the event carries the turn, the call id and the whole list (guided step 3)').toEqual({
      type: 'todo_list',
      turn: 1,
      callId: 't1',
      todos,
    });
    expect(list.todos, 'todo_write: the list keeps what the model wrote (guided step 2)').toEqual(todos);
    const result = requestOn(provider, 2).messages[2] as { content: string; isError: boolean };
    expect(result.isError, 'a good list is not an error').toBe(false);
    expect(result.content, 'todo_write: the result is todoSummary of the list (guided step 4)').toBe(
      'Task list saved: 3 tasks (1 completed, 1 in progress, 1 pending). Now: Fix the bug.',
    );
  });

  test('each write replaces the whole list; nothing of the old list is merged in', async () => {
    const { agent, list } = writingAgent([[task('a', 'in_progress'), task('b')], [task('c', 'in_progress')]]);
    const events = await collect(agent.run(ask('go')));
    expect(
      ofType(events, 'todo_list').map((e) => e.todos.map((t) => t.content)),
      'one event per accepted write, each with the whole list',
    ).toEqual([['a', 'b'], ['c']]);
    expect(list.todos, 'todo_write: the list is the last one written (guided step 2)').toEqual([
      task('c', 'in_progress'),
    ]);
  });

  test('a bad list is an error the model reads, with every problem; the old list stays and no event is sent', async () => {
    const list = new TodoList();
    list.set([task('keep me', 'in_progress')]);
    const { agent, provider } = writingAgent([[task('a', 'in_progress'), task(''), task('b', 'in_progress')]], list);
    const history = ask('go');
    const events = await collect(agent.run(history));
    const result = requestOn(provider, 2).messages[2] as { content: string; isError: boolean };
    expect(result.isError, 'todo_write: a list with problems is refused (throw) (guided step 1)').toBe(true);
    expect(result.content, 'todo_write: the error says the list was not changed (guided step 1)').toMatch(
      /not changed/,
    );
    expect(result.content, 'todo_write: and gives every problem (guided step 1)').toContain('task 2 has no content');
    expect(result.content, 'todo_write: and gives every problem (guided step 1)').toContain('tasks 1 and 3 are');
    expect(
      list.todos,
      'todo_write: a refused list changes nothing: check the whole list before keeping any of it (guided steps 1 and 2)',
    ).toEqual([task('keep me', 'in_progress')]);
    expect(ofType(events, 'todo_list'), 'no todo_list event for a refused list').toEqual([]);
    expect(history).toBeValidHistory('after a refused list');
  });

  test('content and activeForm are kept trimmed', async () => {
    const { agent, list } = writingAgent([
      [task('  Run the tests  ', 'in_progress', { activeForm: ' Running the tests\n' })],
    ]);
    await collect(agent.run(ask('go')));
    expect(list.todos, 'todo_write: trim content and activeForm (guided step 2)').toEqual([
      task('Run the tests', 'in_progress', { activeForm: 'Running the tests' }),
    ]);
  });

  test('the event holds a copy: a consumer that changes it changes neither the list nor a later event', async () => {
    const list = new TodoList();
    const provider = new MockProvider([
      callsTurn(call('t1', 'todo_write', { todos: [task('a', 'in_progress')] })),
      assistantText('ok'),
    ]);
    const agent = new Agent({ provider, tools: new ToolSet([todoWriteTool(list)]), cwd: process.cwd() });
    for await (const event of agent.run(ask('go'))) {
      if (event.type === 'todo_list') {
        event.todos[0]!.status = 'completed';
        event.todos.push(task('smuggled'));
      }
    }
    expect(
      list.todos,
      'todo_write: emit list.todos (a copy), not the array or the objects the list keeps (guided step 3)',
    ).toEqual([task('a', 'in_progress')]);
  });

  test('todo_write is read-only: in plan mode the gate lets it run without asking anyone', async () => {
    const asked: string[] = [];
    const gate = createPermissionGate({
      workspace: { root: process.cwd(), home: process.cwd() },
      mode: 'plan',
      ask: async (request) => (asked.push(request.call.name), 'allow_once'),
    });
    const list = new TodoList();
    const { tools } = fakeTools();
    const provider = new MockProvider([
      callsTurn(call('t1', 'todo_write', { todos: [task('Plan it', 'in_progress')] })),
      assistantText('ok'),
    ]);
    const agent = new Agent({
      provider,
      tools: new ToolSet([...tools, todoWriteTool(list)]),
      cwd: process.cwd(),
      hooks: gate,
    });
    const events = await collect(agent.run(ask('plan')));
    expect(
      ofType(events, 'tool_result')[0]?.isError,
      'todo_write must be defined with readOnly: true (it touches no file)',
    ).toBe(false);
    expect(asked, 'nobody is asked about the task list').toEqual([]);
    expect(list.todos).toEqual([task('Plan it', 'in_progress')]);
  });
});

describe('todo_write (src/planning/todo-list.ts) outside a loop', () => {
  test("it works with no emit, and an event without a turn or call id says 0 and ''", async () => {
    const list = new TodoList();
    const tool = todoWriteTool(list);
    await expect(
      tool.execute({ todos: [task('a', 'in_progress')] }, { cwd: process.cwd() }),
      'todo_write: ctx.emit may be absent (ctx.emit?.(...)) (guided step 3)',
    ).resolves.toBe('Task list saved: 1 task (0 completed, 1 in progress, 0 pending). Now: a.');
    const seen: unknown[] = [];
    await tool.execute({ todos: [task('b')] }, { cwd: process.cwd(), emit: (event) => void seen.push(event) });
    expect(seen, "todo_write: turn 0 and call id '' when the context has none (guided step 3)").toEqual([
      { type: 'todo_list', turn: 0, callId: '', todos: [task('b')] },
    ]);
  });

  test('the refusal lists the problems separated by "; "', async () => {
    const tool = todoWriteTool(new TodoList());
    await expect(
      tool.execute({ todos: [task(''), task('x', 'in_progress'), task('y', 'in_progress')] }, { cwd: process.cwd() }),
      'todo_write: every problem, joined with "; " (guided step 1)',
    ).rejects.toThrow('task 1 has no content; only one task may be in progress at a time; tasks 2 and 3 are');
  });
});
