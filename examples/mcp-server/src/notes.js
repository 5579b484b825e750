/**
 * The user's own notes: the data the MCP tools work on. One table in the server's SQLite file,
 * beside Gatehouse's (prefixed `gh_`); `user_key` is Gatehouse's user key, the `sub` of tokens.
 */

/** @typedef {{ id: number, text: string, createdAt: string }} Note */

/** @param {import('better-sqlite3').Database} db */
export function createNotesTable(db) {
  db.exec(`CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY,
    user_key TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS notes_by_user ON notes(user_key, id);`);
}

/**
 * @param {import('better-sqlite3').Database} db
 * @param {string} userKey
 * @returns {Note[]}
 */
export function notesOf(db, userKey) {
  const rows = /** @type {Array<{ id: number, text: string, created_at: string }>} */ (db.prepare('SELECT id, text, created_at FROM notes WHERE user_key = ? ORDER BY id').all(userKey));
  return rows.map((row) => ({ id: row.id, text: row.text, createdAt: row.created_at }));
}

/**
 * @param {import('better-sqlite3').Database} db
 * @param {string} userKey
 * @param {string} text
 * @returns {Note}
 */
export function addNote(db, userKey, text) {
  const createdAt = new Date().toISOString();
  const { lastInsertRowid } = db.prepare('INSERT INTO notes (user_key, text, created_at) VALUES (?, ?, ?)').run(userKey, text, createdAt);
  return { id: Number(lastInsertRowid), text, createdAt };
}
