import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

// `--outputFile` (the root's `npm run test:jest` passes one under .ci/out/) needs its directory to exist:
// Jest writes the file but does not create the folder.
export default function globalSetup(globalConfig) {
  if (globalConfig.outputFile) mkdirSync(dirname(globalConfig.outputFile), { recursive: true });
}
