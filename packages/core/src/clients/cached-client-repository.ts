import type { Client } from '../domain/model.js';
import type { Clock } from '../ports/clock.js';
import type { ClientRepository } from '../ports/repositories.js';
import { createReadThroughCache, type ReadThroughCacheOptions } from '../caching/read-through-cache.js';

/** `ttlMs`: how long a client read from the repository is served from memory; `maxEntries`: at most this many clients are kept. */
export type ClientCacheOptions = ReadThroughCacheOptions;

/** The bound of the reference server (docs/decisions/0069-clients-cached-in-memory.md). */
export const DEFAULT_CLIENT_CACHE: ClientCacheOptions = { ttlMs: 5_000, maxEntries: 1_000 };

/**
 * A `ClientRepository` that keeps clients it read in memory for `ttlMs`, so the token,
 * revocation and introspection endpoints do not read and decode the client on every request
 * (docs/decisions/0069-clients-cached-in-memory.md).
 *
 * A change made through this repository (update, secret rotation, deletion) is seen at once by
 * the instance that made it: the entry is dropped, and a read that was under way while a change
 * was made is not kept. A change made elsewhere (another instance, the CLI in another process)
 * is seen within `ttlMs`. An unknown client is never cached (a client created elsewhere works at
 * once). Reads of lists, and a read that asks to be `fresh`, always go to the repository.
 *
 * @example
 * const clients = cachedClientRepository(storage.repositories.clients, systemClock, { ttlMs: 5_000, maxEntries: 1_000 });
 * await clients.findById('app'); // read from the repository
 * await clients.findById('app'); // from memory for 5 s, unless rotated or deleted through `clients`
 */
export function cachedClientRepository(repository: ClientRepository, clock: Clock, options: ClientCacheOptions): ClientRepository {
  const cache = createReadThroughCache<Client>(clock, options, frozen);
  return {
    // `fresh`: what RFC 7592 management authenticates against, which another instance may have just changed (docs/decisions/0185).
    findById: async (clientId, options) => {
      if (options?.fresh !== true) return cache.read(clientId, () => repository.findById(clientId));
      const client = await repository.findById(clientId, options);
      return client && frozen(client);
    },
    create: (client) => cache.change(client.clientId, () => repository.create(client)),
    update: (clientId, changed, options) => cache.change(clientId, () => repository.update(clientId, changed, options)),
    rotateRegistrationAccessToken: (rotation) => cache.change(rotation.clientId, () => repository.rotateRegistrationAccessToken(rotation)),
    updateSecretHash: (clientId, hash) => cache.change(clientId, () => repository.updateSecretHash(clientId, hash)),
    delete: (clientId) => cache.change(clientId, () => repository.delete(clientId)),
    listByOwner: (ownerUserKey) => repository.listByOwner(ownerUserKey),
    listAll: () => repository.listAll(),
    saveMetadataDocumentClient: (client) => cache.change(client.clientId, () => repository.saveMetadataDocumentClient(client)),
    markUsed: (clientId, at) => cache.change(clientId, () => repository.markUsed(clientId, at)),
    // The clients it deletes were never used: a copy of one left in memory for a few seconds issues nothing that lasts.
    purgeUnused: (createdBefore) => repository.purgeUnused(createdBefore),
  };
}

/** A client shared between requests: frozen, so that no caller can change what the next one sees. */
function frozen(client: Client): Client {
  if (Object.isFrozen(client)) return client;
  Object.freeze(client.redirectUris);
  Object.freeze(client.scopes);
  Object.freeze(client.grantTypes);
  if (client.registration) {
    if (client.registration.metadata.contacts) Object.freeze(client.registration.metadata.contacts);
    Object.freeze(client.registration.metadata);
    Object.freeze(client.registration);
  }
  return Object.freeze(client);
}
