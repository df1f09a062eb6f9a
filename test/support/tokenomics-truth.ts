/**
 * Ground truth of the tokenomics area, from the chain alone (viem queries only, no code of the area): every
 * `Transfer` of a token up to a block replayed into balances, and the concentration figures as the methodology
 * defines them (docs/methodology/tokenomics.md), computed the plain way (the Gini by its double sum over pairs).
 */
import { createPublicClient, http, parseAbi, parseAbiItem } from 'viem';

const ZERO = '0x0000000000000000000000000000000000000000';

export async function balancesAt(rpcUrl: string, token: string, block: number): Promise<Map<string, bigint>> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const logs = await client.getLogs({
    address: token as `0x${string}`,
    event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
    fromBlock: 0n,
    toBlock: BigInt(block),
  });
  const out = new Map<string, bigint>();
  for (const l of logs) {
    const { from, to, value } = l.args as { from: string; to: string; value: bigint };
    if (from.toLowerCase() !== ZERO) out.set(from.toLowerCase(), (out.get(from.toLowerCase()) ?? 0n) - value);
    if (to.toLowerCase() !== ZERO) out.set(to.toLowerCase(), (out.get(to.toLowerCase()) ?? 0n) + value);
  }
  return out;
}

export async function totalSupplyAt(rpcUrl: string, token: string, block: number): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return client.readContract({
    address: token as `0x${string}`,
    abi: parseAbi(['function totalSupply() view returns (uint256)']),
    functionName: 'totalSupply',
    blockNumber: BigInt(block),
  });
}

export interface Concentration {
  holders: number;
  largest: number;
  top5: number;
  top10: number;
  gini: number;
  hhi: number;
  nakamoto: number;
}

/**
 * Holders: balance strictly above `dust` (raw), the zero address never one, `excluded` left out. Shares of the total
 * supply for top-N (percent; without the excluded: of the total less what they hold); Gini, HHI and Nakamoto over the
 * holders' own sum.
 */
export function concentrationOf(
  balances: ReadonlyMap<string, bigint>,
  decimals: number,
  dust: bigint,
  totalSupply: bigint,
  excluded: ReadonlySet<string> = new Set(),
): Concentration {
  const scale = 10 ** decimals;
  const held = [...balances]
    .filter(([a, v]) => v > dust && a !== ZERO && !excluded.has(a))
    .map(([, v]) => v)
    .sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  const excludedHeld = [...balances].filter(([a]) => excluded.has(a)).reduce((s, [, v]) => s + v, 0n);
  const base = Number(totalSupply - excludedHeld);
  const x = held.map((v) => Number(v));
  const sum = x.reduce((s, v) => s + v, 0);
  let pairs = 0;
  for (const a of x) for (const b of x) pairs += Math.abs(a - b);
  let acc = 0;
  let nakamoto = 0;
  for (const v of x) {
    acc += v;
    nakamoto++;
    if (acc * 2 > sum) break;
  }
  return {
    holders: x.length,
    largest: x.length ? x[0]! / scale : 0,
    top5: (x.slice(0, 5).reduce((s, v) => s + v, 0) / base) * 100,
    top10: (x.slice(0, 10).reduce((s, v) => s + v, 0) / base) * 100,
    gini: pairs / (2 * x.length * x.length * (sum / x.length)),
    hhi: x.reduce((s, v) => s + ((v / sum) * 100) ** 2, 0),
    nakamoto,
  };
}

/** An account's `balanceOf` at a block (eth_call at the block). */
export async function balanceOfAt(rpcUrl: string, token: string, account: string, block: number): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return client.readContract({
    address: token as `0x${string}`,
    abi: parseAbi(['function balanceOf(address) view returns (uint256)']),
    functionName: 'balanceOf',
    args: [account as `0x${string}`],
    blockNumber: BigInt(block),
  });
}

const VESTING_VIEWS = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function vestingAmount() view returns (uint256)',
  'function vestingBegin() view returns (uint256)',
  'function vestingCliff() view returns (uint256)',
  'function vestingEnd() view returns (uint256)',
  'function lastUpdate() view returns (uint256)',
  'function released(address) view returns (uint256)',
  'function vestedAmount(address, uint64) view returns (uint256)',
  'function releaseTime() view returns (uint256)',
]);

/**
 * What a vesting contract still locks at a block, from its own views (eth_call at the block): a TreasuryVester its
 * balance less what `claim()` would pay at the block's time; a VestingWallet what it was given (balance + released)
 * less `vestedAmount(token, time)`; a TokenTimelock its balance before `releaseTime`, nothing from it.
 */
export async function lockedAt(
  rpcUrl: string,
  token: string,
  contract: string,
  kind: string,
  block: number,
): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const at = { blockNumber: BigInt(block) };
  const time = (await client.getBlock(at)).timestamp;
  const read = (functionName: string, args: readonly unknown[] = [], address = contract) =>
    client.readContract({
      address: address as `0x${string}`,
      abi: VESTING_VIEWS,
      functionName,
      args,
      ...at,
    } as never) as Promise<bigint>;
  const balance = await read('balanceOf', [contract], token);
  if (kind === 'token_timelock') return time < (await read('releaseTime')) ? balance : 0n;
  if (kind === 'vesting_wallet') {
    return balance + (await read('released', [token])) - (await read('vestedAmount', [token, time]));
  }
  if (kind !== 'treasury_vester') throw new Error(`not a vesting kind: ${kind}`);
  const [amount, begin, cliff, end, last] = await Promise.all(
    ['vestingAmount', 'vestingBegin', 'vestingCliff', 'vestingEnd', 'lastUpdate'].map((f) => read(f)),
  );
  const claimable = time < cliff! ? 0n : time >= end! ? balance : (amount! * (time - last!)) / (end! - begin!);
  return balance - claimable;
}

/**
 * The pools that pair `token`, from the factories' own creation logs (Uniswap V2's `PairCreated`, V3's
 * `PoolCreated`) up to `block`: what a `dex_pool` label must cover, found without the DEX area.
 */
export async function poolsPairing(
  rpcUrl: string,
  factories: readonly string[],
  token: string,
  block: number,
): Promise<Set<string>> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const wanted = token.toLowerCase();
  const out = new Set<string>();
  const range = { address: factories as `0x${string}`[], fromBlock: 0n, toBlock: BigInt(block) };
  const pairs = await client.getLogs({
    ...range,
    event: parseAbiItem(
      'event PairCreated(address indexed token0, address indexed token1, address pair, uint256 index)',
    ),
  });
  for (const l of pairs) {
    const { token0, token1, pair } = l.args as { token0: string; token1: string; pair: string };
    if (token0.toLowerCase() === wanted || token1.toLowerCase() === wanted) out.add(pair.toLowerCase());
  }
  const pools = await client.getLogs({
    ...range,
    event: parseAbiItem(
      'event PoolCreated(address indexed token0, address indexed token1, uint24 indexed fee, int24 tickSpacing, address pool)',
    ),
  });
  for (const l of pools) {
    const { token0, token1, pool } = l.args as { token0: string; token1: string; pool: string };
    if (token0.toLowerCase() === wanted || token1.toLowerCase() === wanted) out.add(pool.toLowerCase());
  }
  return out;
}
