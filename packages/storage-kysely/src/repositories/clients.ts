import { DomainError, type Client, type ClientMetadata, type ClientRepository, type GrantType, type SelfRegistration } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import type { StorageDialect } from '../dialect.js';
import { affected, changed, fromJson, fromMs, fromMsOrNull, optionalList, toFlag, toJson, toMs, toOptionalListJson } from '../encoding.js';
import { param, reusableQuery } from '../reusable-query.js';
import type { ClientTable, Database } from '../schema.js';

const findClient = reusableQuery((db: Kysely<Database>) => db.selectFrom('clients').selectAll().where('client_id', '=', param('clientId')));

export function createClientRepository(db: Kysely<Database>, dialect: StorageDialect): ClientRepository {
  return {
    async create(client) {
      try {
        await db.insertInto('clients').values(toRow(client)).execute();
      } catch (error) {
        if (dialect.isUniqueViolation(error)) throw new DomainError('conflict', 'The client id is taken.', { field: 'clientId', cause: error });
        throw error;
      }
    },

    // Always from the database: nothing here keeps a copy, so `fresh` changes nothing.
    async findById(clientId) {
      const [row] = (await findClient(db, { clientId })).rows;
      return row && fromRow(row);
    },

    async update(clientId, changes, options) {
      const write = async (executor: Kysely<Database>): Promise<boolean> => {
        const result = await executor.updateTable('clients').set(changedColumnsOf(changes)).where('client_id', '=', clientId).executeTakeFirst();
        if (!changed(result.numUpdatedRows)) return false;
        // The edit changed what its users allowed: asked again (docs/decisions/0195).
        if (options?.forgetConsents === true) await executor.deleteFrom('consents').where('client_id', '=', clientId).execute();
        return true;
      };
      // Forgetting goes with the update or not at all: one transaction.
      return options?.forgetConsents === true ? db.transaction().execute(write) : write(db);
    },

    async rotateRegistrationAccessToken({ clientId, currentHash, nextHash, previous, changes, forgetConsents }) {
      const row = await db.selectFrom('clients').select(['registration', 'registration_details']).where('client_id', '=', clientId).executeTakeFirst();
      if (row === undefined || row.registration !== 'dynamic' || row.registration_details === null) return false;
      const details = fromJson<StoredDetails>(row.registration_details);
      if (details.registrationAccessTokenHash !== currentHash) return false;
      const next: StoredDetails = {
        ...details,
        ...(changes === undefined ? {} : { metadata: changes.metadata }),
        registrationAccessTokenHash: nextHash,
        previousRegistrationAccessTokenHash: previous.hash,
        registrationAccessTokenReplacedAt: toMs(previous.replacedAt),
      };
      const write = async (executor: Kysely<Database>): Promise<boolean> => {
        // The compare-and-set (docs/decisions/0185): the details hold the token's hash, so a write
        // that changed them since the read above — a concurrent rotation — leaves this one no row.
        // On PostgreSQL the second of two waits for the first's row lock, then finds new details.
        const result = await executor
          .updateTable('clients')
          .set({ ...(changes === undefined ? {} : changedColumnsOf(changes)), registration_details: toJson(next) })
          .where('client_id', '=', clientId)
          .where('registration_details', '=', row.registration_details)
          .executeTakeFirst();
        if (!changed(result.numUpdatedRows)) return false;
        // The update changed what its users allowed: asked again (docs/decisions/0195).
        if (forgetConsents === true) await executor.deleteFrom('consents').where('client_id', '=', clientId).execute();
        return true;
      };
      // Forgetting goes with the update or not at all: one transaction.
      return forgetConsents === true ? db.transaction().execute(write) : write(db);
    },

    async updateSecretHash(clientId, clientSecretHash) {
      const result = await db.updateTable('clients').set({ client_secret_hash: clientSecretHash }).where('client_id', '=', clientId).executeTakeFirst();
      return changed(result.numUpdatedRows);
    },

    async delete(clientId) {
      // Its codes, grants and the grants' refresh tokens go by ON DELETE CASCADE, in this one statement.
      const result = await db.deleteFrom('clients').where('client_id', '=', clientId).executeTakeFirst();
      return changed(result.numDeletedRows);
    },

    async listByOwner(ownerUserKey) {
      const rows = await db
        .selectFrom('clients')
        .selectAll()
        .where('owner_user_key', '=', ownerUserKey)
        .orderBy('created_at')
        .orderBy('client_id')
        .execute();
      return rows.map(fromRow);
    },

    async listAll() {
      const rows = await db.selectFrom('clients').selectAll().orderBy('created_at').orderBy('client_id').execute();
      return rows.map(fromRow);
    },

    async saveMetadataDocumentClient(client) {
      const row = toRow(client);
      return db.transaction().execute(async (trx) => {
        // A new client is one insert; two first fetches at once: the second finds the first's row.
        const inserted = await trx.insertInto('clients').values(row).onConflict((conflict) => conflict.column('client_id').doNothing()).returning('client_id').executeTakeFirst();
        if (inserted !== undefined) return 'created';
        const read = trx.selectFrom('clients').select(['registration', 'registration_details']).where('client_id', '=', client.clientId);
        // Two refreshes at once on PostgreSQL: the second waits, then sees the first's hash.
        const stored = await (dialect.locksRows ? read.forUpdate() : read).executeTakeFirst();
        if (!stored || stored.registration !== 'metadata-document' || stored.registration_details === null) return 'other-client';
        const documentChanged = fromJson<StoredDetails>(stored.registration_details).documentHash !== fromJson<StoredDetails>(row.registration_details as string).documentHash;
        await trx
          .updateTable('clients')
          .set({
            name: row.name,
            redirect_uris: row.redirect_uris,
            scopes: row.scopes,
            grant_types: row.grant_types,
            pkce_required: row.pkce_required,
            registration_details: row.registration_details,
            // The document's OpenID Connect metadata (docs/decisions/0136), as it says now.
            id_token_signed_response_alg: row.id_token_signed_response_alg,
            post_logout_redirect_uris: row.post_logout_redirect_uris,
            default_max_age: row.default_max_age,
            require_auth_time: row.require_auth_time,
          })
          .where('client_id', '=', client.clientId)
          .execute();
        // A changed document is asked about again (docs/decisions/0117-client-id-metadata-documents.md).
        if (documentChanged) await trx.deleteFrom('consents').where('client_id', '=', client.clientId).execute();
        return documentChanged ? 'changed' : 'refreshed';
      });
    },

    async markUsed(clientId, at) {
      await db.updateTable('clients').set({ first_used_at: toMs(at) }).where('client_id', '=', clientId).where('first_used_at', 'is', null).where('registration', 'in', SELF_REGISTERED).execute();
    },

    async purgeUnused(createdBefore) {
      // Their codes, grants and consents go by ON DELETE CASCADE (a client never used has none but consents at most).
      const result = await db
        .deleteFrom('clients')
        .where('registration', 'in', SELF_REGISTERED)
        .where('first_used_at', 'is', null)
        .where('created_at', '<', toMs(createdBefore))
        .executeTakeFirst();
      return affected(result.numDeletedRows);
    },
  };
}

