export * from './client.js';
export * from './endpoint.js';
export * from './schemas.js';
export * from './source.js';
export * from './subreddits.js';
