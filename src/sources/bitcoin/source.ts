import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { btcToSats } from './amounts.js';
import { blockSubsidy, computeBlockStats, isUnspendable, type StatsBlock } from './blockstats.js';
import { BitcoinRpcClient, type BitcoinRpcOptions } from './client.js';
import { BitcoinMethodUnavailableError, BitcoinSchemaError } from './errors.js';
import {
  BlockchainInfo,
  BlockHeader,
  BlockStats,
  BlockV1,
  BlockV2,
  ChainTxStats,
  MempoolInfo,
  MiningInfo,
} from './schemas.js';

/** Blocks between halvings, by the `chain` name `getblockchaininfo` reports. */
export const HALVING_INTERVAL: Readonly<Record<string, number>> = {
  main: 210_000,
  test: 210_000,
  testnet4: 210_000,
  signet: 210_000,
  regtest: 150,
};

const Hex = Type.String({ pattern: '^([0-9a-f]{2})+$' });
const Hash = Type.String({ pattern: '^[0-9a-f]{64}$' });

type Checker<T extends TSchema> = { method: string; check: TypeCheck<T> };
const checker = <T extends TSchema>(method: string, schema: T): Checker<T> => ({
  method,
  check: TypeCompiler.Compile(schema),
});

const CHECK = {
  blockchainInfo: checker('getblockchaininfo', BlockchainInfo),
  hash: checker('getblockhash', Hash),
  bestHash: checker('getbestblockhash', Hash),
  count: checker('getblockcount', Type.Integer({ minimum: 0 })),
  header: checker('getblockheader', BlockHeader),
  block0: checker('getblock/0', Hex),
  block1: checker('getblock/1', BlockV1),
  block2: checker('getblock/2', BlockV2),
  block3: checker('getblock/3', BlockV2),
  stats: checker('getblockstats', BlockStats),
  chainTx: checker('getchaintxstats', ChainTxStats),
  mining: checker('getmininginfo', MiningInfo),
  hashps: checker('getnetworkhashps', Type.Number({ minimum: 0 })),
  mempool: checker('getmempoolinfo', MempoolInfo),
};

function validate<T extends TSchema>(c: Checker<T>, data: unknown): Static<T> {
  if (c.check.Check(data)) return data;
  const first = c.check.Errors(data).First();
  throw new BitcoinSchemaError(c.method, first?.path ?? '', first?.message ?? 'does not match the schema');
}

/**
 * What the service reads from Bitcoin Core, validated. `blockStats` is `getblockstats`, or, where the provider
 * disables it (method not found, 403, "disabled"), the same figures computed from `getblock <hash> 3` with Core's
 * own arithmetic (`blockstats.ts`); the source remembers the refusal and asks no more.
 */
export class BitcoinSource {
  readonly client: BitcoinRpcClient;
  /** Blocks whose stats were computed from `getblock 3` because `getblockstats` is unavailable. */
  statsFallbacks = 0;
  private blockStatsUnavailable = false;
  private chainName: string | undefined;

  constructor(options: BitcoinRpcOptions) {
    this.client = new BitcoinRpcClient(options);
  }

  private async call<T extends TSchema>(c: Checker<T>, method: string, params: unknown[] = []): Promise<Static<T>> {
    return validate(c, await this.client.call(method, params));
  }

  async blockchainInfo(): Promise<BlockchainInfo> {
    const info = await this.call(CHECK.blockchainInfo, 'getblockchaininfo');
    this.chainName = info.chain;
    return info;
  }

  blockHash(height: number): Promise<string> {
    return this.call(CHECK.hash, 'getblockhash', [height]);
  }

  bestBlockHash(): Promise<string> {
    return this.call(CHECK.bestHash, 'getbestblockhash');
  }

  blockCount(): Promise<number> {
    return this.call(CHECK.count, 'getblockcount');
  }

  blockHeader(hash: string): Promise<BlockHeader> {
    return this.call(CHECK.header, 'getblockheader', [hash, true]);
  }

