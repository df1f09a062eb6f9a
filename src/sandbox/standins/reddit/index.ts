export * from './records.js';
export * from './server.js';
export * from './world.js';
