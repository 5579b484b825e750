import { describe, expect, it } from 'vitest';
import type { Membership, User } from '../domain/model.js';
import type { UserRepository } from './ports.js';
import { createControllableClock } from '../testing/clock.js';
import { anAccount, aUser } from '../testing/contract-support.js';
import { createMemoryRepositories } from '../testing/memory-repositories.js';
import { cachedUserRepositories } from './cached-user-repositories.js';

const OPTIONS = { ttlMs: 5_000, maxEntries: 100 };

/** One database (the memory repositories) with user1 member of account1, and two instances, each with its own cache over it. */
async function twoInstances(options = OPTIONS) {
  const database = createMemoryRepositories();
  const clock = createControllableClock();
  await database.accounts.create(anAccount(1));
  await database.accounts.create(anAccount(2));
  await database.users.create(aUser(1));
  await database.accounts.setMembership('account1', 'user1', 'member');
  return { database, clock, here: cachedUserRepositories(database, clock, options), there: cachedUserRepositories(database, clock, options) };
}

const rolesOf = (found: { memberships: Membership[] } | undefined) => found?.memberships.map(({ account, role }) => `${account.accountKey}:${role}`);

describe('cachedUserRepositories', () => {
  it('serves a user and their memberships from memory within the TTL: a change made elsewhere is seen once it has passed', async () => {
    const { clock, here, there } = await twoInstances();
    expect(rolesOf(await here.users.findWithMemberships('user1'))).toEqual(['account1:member']);
    await there.accounts.setMembership('account1', 'user1', 'admin');
    await there.accounts.setMembership('account2', 'user1', 'member');
    clock.advance(4.999);
    expect(rolesOf(await here.users.findWithMemberships('user1'))).toEqual(['account1:member']);
    clock.advance(0.001);
    expect(rolesOf(await here.users.findWithMemberships('user1'))).toEqual(['account1:admin', 'account2:member']);
  });

  it('sees its own membership, password and phone number changes at once', async () => {
    const { here } = await twoInstances();
    await here.users.findWithMemberships('user1');
    await here.accounts.setMembership('account1', 'user1', 'admin');
    expect(rolesOf(await here.users.findWithMemberships('user1'))).toEqual(['account1:admin']);
    expect(await here.users.updatePasswordHash('user1', 'scrypt$new')).toBe(true);
    expect((await here.users.findWithMemberships('user1'))?.user.passwordHash).toBe('scrypt$new');
    await here.users.addPhoneNumber('user1', '+15550100');
    expect(await here.users.listPhoneNumbers('user1')).toEqual(['+15550100']);
  });

  it('reads everything else from the repository every time: roles, users by key and by e-mail', async () => {
    const { here, there } = await twoInstances();
    await here.users.findWithMemberships('user1');
    expect(await here.accounts.findRole('account1', 'user1')).toBe('member');
    await there.accounts.setMembership('account1', 'user1', 'admin');
    await there.users.updatePasswordHash('user1', 'scrypt$elsewhere');
    // The admin API's role check and sign-in never see a cached value.
    expect(await here.accounts.findRole('account1', 'user1')).toBe('admin');
    expect((await here.users.findByKey('user1'))?.passwordHash).toBe('scrypt$elsewhere');
    expect((await here.users.findByEmail('person1@example.com'))?.passwordHash).toBe('scrypt$elsewhere');
  });

  it('never caches an unknown user: one created elsewhere is found at once', async () => {
    const { here, there } = await twoInstances();
    expect(await here.users.findWithMemberships('user2')).toBeUndefined();
    await there.users.create(aUser(2));
    expect((await here.users.findWithMemberships('user2'))?.user.email).toBe('person2@example.com');
  });

  it('does not keep a read that was under way while this instance changed the user', async () => {
    const database = createMemoryRepositories();
    await database.accounts.create(anAccount(1));
    await database.users.create(aUser(1));
    await database.accounts.setMembership('account1', 'user1', 'member');
    let release: () => void = () => undefined;
    let slow = false;
    const slowReads: UserRepository = {
      ...database.users,
      findWithMemberships: async (userKey) => {
        const found = await database.users.findWithMemberships(userKey); // read before the change
        if (slow) await new Promise<void>((resolve) => { release = resolve; });
        return found;
      },
    };
    const cache = cachedUserRepositories({ users: slowReads, accounts: database.accounts }, createControllableClock(), OPTIONS);
    slow = true;
    const inFlight = cache.users.findWithMemberships('user1');
    await new Promise((resolve) => setImmediate(resolve));
    await cache.accounts.setMembership('account1', 'user1', 'admin');
    release();
    expect(rolesOf(await inFlight)).toEqual(['account1:member']);
    slow = false;
    expect(rolesOf(await cache.users.findWithMemberships('user1'))).toEqual(['account1:admin']);
  });

  it('keeps at most maxEntries users, the least recently used leaving first', async () => {
    const { database, clock } = await twoInstances();
    await database.users.create(aUser(2));
    await database.users.create(aUser(3));
    const cache = cachedUserRepositories(database, clock, { ttlMs: 5_000, maxEntries: 2 });
    await cache.users.findWithMemberships('user1');
    await cache.users.findWithMemberships('user2');
    await cache.users.findWithMemberships('user1'); // user2 is now the least recently used
    await cache.users.findWithMemberships('user3'); // user2 leaves
    await database.accounts.setMembership('account1', 'user1', 'admin');
    await database.accounts.setMembership('account1', 'user2', 'admin');
    expect(rolesOf(await cache.users.findWithMemberships('user1'))).toEqual(['account1:member']);
    expect(rolesOf(await cache.users.findWithMemberships('user2'))).toEqual(['account1:admin']);
  });

  it('caches nothing with a TTL of 0', async () => {
    const { database, clock } = await twoInstances();
    const cache = cachedUserRepositories(database, clock, { ttlMs: 0, maxEntries: 100 });
    await cache.users.findWithMemberships('user1');
    await database.accounts.setMembership('account1', 'user1', 'admin');
    expect(rolesOf(await cache.users.findWithMemberships('user1'))).toEqual(['account1:admin']);
  });

  it('hands out frozen values, so no caller changes what the next request sees', async () => {
    const { here } = await twoInstances();
    const found = (await here.users.findWithMemberships('user1')) as { user: User; memberships: Membership[] };
    expect(() => found.memberships.push({ account: anAccount(2), role: 'admin' })).toThrow(TypeError);
    expect(() => { (found.memberships[0] as { role: string }).role = 'admin'; }).toThrow(TypeError);
    expect(() => { (found.user as { email: string }).email = 'x@example.com'; }).toThrow(TypeError);
    expect(rolesOf(await here.users.findWithMemberships('user1'))).toEqual(['account1:member']);
  });
});
