export * from './client.js';
export * from './endpoint.js';
export * from './schemas.js';
export * from './snowflake.js';
export * from './source.js';
