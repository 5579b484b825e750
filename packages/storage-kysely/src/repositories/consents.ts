import type { Consent, ConsentRepository } from '@gatehouse/core';
import type { Kysely } from 'kysely';
import { changed, fromMs, toMs } from '../encoding.js';
import type { Database } from '../schema.js';

interface ConsentRow {
  user_key: string;
  client_id: string;
  scope: string;
  granted_at: number | string;
}

/** Remembered consent, one row per scope (docs/decisions/0095-remembered-consent.md). */
export function createConsentRepository(db: Kysely<Database>): ConsentRepository {
  const selectConsents = () => db.selectFrom('consents').select(['user_key', 'client_id', 'scope', 'granted_at']);
  return {
    async remember(consent) {
      if (consent.scopes.length === 0) return;
      // One statement: a scope already remembered only takes the newer time, a new one is added.
      const grantedAt = toMs(consent.grantedAt);
      await db
        .insertInto('consents')
        .values([...new Set(consent.scopes)].map((scope) => ({ user_key: consent.userKey, client_id: consent.clientId, scope, granted_at: grantedAt })))
        .onConflict((conflict) => conflict.columns(['user_key', 'client_id', 'scope']).doUpdateSet({ granted_at: grantedAt }))
        .execute();
    },

    async find(userKey, clientId) {
      const rows = await selectConsents().where('user_key', '=', userKey).where('client_id', '=', clientId).execute();
      return consentsOf(rows)[0];
    },

    async listByUser(userKey) {
      return consentsOf(await selectConsents().where('user_key', '=', userKey).execute());
    },

    async forget(userKey, clientId) {
      const result = await db.deleteFrom('consents').where('user_key', '=', userKey).where('client_id', '=', clientId).executeTakeFirst();
      return changed(result.numDeletedRows);
    },

    async forgetByUser(userKey) {
      // One row per scope: the clients are counted from the rows the one statement deleted.
      const rows = await db.deleteFrom('consents').where('user_key', '=', userKey).returning('client_id').execute();
      return new Set(rows.map((row) => row.client_id)).size;
    },
  };
}

/** Groups the rows per client, ordered by client id, scopes sorted (in code: collations differ between databases). */
function consentsOf(rows: ConsentRow[]): Consent[] {
  const byClient = new Map<string, Consent>();
  for (const row of rows) {
    const grantedAt = fromMs(row.granted_at);
    const consent = byClient.get(row.client_id);
    if (!consent) {
      byClient.set(row.client_id, { userKey: row.user_key, clientId: row.client_id, scopes: [row.scope], grantedAt });
      continue;
    }
    consent.scopes.push(row.scope);
    if (grantedAt > consent.grantedAt) consent.grantedAt = grantedAt;
  }
  const consents = [...byClient.values()].sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0));
  for (const consent of consents) consent.scopes.sort();
  return consents;
}
