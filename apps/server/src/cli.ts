#!/usr/bin/env node
import { runCli } from './cli/run.js';

// The `gatehouse` executable: exits with the code runCli returns.
const code = await runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
process.exitCode = code;
// Everything is closed by now; should a stray handle keep the loop alive, do not hang.
setTimeout(() => process.exit(code), 1000).unref();
