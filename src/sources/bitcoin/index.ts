export * from './amounts.js';
export * from './blockstats.js';
export * from './client.js';
export * from './endpoint.js';
export * from './errors.js';
export * from './schemas.js';
export * from './source.js';
