import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.js';

/** PostgreSQL 15's server binaries, as Debian installs them (every machine of this project and CI has them). */
const BIN = '/usr/lib/postgresql/15/bin';

/** Why a private cluster cannot be started here, or undefined when it can. */
export function privateClusterUnavailable(): string | undefined {
  if (!['initdb', 'pg_ctl', 'postgres'].every((name) => existsSync(join(BIN, name)))) return `the PostgreSQL 15 server binaries are not in ${BIN}`;
  if (process.getuid?.() !== 0) return 'the tests do not run as root (the cluster is run as the postgres user through runuser)';
  return undefined;
}

/**
 * A PostgreSQL cluster of a test's own, in a temporary directory, on a free loopback port, run as
 * the `postgres` OS user: a test may stop and start it (a restart of the database) without
 * touching the PostgreSQL server other tests share. `remove()` stops it and deletes it.
 */
export interface PrivateCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  url: string;
  start(): void;
  /** A fast shutdown: PostgreSQL ends every connection (57P01) and stops. */
  stop(): void;
  remove(): void;
}

export async function createPrivateCluster(): Promise<PrivateCluster> {
  const directory = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'));
  chownSync(directory, uidOf('postgres'), gidOf('postgres'));
  const data = join(directory, 'data');
  const port = await freePort();
  const asPostgres = (command: string, args: string[]) => execFileSync('runuser', ['-u', 'postgres', '--', join(BIN, command), ...args], { stdio: 'pipe' });
  asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let running = false;
  const cluster: PrivateCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start() {
      asPostgres('pg_ctl', ['-D', data, '-o', options, '-w', '-t', '60', '-l', join(directory, 'log'), 'start']);
      running = true;
    },
    stop() {
      asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
      running = false;
    },
    remove() {
      try {
        if (running) cluster.stop();
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    },
  };
  cluster.start();
  return cluster;
}

function uidOf(user: string): number {
  return Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
}

function gidOf(user: string): number {
  return Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
}
