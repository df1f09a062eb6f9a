/**
 * Maker's PSMs found by what they are and valued where their gems are, against ABI-encoded answers keyed by the real
 * contracts' function selectors (dss-psm `DssPsm` and `AuthGemJoin5`, dss-lite-psm `DssLitePsm`, the USDS wrapper),
 * so that the area's ABIs are held to the deployed interfaces rather than to themselves.
 */
import {
  type Abi,
  decodeFunctionResult,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  stringToHex,
  toFunctionSelector,
} from 'viem';
import { describe, expect, it } from 'vitest';
import type { EvmSource } from '../../sources/evm/source.js';
import type { TokenPriceFact } from '../dex/public.js';
import type { MakerIlkState, MakerPsm, MakerSnapshot } from './facts.js';
import { makerFigures } from './maker-figures.js';
import { Prices } from './market.js';
import { readPsms } from './psms.js';

const E18 = 10n ** 18n;
const RAY = 10n ** 27n;
const HALTED = 2n ** 256n - 1n;

const VAT = '0x35d1b3f3d7966a1dfe207aa4514c12a259a0492b';
const OTHER_VAT = '0x00000000000000000000000000000000000000e1';
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48';
const PSM = '0x89b78cfa322f6c5de0abceecab66aee45393cc5a';
const PSM_JOIN = '0x0a59649758aa4d66e25f08dd01271e891fe52199';
const LITE = '0xf6e72db5454dd049d0788e411b06cfaf16853042';
const POCKET = '0x37305b1cd40574e4c5ce33f8e8306be057fd7341';
const MOM = '0x467b32b0407ad764f56304420cddaa563bdab425';
const WRAPPER = '0x00000000000000000000000000000000000000f3';
const CLIP = '0xc67963a226eddd77b91ad8c421630a1b0adff270';
const FAKE = '0x00000000000000000000000000000000000000f5';
const EOA = '0x00000000000000000000000000000000000000f6';

const PSM_ILK = stringToHex('PSM-USDC-A', { size: 32 });
const LITE_ILK = stringToHex('LITE-PSM-USDC-A', { size: 32 });
const ETH_A = stringToHex('ETH-A', { size: 32 });

const uint = (x: bigint) => encodeAbiParameters([{ type: 'uint256' }], [x]);
const address = (a: string) => encodeAbiParameters([{ type: 'address' }], [a as Hex]);
const bytes32 = (w: Hex) => encodeAbiParameters([{ type: 'bytes32' }], [w]);

/** A contract: its return data by the real signature's selector (args as calldata after the selector). */
type Contract = Record<string, (data: Hex) => Hex>;
const fn = (signature: string) => toFunctionSelector(signature);
const arg = (data: Hex, i: number) => `0x${data.slice(10 + 64 * i + 24, 10 + 64 * (i + 1))}`;
const word = (data: Hex, i: number) => `0x${data.slice(10 + 64 * i, 10 + 64 * (i + 1))}` as Hex;

