import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import spec from '../../../../test/fixtures/sourcify/openapi-v2.json' with { type: 'json' };
import { ADDRESSES, CHAIN_ID, contractSourcesView } from '../../../../test/support/contract-sources-world.js';
import { conformance, openApi30ToJsonSchema } from '../../../../test/support/wire-conformance.js';
import { systemClock } from '../../../core/time.js';
import { SourcifyClient } from '../../../sources/sourcify/client.js';
import { type SourcifyStandin, startSourcifyStandin } from './server.js';

/**
 * The stand-in's answers against Sourcify's own OpenAPI description (`test/fixtures/sourcify/openapi-v2.json`, ethereum/
 * sourcify's apiv2.yaml unchanged): each answer is validated (test/support/wire-conformance.ts: closed objects,
 * formats checked) against the schema its status names there —
 * 200 `VerifiedContract` (with `VerifiedContractMinimal`, `SolidityCompilerVersion`, `Language`, `ChainId`,
 * `Address`), 404 `ContractNotVerifiedResponse`, 400 `BadRequestResponse` and 429 `TooManyRequestsResponse`
 * (`GenericErrorResponse`). One reading of the description: `VerificationStatusNullable` lists `null` among a string's
 * values (its own 404 example has `match: null`), read as "a string or null". And the served input is held to what the
 * packages ship: the build-info's sources and settings byte for byte, our own contract's source file.
 */

const require = createRequire(import.meta.url);

const DOC = 'sourcify-apiv2';

/** A validator per status: the response schema the description names for it, its references to the components. */
function validators() {
  const raw = JSON.parse(JSON.stringify(spec.schemas)) as Record<string, { enum?: unknown[]; type?: unknown }>;
  // `VerificationStatusNullable` lists null among a string's values (its own 404 example has `match: null`).
  for (const s of Object.values(raw)) if (s.enum?.includes(null)) s.type = ['string', 'null'];
  const validator = conformance({ [DOC]: { $defs: openApi30ToJsonSchema(raw as never, DOC) } as never });
  const of = (response: keyof typeof spec.responses) => {
    const r = spec.responses[response] as { content: { 'application/json': { schema: { allOf?: unknown[] } } } };
    const described = r.content['application/json'].schema;
    // A referenced member of an `allOf` is inlined, so that it stays open and the `allOf` as a whole is closed.
    const inlined = described.allOf
      ? {
          ...described,
          allOf: described.allOf.map((m) => {
            const ref = (m as { $ref?: string }).$ref?.replace('#/components/schemas/', '');
            return ref ? raw[ref] : m;
          }),
        }
      : described;
    const schema = openApi30ToJsonSchema(inlined as never, DOC) as object;
    return (value: unknown) => validator.errors(schema, value);
  };
  return {
    200: of('VerifiedContract'),
    404: of('ContractNotVerifiedResponse'),
    400: of('BadRequestResponse'),
    429: of('TooManyRequestsResponse'),
  };
}

