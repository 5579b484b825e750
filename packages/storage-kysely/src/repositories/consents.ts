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

/**
 * A consent row's `scope` column: the scope for the default audience, or the scope, a space and the
 * resource for a scope allowed at a resource (docs/decisions/0200-consent-remembered-per-resource.md).
 * Neither a scope token nor a canonical resource URI has a space (RFC 6749 §3.3, RFC 3986), so the
 * two never mix, and the table's key (user, client, scope) holds either without a migration.
 */
function scopeColumns(consent: Consent): string[] {
  const atResources = Object.entries(consent.resourceScopes ?? {}).flatMap(([resource, scopes]) => scopes.map((scope) => `${scope} ${resource}`));
  return [...new Set([...consent.scopes, ...atResources])];
}

/** Remembered consent, one row per scope, or per scope and resource (docs/decisions/0095-remembered-consent.md, 0200). */
export function createConsentRepository(db: Kysely<Database>): ConsentRepository {
  const selectConsents = () => db.selectFrom('consents').select(['user_key', 'client_id', 'scope', 'granted_at']);
  return {
    async remember(consent) {
      const columns = scopeColumns(consent);
      if (columns.length === 0) return;
      // One statement: a scope already remembered only takes the newer time, a new one is added.
      const grantedAt = toMs(consent.grantedAt);
      await db
        .insertInto('consents')
        .values(columns.map((scope) => ({ user_key: consent.userKey, client_id: consent.clientId, scope, granted_at: grantedAt })))
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
    let consent = byClient.get(row.client_id);
    if (!consent) byClient.set(row.client_id, (consent = { userKey: row.user_key, clientId: row.client_id, scopes: [], grantedAt }));
    else if (grantedAt > consent.grantedAt) consent.grantedAt = grantedAt;
    const space = row.scope.indexOf(' ');
    if (space < 0) {
      consent.scopes.push(row.scope);
      continue;
    }
    const resource = row.scope.slice(space + 1);
    const resourceScopes = (consent.resourceScopes ??= {});
    (resourceScopes[resource] ??= []).push(row.scope.slice(0, space));
  }
  const consents = [...byClient.values()].sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0));
  for (const consent of consents) {
    consent.scopes.sort();
    for (const scopes of Object.values(consent.resourceScopes ?? {})) scopes.sort();
  }
  return consents;
}
