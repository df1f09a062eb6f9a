import { encodeAbiParameters, encodeEventTopics, type Hex, pad } from 'viem';
import type { EvmLog } from '../../../sources/evm/types.js';
import { EVENT_EMITTER_ABI } from './events.js';

/**
 * EventEmitter logs as GMX's contracts emit them, encoded with viem from the published ABI, for the part's tests:
 * `items` per type in the order given (tests shuffle them to prove decoding is by key).
 */
export interface TestItems {
  readonly address?: Record<string, string>;
  readonly uint?: Record<string, bigint>;
  readonly int?: Record<string, bigint>;
  readonly bool?: Record<string, boolean>;
  readonly bytes32?: Record<string, Hex>;
}

const list = <T>(r: Record<string, T> | undefined) => ({
  items: Object.entries(r ?? {}).map(([key, value]) => ({ key, value })),
  arrayItems: [],
});

export function eventLogData(items: TestItems) {
  return {
    addressItems: list(items.address as Record<string, Hex> | undefined),
    uintItems: list(items.uint),
    intItems: list(items.int),
    boolItems: list(items.bool),
    bytes32Items: list(items.bytes32),
    bytesItems: list<Hex>(undefined),
    stringItems: list<string>(undefined),
  };
}

export function gmxLog(
  eventName: string,
  items: TestItems,
  at: { address?: string; blockNumber?: number; logIndex?: number; txHash?: Hex; topic1?: Hex } = {},
): EvmLog {
  const event = EVENT_EMITTER_ABI.find((x) => x.type === 'event' && x.name === 'EventLog1')!;
  const topics = encodeEventTopics({
    abi: [event],
    eventName: 'EventLog1',
    args: { eventNameHash: eventName, topic1: at.topic1 ?? pad('0x01') },
  });
  const dataParams = event.inputs.filter((i) => !('indexed' in i && i.indexed));
  const data = encodeAbiParameters(dataParams, [
    '0x000000000000000000000000000000000000dEaD',
    eventName,
    eventLogData(items),
  ] as never);
  const blockNumber = at.blockNumber ?? 1;
  return {
    address: (at.address ?? '0xc8ee91a54287db53897056e12d9819156d3822fb') as Hex,
    topics: topics as Hex[],
    data,
    blockNumber,
    blockHash: pad(`0x${blockNumber.toString(16)}`) as Hex,
    transactionHash: at.txHash ?? (pad(`0x${(blockNumber * 1000 + (at.logIndex ?? 0)).toString(16)}`) as Hex),
    logIndex: at.logIndex ?? 0,
    transactionIndex: 0,
  };
}
