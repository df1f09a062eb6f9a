export * from './decimal.js';
export * from './markets.js';
export * from './prices.js';
export * from './sim.js';