/**
 * What `registration_details` holds: the `SelfRegistration` of either kind without its kind and
 * first use, times as epoch ms. A dynamic client's replaced registration access token is kept in
 * it too (docs/decisions/0185), so no migration: a version before it reads and writes the current
 * hash as it always did.
 */
interface StoredDetails {
  metadata: ClientMetadata;
  registrationAccessTokenHash?: string;
  previousRegistrationAccessTokenHash?: string;
  registrationAccessTokenReplacedAt?: number;
  anonymous?: boolean;
  documentHash?: string;
  documentExpiresAt?: number;
}

function registrationDetails(registration: SelfRegistration): string {
  const details: StoredDetails =
    registration.kind === 'dynamic'
      ? {
          metadata: registration.metadata,
          registrationAccessTokenHash: registration.registrationAccessTokenHash,
          ...(registration.previousRegistrationAccessToken === undefined
            ? {}
            : { previousRegistrationAccessTokenHash: registration.previousRegistrationAccessToken.hash, registrationAccessTokenReplacedAt: toMs(registration.previousRegistrationAccessToken.replacedAt) }),
          anonymous: registration.anonymous,
        }
      : { metadata: registration.metadata, documentHash: registration.documentHash, documentExpiresAt: toMs(registration.documentExpiresAt) };
  return toJson(details);
}

