/**
 * The orders service's own data: each user's orders, in its own `orders` table.
 */

/**
 * @typedef {object} Order
 * @property {number} id
 * @property {string} item
 * @property {number} quantity
 * @property {string} placedAt
 */

/**
 * The orders of one user, oldest first.
 *
 * @param {import('better-sqlite3').Database} db
 * @param {number} userId
 * @returns {Order[]}
 */
export function ordersOf(db, userId) {
  return /** @type {Order[]} */ (db.prepare('SELECT id, item, quantity, placed_at AS placedAt FROM orders WHERE user_id = ? ORDER BY id').all(userId));
}

/**
 * Places an order for a user.
 *
 * @param {import('better-sqlite3').Database} db
 * @param {{ userId: number, item: string, quantity: number, placedAt?: Date }} input
 * @returns {Order}
 */
export function placeOrder(db, { userId, item, quantity, placedAt = new Date() }) {
  const at = placedAt.toISOString();
  const { lastInsertRowid } = db.prepare('INSERT INTO orders (user_id, item, quantity, placed_at) VALUES (?, ?, ?, ?)').run(userId, item, quantity, at);
  return { id: Number(lastInsertRowid), item, quantity, placedAt: at };
}

/**
 * What is wrong with an order a client sends (`{ item, quantity }`), or undefined.
 *
 * @param {unknown} body
 * @returns {string | undefined}
 */
export function orderProblem(body) {
  if (typeof body !== 'object' || body === null) return 'Send a JSON object: {"item": "…", "quantity": 1}.';
  const { item, quantity } = /** @type {Record<string, unknown>} */ (body);
  if (typeof item !== 'string' || item.trim() === '' || item.length > 200) return 'item must be a text of 1 to 200 characters.';
  if (!Number.isInteger(quantity) || /** @type {number} */ (quantity) < 1 || /** @type {number} */ (quantity) > 1000) return 'quantity must be a whole number from 1 to 1000.';
  return undefined;
}