function world(over: Record<string, Contract> = {}): Record<string, Contract> {
  const urns: Record<string, [bigint, bigint]> = {
    [`${PSM_ILK}/${PSM}`]: [30_000n * E18, 30_000n * E18],
    // The LitePSM's vault: the "unlimited" ink its init slips and grabs, and the DAI it minted (gems + pre-minted).
    [`${LITE_ILK}/${LITE}`]: [(2n ** 255n - 1n) / RAY, 50_000n * E18],
  };
  const balances: Record<string, bigint> = {
    [PSM_JOIN]: 30_000n * 10n ** 6n,
    [POCKET]: 40_000n * 10n ** 6n,
  };
  return {
    [VAT]: {
      [fn('urns(bytes32,address)')]: (d) => {
        const [ink, art] = urns[`${word(d, 0)}/${arg(d, 1)}`] ?? [0n, 0n];
        return encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [ink, art]);
      },
    },
    [USDC]: {
      [fn('balanceOf(address)')]: (d) => uint(balances[arg(d, 0)] ?? 0n),
      [fn('decimals()')]: () => uint(6n),
    },
    // dss-psm DssPsm: gemJoin, vat, ilk, tin, tout (its gems in the AuthGemJoin).
    [PSM]: {
      [fn('tin()')]: () => uint(0n),
      [fn('tout()')]: () => uint(0n),
      [fn('ilk()')]: () => bytes32(PSM_ILK),
      [fn('vat()')]: () => address(VAT),
      [fn('gemJoin()')]: () => address(PSM_JOIN),
    },
    [PSM_JOIN]: {
      [fn('gem()')]: () => address(USDC),
      [fn('dec()')]: () => uint(6n),
      [fn('ilk()')]: () => bytes32(PSM_ILK),
      [fn('vat()')]: () => address(VAT),
    },
    // dss-lite-psm DssLitePsm: its gems in the pocket; gemJoin() answers itself for compatibility.
    [LITE]: {
      [fn('tin()')]: () => uint(0n),
      [fn('tout()')]: () => uint(0n),
      [fn('ilk()')]: () => bytes32(LITE_ILK),
      [fn('vat()')]: () => address(VAT),
      [fn('gem()')]: () => address(USDC),
      [fn('pocket()')]: () => address(POCKET),
      [fn('buf()')]: () => uint(10_000n * E18),
      [fn('gemJoin()')]: () => address(LITE),
      [fn('dec()')]: () => uint(6n),
    },
    // The USDS wrapper answers the LitePSM's whole interface over the same pocket: the same gems, counted once.
    [WRAPPER]: {
      [fn('tin()')]: () => uint(0n),
      [fn('tout()')]: () => uint(0n),
      [fn('ilk()')]: () => bytes32(LITE_ILK),
      [fn('vat()')]: () => address(VAT),
      [fn('gem()')]: () => address(USDC),
      [fn('pocket()')]: () => address(POCKET),
      [fn('buf()')]: () => uint(10_000n * E18),
      [fn('gemJoin()')]: () => address(WRAPPER),
    },
    // Neither: a Clipper answers ilk(), vat() and buf() but no fees; a Mom and a pocket answer none of it.
    [CLIP]: {
      [fn('ilk()')]: () => bytes32(ETH_A),
      [fn('vat()')]: () => address(VAT),
      [fn('buf()')]: () => uint((12n * RAY) / 10n),
    },
    [MOM]: { [fn('authority()')]: () => address(VAT) },
    [POCKET]: {},
    // Named like a PSM, shaped like one, but of another Vat: not Maker's.
    [FAKE]: {
      [fn('tin()')]: () => uint(0n),
      [fn('tout()')]: () => uint(0n),
      [fn('ilk()')]: () => bytes32(PSM_ILK),
      [fn('vat()')]: () => address(OTHER_VAT),
      [fn('gemJoin()')]: () => address(PSM_JOIN),
    },
    // An account without code: every call returns no data.
    [EOA]: new Proxy({}, { get: () => () => '0x' }) as Contract,
    ...over,
  };
}

/**
 * A source that encodes each call as calldata, answers it from the world by selector and decodes the return data
 * with the caller's ABI, as a node and viem's multicall do: no function (revert) or no data is a failure.
 */
function abiSource(contracts: Record<string, Contract>): Pick<EvmSource, 'multicall'> {
  return {
    multicall: (async ({
      contracts: calls,
    }: {
      contracts: { address: string; abi: Abi; functionName: string; args?: unknown[] }[];
    }) =>
      calls.map((c) => {
        const data = encodeFunctionData({ abi: c.abi, functionName: c.functionName, args: c.args } as never);
        const answer = contracts[c.address.toLowerCase()]?.[data.slice(0, 10)];
        if (!answer) return { status: 'failure', error: new Error('execution reverted') };
        try {
          const result = decodeFunctionResult({
            abi: c.abi,
            functionName: c.functionName,
            data: answer(data),
          } as never);
          return { status: 'success', result };
        } catch (error) {
          return { status: 'failure', error };
        }
      })) as never,
  };
}

