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
 * Gatehouse inside the orders service: its tables in the service's own database, each name
 * prefixed with `gh_`, and the service's users (no users or passwords of Gatehouse's own).
 *
 * @param {{ db: import('better-sqlite3').Database, issuer: string }} input
 */
export async function createOrdersGatehouse({ db, issuer }) {
  const storage = await openSqliteStorage({ database: db, tablePrefix: 'gh_' });
  await storage.migrate(); // creates or updates gh_clients, gh_grants, …; harmless when up to date
  const gatehouse = createGatehouse({
    repositories: storage.repositories,
    settings: ordersSettings(issuer),
    clock: { now: () => new Date() },
    userDirectory: createUserDirectory(db),
  });
  return { gatehouse, storage };
}
