import { encodeAbiParameters, encodeEventTopics } from 'viem';
import { describe, expect, it } from 'vitest';
import type { EvmLog } from '../../sources/evm/index.js';
import { AAVE_POOL_EVENTS, decodeAavePoolLog } from './events.js';

const POOL = '0x00000000000000000000000000000000000000b0';
const USER = '0x00000000000000000000000000000000000000aa';
const RESERVE = '0x00000000000000000000000000000000000000a1';

const log = (topics: readonly unknown[], data: `0x${string}`): EvmLog =>
  ({
    address: POOL,
    topics,
    data,
    blockNumber: 1,
    logIndex: 0,
    transactionHash: `0x${'00'.repeat(32)}`,
  }) as unknown as EvmLog;

describe('decodeAavePoolLog: account changes that move no asset (issue 30)', () => {
  it('reads collateral flags, E-mode and rate-mode switches as account_change of the user', () => {
    const disabled = decodeAavePoolLog(
      log(
        encodeEventTopics({
          abi: AAVE_POOL_EVENTS,
          eventName: 'ReserveUsedAsCollateralDisabled',
          args: { reserve: RESERVE, user: USER },
        }),
        '0x',
      ),
    );
    expect(disabled).toMatchObject({
      kind: 'account_change',
      asset: RESERVE.toLowerCase(),
      account: USER.toLowerCase(),
      amount: 0n,
    });
    const eMode = decodeAavePoolLog(
      log(
        encodeEventTopics({ abi: AAVE_POOL_EVENTS, eventName: 'UserEModeSet', args: { user: USER } }),
        encodeAbiParameters([{ type: 'uint8' }], [1]),
      ),
    );
    expect(eMode).toMatchObject({ kind: 'account_change', asset: '', account: USER.toLowerCase() });
    const swap = decodeAavePoolLog(
      log(
        encodeEventTopics({
          abi: AAVE_POOL_EVENTS,
          eventName: 'SwapBorrowRateMode',
          args: { reserve: RESERVE, user: USER },
        }),
        encodeAbiParameters([{ type: 'uint8' }], [2]),
      ),
    );
    expect(swap).toMatchObject({ kind: 'account_change', account: USER.toLowerCase() });
    // Malformed data: no event, no crash.
    expect(
      decodeAavePoolLog(
        log(encodeEventTopics({ abi: AAVE_POOL_EVENTS, eventName: 'UserEModeSet', args: { user: USER } }), '0x'),
      ),
    ).toBeUndefined();
  });
});
