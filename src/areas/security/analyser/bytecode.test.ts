import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { bytecodeFacts, SLOTS } from './bytecode.js';
import { InputError } from './input.js';

const artifact = (path: string) =>
  (JSON.parse(readFileSync(`node_modules/${path}`, 'utf8')) as { deployedBytecode: string }).deployedBytecode;
const AAVE = '@aave/core-v3/artifacts/contracts';
/**
 * OpenZeppelin 3.4's proxies, the copy `@uniswap/v3-periphery` depends on (resolved from it, whatever npm hoists: the
 * project's own `@openzeppelin/contracts` is 4.9, the sandbox's tokenomics contracts, read by `oz49`).
 */
const oz34 = (name: string) =>
  (
    JSON.parse(
      readFileSync(
        createRequire(createRequire(import.meta.url).resolve('@uniswap/v3-periphery/package.json')).resolve(
          `@openzeppelin/contracts/build/contracts/${name}.json`,
        ),
        'utf8',
      ),
    ) as { deployedBytecode: string }
  ).deployedBytecode;

/** OpenZeppelin 4.9, the project's own dependency (its version checked: the folded comparisons are 4.9's). */
const oz49 = (name: string) => {
  const pkg = JSON.parse(readFileSync('node_modules/@openzeppelin/contracts/package.json', 'utf8')) as {
    version: string;
  };
  expect(pkg.version).toMatch(/^4\.9\./);
  return artifact(`@openzeppelin/contracts/build/contracts/${name}.json`);
};

describe('bytecode facts', () => {
  it('knows the EIP-1967 slots by their definition', () => {
    expect(SLOTS.eip1967Implementation).toBe('360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc');
    expect(SLOTS.eip1967Beacon).toBe('a3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50');
  });

  it('reads real proxies: Aave’s immutable-admin proxy and OpenZeppelin’s transparent and beacon proxies', () => {
    const aave = bytecodeFacts(
      artifact(
        `${AAVE}/protocol/libraries/aave-upgradeability/InitializableImmutableAdminUpgradeabilityProxy.sol/InitializableImmutableAdminUpgradeabilityProxy.json`,
      ),
    );
    expect(aave).toMatchObject({
      analysed: false,
      proxy: { kind: 'eip1967' },
      delegatecall: true,
      selfdestruct: false,
    });
    expect(aave.privileged.map((p) => p.signature)).toEqual(['upgradeTo(address)', 'upgradeToAndCall(address,bytes)']);
    const transparent = bytecodeFacts(oz34('TransparentUpgradeableProxy'));
    expect(transparent.proxy).toEqual({ kind: 'eip1967' });
    expect(transparent.privileged.map((p) => p.signature)).toContain('changeAdmin(address)');
    expect(bytecodeFacts(oz34('BeaconProxy')).proxy).toEqual({ kind: 'eip1967-beacon' });
  });

  it('reads selectors the optimiser folded into shifts: OpenZeppelin 4.9’s TransparentUpgradeableProxy', () => {
    // 4.9 compares msg.sig in the proxy's fallback; solc's optimiser turns `sig == C` into `add(sig, −C)` with −C
    // pushed as `PUSH4 k PUSH1 s SHL`: no PUSH4-selector-EQ anywhere in the code.
    const transparent = bytecodeFacts(oz49('TransparentUpgradeableProxy'));
    expect(transparent.proxy).toEqual({ kind: 'eip1967' });
    // Exactly its five admin functions: upgradeTo, upgradeToAndCall, implementation(), changeAdmin, admin().
    expect(transparent.selectors).toEqual(['0x3659cfe6', '0x4f1ef286', '0x5c60da1b', '0x8f283970', '0xf851a440']);
    expect(transparent.privileged.map((p) => p.signature)).toEqual([
      'upgradeTo(address)',
      'upgradeToAndCall(address,bytes)',
      'changeAdmin(address)',
    ]);
    // The same compiler's plain dispatchers still read as before.
    expect(bytecodeFacts(oz49('ProxyAdmin')).privileged.map((p) => p.signature)).toEqual([
      'renounceOwnership()',
      'changeProxyAdmin(address,address)',
      'upgradeAndCall(address,address,bytes)',
      'upgrade(address,address)',
      'transferOwnership(address)',
    ]);
    // A flag mask is no selector: PUSH1 1, PUSH1 0xf8, SHL, DUP1, EQ.
    expect(bytecodeFacts('0x600160f81b8014').selectors).toEqual([]);
    // −0x3659cfe6 folded (0x64d3180d << 225), DUP2, ADD: upgradeTo.
    expect(bytecodeFacts('0x6364d3180d60e11b8101').selectors).toEqual(['0x3659cfe6']);
  });

  it('does not take the creation code of a contract it deploys for its own (Aave’s addresses provider)', () => {
    const provider = bytecodeFacts(
      artifact(`${AAVE}/protocol/configuration/PoolAddressesProvider.sol/PoolAddressesProvider.json`),
    );
    expect(provider.proxy).toBeNull();
    expect(provider.delegatecall).toBe(false);
    expect(provider.privileged.map((p) => p.signature)).toEqual(['renounceOwnership()', 'transferOwnership(address)']);
  });

  it('finds SELFDESTRUCT as an instruction, not as PUSH data, and reads unlinked library placeholders', () => {
    const mock = bytecodeFacts(artifact(`${AAVE}/mocks/helpers/SelfDestructTransfer.sol/SelfdestructTransfer.json`));
    expect(mock.selfdestruct).toBe(true);
    // PUSH32 0xff…ff, POP, STOP: thirty-two 0xff bytes of data and no SELFDESTRUCT.
    expect(bytecodeFacts(`0x7f${'ff'.repeat(32)}5000`).selfdestruct).toBe(false);
    expect(bytecodeFacts('0x60ff00').selfdestruct).toBe(false);
    expect(bytecodeFacts('0x6000ff').selfdestruct).toBe(true);
    const pool = bytecodeFacts(artifact(`${AAVE}/protocol/pool/Pool.sol/Pool.json`));
    expect(pool.proxy).toBeNull();
    expect(pool.selectors.length).toBeGreaterThan(40);
  });

  it('recognises an EIP-1167 minimal clone with its implementation, and a diamond by its selectors', () => {
    const impl = 'bebebebebebebebebebebebebebebebebebebebe';
    const clone = bytecodeFacts(`0x363d3d373d3d3d363d73${impl}5af43d82803e903d91602b57fd5bf3`);
    expect(clone.proxy).toEqual({ kind: 'eip1167', implementation: `0x${impl}` });
    expect(clone.delegatecall).toBe(true);
    // DUP1 PUSH4 diamondCut EQ … : a dispatcher entry for diamondCut((address,uint8,bytes4[])[],address,bytes).
    const diamond = bytecodeFacts('0x80631f931c1c1461001057005b00');
    expect(diamond.proxy).toEqual({ kind: 'diamond' });
    expect(diamond.privileged[0]!.signature).toMatch(/^diamondCut/);
  });

  it('rejects what is not bytecode', () => {
    expect(() => bytecodeFacts('0xabc')).toThrow(InputError);
    expect(() => bytecodeFacts('hello')).toThrow(InputError);
  });
});
