// Compiles the sandbox's own contracts (src/sandbox/contracts/*.sol) with solc-js, a devDependency that bundles
// its compiler (offline), into committed artifacts next to them: `<Name>.json` = { contractName, compiler,
// settings, abi, bytecode }. Runtime code imports only the JSON, so solc is never needed to run the service.
// `node tools/compile-contracts.mjs` rewrites the artifacts; src/sandbox/contracts.test.ts recompiles and checks
// that the committed ones match (so the source and the artifact cannot drift apart).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

export const CONTRACTS_DIR = fileURLToPath(new URL('../src/sandbox/contracts/', import.meta.url));

/**
 * Fixed settings, recorded in the artifact: the optimizer at solc's default 200 runs, and Cancun, a target every
 * anvil hardfork since 2024 executes (a newer default target could emit opcodes an older node lacks).
 */
export const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
};

/** Compiles every `.sol` file of the directory; returns the artifacts by contract name. Throws on any error. */
export function compileContracts(dir = CONTRACTS_DIR) {
  const sources = {};
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.sol'))
    .sort()) {
    sources[name] = { content: readFileSync(path.join(dir, name), 'utf8') };
  }
  const output = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: SETTINGS })));
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const artifacts = {};
  for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [contractName, c] of Object.entries(contracts)) {
      // Interfaces (and abstract contracts) have no bytecode: nothing to deploy, no artifact.
      if (!c.evm.bytecode.object) continue;
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

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const artifacts = compileContracts();
  for (const [name, artifact] of Object.entries(artifacts)) {
    const file = path.join(CONTRACTS_DIR, `${name}.json`);
    writeFileSync(file, `${JSON.stringify(artifact, null, 2)}\n`);
    console.log(`${path.relative(process.cwd(), file)}: ${(artifact.bytecode.length - 2) / 2} bytes of creation code`);
  }
}
