export * from './classify.js';
export * from './delay.js';
export * from './sleep.js';
export * from './with-retries.js';