const CHAINLOG = {
  MCD_VAT: VAT,
  MCD_PSM_USDC_A: PSM,
  MCD_JOIN_PSM_USDC_A: PSM_JOIN,
  MCD_LITE_PSM_USDC_A: LITE,
  MCD_LITE_PSM_USDC_A_POCKET: POCKET,
  MCD_LITE_PSM_MOM: MOM,
  WRAPPER_USDS_LITE_PSM_USDC_A: WRAPPER,
  MCD_CLIP_ETH_A: CLIP,
  MCD_PSM_FAKE_A: FAKE,
  SOME_EOA: EOA,
  MCD_UNSET: '0x0000000000000000000000000000000000000000',
} as const;

describe('readPsms', () => {
  it('finds the classic PSM and the LitePSM by their interfaces and values each where its gems are', async () => {
    const psms = await readPsms(abiSource(world()), CHAINLOG, VAT, 100);
    expect(psms).toEqual([
      {
        key: 'MCD_LITE_PSM_USDC_A',
        address: LITE,
        ilk: 'LITE-PSM-USDC-A',
        tin: 0n,
        tout: 0n,
        kind: 'lite',
        gem: USDC,
        dec: 6,
        // The pocket's USDC, not the LitePSM's own (none) nor its vault's art (gems + pre-minted DAI).
        holder: POCKET,
        held: 40_000n * 10n ** 6n,
        buf: 10_000n * E18,
        aliases: ['WRAPPER_USDS_LITE_PSM_USDC_A'],
      },
      {
        key: 'MCD_PSM_USDC_A',
        address: PSM,
        ilk: 'PSM-USDC-A',
        tin: 0n,
        tout: 0n,
        kind: 'classic',
        gem: USDC,
        dec: 6,
        holder: PSM_JOIN,
        held: 30_000n * 10n ** 6n,
        buf: null,
        aliases: [],
      },
    ]);
  });

  it('an entry answering only part of an interface is not a PSM, whatever its name', async () => {
    const { [fn('buf()')]: _, ...noBuf } = world()[LITE]!;
    const w = world({
      // A LitePSM without buf() is not one; a classic PSM whose GemJoin names another ilk is not one either.
      [LITE]: noBuf,
      [WRAPPER]: {},
      [PSM_JOIN]: { ...world()[PSM_JOIN]!, [fn('ilk()')]: () => bytes32(ETH_A) },
    });
    expect(await readPsms(abiSource(w), CHAINLOG, VAT, 100)).toEqual([]);
    // MCD_PSM_FAKE_A is left out above by its Vat alone: asked for that Vat's PSMs, it is the only one.
    expect((await readPsms(abiSource(world()), CHAINLOG, OTHER_VAT, 100)).map((p) => p.key)).toEqual([
      'MCD_PSM_FAKE_A',
    ]);
  });

  it('gems that cannot be read are null, never 0', async () => {
    const w = world({ [USDC]: { [fn('decimals()')]: () => uint(6n) } });
    const psms = await readPsms(abiSource(w), CHAINLOG, VAT, 100);
    expect(psms.map((p) => [p.key, p.held])).toEqual([
      ['MCD_LITE_PSM_USDC_A', null],
      ['MCD_PSM_USDC_A', null],
    ]);
  });
});

// ---- The figures over them ----

const HOUR = 3600;
const T = 1_763_640_000;
const prices = new Prices([
  {
    chain: 'ethereum',
    token: USDC,
    hour: Math.floor(T / HOUR) * HOUR,
    priceUsd: 1,
    source: 'anchor:USD',
    confidence: 1,
  },
] satisfies TokenPriceFact[]);
const noDex = { pools: [], decimals: new Map(), snapshots: new Map(), swaps: [], syncs: [] };

function psmIlk(name: string, Art: bigint, join: string, joinBalance: bigint): MakerIlkState {
  return {
    ilk: name,
    name,
    symbol: 'USDC',
    class: name.startsWith('LITE') ? 6 : 1,
    dec: 6,
    gem: USDC,
    join,
    pip: '0x00000000000000000000000000000000000000f1',
    clip: '0x0000000000000000000000000000000000000000',
    Art,
    rate: RAY,
    spot: RAY,
    line: 10n ** 60n,
    dust: 0n,
    mat: RAY,
    duty: RAY,
    chop: 0n,
    hole: 0n,
    dirt: 0n,
    joinBalance,
    clipper: null,
  };
}

