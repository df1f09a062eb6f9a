// Runs the CLI from source (`node --import tsx src/cli/run.ts …`), as bin/protoscore.js runs the build.
import { main } from './main.js';

await main(process.argv);
