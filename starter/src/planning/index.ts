/** Chapter 13: plan mode, the task list and sub-agents. */
export * from './plan-mode.js';
export * from './todo-list.js';
export * from './task.js';
