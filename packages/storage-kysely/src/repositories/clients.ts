import { DomainError, type Client, type ClientRepository, type GrantType } from '@gatehouse/core';
import type { Kysely, Selectable } from 'kysely';
import type { StorageDialect } from '../dialect.js';
import { changed, fromJson, fromMs, optionalList, toFlag, toJson, toMs, toOptionalListJson } from '../encoding.js';
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

    async findById(clientId) {
      const [row] = (await findClient(db, { clientId })).rows;
      return row && fromRow(row);
    },

    async update(clientId, changes) {
      const result = await db
        .updateTable('clients')
        .set({
          name: changes.name,
          redirect_uris: toJson(changes.redirectUris),
          scopes: toJson(changes.scopes),
          grant_types: toJson(changes.grantTypes),
          pkce_required: toFlag(changes.pkceRequired),
          // Changed only when given (the port's rule).
          ...(changes.resourceServerFor === undefined ? {} : { resource_server_for: toOptionalListJson(changes.resourceServerFor) }),
        })
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      return changed(result.numUpdatedRows);
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
  };
}

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
  };
}

function fromRow(row: Selectable<ClientTable>): Client {
  return {
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
  };
}
