import { createHash, randomBytes } from 'node:crypto';

/**
 * The orders service's own sign-in sessions (its cookie, its table). Gatehouse keeps a session of
 * its own (its cookie is set by completeGatehouseLogin); signing out ends both.
 */

export const SESSION_COOKIE = 'orders_session';
const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** @param {string} token */
const hashOf = (token) => createHash('sha256').update(token).digest('base64url');

/**
 * Starts a session for a user; returns the cookie value (only its hash is stored).
 *
 * @param {import('better-sqlite3').Database} db
 * @param {number} userId
 * @param {Date} [now]
 * @returns {string}
 */
export function startSession(db, userId, now = new Date()) {
  const token = randomBytes(32).toString('base64url');
  db.prepare('INSERT INTO sessions (token_hash, user_id, expires_at, authenticated_at) VALUES (?, ?, ?, ?)').run(
    hashOf(token),
    userId,
    new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
    now.toISOString(),
  );
  return token;
}

/**
 * The user id of a live session, or undefined.
 *
 * @param {import('better-sqlite3').Database} db
 * @param {string | undefined} token
 * @param {Date} [now]
 * @returns {number | undefined}
 */
export function userOfSession(db, token, now = new Date()) {
  return sessionOf(db, token, now)?.userId;
}

/**
 * A live session: its user, and when they entered their password.
 *
 * @param {import('better-sqlite3').Database} db
 * @param {string | undefined} token
 * @param {Date} [now]
 * @returns {{ userId: number, authenticatedAt: Date } | undefined}
 */
export function sessionOf(db, token, now = new Date()) {
  if (token === undefined || token === '') return undefined;
  const row = /** @type {{ user_id: number, authenticated_at: string | null } | undefined} */ (
    db.prepare('SELECT user_id, authenticated_at FROM sessions WHERE token_hash = ? AND expires_at > ?').get(hashOf(token), now.toISOString())
  );
  // A session of before the column: its sign-in time is unknown, so it counts as long ago.
  return row && { userId: row.user_id, authenticatedAt: new Date(row.authenticated_at ?? 0) };
}

/**
 * Ends every session of a user (signing out signs out everywhere, as Gatehouse's logoutUser does).
 *
 * @param {import('better-sqlite3').Database} db
 * @param {number} userId
 */
export function endSessions(db, userId) {
  db.prepare('DELETE FROM sessions WHERE user_id = ?').run(userId);
}

/**
 * The value of one cookie of a request.
 *
 * @param {import('express').Request} req
 * @param {string} name
 * @returns {string | undefined}
 */
export function cookieOf(req, name) {
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * Deletes the expired sessions.
 *
 * @param {import('better-sqlite3').Database} db
 * @param {Date} [now]
 */
export function purgeSessions(db, now = new Date()) {
  db.prepare('DELETE FROM sessions WHERE expires_at <= ?').run(now.toISOString());
}
