export * from './faults.js';
export * from './generate.js';
export * from './paginate.js';
export * from './ratelimit.js';
export * from './server.js';
