// The registry reachable here does not serve other platforms' optional binaries (e.g. @biomejs/cli-win32-x64),
// so npm records them as edges without entries and `npm ci` refuses the lock. After `npm install`, run
// `node tools/prune-lock.mjs` to drop optional edges that have no entry in the lock.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const keys = Object.keys(lock.packages);
let removed = 0;
for (const entry of Object.values(lock.packages)) {
  if (!entry.optionalDependencies) continue;
  for (const dep of Object.keys(entry.optionalDependencies)) {
    if (!keys.some((k) => k.endsWith(`node_modules/${dep}`))) {
      delete entry.optionalDependencies[dep];
      removed++;
    }
  }
  if (Object.keys(entry.optionalDependencies).length === 0) delete entry.optionalDependencies;
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`removed ${removed} optional edges without a lock entry`);