function selfRegistrationOf(row: Selectable<ClientTable>): SelfRegistration | undefined {
  if (row.registration === 'static' || row.registration_details === null) return undefined;
  const details = fromJson<StoredDetails>(row.registration_details);
  const firstUsedAt = fromMsOrNull(row.first_used_at);
  if (row.registration === 'dynamic') {
    const { previousRegistrationAccessTokenHash: previous, registrationAccessTokenReplacedAt: replacedAt } = details;
    return {
      kind: 'dynamic',
      registrationAccessTokenHash: details.registrationAccessTokenHash ?? '',
      ...(previous === undefined || replacedAt === undefined ? {} : { previousRegistrationAccessToken: { hash: previous, replacedAt: fromMs(replacedAt) } }),
      anonymous: details.anonymous ?? true,
      metadata: details.metadata,
      firstUsedAt,
    };
  }
  return { kind: 'metadata-document', documentHash: details.documentHash ?? '', documentExpiresAt: fromMs(details.documentExpiresAt ?? 0), metadata: details.metadata, firstUsedAt };
}

/** The `registration` of the clients that registered themselves (an IN list, so the purge searches its index). */
const SELF_REGISTERED = ['dynamic', 'metadata-document'];

/** A public client has no secret: stored as `''`, which no SHA-256 (43 base64url characters) equals. */
const NO_SECRET = '';

function toRow(client: Client): ClientTable {
  return {
    client_id: client.clientId,
    client_secret_hash: client.clientSecretHash ?? NO_SECRET,
    name: client.name,
    redirect_uris: toJson(client.redirectUris),
    scopes: toJson(client.scopes),
    grant_types: toJson(client.grantTypes),
    pkce_required: toFlag(client.pkceRequired),
    owner_user_key: client.ownerUserKey,
    created_at: toMs(client.createdAt),
    resource_server_for: toOptionalListJson(client.resourceServerFor),
    id_token_signed_response_alg: client.idTokenSignedResponseAlg ?? null,
    post_logout_redirect_uris: toOptionalListJson(client.postLogoutRedirectUris),
    default_max_age: client.defaultMaxAge ?? null,
    require_auth_time: toFlag(client.requireAuthTime === true),
    client_uri: client.clientUri ?? null,
    logo_uri: client.logoUri ?? null,
    policy_uri: client.policyUri ?? null,
    tos_uri: client.tosUri ?? null,
    first_party: toFlag(client.firstParty === true),
    registration: client.registration?.kind ?? 'static',
    registration_details: client.registration === undefined ? null : registrationDetails(client.registration),
    first_used_at: client.registration?.firstUsedAt ? toMs(client.registration.firstUsedAt) : null,
  };
}

/** What `ClientRepository.update` changes. */
type ClientChanges = Parameters<ClientRepository['update']>[1];

