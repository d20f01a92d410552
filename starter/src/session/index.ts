/** Chapter 12: sessions and context. */
export * from './session.js';
export * from './store.js';
export * from './cost.js';
export * from './compaction.js';
export * from './system-prompt.js';
export * from './cache.js';
