#!/usr/bin/env node
import cluster from 'node:cluster';
import pino from 'pino';
import { runCli } from './cli/run.js';

/** The most bytes a write to a pipe takes in one piece (POSIX PIPE_BUF; 4096 on Linux). */
const PIPE_BUF_BYTES = 4096;

// The `gatehouse` executable: exits with the code runCli returns.
// `serve` logs to stdout through an asynchronous writer: lines written while one write is under way
// go out together in the next, instead of one blocking write per line. pino writes what is still
// buffered when the process exits (decision 0066).
const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  // On a terminal, readable lines (logger.ts) straight to stdout, between the first-run banner's lines.
// The workers of `serve --workers N` share the primary's stdout: each write holds whole lines and at
// most PIPE_BUF (4096) bytes, which a pipe takes at once, so the lines of several processes never
// cut into each other (docs/decisions/0171-serve-workers.md).
  logs: process.stdout.isTTY ? process.stdout : pino.destination({ dest: 1, sync: false, ...(cluster.isWorker ? { maxWrite: PIPE_BUF_BYTES } : {}) }),
});
process.exitCode = code;
// Everything is closed by now; should a stray handle keep the loop alive, do not hang.
setTimeout(() => process.exit(code), 1000).unref();