  /** The raw block, hex (verbosity 0). */
  rawBlock(hash: string): Promise<string> {
    return this.call(CHECK.block0, 'getblock', [hash, 0]);
  }

  block(hash: string, verbosity: 1): Promise<BlockV1>;
  block(hash: string, verbosity: 2 | 3): Promise<BlockV2>;
  block(hash: string, verbosity: 1 | 2 | 3): Promise<BlockV1 | BlockV2> {
    const c = verbosity === 1 ? CHECK.block1 : verbosity === 2 ? CHECK.block2 : CHECK.block3;
    return this.call(c as Checker<TSchema>, 'getblock', [hash, verbosity]) as Promise<BlockV1 | BlockV2>;
  }

  /** `getblockstats` for a block hash or height, or the same computed from `getblock 3` where it is unavailable. */
  async blockStats(block: string | number): Promise<BlockStats> {
    if (!this.blockStatsUnavailable) {
      try {
        return await this.call(CHECK.stats, 'getblockstats', [block]);
      } catch (err) {
        if (!(err instanceof BitcoinMethodUnavailableError)) throw err;
        this.blockStatsUnavailable = true;
      }
    }
    this.statsFallbacks++;
    const hash = typeof block === 'number' ? await this.blockHash(block) : block;
    return computeBlockStats(statsBlockOf(await this.block(hash, 3), await this.halvingInterval()));
  }

  /** Whether `getblockstats` was found unavailable (the source computes it). */
  get computesBlockStats(): boolean {
    return this.blockStatsUnavailable;
  }

  private async halvingInterval(): Promise<number> {
    const chain = this.chainName ?? (await this.blockchainInfo()).chain;
    return HALVING_INTERVAL[chain] ?? 210_000;
  }

  chainTxStats(nblocks?: number, blockhash?: string): Promise<ChainTxStats> {
    const params: unknown[] = nblocks === undefined ? [] : blockhash === undefined ? [nblocks] : [nblocks, blockhash];
    return this.call(CHECK.chainTx, 'getchaintxstats', params);
  }

  miningInfo(): Promise<MiningInfo> {
    return this.call(CHECK.mining, 'getmininginfo');
  }

  /** Hashes per second over the `nblocks` blocks ending at `height` (Core: chain work over the time span). */
  networkHashPs(nblocks: number, height: number): Promise<number> {
    return this.call(CHECK.hashps, 'getnetworkhashps', [nblocks, height]);
  }

  mempoolInfo(): Promise<MempoolInfo> {
    return this.call(CHECK.mempool, 'getmempoolinfo');
  }
}

/** The stats input of a `getblock <hash> 3` reply (which carries each input's prevout). */
export function statsBlockOf(block: BlockV2, halvingInterval: number): StatsBlock {
  return {
    hash: block.hash,
    height: block.height,
    time: block.time,
    mediantime: block.mediantime,
    subsidy: blockSubsidy(block.height, halvingInterval),
    txs: block.tx.map((tx, i) => {
      const coinbase = i === 0;
      return {
        coinbase,
        totalSize: tx.size,
        weight: tx.weight,
        hasWitness: tx.vin.some((v) => (v.txinwitness?.length ?? 0) > 0),
        outputs: tx.vout.map((o) => ({
          value: btcToSats(o.value),
          scriptLength: o.scriptPubKey.hex.length / 2,
          unspendable: isUnspendable(o.scriptPubKey.hex),
        })),
        prevouts: coinbase
          ? []
          : tx.vin.map((v, n) => {
              if (!v.prevout) {
                throw new BitcoinSchemaError(
                  'getblock/3',
                  `/tx/${i}/vin/${n}/prevout`,
                  'missing (node without undo data?)',
                );
              }
              return { value: btcToSats(v.prevout.value), scriptLength: v.prevout.scriptPubKey.hex.length / 2 };
            }),
      };
    }),
  };
}
