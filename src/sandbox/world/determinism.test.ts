import { createHash } from 'node:crypto';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { useAnvils } from '../../../test/support/anvil.js';
import { RpcClient } from '../chain/rpc.js';
import { deployWorld } from './deploy.js';
import { fromJson, toJson } from './saved.js';
import { simulate } from './scenario.js';

/**
 * The world's determinism, held to fixed values: the same seed gives the same manifest, the same scenario state and
 * the same chain (the head block's hash commits to every block before it, every transaction and the state root) as
 * the code did before the protocols became plug-ins (issue 25). Every protocol of the default world is in it
 * (MakerDAO and Liquity included), with hourly, one-minute and five-second steps, as a first start makes them.
 *
 * The values were recorded from the code before that change (commit 6093b57). A change that moves any of them
 * changes what users of a saved world get: it must be deliberate, and this test's values updated with a note why.
 * Updated deliberately for issue 26: the Ethereum world's blocks carry a scheduled base fee (chain/fees.ts) and the
 * rollup batchers' blob transactions (protocols/rollups).
 * And again for issue 26: ETH-A moves onto the Dog and a Clipper of its own at genesis (the Maker manifest
 * names its Clipper; the genesis block creates it and its calculator; the first step's governance runs the
 * flipper-to-clipper spell and `upchost`), and Liquity's redeemer buys and redeems in one block.
 * And again for issue 26, "one DAI": the world's DAI is Maker's `MCD_DAI` (no mintable DAI is deployed, so the world
 * deployer's later contracts move), Maker's setup comes first in the genesis block with its debt ceilings raised at
 * load, the pools' DAI seeds and every agent's DAI top-up are drawn from ETH-A vaults.
 * And again for issue 28: UNI, LINK and AAVE are issued by protocols/tokenomics with a fixed supply (no mintable
 * tokens for them, so the world deployer's later contracts move), with their vesting, treasury and airdrop contracts
 * and exchange hot wallets in the genesis block, and their actors (claims, releases, deposits, withdrawals in place of
 * mints, burns) in every block; the manifest also labels each vesting contract's beneficiary wallet (the chain and
 * the state unchanged by that).
 * And again for issue 28: the exchange hot wallets' labels name the CoinGecko stand-in's venues
 * (`sandbox_binance-hot-1`, was `binance-hot-1`; the manifest only: the chain and the state unchanged, and the
 * manifest with the former labels put back hashes to the value before).
 * And again for issue 29: the manifest records each Aave market's implementations behind its proxies and its linked
 * libraries, read from the EIP-1967 slots after the deployment (the contract-source stand-ins serve their compiler
 * inputs): the chain and the state unchanged, and the manifest without them hashes to the value before (checked).
 */
const GENESIS = 1_699_999_200;
const SEED = 3;
const SCALE = 0.3;

const EXPECTED = {
  head: {
    number: 18,
    hash: '0x669745ba398cec5589ae957dd96a7eda0242cf225ccb9db9567077c2b4dc309c',
    stateRoot: '0xad9b1e89f57fb0bfc923fa99ef31978ea97290effb25601dc1e91d83baa19d02',
  },
  manifestSha256: 'a42bd962e3e1a2e3cc7bdaaac345efb1d23179c07b9e9b4a57a3a6eb5ccbb9bf',
  stateSha256: '27567d6ef2ad3fff7c9befcd4895a28bdc31a48ffcdbb5e708c8ada0022645bb',
};

/** The SHA-256 of a value's JSON with its keys sorted: the content, not the order a refactor writes keys in. */
const sha256 = (value: unknown) =>
  createHash('sha256')
    .update(canonical(fromJson(toJson(value))))
    .digest('hex');

/** A copy of a JSON value without the entries named `key`, at any depth. */
function withoutKey(value: unknown, key: string): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutKey(v, key));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== key)
      .map(([k, v]) => [k, withoutKey(v, key)]),
  );
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return typeof value === 'bigint' ? `"${value}n"` : JSON.stringify(value);
}

const anvils = useAnvils();

describe('world determinism (held to the values before the plug-in refactor)', () => {
  it('same seed: same manifest, same scenario state, same chain', async () => {
    const anvil = await anvils.start({ genesisTimestamp: GENESIS - 1 });
    const rpc = new RpcClient(anvil.rpcUrl);
    const { manifest, state } = await deployWorld(anvil.rpcUrl, {
      seed: SEED,
      startTimestamp: GENESIS,
      scale: SCALE,
      stablecoins: true,
    });
    let s = await simulate(anvil.rpcUrl, manifest, state, GENESIS + 6 * 3600, { stepSeconds: 3600 });
    s = await simulate(anvil.rpcUrl, manifest, fromJson(toJson(s)), s.lastTimestamp + 5 * 60, { stepSeconds: 60 });
    s = await simulate(anvil.rpcUrl, manifest, s, s.lastTimestamp + 30, { stepSeconds: 5 });
    const head = await rpc.request<{ number: Hex; hash: Hex; stateRoot: Hex }>('eth_getBlockByNumber', [
      'latest',
      false,
    ]);
    const got = {
      head: { number: Number(head.number), hash: head.hash, stateRoot: head.stateRoot },
      manifestSha256: sha256(manifest),
      stateSha256: sha256(s),
    };
    expect(got).toEqual(EXPECTED);
    // Issue 29 added the Aave markets' implementations to the manifest and nothing else.
    expect(sha256(withoutKey(manifest, 'implementations'))).toBe(
      '33c2c8197c3852019e974a6eff04466b108d6c5c4f115d3a0cdd7f88e1f4ff30',
    );
  }, 300_000);
});
