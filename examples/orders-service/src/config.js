import { isLoopbackHost } from '@gatehouse/core';

/**
 * The service's settings, from the environment:
 * - `PORT` (3000) and `HOST` (127.0.0.1) to listen on;
 * - `ORDERS_ISSUER`: the public URL Gatehouse answers at, which also gives its mount path
 *   (default `http://localhost:$PORT/auth`); https, or http on loopback only;
 * - `ORDERS_DATABASE`: the SQLite file of the service, Gatehouse's tables included (`./data/orders.db`);
 * - `ORDERS_KEY_SECRET` (optional, 32+ characters): Gatehouse's private signing keys are stored encrypted under it;
 * - `ORDERS_PURGE_INTERVAL_SECONDS` (900): how often expired sessions, codes and failure counts are deleted.
 *
 * @param {NodeJS.ProcessEnv} env
 */
export function readConfig(env) {
  const port = Number(env.PORT || 3000);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`PORT must be a port number (got ${JSON.stringify(env.PORT)}).`);
  const issuer = (env.ORDERS_ISSUER || `http://localhost:${port}/auth`).replace(/\/+$/, '');
  const url = new URL(issuer);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new Error(`ORDERS_ISSUER must be https (http on loopback only) (got ${JSON.stringify(issuer)}).`);
  }
  if (url.search !== '' || url.hash !== '') throw new Error('ORDERS_ISSUER must have no query and no fragment.');
  const purgeIntervalSeconds = Number(env.ORDERS_PURGE_INTERVAL_SECONDS || 900);
  if (!Number.isInteger(purgeIntervalSeconds) || purgeIntervalSeconds < 1) throw new Error(`ORDERS_PURGE_INTERVAL_SECONDS must be a whole number of seconds (got ${JSON.stringify(env.ORDERS_PURGE_INTERVAL_SECONDS)}).`);
  const keySecret = env.ORDERS_KEY_SECRET || undefined;
  return { port, host: env.HOST || '127.0.0.1', issuer, database: env.ORDERS_DATABASE || './data/orders.db', keySecret, purgeIntervalSeconds };
}
