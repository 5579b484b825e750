import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/**
 * The orders service's own SQLite database: its users (with their password hashes), their
 * orders and its own sign-in sessions. Gatehouse later adds its tables to this same file, each
 * name starting with `gh_` (see ./gatehouse.js), so one backup holds everything.
 *
 * @param {string} filename a path, or ':memory:' (tests)
 * @returns {import('better-sqlite3').Database}
 */
export function openOrdersDatabase(filename) {
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  // better-sqlite3 turns foreign keys on already; Gatehouse's tables rely on them, so say it.
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

/** The service's own schema, versioned with SQLite's user_version (Gatehouse keeps its own migration table). */
const MIGRATIONS = [
  `CREATE TABLE users (
     id INTEGER PRIMARY KEY,
     email TEXT NOT NULL UNIQUE COLLATE NOCASE,
     given_name TEXT NOT NULL,
     family_name TEXT NOT NULL,
     password_hash TEXT NOT NULL
   );
   CREATE TABLE orders (
     id INTEGER PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
     item TEXT NOT NULL,
     quantity INTEGER NOT NULL CHECK (quantity > 0),
     placed_at TEXT NOT NULL
   );
   CREATE INDEX orders_by_user ON orders(user_id, id);
   CREATE TABLE sessions (
     token_hash TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
     expires_at TEXT NOT NULL
   );`,
  // When the user entered their password: Gatehouse asks for it (prompt=login, max_age) to decide
  // whether this sign-in is fresh enough for an app's request.
  `ALTER TABLE sessions ADD COLUMN authenticated_at TEXT;`,
];

/**
 * Applies the missing migrations, each in a write transaction that reads the version again, so
 * the server and the CLI starting together do not both apply one.
 *
 * @param {import('better-sqlite3').Database} db
 */
function migrate(db) {
  const version = () => /** @type {number} */ (db.pragma('user_version', { simple: true }));
  while (version() < MIGRATIONS.length) {
    db.transaction(() => {
      const next = version();
      if (next >= MIGRATIONS.length) return;
      db.exec(/** @type {string} */ (MIGRATIONS[next]));
      db.pragma(`user_version = ${next + 1}`);
    }).immediate();
  }
}
