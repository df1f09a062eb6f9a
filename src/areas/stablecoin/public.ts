/**
 * The stablecoin area's public face: what other areas (and the end-to-end test's support) may read of it. Its
 * targets, its facts' shapes and the Vat LogNote decoder; nothing else of the area is imported from outside it.
 */
export { decodeVatNote, VAT_NOTE_TOPICS } from './events.js';
export type { StableEventFact, StableSnapshot, VatNote } from './facts.js';
export { STABLECOIN_COMPUTATION } from './jobs.js';
export { STABLECOIN_METHODOLOGY } from './score.js';
export type { StablecoinTables } from './tables.js';
export { type StablecoinTarget, stablecoinTargets } from './targets.js';
