/**
 * dYdX v4's module accounts whose USDC the venue's balances are: every subaccount's collateral is held by the
 * `subaccounts` module account, the insurance fund by `insurance_fund`. A Cosmos module account's address is the
 * first 20 bytes of sha256(module name) in bech32 with the chain's prefix (`dydx`), the same on every network; the
 * collateral is Noble's USDC over IBC (its denom is the IBC hash of `transfer/channel-0/uusdc` on dYdX Chain).
 */
export const DYDX_MODULE_ACCOUNTS = {
  subaccounts: 'dydx1v88c3xv9xyv3eetdx0tvcmq7ung3dywp5upwc6',
  insurance_fund: 'dydx1c7ptc87hkd54e3r7zjy92q29xkq7t79w64slrq',
} as const;

/** USDC on dYdX Chain (6 decimals). */
export const DYDX_USDC = 'ibc/8E27BA2D5493AF5636760E354E46004562C46AB7EC0CC4C1CA14E9E20E2545B5';
