#!/usr/bin/env node
import pino from 'pino';
import { runCli } from './cli/run.js';

// The `gatehouse` executable: exits with the code runCli returns.
// `serve` logs to stdout through an asynchronous writer: lines written while one write is under way
// go out together in the next, instead of one blocking write per line. pino writes what is still
// buffered when the process exits (decision 0066).
const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  // On a terminal, readable lines (logger.ts) straight to stdout, between the first-run banner's lines.
  logs: process.stdout.isTTY ? process.stdout : pino.destination({ dest: 1, sync: false }),
});
process.exitCode = code;
// Everything is closed by now; should a stray handle keep the loop alive, do not hang.
setTimeout(() => process.exit(code), 1000).unref();