/** The columns of `ClientRepository.update` (and of an RFC 7592 update). */
function changedColumnsOf(changes: Omit<ClientChanges, 'registration'>): Partial<ClientTable> {
  return {
    name: changes.name,
    redirect_uris: toJson(changes.redirectUris),
    scopes: toJson(changes.scopes),
    grant_types: toJson(changes.grantTypes),
    pkce_required: toFlag(changes.pkceRequired),
    // Changed only when given (the port's rule).
    ...(changes.resourceServerFor === undefined ? {} : { resource_server_for: toOptionalListJson(changes.resourceServerFor) }),
    ...openIdColumnsOf(changes),
    ...presentationColumnsOf(changes),
  };
}

/** The OpenID Connect columns an update names (`ClientRepository.update`: each changed only when its key is given). */
function openIdColumnsOf(changes: Partial<Client>): Partial<Pick<ClientTable, 'id_token_signed_response_alg' | 'post_logout_redirect_uris' | 'default_max_age' | 'require_auth_time'>> {
  const given = (key: keyof Client) => Object.hasOwn(changes, key);
  return {
    ...(given('idTokenSignedResponseAlg') ? { id_token_signed_response_alg: changes.idTokenSignedResponseAlg ?? null } : {}),
    ...(given('postLogoutRedirectUris') ? { post_logout_redirect_uris: toOptionalListJson(changes.postLogoutRedirectUris) } : {}),
    ...(given('defaultMaxAge') ? { default_max_age: changes.defaultMaxAge ?? null } : {}),
    ...(given('requireAuthTime') ? { require_auth_time: toFlag(changes.requireAuthTime === true) } : {}),
  };
}

/** The link and first-party columns an update names (docs/decisions/0155: each changed only when its key is given). */
function presentationColumnsOf(changes: Partial<Client>): Partial<Pick<ClientTable, 'client_uri' | 'logo_uri' | 'policy_uri' | 'tos_uri' | 'first_party'>> {
  const given = (key: keyof Client) => Object.hasOwn(changes, key);
  return {
    ...(given('clientUri') ? { client_uri: changes.clientUri ?? null } : {}),
    ...(given('logoUri') ? { logo_uri: changes.logoUri ?? null } : {}),
    ...(given('policyUri') ? { policy_uri: changes.policyUri ?? null } : {}),
    ...(given('tosUri') ? { tos_uri: changes.tosUri ?? null } : {}),
    ...(given('firstParty') ? { first_party: toFlag(changes.firstParty === true) } : {}),
  };
}

function fromRow(row: Selectable<ClientTable>): Client {
  const client: Client = {
    clientId: row.client_id,
    clientSecretHash: row.client_secret_hash === NO_SECRET ? null : row.client_secret_hash,
    name: row.name,
    redirectUris: fromJson<string[]>(row.redirect_uris),
    scopes: fromJson<string[]>(row.scopes),
    grantTypes: fromJson<GrantType[]>(row.grant_types),
    pkceRequired: Number(row.pkce_required) === 1,
    ownerUserKey: row.owner_user_key,
    createdAt: fromMs(row.created_at),
    ...optionalList('resourceServerFor', row.resource_server_for),
    ...(row.id_token_signed_response_alg === null ? {} : { idTokenSignedResponseAlg: row.id_token_signed_response_alg as Client['idTokenSignedResponseAlg'] }),
    ...optionalList('postLogoutRedirectUris', row.post_logout_redirect_uris),
    ...(row.default_max_age === null ? {} : { defaultMaxAge: Number(row.default_max_age) }),
    ...(Number(row.require_auth_time) === 1 ? { requireAuthTime: true } : {}),
    ...(row.client_uri === null ? {} : { clientUri: row.client_uri }),
    ...(row.logo_uri === null ? {} : { logoUri: row.logo_uri }),
    ...(row.policy_uri === null ? {} : { policyUri: row.policy_uri }),
    ...(row.tos_uri === null ? {} : { tosUri: row.tos_uri }),
    ...(Number(row.first_party) === 1 ? { firstParty: true } : {}),
  };
  const registration = selfRegistrationOf(row);
  if (registration !== undefined) client.registration = registration;
  return client;
}
