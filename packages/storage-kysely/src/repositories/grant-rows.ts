import type { Grant } from '@gatehouse/core';
import type { Selectable } from 'kysely';
import { fromJson, fromMs, fromMsOrNull, openIdField, optionalList, toJson, toMs, toMsOrNull, toOpenIdJson, toOptionalListJson } from '../encoding.js';
import type { GrantTable } from '../schema.js';

/** A client-credentials grant has no user: stored as `''`, which no user key is. */
export const NO_USER = '';

export function toRow(grant: Grant): GrantTable {
  return {
    grant_id: grant.grantId,
    client_id: grant.clientId,
    user_key: grant.userKey ?? NO_USER,
    scopes: toJson(grant.scopes),
    resources: toOptionalListJson(grant.resources),
    session_id: grant.sessionId,
    openid: toOpenIdJson(grant.openid),
    created_at: toMs(grant.createdAt),
    revoked_at: toMsOrNull(grant.revokedAt),
    // A client-credentials grant never has a refresh token (RFC 6749 §4.4.3); a code's grant says
    // which it is in `codeExchangeValues` (docs/decisions/0193).
    refreshable: grant.userKey === null ? 0 : 1,
  };
}

export function fromRow(row: Omit<Selectable<GrantTable>, 'refreshable'>): Grant {
  return {
    grantId: row.grant_id,
    clientId: row.client_id,
    userKey: row.user_key === NO_USER ? null : row.user_key,
    scopes: fromJson<string[]>(row.scopes),
    ...optionalList('resources', row.resources),
    sessionId: row.session_id,
    ...openIdField(row.openid),
    createdAt: fromMs(row.created_at),
    revokedAt: fromMsOrNull(row.revoked_at),
  };
}
