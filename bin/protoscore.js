#!/usr/bin/env node
// The CLI entry point: runs the compiled service (built by `npm ci`/`npm run build`).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const entry = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write('protoscore: not built yet; run `npm run build` (npm ci does it)\n');
  process.exit(1);
}
const { main } = await import(pathToFileURL(entry).href);
await main(process.argv).catch((err) => {
  process.stderr.write(`protoscore: ${err?.stack ?? err}\n`);
  process.exit(1);
});
