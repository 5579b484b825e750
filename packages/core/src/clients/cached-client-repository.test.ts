import { describe, expect, it } from 'vitest';
import type { Client } from '../domain/model.js';
import type { ClientRepository } from '../ports/repositories.js';
import { createControllableClock } from '../testing/clock.js';
import { aClient } from '../testing/contract-support.js';
import { createMemoryRepositories } from '../testing/memory-repositories.js';
import { cachedClientRepository } from './cached-client-repository.js';

const OPTIONS = { ttlMs: 5_000, maxEntries: 100 };

/** One database (the memory repository) and two instances, each with its own cache over it. */
async function twoInstances(options = OPTIONS) {
  const database = createMemoryRepositories().clients;
  const clock = createControllableClock();
  await database.create(aClient('app'));
  return { database, clock, here: cachedClientRepository(database, clock, options), there: cachedClientRepository(database, clock, options) };
}

describe('cachedClientRepository', () => {
  it('serves a client from memory within the TTL: a change made elsewhere is seen once it has passed', async () => {
    const { clock, here, there } = await twoInstances();
    expect((await here.findById('app'))?.clientSecretHash).toBe('secret-hash-of-app');
    await there.updateSecretHash('app', 'rotated');
    clock.advance(4.999);
    expect((await here.findById('app'))?.clientSecretHash).toBe('secret-hash-of-app');
    clock.advance(0.001);
    expect((await here.findById('app'))?.clientSecretHash).toBe('rotated');
  });

  it('sees its own rotation, update and deletion at once', async () => {
    const { here } = await twoInstances();
    await here.findById('app');
    await here.updateSecretHash('app', 'rotated');
    expect((await here.findById('app'))?.clientSecretHash).toBe('rotated');
    await here.update('app', { name: 'Renamed', redirectUris: ['https://app.example/cb'], scopes: ['a'], grantTypes: ['authorization_code'], pkceRequired: true });
    expect(await here.findById('app')).toMatchObject({ name: 'Renamed', scopes: ['a'], pkceRequired: true });
    expect(await here.delete('app')).toBe(true);
    expect(await here.findById('app')).toBeUndefined();
  });

  it('never caches an unknown client: one created elsewhere works at once', async () => {
    const { here, there } = await twoInstances();
    expect(await here.findById('new')).toBeUndefined();
    await there.create(aClient('new'));
    expect((await here.findById('new'))?.clientId).toBe('new');
  });

  it('does not keep a read that was under way while this instance changed the client', async () => {
    const database = createMemoryRepositories().clients;
    await database.create(aClient('app'));
    let release: () => void = () => undefined;
    let slow = false;
    const slowReads: ClientRepository = {
      ...database,
      findById: async (id) => {
        const client = await database.findById(id); // the old client, read before the rotation
        if (slow) await new Promise<void>((resolve) => { release = resolve; });
        return client;
      },
    };
    const cache = cachedClientRepository(slowReads, createControllableClock(), OPTIONS);
    slow = true;
    const inFlight = cache.findById('app');
    await new Promise((resolve) => setImmediate(resolve));
    await cache.updateSecretHash('app', 'rotated');
    release();
    expect((await inFlight)?.clientSecretHash).toBe('secret-hash-of-app');
    slow = false;
    expect((await cache.findById('app'))?.clientSecretHash).toBe('rotated');
  });

  it('keeps at most maxEntries clients, the least recently used leaving first', async () => {
    const { database, clock } = await twoInstances();
    await database.create(aClient('b'));
    await database.create(aClient('c'));
    const cache = cachedClientRepository(database, clock, { ttlMs: 5_000, maxEntries: 2 });
    await cache.findById('app');
    await cache.findById('b');
    await cache.findById('app'); // b is now the least recently used
    await cache.findById('c'); // b leaves
    await database.updateSecretHash('app', 'app-rotated');
    await database.updateSecretHash('b', 'b-rotated');
    expect((await cache.findById('app'))?.clientSecretHash).toBe('secret-hash-of-app');
    expect((await cache.findById('b'))?.clientSecretHash).toBe('b-rotated');
  });

  it('reads a client as stored when asked for it fresh (RFC 7592 management), and sees its own registration access token rotation at once', async () => {
    const { database, clock, here, there } = await twoInstances();
    const registration = { kind: 'dynamic' as const, registrationAccessTokenHash: 'rat-1', anonymous: true, metadata: { tokenEndpointAuthMethod: 'none' as const }, firstUsedAt: null };
    await database.create(aClient('agent', { clientSecretHash: null, registration }));
    const tokenOf = (client: Client | undefined) => (client?.registration?.kind === 'dynamic' ? client.registration.registrationAccessTokenHash : undefined);
    expect(tokenOf(await here.findById('agent'))).toBe('rat-1');
    const previous = { hash: 'rat-1', replacedAt: clock.now() };
    expect(await there.rotateRegistrationAccessToken({ clientId: 'agent', currentHash: 'rat-1', nextHash: 'rat-2', previous })).toBe(true);
    expect(tokenOf(await here.findById('agent'))).toBe('rat-1'); // the copy, within the TTL
    const fresh = await here.findById('agent', { fresh: true });
    expect(tokenOf(fresh)).toBe('rat-2');
    expect(Object.isFrozen(fresh)).toBe(true);
    await here.findById('agent');
    expect(await here.rotateRegistrationAccessToken({ clientId: 'agent', currentHash: 'rat-2', nextHash: 'rat-3', previous })).toBe(true);
    expect(tokenOf(await here.findById('agent'))).toBe('rat-3');
  });

  it('hands out frozen clients, so no caller changes what the next request sees', async () => {
    const { here } = await twoInstances();
    const client = (await here.findById('app')) as Client;
    expect(() => client.scopes.push('admin')).toThrow(TypeError);
    expect(() => { (client as { name: string }).name = 'x'; }).toThrow(TypeError);
    expect((await here.findById('app'))?.scopes).toEqual(aClient('app').scopes);
  });
});
