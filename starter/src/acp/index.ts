export * from './tool-info.js';
export * from './updates.js';
export * from './prompt.js';
export * from './permission.js';
export * from './client-files.js';
export * from './session-setup.js';
export * from './server.js';
export * from './source.js';
