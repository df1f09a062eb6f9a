/**
 * The liquid staking area's public face. No other area reads it today; its computation's name is here for the
 * areas that will (a computation's name is what a dependent area's inputs gate follows).
 */
export { LIQUID_STAKING_COMPUTATION } from './jobs.js';
