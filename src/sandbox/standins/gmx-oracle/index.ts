export * from './server.js';
export * from './world.js';
