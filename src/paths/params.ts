/**
 * Path segment rules of API.md: each kind of segment has a canonical form; a recognisable non-canonical form is
 * redirected (308) to it, anything else is a 400 that names the segment and the expected form.
 */
export type ParamKind =
  | 'protocol'
  | 'chain'
  | 'l1_chain'
  | 'l2_chain'
  | 'oracle'
  | 'channel'
  | 'version'
  | 'base_asset'
  | 'token_address'
  | 'pool_address'
  | 'pair'
  | 'page_size'
  | 'page_skip'
  | 'flag';

export const PARAM_KINDS: readonly ParamKind[] = [
  'protocol',
  'chain',
  'l1_chain',
  'l2_chain',
  'oracle',
  'channel',
  'version',
  'base_asset',
  'token_address',
  'pool_address',
  'pair',
  'page_size',
  'page_skip',
  'flag',
];

/** Letter case of `<version>` and `<base_asset>`: upper in data paths, lower in the lending protocol-score path. */
export type SegmentCase = 'upper' | 'lower';

export type SegmentResult =
  | { readonly ok: true; readonly canonical: string }
  | { readonly ok: false; readonly expected: string };

export const MAX_SEGMENT_LENGTH = 128;
export const MAX_PAGE_SIZE = 500;

const PROTOCOL = /^[a-z0-9]{1,64}$/;
const IDENTIFIER = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SYMBOL = /^[A-Z0-9]{1,16}$/;
const ADDRESS = /^0[xX][0-9a-fA-F]{40}$/;
const INTEGER = /^(?:0|[1-9][0-9]{0,8})$/;

export const EXPECTED: Record<ParamKind, string> = {
  protocol: 'lowercase letters and digits, a multi-word name joined into one word (e.g. radiantcapital)',
  chain: 'a lowercase chain identifier (e.g. ethereum)',
  l1_chain: 'a lowercase chain identifier (e.g. ethereum)',
  l2_chain: 'a lowercase chain identifier (e.g. arbitrum)',
  oracle: 'a lowercase oracle identifier (e.g. chainlink)',
  channel: 'a lowercase channel identifier (discord or reddit)',
  version: 'V followed by a number (e.g. V3)',
  base_asset: 'an asset symbol of letters and digits (e.g. USDC)',
  token_address: '0x followed by 40 hexadecimal digits',
  pool_address: '0x followed by 40 hexadecimal digits',
  pair: 'two uppercase symbols joined by a hyphen, as BASE-QUOTE (e.g. ETH-USD)',
  page_size: `an integer from 1 to ${MAX_PAGE_SIZE}`,
  page_skip: 'an integer of 0 or more (the number of whole pages to skip)',
  flag: 'true or false',
};

function identifier(raw: string): string | undefined {
  const lowered = raw.trim().toLowerCase();
  return IDENTIFIER.test(lowered) ? lowered : undefined;
}

function symbol(raw: string): string | undefined {
  const upper = raw.trim().toUpperCase();
  return SYMBOL.test(upper) ? upper : undefined;
}

/**
 * Canonicalises one decoded path segment. `ok` with a canonical form different from the input means a redirect.
 */
export function canonicalSegment(kind: ParamKind, raw: string, letterCase: SegmentCase = 'upper'): SegmentResult {
  const fail: SegmentResult = { ok: false, expected: EXPECTED[kind] };
  if (raw.length === 0 || raw.length > MAX_SEGMENT_LENGTH) return fail;
  let canonical: string | undefined;
  switch (kind) {
    case 'protocol': {
      // `Aave` → `aave`; `radiant capital`, `radiant-capital`, `Radiant_Capital` → `radiantcapital`.
      const joined = raw
        .trim()
        .toLowerCase()
        .replace(/[\s_-]+/g, '');
      canonical = PROTOCOL.test(joined) ? joined : undefined;
      break;
    }
    case 'chain':
    case 'l1_chain':
    case 'l2_chain':
    case 'oracle':
    case 'channel':
      canonical = identifier(raw);
      break;
    case 'version': {
      const m = /^\s*[vV]0*([1-9][0-9]{0,2})\s*$/.exec(raw);
      canonical = m ? `${letterCase === 'upper' ? 'V' : 'v'}${m[1]}` : undefined;
      break;
    }
    case 'base_asset': {
      const s = symbol(raw);
      canonical = s === undefined ? undefined : letterCase === 'upper' ? s : s.toLowerCase();
      break;
    }
    case 'token_address':
    case 'pool_address':
      // Any case is accepted and served as is (no redirect); documents are keyed by the lowercase form.
      return ADDRESS.test(raw) ? { ok: true, canonical: raw } : fail;
    case 'pair': {
      const m = /^\s*([A-Za-z0-9]{1,16})\s*[-_]\s*([A-Za-z0-9]{1,16})\s*$/.exec(raw);
      canonical = m ? `${m[1]!.toUpperCase()}-${m[2]!.toUpperCase()}` : undefined;
      break;
    }
    case 'page_size': {
      if (!INTEGER.test(raw)) return fail;
      const n = Number(raw);
      return n >= 1 && n <= MAX_PAGE_SIZE ? { ok: true, canonical: raw } : fail;
    }
    case 'page_skip':
      return INTEGER.test(raw) ? { ok: true, canonical: raw } : fail;
    case 'flag':
      return raw === 'true' || raw === 'false' ? { ok: true, canonical: raw } : fail;
  }
  return canonical === undefined ? fail : { ok: true, canonical };
}

/** A short, printable rendering of a client's segment for error messages. */
export function quoteSegment(raw: string): string {
  const printable = raw.replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(printable.length > 40 ? `${printable.slice(0, 40)}…` : printable);
}
