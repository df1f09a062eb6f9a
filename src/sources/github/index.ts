export * from './client.js';
export * from './endpoint.js';
export * from './etag.js';
export * from './schemas.js';
export * from './source.js';
