export * from './chain.js';
export * from './server.js';
export * from './world.js';
