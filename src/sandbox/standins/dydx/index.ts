export * from './render.js';
export * from './server.js';
