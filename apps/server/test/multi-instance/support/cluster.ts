import { randomBytes } from 'node:crypto';
import { freePort, startServe, type ServerProcess } from '../../support/processes.js';
import { startLoadBalancer, type LoadBalancer } from './load-balancer.js';

/** Several `gatehouse serve` processes on one PostgreSQL schema, behind one load balancer. */
export interface Cluster {
  lb: LoadBalancer;
  /** The instances, each reachable on its own loopback port too (as a load balancer's health checks are). */
  instances: ServerProcess[];
  /** The environment every instance (and every CLI command) runs with. */
  env: Record<string, string>;
  /** SIGTERM to every instance (SIGKILL after STOP_GRACE_MS), then the load balancer closes. */
  stop(): Promise<Array<number | string | null>>;
}

/**
 * Starts `count` instances together, so their migrations and first signing key race as they
 * would in a real roll-out. Every instance has the same issuer (the load balancer's URL), the
 * same key secret and the same database; only the port differs.
 */
export async function startCluster(options: { postgresUrl: string; schema: string; count: number }): Promise<Cluster> {
  const ports = await Promise.all(Array.from({ length: options.count }, () => freePort()));
  const lb = await startLoadBalancer(ports.map((port) => `http://127.0.0.1:${port}`));
  const env: Record<string, string> = {
    GATEHOUSE_DATABASE_URL: options.postgresUrl,
    GATEHOUSE_DATABASE_SCHEMA: options.schema,
    GATEHOUSE_DATABASE_POOL_SIZE: '4',
    GATEHOUSE_ISSUER: lb.origin,
    GATEHOUSE_KEY_SECRET: randomBytes(32).toString('base64url'),
    GATEHOUSE_TRUST_PROXY: 'loopback',
    GATEHOUSE_DEMO: 'false',
    // No JWKS caching: a rotated key signs after the 10 s hand-over margin alone (docs/operations.md), so the test need not wait 310 s.
    GATEHOUSE_JWKS_MAX_AGE_SECONDS: '0',
    GATEHOUSE_LOG_LEVEL: 'info',
  };
  const starting = ports.map((port) => startServe(env, port));
  const settled = await Promise.allSettled(starting);
  const instances = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const stop = async () => {
    const exits = await Promise.all(instances.map((instance) => stopInstance(instance)));
    await lb.close();
    return exits;
  };
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { lb, instances, env, stop };
}

/**
 * How long an instance may take to stop after SIGTERM before it is killed (and its exit is not 0):
 * well above the server's own shutdown timeout (GATEHOUSE_SHUTDOWN_TIMEOUT_SECONDS, 10 s by
 * default), after which it closes the connections still open and stops its storage, on a loaded
 * machine. A clean stop is usually far quicker; this only bounds a stuck one.
 */
const STOP_GRACE_MS = 30_000;

async function stopInstance(instance: ServerProcess): Promise<number | string | null> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return instance.exited;
  instance.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_GRACE_MS)));
  const exit = await Promise.race([instance.exited, late]);
  clearTimeout(timer);
  if (exit !== 'late') return exit;
  instance.child.kill('SIGKILL');
  return instance.exited;
}
