// Starts a worker module written in TypeScript when its caller runs from the TypeScript sources
// (the test suites run them; nothing is compiled): tsx's loader first, then the module named by
// the worker's first argument (worker-module.ts). Never used from dist/, where workers are .js.
import { register } from 'tsx/esm/api';

register();
await import(process.argv[2]);
