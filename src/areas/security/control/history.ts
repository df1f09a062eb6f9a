/**
 * A proxy's upgrade history from its logs: `Upgraded(address)`, `BeaconUpgraded(address)`,
 * `AdminChanged(address,address)` and `OwnershipTransferred(address,address)`. Pure: decoded from the topics and
 * data words themselves (each event's address argument indexed or not, as the proxies in use write them), with the
 * blocks' timestamps given.
 */
import { keccak_256 } from '@noble/hashes/sha3';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { isoSeconds } from '../../../core/time.js';
import { InputError } from '../analyser/input.js';
import type { AdminChange, BeaconUpgrade, OwnershipTransfer, PastUpgrade, UpgradeHistory } from './model.js';

const topicOf = (signature: string) => `0x${bytesToHex(keccak_256(utf8ToBytes(signature)))}` as const;

export const CONTROL_EVENTS = {
  upgraded: topicOf('Upgraded(address)'),
  beaconUpgraded: topicOf('BeaconUpgraded(address)'),
  adminChanged: topicOf('AdminChanged(address,address)'),
  ownershipTransferred: topicOf('OwnershipTransferred(address,address)'),
} as const;

/** The fields of a log this module reads (an `EvmLog` has them). */
export interface ControlLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
  readonly blockNumber: number;
  readonly logIndex: number;
  readonly transactionHash: string;
}

/** The 32-byte words of a log's data. */
function words(log: ControlLog): string[] {
  const hex = log.data.replace(/^0x/i, '');
  if (hex.length % 64 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new InputError(`log ${log.transactionHash}#${log.logIndex}: data is not whole 32-byte words`);
  }
  return Array.from({ length: hex.length / 64 }, (_, i) => hex.slice(i * 64, (i + 1) * 64));
}

/** An address from a 32-byte word (topic or data), lowercase. */
export function addressOfWord(word: string, what: string): string {
  const hex = word.replace(/^0x/i, '').toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex) || !hex.startsWith('0'.repeat(24))) {
    throw new InputError(`${what}: ${word} is not an address word`);
  }
  return `0x${hex.slice(24)}`;
}

/** The event's address arguments, `count` of them, from its indexed topics first and then its data words. */
function addressArgs(log: ControlLog, count: number, what: string): string[] {
  const args = [...log.topics.slice(1), ...words(log).map((w) => `0x${w}`)];
  if (args.length < count) throw new InputError(`${what} ${log.transactionHash}#${log.logIndex}: too few arguments`);
  return args.slice(0, count).map((a) => addressOfWord(a, what));
}

/**
 * The history of one proxy from the logs of its address (and, for a beacon proxy, its beacon's): `logs` in any
 * order, `timestamps` the Unix seconds of every block they sit in. A log of another event is ignored; a log of one of
 * these events that does not decode, or whose block has no timestamp, is an error.
 */
export function upgradeHistory(logs: readonly ControlLog[], timestamps: ReadonlyMap<number, number>): UpgradeHistory {
  const sorted = [...logs].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  const past_upgrades: PastUpgrade[] = [];
  const beacon_upgrades: BeaconUpgrade[] = [];
  const admin_changes: AdminChange[] = [];
  const ownership_transfers: OwnershipTransfer[] = [];
  for (const log of sorted) {
    const topic = log.topics[0]?.toLowerCase();
    if (
      topic !== CONTROL_EVENTS.upgraded &&
      topic !== CONTROL_EVENTS.beaconUpgraded &&
      topic !== CONTROL_EVENTS.adminChanged &&
      topic !== CONTROL_EVENTS.ownershipTransferred
    ) {
      continue;
    }
    const ts = timestamps.get(log.blockNumber);
    if (ts === undefined) throw new InputError(`no timestamp for block ${log.blockNumber}`);
    const at = { time: isoSeconds(ts), block_number: log.blockNumber, transaction: log.transactionHash.toLowerCase() };
    if (topic === CONTROL_EVENTS.upgraded) {
      const [implementation] = addressArgs(log, 1, 'Upgraded');
      past_upgrades.push({ ...at, implementation: implementation! });
    } else if (topic === CONTROL_EVENTS.beaconUpgraded) {
      const [beacon] = addressArgs(log, 1, 'BeaconUpgraded');
      beacon_upgrades.push({ ...at, beacon: beacon! });
    } else if (topic === CONTROL_EVENTS.adminChanged) {
      const [previous, admin] = addressArgs(log, 2, 'AdminChanged');
      admin_changes.push({ ...at, previous: previous!, admin: admin! });
    } else {
      const [previous, owner] = addressArgs(log, 2, 'OwnershipTransferred');
      ownership_transfers.push({ ...at, previous: previous!, owner: owner! });
    }
  }
  return {
    upgrade_count: past_upgrades.length,
    past_upgrades,
    beacon_upgrades,
    admin_changes,
    ownership_transfers,
  };
}
