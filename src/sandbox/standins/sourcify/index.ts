export * from './book.js';
export * from './server.js';
