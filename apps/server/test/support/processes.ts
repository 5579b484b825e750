import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const CLI = join(REPO_ROOT, 'apps/server/dist/cli.js');

/** The repository is built (CI builds before testing); otherwise build it once, as `npm run build` would. */
export function ensureBuilt(): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'apps/server'], { cwd: REPO_ROOT }, (error, stdout) => {
      if (error) reject(new Error(`the build failed:\n${stdout}`));
      else if (!existsSync(CLI)) reject(new Error(`${CLI} is missing after the build`));
      else resolve();
    });
  });
}

/** A port nobody listens on now (PORT=0 would leave the issuer unknown in advance). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `gatehouse <args>` as its own process. */
export function runGatehouse(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** `gatehouse <args> --json`, expecting success: the one JSON object it printed. */
export async function gatehouseJson<T = Record<string, unknown>>(args: string[], env: Record<string, string>): Promise<T> {
  const result = await runGatehouse([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`gatehouse ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export interface ServerProcess {
  child: ChildProcess;
  origin: string;
  /** Log lines (JSON) the server wrote to stdout so far. */
  logs: Array<Record<string, unknown>>;
  stdout(): string;
  stderr(): string;
  /** Resolves with all of stderr once it contains `text`. */
  waitForStderr(text: string): Promise<string>;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string | null>;
}

/** Starts `gatehouse serve` and resolves once it logged "listening". */
export function startServe(env: Record<string, string>, port: number): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    cwd: REPO_ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiting: Array<{ text: string; resolve: (all: string) => void }> = [];
  const waitForStderr = (text: string) =>
    new Promise<string>((resolve) => {
      if (err.includes(text)) resolve(err);
      else waiting.push({ text, resolve });
    });
  const logs: Array<Record<string, unknown>> = [];
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return new Promise((resolve, reject) => {
    let pending = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logs.push(entry);
        if (entry.msg === 'listening') {
          resolve({ child, origin: `http://127.0.0.1:${port}`, logs, stdout: () => out, stderr: () => err, waitForStderr, exited });
        }
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      for (const waiter of waiting.filter((w) => err.includes(w.text))) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(err);
      }
    });
    void exited.then((code) => reject(new Error(`gatehouse serve exited (${code}) before listening:\n${err}\n${out}`)));
  });
}

/**
 * Runs `node bench/run.js …args` from the repository root: its exit code and its stderr (the
 * progress lines). `timeoutMs` bounds the whole run.
 *
 * @example
 * const run = await runBenchmark(['--quick', '--out', dir], 240_000);
 * expect(run.code, run.stderr.slice(-2000)).toBe(0);
 */
export function runBenchmark(args: readonly string[], timeoutMs: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolveRun) => {
    execFile(process.execPath, [join(REPO_ROOT, 'bench/run.js'), ...args], { cwd: REPO_ROOT, maxBuffer: 16 << 20, timeout: timeoutMs }, (error, _stdout, stderr) =>
      resolveRun({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}
