/** Chapter 8: permissions and safety. */
export * from './rules.js';
export * from './command.js';
export * from './evaluate.js';
export * from './settings.js';
export * from './gate.js';
