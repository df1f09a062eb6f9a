import type { EvmSource } from '../../sources/evm/source.js';
import { readCallsAt, type StateCall } from '../../sources/evm/source.js';
import type { Hex } from '../../sources/evm/types.js';
import { bytes32ToText, GEM_JOIN_ABI, PSM_ABI, TOKEN_ABI, VAT_ABI } from './events.js';
import type { MakerPsm } from './facts.js';

/**
 * Maker's peg stability modules, found by what they are rather than by their Chainlog names, and valued by where
 * their gems are.
 *
 * Every Chainlog entry is asked `tin()` and `tout()` (one multicall over the whole log; the fees are what make a
 * PSM); the few that answer both are asked the rest of the interface, and an entry is
 * - a **LitePSM** (dss-lite-psm `DssLitePsm`) when it answers `ilk()`, `vat()` = the Chainlog's MCD_VAT, `gem()`,
 *   `buf()` and a non-zero `pocket()`: its gems are `gem.balanceOf(pocket)` (it keeps none itself, and its
 *   `gemJoin()` answers its own address for compatibility, so `pocket()` is asked first);
 * - a **classic PSM** (dss-psm `DssPsm`) when it answers `ilk()`, `vat()` = MCD_VAT and a non-zero `gemJoin()` and no
 *   `pocket()`, and its GemJoin answers `gem()`, `dec()` and the same `ilk()`: its gems are `gem.balanceOf(gemJoin)`;
 * - anything else is not a PSM (a pocket, a Mom, a GemJoin, a Clipper: none answers both fees).
 * Whatever the Chainlog calls it (`MCD_PSM_USDC_A`, `MCD_LITE_PSM_USDC_A`, or a name yet to come). Two entries over the
 * same gems (the USDS wrapper answers the LitePSM's whole interface and names its pocket) are one PSM: the one that
 * owns the ilk's vault in the Vat (`urns(ilk, psm)` non-zero) is kept, the others are its `aliases`, so its gems
 * count once.
 */

type Address = `0x${string}`;

const ZERO = '0x0000000000000000000000000000000000000000';
const lower = (a: unknown) => String(a).toLowerCase() as Address;
const isAddress = (a: unknown): a is string => typeof a === 'string' && /^0x[0-9a-fA-F]{40}$/.test(a) && a !== ZERO;

/** A Chainlog entry that answered as a PSM, before its gems are read. */
interface Candidate {
  key: string;
  address: Address;
  kind: 'classic' | 'lite';
  ilkWord: Hex;
  tin: bigint;
  tout: bigint;
  buf: bigint | null;
  /** The LitePSM's gem and pocket; the classic PSM's GemJoin. */
  gem: Address | null;
  holder: Address;
}

/**
 * The PSMs among the Chainlog's entries at a block, each with its gems where they are. A PSM whose gem balance does
 * not answer is served with `held` null (the figures say `source_error`), never 0.
 */
