import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const viteNodeBin = join(dirname(createRequire(import.meta.url).resolve('vite-node/package.json')), 'vite-node.mjs');

export interface WriterChild {
  process: ChildProcess;
  /** Resolves with the first JSON line the child prints. */
  firstMessage: Promise<Record<string, unknown>>;
  /** Resolves when the child exits, with its exit code, signal and output. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

/**
 * Starts test-support/writer-process.ts in its own Node process (through vite-node, so it runs
 * the TypeScript sources like the tests do): a second process on the same database file.
 */
export function startWriterChild(env: { db: string; rounds?: number; mode?: 'writes' | 'token-then-hang' | 'announce-then-write' }): WriterChild {
  const child = spawn(process.execPath, [viteNodeBin, '-c', join(packageRoot, 'vitest.config.ts'), join(packageRoot, 'src/test-support/writer-process.ts')], {
    cwd: packageRoot,
    env: { ...process.env, WRITER_DB: env.db, WRITER_ROUNDS: String(env.rounds ?? 0), WRITER_MODE: env.mode ?? 'writes' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let resolveFirst: (message: Record<string, unknown>) => void = () => undefined;
  let rejectFirst: (error: Error) => void = () => undefined;
  const firstMessage = new Promise<Record<string, unknown>>((resolve, reject) => {
    resolveFirst = resolve;
    rejectFirst = reject;
  });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    const line = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
    if (line && stdout.includes('\n')) resolveFirst(JSON.parse(line) as Record<string, unknown>);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    child.on('exit', (code, signal) => {
      rejectFirst(new Error(`the writer exited (${code ?? signal}) before printing: ${stderr}`));
      resolve({ code, signal, stdout, stderr });
    });
  });
  return { process: child, firstMessage, exited };
}
