import type { Message } from '../domain/model.js';
import { aMessage, at, seedBasics, type ContractContext, type ProductContractRepositories } from './contract-support.js';

/** Attribute names and values, and messages (the product part; signing keys are contract-signing-keys.ts's). */
export function describeAdminContract({ runner, repos }: ContractContext<ProductContractRepositories>): void {
  const { describe, it, expect, beforeEach } = runner;

  describe('attribute names', () => {
    beforeEach(async () => {
      await seedBasics(repos());
    });

    const create = (name: string, key = `key-${name}`, accountKey = 'account1', max = 500) =>
      repos().attributes.create(accountKey, { key, name }, max);

    it('creates a name and finds it by account and key', async () => {
      expect(await create('department', 'k1')).toBe('created');
      expect(await repos().attributes.find('account1', 'k1')).toEqual({ key: 'k1', name: 'department' });
      expect(await repos().attributes.find('account2', 'k1')).toBeUndefined();
      expect(await repos().attributes.find('account1', 'k9')).toBeUndefined();
    });

    it('refuses a name equal to another of the account ignoring case, but not in another account', async () => {
      expect(await create('Department', 'k1')).toBe('created');
      expect(await create('DEPARTMENT', 'k2')).toBe('duplicate-name');
      expect(await create('department', 'k3')).toBe('duplicate-name');
      expect(await repos().attributes.find('account1', 'k2')).toBeUndefined();
      expect(await create('department', 'k4', 'account2')).toBe('created');
      // Case is ignored beyond ASCII too, the same in every store.
      expect(await create('Ärger', 'k5')).toBe('created');
      expect(await create('ÄRGER', 'k6')).toBe('duplicate-name');
      // By attributeNameKey: full case folding, compatibility forms, joiners (docs/decisions/0190).
      expect(await create('Straße', 'k7')).toBe('created');
      expect(await create('STRASSE', 'k8')).toBe('duplicate-name');
      expect(await create('ﬀ', 'k9')).toBe('created');
      expect(await create('FF', 'k10')).toBe('duplicate-name');
      expect(await create('Cafe\u0301', 'k11')).toBe('created');
      expect(await create('CAFÉ', 'k12')).toBe('duplicate-name');
      expect(await create('Depart\u200dment', 'k13')).toBe('duplicate-name');
    });

    it('refuses a name beyond the per-account limit, and reports a duplicate before the limit', async () => {
      expect(await create('a', 'k1', 'account1', 2)).toBe('created');
      expect(await create('b', 'k2', 'account1', 2)).toBe('created');
      expect(await create('c', 'k3', 'account1', 2)).toBe('limit-reached');
      expect(await create('A', 'k4', 'account1', 2)).toBe('duplicate-name');
      expect(await repos().attributes.find('account1', 'k3')).toBeUndefined();
      expect(await create('c', 'k5', 'account2', 2)).toBe('created');
      expect((await repos().attributes.list('account1', { offset: 0, limit: 10 })).total).toBe(2);
    });

    it('keeps the limit when many creations race', async () => {
      const results = await Promise.all(Array.from({ length: 12 }, (_, index) => create(`name${index}`, `k${index}`, 'account1', 5)));
      expect(results.filter((result) => result === 'created')).toHaveLength(5);
      expect(results.filter((result) => result === 'limit-reached')).toHaveLength(7);
      expect((await repos().attributes.list('account1', { offset: 0, limit: 100 })).total).toBe(5);
    }, 30_000);

    it('lists the names of an account in creation order, with the total and offset/limit paging', async () => {
      for (const name of ['zeta', 'alpha', 'Mu', 'beta', 'omega']) await create(name);
      await create('other-account', 'k-other', 'account2');
      const all = await repos().attributes.list('account1', { offset: 0, limit: 100 });
      expect(all).toEqual({
        results: ['zeta', 'alpha', 'Mu', 'beta', 'omega'].map((name) => ({ key: `key-${name}`, name })),
        total: 5,
      });
      expect(await repos().attributes.list('account1', { offset: 1, limit: 2 })).toEqual({
        results: [{ key: 'key-alpha', name: 'alpha' }, { key: 'key-Mu', name: 'Mu' }],
        total: 5,
      });
      expect(await repos().attributes.list('account1', { offset: 5, limit: 2 })).toEqual({ results: [], total: 5 });
      expect(await repos().attributes.list('account9', { offset: 0, limit: 2 })).toEqual({ results: [], total: 0 });
    });

    it('renames a name, refusing a duplicate ignoring case and unknown keys', async () => {
      await create('department', 'k1');
      await create('division', 'k2');
      expect(await repos().attributes.rename('account1', 'k1', 'dept')).toBe('renamed');
      expect(await repos().attributes.find('account1', 'k1')).toEqual({ key: 'k1', name: 'dept' });
      expect(await repos().attributes.rename('account1', 'k1', 'DEPT')).toBe('renamed');
      expect(await repos().attributes.rename('account1', 'k1', 'Division')).toBe('duplicate-name');
      expect(await repos().attributes.find('account1', 'k1')).toEqual({ key: 'k1', name: 'DEPT' });
      expect(await repos().attributes.rename('account1', 'k9', 'x')).toBe('not-found');
      expect(await repos().attributes.rename('account2', 'k1', 'x')).toBe('not-found');
      // The old name is free again.
      expect(await create('department', 'k3')).toBe('created');
      // Renaming keeps the creation order.
      const names = (await repos().attributes.list('account1', { offset: 0, limit: 10 })).results.map((attribute) => attribute.name);
      expect(names).toEqual(['DEPT', 'division', 'department']);
    });

    it('deletes a name with every user\'s value of it, and frees the name', async () => {
      await repos().accounts.setMembership('account1', 'user1', 'member');
      await repos().accounts.setMembership('account1', 'user2', 'member');
      await create('department', 'k1');
      await create('division', 'k2');
      await repos().attributes.setUserValues('account1', 'user1', [{ key: 'k1', value: 'Sales' }, { key: 'k2', value: 'North' }]);
      await repos().attributes.setUserValues('account1', 'user2', [{ key: 'k1', value: 'Legal' }]);

      expect(await repos().attributes.delete('account1', 'k1')).toBe(true);

      expect(await repos().attributes.find('account1', 'k1')).toBeUndefined();
      expect(await repos().attributes.listUserValues('account1', 'user1')).toEqual([{ key: 'k2', name: 'division', value: 'North' }]);
      expect(await repos().attributes.listUserValues('account1', 'user2')).toEqual([]);
      expect(await repos().attributes.delete('account1', 'k1')).toBe(false);
      expect(await repos().attributes.delete('account2', 'k2')).toBe(false);
      expect(await create('Department', 'k3')).toBe('created');
      expect(await repos().attributes.listUserValues('account1', 'user2')).toEqual([]);
    });

    it('sets, overwrites and removes (null) a user\'s values, listed in the names\' creation order', async () => {
      await create('zeta', 'kz');
      await create('alpha', 'ka');
      await create('mid', 'km');
      expect(await repos().attributes.setUserValues('account1', 'user1', [{ key: 'km', value: 'm1' }, { key: 'kz', value: 'z1' }])).toEqual({ unknownKeys: [] });
      expect(await repos().attributes.setUserValues('account1', 'user1', [{ key: 'ka', value: 'a1' }, { key: 'km', value: 'm2' }])).toEqual({ unknownKeys: [] });
      expect(await repos().attributes.listUserValues('account1', 'user1')).toEqual([
        { key: 'kz', name: 'zeta', value: 'z1' },
        { key: 'ka', name: 'alpha', value: 'a1' },
        { key: 'km', name: 'mid', value: 'm2' },
      ]);
      expect(await repos().attributes.setUserValues('account1', 'user1', [{ key: 'kz', value: null }, { key: 'ka', value: '' }])).toEqual({ unknownKeys: [] });
      expect(await repos().attributes.listUserValues('account1', 'user1')).toEqual([
        { key: 'ka', name: 'alpha', value: '' },
        { key: 'km', name: 'mid', value: 'm2' },
      ]);
      // Removing a value that is not set is harmless.
      expect(await repos().attributes.setUserValues('account1', 'user1', [{ key: 'kz', value: null }])).toEqual({ unknownKeys: [] });
      expect(await repos().attributes.setUserValues('account1', 'user1', [])).toEqual({ unknownKeys: [] });
      expect(await repos().attributes.listUserValues('account1', 'user2')).toEqual([]);
      expect(await repos().attributes.listUserValues('account2', 'user1')).toEqual([]);
    });

    it('writes nothing when a key is unknown in the account, and returns the unknown keys', async () => {
      await create('department', 'k1');
      await create('division', 'k2');
      await create('elsewhere', 'k-elsewhere', 'account2');
      await repos().attributes.setUserValues('account1', 'user1', [{ key: 'k2', value: 'before' }]);

      const result = await repos().attributes.setUserValues('account1', 'user1', [
        { key: 'k1', value: 'Sales' },
        { key: 'nope', value: 'x' },
        { key: 'k2', value: null },
        { key: 'k-elsewhere', value: 'y' },
      ]);

      expect([...result.unknownKeys].sort()).toEqual(['k-elsewhere', 'nope']);
      expect(await repos().attributes.listUserValues('account1', 'user1')).toEqual([{ key: 'k2', name: 'division', value: 'before' }]);
    });

    it('round-trips long values and names with any characters', async () => {
      const name = 'Straße — Ünïcode 名前';
      const value = `${'x'.repeat(1000)}\u00e9\u{1F680}"'\\`;
      await create(name, 'k1');
      await repos().attributes.setUserValues('account1', 'user1', [{ key: 'k1', value }]);
      expect(await repos().attributes.listUserValues('account1', 'user1')).toEqual([{ key: 'k1', name, value }]);
    });
  });

  describe('messages', () => {
    const save = async (...messages: Message[]): Promise<void> => {
      for (const message of messages) await repos().messages.save(message);
    };
    const ids = (messages: Message[]): string[] => messages.map((message) => message.id);

    it('round-trips a message, contacts in order and time to the millisecond', async () => {
      const message = aMessage('m1', at(10, 123), { status: 'QUEUED' });
      await save(message);
      expect(await repos().messages.listByOwner('+15550000001', { limit: 10 })).toEqual([message]);
      expect(await repos().messages.listByOwner('+15550000002', { limit: 10 })).toEqual([]);
    });

    it('lists an owner\'s messages newest first, up to the limit', async () => {
      await save(
        aMessage('m1', at(1)),
        aMessage('m3', at(3)),
        aMessage('m2', at(2)),
        aMessage('x9', at(9), { ownerPhoneNumber: '+15550000002' }),
        aMessage('m4', at(4)),
      );
      expect(ids(await repos().messages.listByOwner('+15550000001', { limit: 10 }))).toEqual(['m4', 'm3', 'm2', 'm1']);
      expect(ids(await repos().messages.listByOwner('+15550000001', { limit: 2 }))).toEqual(['m4', 'm3']);
    });

    it('pages strictly after the `before` cursor, breaking equal timestamps by id', async () => {
      // Same millisecond: the id decides (descending), compared as plain strings.
      await save(aMessage('B', at(5)), aMessage('a', at(5)), aMessage('C', at(5)), aMessage('m1', at(1)), aMessage('m9', at(9)));
      const newestFirst = ['m9', 'a', 'C', 'B', 'm1'];
      expect(ids(await repos().messages.listByOwner('+15550000001', { limit: 10 }))).toEqual(newestFirst);
      expect(ids(await repos().messages.listByOwner('+15550000001', { limit: 10, before: { timestamp: at(5), id: 'C' } }))).toEqual(['B', 'm1']);
      expect(ids(await repos().messages.listByOwner('+15550000001', { limit: 10, before: { timestamp: at(9), id: 'm9' } }))).toEqual(newestFirst.slice(1));
      expect(ids(await repos().messages.listByOwner('+15550000001', { limit: 10, before: { timestamp: at(1), id: 'm1' } }))).toEqual([]);

      const paged: string[] = [];
      let before: { timestamp: Date; id: string } | undefined;
      for (let page = 0; page < 5; page += 1) {
        const rows = await repos().messages.listByOwner('+15550000001', { limit: 2, ...(before ? { before } : {}) });
        paged.push(...ids(rows));
        const last = rows[rows.length - 1];
        if (!last) break;
        before = { timestamp: last.timestamp, id: last.id };
      }
      expect(paged).toEqual(newestFirst);
    });
  });
}
