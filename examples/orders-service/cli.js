#!/usr/bin/env node
// The orders service's command line, for trying it by hand (see README.md):
//   node cli.js seed
//   node cli.js users create --email ada@orders.example --password '…' [--given-name Ada] [--family-name Lovelace]
//   node cli.js users delete --email ada@orders.example
//   node cli.js orders add --email ada@orders.example --item 'Green tea' [--quantity 2]
//   node cli.js clients create --name 'My app' --redirect-uri http://127.0.0.1:8080/callback [--scope 'orders.v1.read orders.v1.write']
// Each prints one JSON object on stdout. Same environment as server.js (ORDERS_DATABASE, ORDERS_ISSUER, PORT).
import { parseArgs } from 'node:util';
import { readConfig } from './src/config.js';
import { openOrdersDatabase } from './src/database.js';
import { createOrdersGatehouse, ORDERS_SCOPES } from './src/gatehouse.js';
import { placeOrder } from './src/orders.js';
import { createUser, deleteUser } from './src/users.js';

const USAGE = `usage:
  node cli.js seed
  node cli.js users create --email E --password P [--given-name G] [--family-name F]
  node cli.js users delete --email E
  node cli.js orders add --email E --item I [--quantity N]
  node cli.js clients create --name N --redirect-uri U [--redirect-uri U2] [--scope "S1 S2"]`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    'given-name': { type: 'string' },
    'family-name': { type: 'string' },
    item: { type: 'string' },
    quantity: { type: 'string' },
    name: { type: 'string' },
    'redirect-uri': { type: 'string', multiple: true },
    scope: { type: 'string' },
  },
});

/** @param {string} name @returns {string} */
function required(name) {
  const value = /** @type {Record<string, unknown>} */ (values)[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required.`);
  return value;
}

class UsageError extends Error {}

const config = readConfig(process.env);
const db = openOrdersDatabase(config.database);
const { gatehouse, storage } = await createOrdersGatehouse({ db, issuer: config.issuer, keySecret: config.keySecret });

/** @param {string} email @returns {number} */
function userIdOf(email) {
  const row = /** @type {{ id: number } | undefined} */ (db.prepare('SELECT id FROM users WHERE email = ?').get(email));
  if (!row) throw new Error(`No user with the e-mail ${email}.`);
  return row.id;
}

/** @param {{ name: string, redirectUris: string[], scopes: string[] }} input */
async function registerClient({ name, redirectUris, scopes }) {
  // Gatehouse checks the redirect URIs (https, or http on loopback) and that the scopes are in ORDERS_SCOPES.
  const { client, clientSecret } = await gatehouse.registerClient({ name, redirectUris, scopes, pkceRequired: false, ownerUserKey: null });
  // Gatehouse keeps only a hash of the secret: this is the one time it is shown.
  return { clientId: client.clientId, clientSecret, name: client.name, redirectUris: client.redirectUris, scopes: client.scopes };
}

const commands = {
  'users create': async () => {
    const user = await createUser(db, {
      email: required('email'),
      password: required('password'),
      givenName: values['given-name'] ?? '',
      familyName: values['family-name'] ?? '',
    });
    return { userId: user.id, email: user.email };
  },
  'users delete': async () => {
    const userId = userIdOf(required('email'));
    // The service's user first: from now on Gatehouse's user directory no longer finds them, so no
    // new sign-in starts; then Gatehouse forgets them: sessions, grants (their access tokens stop
    // at once), remembered consents, codes in flight.
    deleteUser(db, userId);
    const forgotten = await gatehouse.forgetUser(String(userId));
    return { userId, deleted: true, forgotten };
  },
  'orders add': async () => {
    const quantity = Number(values.quantity ?? 1);
    if (!Number.isInteger(quantity) || quantity < 1) throw new UsageError('--quantity must be a whole number from 1.');
    return placeOrder(db, { userId: userIdOf(required('email')), item: required('item'), quantity });
  },
  'clients create': async () =>
    registerClient({
      name: required('name'),
      redirectUris: values['redirect-uri'] ?? [],
      scopes: (values.scope ?? ORDERS_SCOPES.map((entry) => entry.scope).join(' ')).split(' ').filter(Boolean),
    }),
  seed: async () => {
    const password = 'orders-demo-password';
    const ada = await createUser(db, { email: 'ada@orders.example', password, givenName: 'Ada', familyName: 'Lovelace' });
    placeOrder(db, { userId: ada.id, item: 'Analytical engine punch cards', quantity: 200 });
    placeOrder(db, { userId: ada.id, item: 'Green tea', quantity: 2 });
    const redirectUri = 'http://127.0.0.1:8080/callback';
    const client = await registerClient({ name: 'Orders demo app', redirectUris: [redirectUri], scopes: ORDERS_SCOPES.map((entry) => entry.scope) });
    const authorize = new URL(`${config.issuer}/oauth/authorize`);
    authorize.search = new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: redirectUri, scope: 'orders.v1.read', state: 'demo' }).toString();
    return { user: { email: ada.email, password }, client, authorizeUrl: authorize.toString() };
  },
};

const command = /** @type {keyof typeof commands} */ (positionals.join(' '));
let exitCode = 0;
try {
  if (!Object.hasOwn(commands, command)) throw new UsageError(positionals.length === 0 ? 'Which command?' : `Unknown command: ${positionals.join(' ')}.`);
  console.log(JSON.stringify(await commands[command](), null, 2));
} catch (error) {
  console.error(`orders-service: ${error instanceof Error ? error.message : String(error)}`);
  if (error instanceof UsageError) console.error(USAGE);
  exitCode = error instanceof UsageError ? 2 : 1;
} finally {
  await storage.close();
  db.close();
}
process.exitCode = exitCode;
