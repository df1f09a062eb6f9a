/** The eleven areas of the service, in the order of the interface spec. */
export const AREA_IDS = [
  'tokenomics',
  'dex',
  'lending',
  'liquid-staking',
  'derivatives',
  'blockchain',
  'stablecoin',
  'security',
  'community',
  'development',
  'oracles',
] as const;

export type AreaId = (typeof AREA_IDS)[number];
