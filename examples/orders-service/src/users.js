import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * The orders service's own users and password hashing (node:crypto scrypt). Gatehouse never sees
 * a password: it asks the user directory below who a user is, and the service's login page tells
 * it who signed in.
 */

/** scrypt cost: N = 2^15, r = 8, p = 1 (OWASP's minimum for scrypt), 64 MiB of memory at most. */
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/**
 * @param {string} password
 * @param {Buffer} salt
 * @param {{ N: number, r: number, p: number }} cost
 * @returns {Promise<Buffer>}
 */
function derive(password, salt, cost) {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...cost, maxmem: SCRYPT.maxmem }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/**
 * `scrypt$N$r$p$<salt>$<hash>` (base64url): the cost travels with the hash, so it can be raised later.
 *
 * @param {string} password
 * @returns {Promise<string>}
 */
export async function hashPassword(password) {
  const salt = randomBytes(16);
  const key = await derive(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Whether `password` matches `stored`, compared in constant time.
 *
 * @param {string} password
 * @param {string} stored
 * @returns {Promise<boolean>}
 */
export async function verifyPassword(password, stored) {
  const [scheme, N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(N), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash no password matches, checked for an unknown e-mail so that it takes as long as a known one. */
const DECOY_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEY_LENGTH).toString('base64url')}`;

/**
 * @typedef {object} OrdersUser
 * @property {number} id
 * @property {string} email
 * @property {string} givenName
 * @property {string} familyName
 */

/**
 * Adds a user with a hashed password.
 *
 * @param {import('better-sqlite3').Database} db
 * @param {{ email: string, password: string, givenName: string, familyName: string }} input
 * @returns {Promise<OrdersUser>}
 */
export async function createUser(db, { email, password, givenName, familyName }) {
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new Error(`Not an e-mail address: ${JSON.stringify(email)}.`);
  if (password.length < 8) throw new Error('The password needs 8 characters or more.');
  const passwordHash = await hashPassword(password);
  const { lastInsertRowid } = db
    .prepare('INSERT INTO users (email, given_name, family_name, password_hash) VALUES (?, ?, ?, ?)')
    .run(email, givenName, familyName, passwordHash);
  return { id: Number(lastInsertRowid), email, givenName, familyName };
}

/**
 * The user whose e-mail and password these are, or undefined (whichever was wrong).
 *
 * @param {import('better-sqlite3').Database} db
 * @param {string} email
 * @param {string} password
 * @returns {Promise<OrdersUser | undefined>}
 */
export async function checkPassword(db, email, password) {
  const row = /** @type {UserRow & { password_hash: string } | undefined} */ (db.prepare('SELECT id, email, given_name, family_name, password_hash FROM users WHERE email = ?').get(email));
  const matches = await verifyPassword(password, row?.password_hash ?? DECOY_HASH);
  return matches && row ? toUser(row) : undefined;
}

/**
 * @param {import('better-sqlite3').Database} db
 * @param {number} id
 * @returns {OrdersUser | undefined}
 */
export function findUser(db, id) {
  const row = /** @type {UserRow | undefined} */ (db.prepare('SELECT id, email, given_name, family_name FROM users WHERE id = ?').get(id));
  return row && toUser(row);
}

/**
 * Deletes a user with their orders and sessions (ON DELETE CASCADE). Gatehouse's records of them
 * are forgotten by `gatehouse.forgetUser` after this (cli.js `users delete`).
 *
 * @param {import('better-sqlite3').Database} db
 * @param {number} id
 * @returns {boolean} whether there was such a user
 */
export function deleteUser(db, id) {
  return db.prepare('DELETE FROM users WHERE id = ?').run(id).changes === 1;
}

/**
 * Gatehouse's view of these users (a `UserDirectory` of @gatehouse/core): the `userKey` is the
 * users table's id as a string (the `sub` of access tokens), the login name is the e-mail.
 *
 * @param {import('better-sqlite3').Database} db
 * @returns {import('@gatehouse/core').UserDirectory}
 */
export function createUserDirectory(db) {
  const byEmail = db.prepare('SELECT id, email, given_name, family_name FROM users WHERE email = ?');
  return {
    findByKey: async (userKey) => {
      const user = /^[1-9][0-9]{0,15}$/.test(userKey) ? findUser(db, Number(userKey)) : undefined;
      return user && toProfile(user);
    },
    findByLogin: async (login) => {
      const row = /** @type {UserRow | undefined} */ (byEmail.get(login));
      return row && toProfile(toUser(row));
    },
  };
}

/** @typedef {{ id: number, email: string, given_name: string, family_name: string }} UserRow */

/** @param {UserRow} row @returns {OrdersUser} */
function toUser(row) {
  return { id: row.id, email: row.email, givenName: row.given_name, familyName: row.family_name };
}

/** @param {OrdersUser} user @returns {import('@gatehouse/core').UserProfile} */
function toProfile(user) {
  return { userKey: String(user.id), email: user.email, givenName: user.givenName, familyName: user.familyName };
}
