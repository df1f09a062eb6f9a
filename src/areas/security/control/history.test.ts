import { describe, expect, it } from 'vitest';
import { InputError } from '../analyser/input.js';
import { CONTROL_EVENTS, type ControlLog, upgradeHistory } from './history.js';

const PROXY = '0x1111111111111111111111111111111111111111';
const word = (address: string) => `0x${address.replace(/^0x/, '').toLowerCase().padStart(64, '0')}`;
const IMPL_A = '0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const IMPL_B = '0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const ADMIN = '0xcccccccccccccccccccccccccccccccccccccccc';
const OWNER = '0xdddddddddddddddddddddddddddddddddddddddd';
const ZERO = `0x${'0'.repeat(40)}`;

let index = 0;
function log(
  block: number,
  topics: string[],
  data = '0x',
  tx = `0x${block.toString(16).padStart(64, '0')}`,
): ControlLog {
  return { address: PROXY, topics, data, blockNumber: block, logIndex: index++, transactionHash: tx };
}
const TIMES = new Map([
  [10, 1_790_000_000],
  [20, 1_790_086_400],
  [30, 1_790_172_800],
]);

describe('upgradeHistory', () => {
  it('counts every Upgraded event, the deployment one included, oldest first, with time and transaction', () => {
    const logs = [
      // Given out of order: sorted by block and log index.
      log(30, [CONTROL_EVENTS.upgraded, word(IMPL_B)]),
      log(10, [CONTROL_EVENTS.upgraded, word(IMPL_A)]),
      log(10, [CONTROL_EVENTS.adminChanged], `${word(ZERO)}${word(ADMIN).slice(2)}`),
      log(20, [CONTROL_EVENTS.ownershipTransferred, word(ZERO), word(OWNER)]),
    ];
    const h = upgradeHistory(logs, TIMES);
    expect(h.upgrade_count).toBe(2);
    expect(h.past_upgrades).toEqual([
      { time: '2026-09-21T14:13:20Z', block_number: 10, transaction: logs[1]!.transactionHash, implementation: IMPL_A },
      { time: '2026-09-23T14:13:20Z', block_number: 30, transaction: logs[0]!.transactionHash, implementation: IMPL_B },
    ]);
    // OpenZeppelin's AdminChanged carries both addresses as data; Ownable's OwnershipTransferred indexes both.
    expect(h.admin_changes).toEqual([expect.objectContaining({ previous: ZERO, admin: ADMIN, block_number: 10 })]);
    expect(h.ownership_transfers).toEqual([
      expect.objectContaining({ previous: ZERO, owner: OWNER, block_number: 20 }),
    ]);
  });

  it('reads an Upgraded whose address is data, not a topic (older proxies), and BeaconUpgraded', () => {
    const h = upgradeHistory(
      [log(10, [CONTROL_EVENTS.upgraded], word(IMPL_A)), log(20, [CONTROL_EVENTS.beaconUpgraded, word(IMPL_B)])],
      TIMES,
    );
    expect(h.past_upgrades.map((u) => u.implementation)).toEqual([IMPL_A]);
    expect(h.beacon_upgrades.map((u) => u.beacon)).toEqual([IMPL_B]);
  });

  it('ignores other events and is empty without logs', () => {
    const transfer = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
    const h = upgradeHistory([log(10, [transfer, word(IMPL_A), word(IMPL_B)], word('01'))], TIMES);
    expect(h).toEqual({
      upgrade_count: 0,
      past_upgrades: [],
      beacon_upgrades: [],
      admin_changes: [],
      ownership_transfers: [],
    });
  });

  it.each([
    ['a block without a timestamp', [log(99, [CONTROL_EVENTS.upgraded, word(IMPL_A)])], /no timestamp for block 99/],
    ['an Upgraded without its address', [log(10, [CONTROL_EVENTS.upgraded])], /Upgraded .*too few arguments/],
    ['data that is not whole words', [log(10, [CONTROL_EVENTS.upgraded], '0x1234')], /not whole 32-byte words/],
    [
      'a word that is no address',
      [log(10, [CONTROL_EVENTS.upgraded, `0x${'f'.repeat(64)}`])],
      /Upgraded: 0xf+ is not an address word/,
    ],
  ])('refuses %s with a clear error', (_name, logs, message) => {
    expect(() => upgradeHistory(logs, TIMES)).toThrow(InputError);
    expect(() => upgradeHistory(logs, TIMES)).toThrow(message);
  });
});
