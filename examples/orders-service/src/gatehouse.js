import { createGatehouse, defineSettings } from '@gatehouse/core';
import { openSqliteStorage } from '@gatehouse/storage-sqlite';
import { createUserDirectory } from './users.js';

/**
 * The scopes this service offers to OAuth clients, with the words Gatehouse's consent page shows.
 * They replace Gatehouse's default catalogue: this service has no messaging API to offer.
 */
export const ORDERS_SCOPES = [
  { scope: 'orders.v1.read', description: 'See your orders' },
  { scope: 'orders.v1.write', description: 'Place orders for you' },
];

/**
 * Gatehouse's settings for this service: its issuer (the public URL Gatehouse is mounted at,
 * e.g. `https://orders.example/auth`) and its scopes; every other setting keeps its default.
 *
 * @param {string} issuer
 */
export function ordersSettings(issuer) {
  return defineSettings({ issuer, scopes: ORDERS_SCOPES });
}

/**
 * Gatehouse's storage in the service's own database: on the service's connection its tables are
 * prefixed `gh_` and only the authorization server's are created (no `gh_users`: the users are the
 * service's); with a key secret, the private signing keys are stored encrypted.
 *
 * @param {import('better-sqlite3').Database} db
 * @param {string | undefined} keySecret
 */
export function openOrdersStorage(db, keySecret) {
  return openSqliteStorage({ database: db, ...(keySecret === undefined ? {} : { signingKeySecret: keySecret, signingKeySecretName: 'ORDERS_KEY_SECRET' }) });
}

/**
 * Gatehouse inside the orders service: its tables in the service's own database, each name
 * prefixed with `gh_`, and the service's users (no users or passwords of Gatehouse's own).
 *
 * @param {{ db: import('better-sqlite3').Database, issuer: string, keySecret?: string | undefined }} input
 */
export async function createOrdersGatehouse({ db, issuer, keySecret }) {
  const storage = await openOrdersStorage(db, keySecret);
  await storage.migrate(); // creates or updates gh_clients, gh_grants, …; harmless when up to date
  const gatehouse = createGatehouse({
    repositories: storage.repositories,
    settings: ordersSettings(issuer),
    clock: { now: () => new Date() },
    userDirectory: createUserDirectory(db),
  });
  return { gatehouse, storage };
}
