// Compiles the sandbox's own contracts (src/sandbox/protocols/<protocol>/contracts/*.sol, beside the protocol that
// deploys them) with solc-js, a devDependency that bundles its compiler (offline), into committed artifacts next to
// them: `<Name>.json` = { contractName, compiler, settings, abi, bytecode }. Runtime code imports only the JSON, so
// solc is never needed to run the service. `node tools/compile-contracts.mjs` rewrites the artifacts;
// src/sandbox/protocols/contracts.test.ts recompiles and checks that the committed ones match (so the source and the
// artifact cannot drift apart). All sources compile together under their file names (a file name is unique across
// the folders), so an artifact does not depend on which folder its source sits in.
//
// Also Morpho Blue, from `@morpho-org/morpho-blue@1.0.0`'s sources on npm (a devDependency), with the compiler and
// settings of its foundry.toml: solc 0.8.19 (the `solc-0.8.19` alias of solc-js), via IR, optimizer 999999 runs,
// Paris, no metadata hash. Into `protocols/morpho/contracts/Morpho.json`, checked the same way (compileMorpho, ~25 s).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';
import solc0819 from 'solc-0.8.19';

const require = createRequire(import.meta.url);

export const PROTOCOLS_DIR = fileURLToPath(new URL('../src/sandbox/protocols/', import.meta.url));

/** The contract sources: `.sol` file name → the `contracts/` folder of the protocol holding it. */
export function contractSources(protocolsDir = PROTOCOLS_DIR) {
  const dirs = new Map();
  for (const protocol of readdirSync(protocolsDir).sort()) {
    const dir = path.join(protocolsDir, protocol, 'contracts');
    if (!statSync(path.join(protocolsDir, protocol)).isDirectory() || !existsSync(dir)) continue;
    for (const name of readdirSync(dir)
      .filter((f) => f.endsWith('.sol'))
      .sort()) {
      if (dirs.has(name)) throw new Error(`${name} is in both ${dirs.get(name)} and ${dir}: file names must be unique`);
      dirs.set(name, dir);
    }
  }
  return dirs;
}

/** Where the committed artifact of a compiled contract lives: next to its source. */
export function artifactFile(artifact) {
  const dir = contractSources().get(artifact.source);
  if (!dir) throw new Error(`no source ${artifact.source}`);
  return path.join(dir, `${artifact.contractName}.json`);
}

/**
 * Fixed settings, recorded in the artifact: the optimizer at solc's default 200 runs, and Cancun, a target every
 * anvil hardfork since 2024 executes (a newer default target could emit opcodes an older node lacks).
 */
export const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

/** Compiles every contract source; returns the artifacts by contract name. Throws on any error. */
export function compileContracts() {
  const sources = {};
  for (const [name, dir] of [...contractSources()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    sources[name] = { content: readFileSync(path.join(dir, name), 'utf8') };
  }
  const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS })));
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const artifacts = {};
  for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [contractName, c] of Object.entries(contracts)) {
      // Interfaces (and abstract contracts) have no bytecode: nothing to deploy, no artifact. Nor do libraries of
      // internal functions (GMX's EventUtils and Keys): their code is inlined into the contracts that use them.
      if (!c.evm.bytecode.object) continue;
      if (new RegExp(`\\blibrary\\s+${contractName}\\b`).test(sources[file].content)) continue;
      artifacts[contractName] = {
        contractName,
        source: file,
        compiler: `solc-js ${solc.version()}`,
        settings: { optimizer: SETTINGS.optimizer, evmVersion: SETTINGS.evmVersion },
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
      };
    }
  }
  return artifacts;
}

export const MORPHO_PACKAGE = '@morpho-org/morpho-blue';
export const MORPHO_ARTIFACT = path.join(PROTOCOLS_DIR, 'morpho', 'contracts', 'Morpho.json');

/** Morpho Blue's foundry.toml (profile default): what its deployed bytecode was built with. */
export const MORPHO_SETTINGS = {
  viaIR: true,
  optimizer: { enabled: true, runs: 999999 },
  evmVersion: 'paris',
  metadata: { bytecodeHash: 'none' },
};

/** Compiles Morpho Blue's `src/Morpho.sol` from the npm package, offline; returns its artifact. */
export function compileMorpho() {
  const pkg = path.dirname(require.resolve(`${MORPHO_PACKAGE}/package.json`));
  const version = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;
  const root = path.join(pkg, 'src');
  const sources = {};
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) {
        if (name !== 'mocks') walk(file);
      } else if (name.endsWith('.sol')) {
        sources[path.relative(root, file).split(path.sep).join('/')] = readFileSync(file, 'utf8');
      }
    }
  };
  walk(root);
  const input = {
    language: 'Solidity',
    sources: { 'Morpho.sol': { content: sources['Morpho.sol'] } },
    settings: { ...MORPHO_SETTINGS, outputSelection: { 'Morpho.sol': { Morpho: ['abi', 'evm.bytecode.object'] } } },
  };
  const findImports = (p) => (p in sources ? { contents: sources[p] } : { error: `not found: ${p}` });
  const output = JSON.parse(solc0819.compile(JSON.stringify(input), { import: findImports }));
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = output.contracts['Morpho.sol'].Morpho;
  return {
    contractName: 'Morpho',
    source: `${MORPHO_PACKAGE}@${version} src/Morpho.sol`,
    compiler: `solc-js ${solc0819.version()}`,
    settings: MORPHO_SETTINGS,
    abi: c.abi,
    bytecode: `0x${c.evm.bytecode.object}`,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const write = (file, artifact) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(artifact, null, 2)}\n`);
    console.log(`${path.relative(process.cwd(), file)}: ${(artifact.bytecode.length - 2) / 2} bytes of creation code`);
  };
  for (const artifact of Object.values(compileContracts())) write(artifactFile(artifact), artifact);
  if (!process.argv.includes('--no-morpho')) write(MORPHO_ARTIFACT, compileMorpho());
}
