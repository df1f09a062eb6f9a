import { decodeEventLog, parseAbi, toEventSelector } from 'viem';
import type { EvmLog } from '../../sources/evm/index.js';

/**
 * What the oracle area reads from chains: the `AnswerUpdated` event every Chainlink aggregator emits once per
 * round (FluxAggregator, OffchainAggregator and the sandbox's FeedAggregator alike), and the proxy's view of the
 * aggregator behind it. Decoding lives here so that ingestion and its tests decode the same way.
 */
export const AGGREGATOR_ABI = parseAbi([
  'event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt)',
  'function decimals() view returns (uint8)',
]);

/** EACAggregatorProxy: the registry's feed addresses. It forwards reads and emits nothing itself. */
export const PROXY_ABI = parseAbi(['function aggregator() view returns (address)']);

export const ANSWER_UPDATED_TOPIC = toEventSelector(AGGREGATOR_ABI[0]);

export interface AnswerUpdated {
  readonly answer: bigint;
  readonly roundId: bigint;
  /** Unix seconds, as the aggregator recorded it. */
  readonly updatedAt: number;
}

/** The round of an `AnswerUpdated` log, or undefined for any other log (or a malformed one). */
export function decodeAnswerUpdated(log: EvmLog): AnswerUpdated | undefined {
  if (log.topics[0] !== ANSWER_UPDATED_TOPIC) return undefined;
  try {
    const { args } = decodeEventLog({
      abi: AGGREGATOR_ABI,
      eventName: 'AnswerUpdated',
      topics: log.topics as [`0x${string}`, ...`0x${string}`[]],
      data: log.data,
    });
    return { answer: args.current, roundId: args.roundId, updatedAt: Number(args.updatedAt) };
  } catch {
    return undefined;
  }
}
