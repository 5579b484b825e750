#!/usr/bin/env node
// The `gatehouse` executable of @gatehouse/cli: see run.ts and the README.
import { runGatehouseCli } from './run.js';

process.exitCode = await runGatehouseCli(process.argv.slice(2), { cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
