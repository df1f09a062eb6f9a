export * from './client.js';
export * from './endpoint.js';
export * from './prices.js';
export * from './schemas.js';
