/** Chapter 11: MCP servers as tools. */
export * from './config.js';
export * from './adapter.js';
export * from './client.js';
export * from './elicitation.js';
export * from './servers.js';