export async function readPsms(
  source: Pick<EvmSource, 'multicall'>,
  chainlog: Readonly<Record<string, Address>>,
  vat: Address,
  block: number,
): Promise<MakerPsm[]> {
  // One key per address (the first by name): a contract named twice is asked once.
  const byAddress = new Map<Address, string>();
  for (const key of Object.keys(chainlog).sort()) {
    const a = chainlog[key]!;
    if (a !== ZERO && !byAddress.has(a)) byAddress.set(a, key);
  }
  const entries = [...byAddress.entries()];
  const fees = await readCallsAt(
    source,
    entries.flatMap(([address]): StateCall[] => [
      { address, abi: PSM_ABI, functionName: 'tin' },
      { address, abi: PSM_ABI, functionName: 'tout' },
    ]),
    block,
  );
  const feed = entries
    .map(([address, key], i) => ({ address, key, tin: fees[2 * i], tout: fees[2 * i + 1] }))
    .filter((e) => typeof e.tin === 'bigint' && typeof e.tout === 'bigint');
  const ASKED = ['ilk', 'vat', 'pocket', 'gem', 'buf', 'gemJoin'] as const;
  const answers = await readCallsAt(
    source,
    feed.flatMap((e): StateCall[] => ASKED.map((functionName) => ({ address: e.address, abi: PSM_ABI, functionName }))),
    block,
  );
  const candidates: Candidate[] = [];
  feed.forEach((e, i) => {
    const [ilk, vatOf, pocket, gem, buf, gemJoin] = answers.slice(i * ASKED.length, (i + 1) * ASKED.length);
    if (typeof ilk !== 'string' || !isAddress(vatOf) || lower(vatOf) !== vat) return;
    const base = { key: e.key, address: e.address, ilkWord: ilk as Hex, tin: e.tin as bigint, tout: e.tout as bigint };
    if (isAddress(pocket)) {
      if (!isAddress(gem) || typeof buf !== 'bigint') return;
      candidates.push({ ...base, kind: 'lite', buf, gem: lower(gem), holder: lower(pocket) });
    } else if (isAddress(gemJoin)) {
      candidates.push({ ...base, kind: 'classic', buf: null, gem: null, holder: lower(gemJoin) });
    }
  });
  // The classic PSMs' GemJoins name their gem and its decimals (and must be the PSM's ilk's); the LitePSMs' gems
  // their decimals; each PSM's own vault says which of two entries over the same gems is the module.
  const details = await readCallsAt(
    source,
    candidates.flatMap((c): StateCall[] => [
      ...(c.kind === 'classic'
        ? (['gem', 'dec', 'ilk'] as const).map((functionName) => ({
            address: c.holder,
            abi: GEM_JOIN_ABI,
            functionName,
          }))
        : [{ address: c.gem!, abi: TOKEN_ABI, functionName: 'decimals' }]),
      { address: vat, abi: VAT_ABI, functionName: 'urns', args: [c.ilkWord, c.address] },
    ]),
    block,
  );
  let k = 0;
  const confirmed: (Candidate & { gem: Address; dec: number; owns: boolean })[] = [];
  for (const c of candidates) {
    let gem = c.gem;
    let dec: unknown;
    let ok = true;
    if (c.kind === 'classic') {
      const [joinGem, joinDec, joinIlk] = details.slice(k, k + 3);
      k += 3;
      ok = isAddress(joinGem) && typeof joinDec === 'bigint' && joinIlk === c.ilkWord;
      gem = isAddress(joinGem) ? lower(joinGem) : null;
      dec = joinDec;
    } else dec = details[k++];
    const urn = details[k++] as readonly [bigint, bigint] | undefined;
    if (!ok || gem === null || (typeof dec !== 'bigint' && typeof dec !== 'number')) continue;
    const owns = urn !== undefined && (urn[0] !== 0n || urn[1] !== 0n);
    confirmed.push({ ...c, gem, dec: Number(dec), owns });
  }
  // One PSM per place its gems are: the vault's owner, else the first by Chainlog name; the others are aliases.
  const groups = new Map<string, typeof confirmed>();
  for (const c of confirmed) {
    const at = `${c.gem}/${c.holder}`;
    groups.set(at, [...(groups.get(at) ?? []), c]);
  }
  const kept = [...groups.values()].map((g) => {
    const main = g.find((c) => c.owns) ?? g[0]!;
    return { main, aliases: g.filter((c) => c !== main).map((c) => c.key) };
  });
  const held = await readCallsAt(
    source,
    kept.map(
      ({ main }): StateCall => ({
        address: main.gem,
        abi: TOKEN_ABI,
        functionName: 'balanceOf',
        args: [main.holder],
      }),
    ),
    block,
  );
  return kept
    .map(
      ({ main, aliases }, i): MakerPsm => ({
        key: main.key,
        address: main.address,
        ilk: bytes32ToText(main.ilkWord),
        tin: main.tin,
        tout: main.tout,
        kind: main.kind,
        gem: main.gem,
        dec: main.dec,
        holder: main.holder,
        held: typeof held[i] === 'bigint' ? (held[i] as bigint) : null,
        buf: main.buf,
        aliases,
      }),
    )
    .sort((a, b) => (a.key < b.key ? -1 : 1));
}