describe('Sourcify stand-in', () => {
  const valid = validators();
  const view = contractSourcesView();
  let standin: SourcifyStandin;
  const get = async (chainId: number, address: string, query = '?fields=all') => {
    const res = await fetch(`${standin.url}/v2/contract/${chainId}/${address}${query}`);
    const body = (await res.json()) as Record<string, unknown>;
    const check = valid[res.status as 200 | 404 | 400 | 429];
    expect(check, `no schema for HTTP ${res.status}: ${JSON.stringify(body).slice(0, 200)}`).toBeDefined();
    expect(check(body)).toEqual([]);
    // biome-ignore lint/suspicious/noExplicitAny: the test reads the answers' JSON field by field
    return { status: res.status, body: body as Record<string, any>, headers: res.headers };
  };

  beforeAll(async () => {
    standin = await startSourcifyStandin({ seed: 1, clock: systemClock, world: Promise.resolve(view) });
    await new Promise((r) => setTimeout(r, 0));
    for (const address of Object.values(ADDRESSES)) await standin.book.prepare(CHAIN_ID, address);
  });
  afterAll(() => standin?.close());

  it("serves Aave's proxy at the pool with the build-info's exact compiler input", async () => {
    const { status, body } = await get(CHAIN_ID, ADDRESSES.pool);
    expect(status).toBe(200);
    const buildInfo = JSON.parse(
      readFileSync(require.resolve('@aave/core-v3/artifacts/build-info/43678f55a3ef48531b5ad2350a78a276.json'), 'utf8'),
    );
    expect(body.match).toBe('exact_match');
    expect(body.chainId).toBe(String(CHAIN_ID));
    expect(body.compilation).toEqual({
      language: 'Solidity',
      compiler: 'solc',
      compilerVersion: buildInfo.solcLongVersion,
      compilerSettings: Object.fromEntries(
        Object.entries(buildInfo.input.settings).filter(([k]) => k !== 'outputSelection'),
      ),
      name: 'InitializableImmutableAdminUpgradeabilityProxy',
      fullyQualifiedName:
        'contracts/protocol/libraries/aave-upgradeability/InitializableImmutableAdminUpgradeabilityProxy.sol:InitializableImmutableAdminUpgradeabilityProxy',
    });
    expect(body.stdJsonInput).toEqual(buildInfo.input);
    expect(body.sources).toEqual(buildInfo.input.sources);
    const file = 'contracts/protocol/libraries/aave-upgradeability/InitializableImmutableAdminUpgradeabilityProxy.sol';
    expect(body.sources[file].content).toBe(readFileSync(require.resolve(`@aave/core-v3/${file}`), 'utf8'));
  });

  it("serves every Aave contract under its own artifact's name, the implementations and libraries too", async () => {
    const names: Record<string, string> = {
      addressesProvider: 'PoolAddressesProvider',
      aclManager: 'ACLManager',
      oracle: 'AaveOracle',
      dataProvider: 'AaveProtocolDataProvider',
      interestRateStrategy: 'DefaultReserveInterestRateStrategy',
      poolConfigurator: 'InitializableImmutableAdminUpgradeabilityProxy',
      aToken: 'InitializableImmutableAdminUpgradeabilityProxy',
      poolImpl: 'Pool',
      poolConfiguratorImpl: 'PoolConfigurator',
      aTokenImpl: 'AToken',
      stableDebtTokenImpl: 'StableDebtToken',
      variableDebtTokenImpl: 'VariableDebtToken',
      supplyLogic: 'SupplyLogic',
    };
    for (const [key, name] of Object.entries(names)) {
      const { status, body } = await get(CHAIN_ID, ADDRESSES[key as keyof typeof ADDRESSES], '?fields=compilation');
      expect(status, key).toBe(200);
      expect(body.compilation.name, key).toBe(name);
      expect(body.stdJsonInput, key).toBeUndefined();
    }
  });

  it('serves our own contract with the source beside its artifact', async () => {
    const { status, body } = await get(CHAIN_ID, ADDRESSES.feedProxy);
    expect(status).toBe(200);
    expect(body.compilation.fullyQualifiedName).toBe('FeedProxy.sol:FeedProxy');
    expect(body.compilation.compilerVersion).toMatch(/^0\.8\.\d+\+commit\.[0-9a-f]{8}$/);
    expect(body.stdJsonInput.sources['FeedProxy.sol'].content).toBe(
      readFileSync(require.resolve('../../protocols/feeds/contracts/FeedProxy.sol'), 'utf8'),
    );
  });

  it('the minimal answer without fields; not verified (404, match null) where nothing ships a source', async () => {
    const minimal = await get(CHAIN_ID, ADDRESSES.pool, '');
    expect(Object.keys(minimal.body).sort()).toEqual([
      'address',
      'chainId',
      'creationMatch',
      'match',
      'matchId',
      'runtimeMatch',
    ]);
    for (const address of [ADDRESSES.token, ADDRESSES.nothing]) {
      const { status, body } = await get(CHAIN_ID, address);
      expect(status).toBe(404);
      expect(body).toEqual({
        match: null,
        creationMatch: null,
        runtimeMatch: null,
        chainId: String(CHAIN_ID),
        address,
      });
    }
  });

  it("a chain that is not the world's is unsupported (400); a 429 in the described form", async () => {
    const unsupported = await get(9429413, ADDRESSES.pool);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.customCode).toBe('unsupported_chain');
    standin.faults.inject({ fault: { kind: 'secondary-limit', retryAfterSeconds: 1 } });
    const limited = await get(CHAIN_ID, ADDRESSES.pool);
    expect(limited.status).toBe(429);
    expect(limited.body.customCode).toBe('too_many_requests');
    expect(limited.headers.get('retry-after')).toBe('1');
    await new Promise((r) => setTimeout(r, 1100));
  });

  it('the client reads it: verified, not verified', async () => {
    const client = new SourcifyClient({ baseUrl: standin.url });
    const pool = await client.lookup(CHAIN_ID, ADDRESSES.pool);
    expect(pool.kind === 'verified' && pool.source.match).toBe('exact_match');
    expect(pool.kind === 'verified' && Object.keys(pool.source.input.sources).length).toBeGreaterThan(100);
    expect(await client.lookup(CHAIN_ID, ADDRESSES.nothing)).toEqual({ kind: 'unverified' });
  });
});
