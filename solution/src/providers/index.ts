/**
 * Chapter 5: the real providers. Each one turns the kit's request into an SDK call and the answer back into the
 * kit's turn; both accept options in code and fall back to the usual environment variables.
 */
export * from './errors.js';
export * from './config.js';
export * from './anthropic.js';
export * from './openai.js';
export * from './turn.js';
