// The rows of the growth run: a database that has lived a while. They are written straight into
// the tables (the schema of packages/storage-kysely/src/migrations.ts, the encoding of its
// encoding.ts: times as epoch ms, lists as JSON text), in bulk, while the server is stopped.
import { createIdSource } from './ids.js';

export const GROWTH_DEFAULTS = {
  grants: 1_000_000,
  attributeNames: 10_000,
  users: 10_000,
  clients: 100,
  /** Per account (the server's default limit). */
  attributesPerAccount: 500,
  /** Share of the seeded grants that are revoked (recently, so the purge keeps them). */
  revokedShare: 0.1,
};

const DAY_MS = 86_400_000;

const byFirstColumn = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
const SCOPES = JSON.stringify(['messaging.v1.read', 'messaging.v1.send']);

/**
 * Generates the growth rows table by table, in batches, and hands each batch to `write(table,
 * columns, rows)`. Every grant comes with what a real exchange leaves behind: its refresh token and
 * its consumed authorization code (kept as long as the grant lives). Grants go round-robin to the
 * seeded users and clients plus the benchmark's own user and client, so every index grows.
 * Attribute names: the benchmark's account is filled up to the per-account limit, other accounts
 * hold the rest, `attributeNames` in all.
 */
export async function writeGrowthRows(write, spec, { batchSize = 50_000, onProgress = () => undefined } = {}) {
  const ids = createIdSource();
  const now = Date.now();
  const clientIds = Array.from({ length: spec.clients }, () => ids.id());
  const userKeys = Array.from({ length: spec.users }, () => ids.id());

  await write(
    'clients',
    ['client_id', 'client_secret_hash', 'name', 'redirect_uris', 'scopes', 'pkce_required', 'owner_user_key', 'created_at'],
    clientIds.map((clientId, i) => [clientId, ids.hash(), `Seeded client ${i}`, JSON.stringify([`https://app${i}.example/cb`]), SCOPES, 0, null, now - 90 * DAY_MS]),
  );
  for (let start = 0; start < userKeys.length; start += batchSize) {
    await write(
      'users',
      ['user_key', 'email', 'email_folded', 'given_name', 'family_name', 'locale', 'password_hash'],
      userKeys.slice(start, start + batchSize).map((userKey, j) => {
        const email = `seeded${start + j}@bench.invalid`;
        // Not a usable hash: seeded users never sign in.
        return [userKey, email, email, 'Seeded', `User ${start + j}`, 'en', 'scrypt$16384$8$1$bench$not-a-password'];
      }),
    );
  }

  const grantClients = [...clientIds, spec.benchClientId];
  const grantUsers = [...userKeys, spec.benchUserKey];
  const revokedEvery = Math.round(1 / spec.revokedShare);
  for (let start = 0; start < spec.grants; start += batchSize) {
    const count = Math.min(batchSize, spec.grants - start);
    const grants = [];
    const refreshTokens = [];
    const codes = [];
    for (let j = 0; j < count; j += 1) {
      const n = start + j;
      const clientId = grantClients[n % grantClients.length];
      const userKey = grantUsers[n % grantUsers.length];
      const sessionId = ids.id();
      const createdAt = now - 30 * DAY_MS + Math.floor((n / spec.grants) * 30 * DAY_MS);
      const grantId = ids.grantId(createdAt);
      const revokedAt = n % revokedEvery === 0 ? now - 60_000 : null;
      grants.push([grantId, clientId, userKey, SCOPES, sessionId, createdAt, revokedAt]);
      refreshTokens.push([ids.secretHash(createdAt), grantId, createdAt, createdAt, null]);
      codes.push([ids.secretHash(createdAt - 2000), clientId, userKey, 'https://app.example/cb', SCOPES, null, sessionId, createdAt - 2000, createdAt + 58_000, createdAt, grantId]);
    }
    // Each batch in primary-key order: B-tree inserts then touch neighbouring pages (a faster load;
    // grant ids and the stored hashes of codes and refresh tokens are time-ordered, as the server's are).
    await write('grants', ['grant_id', 'client_id', 'user_key', 'scopes', 'session_id', 'created_at', 'revoked_at'], grants.sort(byFirstColumn));
    await write('refresh_tokens', ['token_hash', 'grant_id', 'created_at', 'last_used_at', 'rotated_at'], refreshTokens.sort(byFirstColumn));
    await write(
      'authorization_codes',
      ['code_hash', 'client_id', 'user_key', 'redirect_uri', 'scopes', 'code_challenge', 'session_id', 'created_at', 'expires_at', 'consumed_at', 'grant_id'],
      codes.sort(byFirstColumn),
    );
    onProgress(start + count, spec.grants);
  }

  // Attribute names: fill the benchmark's account to the limit, then other accounts.
  const nameColumns = ['account_key', 'attribute_key', 'name', 'name_folded', 'position'];
  let remaining = spec.attributeNames - spec.benchAccountAttributes;
  const benchExtra = Math.max(0, Math.min(remaining, spec.attributesPerAccount - spec.benchAccountAttributes));
  await write(
    'attribute_names',
    nameColumns,
    Array.from({ length: benchExtra }, (_, i) => {
      const name = `seeded attribute ${i}`;
      return [spec.benchAccountKey, ids.id(), name, name, spec.benchAccountLastPosition + 1 + i];
    }),
  );
  remaining -= benchExtra;
  let accountNumber = 0;
  while (remaining > 0) {
    const accountKey = ids.id();
    const count = Math.min(remaining, spec.attributesPerAccount);
    await write('accounts', ['account_key', 'name'], [[accountKey, `Seeded account ${accountNumber}`]]);
    await write(
      'attribute_names',
      nameColumns,
      Array.from({ length: count }, (_, i) => {
        const name = `attribute ${i}`;
        return [accountKey, ids.id(), name, name, i + 1];
      }),
    );
    remaining -= count;
    accountNumber += 1;
  }
}
