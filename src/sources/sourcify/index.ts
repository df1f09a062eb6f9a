export * from './client.js';
export * from './endpoint.js';
export * from './schemas.js';
