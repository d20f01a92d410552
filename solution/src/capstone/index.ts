export * from './flags.js';
export * from './custom-commands.js';
export * from './render.js';
export * from './stream-json.js';
export * from './hook-runner.js';
export * from './command-hooks.js';
export * from './factory.js';