function snapshot(psms: MakerPsm[]): MakerSnapshot {
  return {
    design: 'maker-mcd',
    chain: 'ethereum',
    protocol: 'makerdao',
    blockNumber: 100,
    timestamp: T,
    addresses: { MCD_VAT: VAT, MCD_PSM_USDC_A: PSM, MCD_LITE_PSM_USDC_A: LITE },
    token: '0x6b175474e89094c44da98b954eedeac495271d0f',
    vat: VAT,
    totalSupply: 80_000n * E18,
    protocolHeld: 10_000n * E18,
    debt: 80_000n * 10n ** 45n,
    vice: 0n,
    par: RAY,
    Line: 10n ** 60n,
    base: 0n,
    Hole: 0n,
    Dirt: 0n,
    ilks: [
      psmIlk('PSM-USDC-A', 30_000n * E18, PSM_JOIN, 30_000n * 10n ** 6n),
      // The LitePSM's registry entry names no join: USDC.balanceOf(0) is not its collateral.
      psmIlk('LITE-PSM-USDC-A', 50_000n * E18, '0x0000000000000000000000000000000000000000', 0n),
    ],
    psms,
    urns: [],
  };
}

describe('makerFigures over PSMs found by their interfaces', () => {
  const found = async () => readPsms(abiSource(world()), CHAINLOG, VAT, 100);

  it('values the LitePSM by its pocket: holdings and backstop count both PSMs’ gems, the debt stays Art', async () => {
    const f = makerFigures(snapshot(await found()), [], prices, noDex, 1, []);
    const lite = f.collaterals.find((c) => c.ilk === 'LITE-PSM-USDC-A')!;
    expect(lite).toMatchObject({ kind: 'psm', amount: 40_000, collateral_usd: 40_000, debt: 50_000 });
    // Its debt exceeds its gems by the DAI it pre-minted into itself (which the protocol holds, not a user).
    expect(lite.collateralization).toBeCloseTo(0.8, 6);
    expect(f.collaterals.find((c) => c.ilk === 'PSM-USDC-A')).toMatchObject({ kind: 'psm', amount: 30_000 });
    expect(f.psmHoldingsUsd).toBe(70_000);
    expect(f.backstopUsd).toBe(70_000);
    expect(f.backstopGap).toBeNull();
  });

  it('a halted or dear exit (tout) counts nothing in the backstop but the gems stay held', async () => {
    const psms = (await found()).map((p) =>
      p.kind === 'lite' ? { ...p, tout: HALTED } : { ...p, tout: 3n * 10n ** 16n },
    );
    const f = makerFigures(snapshot(psms), [], prices, noDex, 1, []);
    expect(f.psmHoldingsUsd).toBe(70_000);
    expect(f.backstopUsd).toBe(0);
  });

  it('unread gems make the holdings and the backstop null with source_error, never 0', async () => {
    const psms = (await found()).map((p) => (p.kind === 'lite' ? { ...p, held: null } : p));
    const f = makerFigures(snapshot(psms), [], prices, noDex, 1, []);
    expect(f.collaterals.find((c) => c.ilk === 'LITE-PSM-USDC-A')).toMatchObject({ amount: null });
    expect(f.collaterals.find((c) => c.ilk === 'LITE-PSM-USDC-A')!.gap_reasons.amount).toBe('source_error');
    expect(f.psmHoldingsUsd).toBeNull();
    expect(f.backstopUsd).toBeNull();
    expect(f.backstopGap).toBe('source_error');
  });

  it('a snapshot stored before 1.8.0 (PSMs without their gems) keeps the join balance', () => {
    const legacy = [{ key: 'MCD_PSM_USDC_A', address: PSM, ilk: 'PSM-USDC-A', tin: 0n, tout: 0n }];
    const f = makerFigures(snapshot(legacy), [], prices, noDex, 1, []);
    expect(f.psmHoldingsUsd).toBe(30_000);
    expect(f.collaterals.find((c) => c.ilk === 'LITE-PSM-USDC-A')).toMatchObject({ kind: 'credit-line', amount: 0 });
  });
});
