import type { Client } from '../domain/model.js';
import type { Clock } from '../ports/clock.js';
import type { ClientRepository } from '../ports/repositories.js';

export interface ClientCacheOptions {
  /** How long a client read from the repository is served from memory, in milliseconds. */
  ttlMs: number;
  /** At most this many clients are kept; the least recently used leaves first. */
  maxEntries: number;
}

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
 * once). Reads of lists always go to the repository.
 *
 * @example
 * const clients = cachedClientRepository(storage.repositories.clients, systemClock, { ttlMs: 5_000, maxEntries: 1_000 });
 * await clients.findById('app'); // read from the repository
 * await clients.findById('app'); // from memory for 5 s, unless rotated or deleted through `clients`
 */
export function cachedClientRepository(repository: ClientRepository, clock: Clock, options: ClientCacheOptions): ClientRepository {
  const maxEntries = Math.max(0, Math.floor(options.maxEntries));
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const entries = new Map<string, { client: Client; expiresAt: number }>();
  // Counts changes begun or ended: a read that saw this number move may hold an old client.
  let changes = 0;

  const change = async <T>(clientId: string, write: () => Promise<T>): Promise<T> => {
    changes += 1;
    entries.delete(clientId);
    try {
      return await write();
    } finally {
      changes += 1;
      entries.delete(clientId);
    }
  };

  return {
    async findById(clientId) {
      const now = clock.now().getTime();
      const cached = entries.get(clientId);
      if (cached !== undefined) {
        entries.delete(clientId);
        if (cached.expiresAt > now) {
          entries.set(clientId, cached);
          return cached.client;
        }
      }
      const changesBefore = changes;
      const client = await repository.findById(clientId);
      if (client !== undefined && changes === changesBefore && maxEntries > 0 && options.ttlMs > 0) {
        entries.set(clientId, { client: frozen(client), expiresAt: now + options.ttlMs });
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      }
      return client === undefined ? undefined : frozen(client);
    },
    create: (client) => change(client.clientId, () => repository.create(client)),
    update: (clientId, changed) => change(clientId, () => repository.update(clientId, changed)),
    updateSecretHash: (clientId, hash) => change(clientId, () => repository.updateSecretHash(clientId, hash)),
    delete: (clientId) => change(clientId, () => repository.delete(clientId)),
    listByOwner: (ownerUserKey) => repository.listByOwner(ownerUserKey),
    listAll: () => repository.listAll(),
  };
}

/** A client shared between requests: frozen, so that no caller can change what the next one sees. */
function frozen(client: Client): Client {
  if (Object.isFrozen(client)) return client;
  Object.freeze(client.redirectUris);
  Object.freeze(client.scopes);
  Object.freeze(client.grantTypes);
  return Object.freeze(client);
}
