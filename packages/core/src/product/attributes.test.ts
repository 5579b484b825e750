import { describe, expect, it } from 'vitest';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { expectDomainError } from '../test-support/rejections.js';

async function setup(maxAttributesPerAccount = 500) {
  const t = await createTestGatehouse({ settings: { maxAttributesPerAccount } });
  const account = await t.seedAccount('Acme');
  const otherAccount = await t.seedAccount('Globex');
  const admin = await t.seedUser({ accountKey: account.accountKey, role: 'admin' });
  const member = await t.seedUser({ accountKey: account.accountKey, role: 'member' });
  const outsider = await t.seedUser({ accountKey: otherAccount.accountKey, role: 'admin' });
  const scope = { actorUserKey: admin.userKey, accountKey: account.accountKey };
  return { t, account, otherAccount, admin, member, outsider, scope };
}

describe('attribute names', () => {
  it('creates a trimmed name with an opaque key, and reads it back', async () => {
    const { t, scope } = await setup();
    const created = await t.product.createAttribute({ ...scope, name: '  department  ' });
    expect(created).toEqual({ key: expect.stringMatching(/^[A-Za-z0-9]+$/), name: 'department' });
    expect(await t.product.getAttribute({ ...scope, key: created.key })).toEqual(created);
    expect(await t.product.listAttributes(scope)).toEqual({ results: [created], total: 1 });
  });

  it('accepts 1 and 64 characters (counted as characters, not UTF-16 units) and refuses 0 and 65', async () => {
    const { t, scope } = await setup();
    expect((await t.product.createAttribute({ ...scope, name: 'a' })).name).toBe('a');
    expect((await t.product.createAttribute({ ...scope, name: 'b'.repeat(64) })).name).toHaveLength(64);
    expect((await t.product.createAttribute({ ...scope, name: '😀'.repeat(64) })).name).toBe('😀'.repeat(64));
    await expectDomainError(t.product.createAttribute({ ...scope, name: '' }), 'invalid', 'name');
    await expectDomainError(t.product.createAttribute({ ...scope, name: '   ' }), 'invalid', 'name');
    await expectDomainError(t.product.createAttribute({ ...scope, name: 'c'.repeat(65) }), 'invalid', 'name');
    expect((await t.product.listAttributes(scope)).total).toBe(3);
  });

  it('refuses control characters', async () => {
    const { t, scope } = await setup();
    for (const name of ['tab\there', 'new\nline', 'nul\u0000', 'del\u007f', 'c1\u0085']) {
      await expectDomainError(t.product.createAttribute({ ...scope, name }), 'invalid', 'name');
    }
    expect((await t.product.listAttributes(scope)).total).toBe(0);
  });

  it('composes a name (NFC) and refuses lone surrogates and invisible format characters, but not the joiners (docs/decisions/0190)', async () => {
    const { t, scope } = await setup();
    expect((await t.product.createAttribute({ ...scope, name: 'Cafe\u0301' })).name).toBe('Caf\u00e9');
    // …and what draws nothing although Unicode counts it a letter, mark or symbol (Hangul fillers,
    // the combining grapheme joiner, variation selectors, the Braille blank), and private use.
    const drawNothing = ['department\u3164', 'department\u034f', 'department\ufe00', '\u3164', '\u115f', '\u2800', 'department\u2800', 'x\ue000'];
    for (const name of ['a\ud800', 'a\udc00', 'department\u200b', '\u200b', '\u202edepartment', 'soft\u00adhyphen', 'b\ufeffom', ...drawNothing]) {
      await expectDomainError(t.product.createAttribute({ ...scope, name }), 'invalid', 'name');
    }
    // Persian needs the zero-width non-joiner, emoji sequences the joiner.
    expect((await t.product.createAttribute({ ...scope, name: 'می\u200cخواهم' })).name).toBe('می\u200cخواهم');
    expect((await t.product.createAttribute({ ...scope, name: 'team 👩\u200d💻' })).name).toBe('team 👩\u200d💻');
    expect((await t.product.listAttributes(scope)).total).toBe(3);
  });

  it('keeps names unique as a reader tells them apart: case folded beyond ASCII (ß and SS), compatibility forms (ﬀ and FF), joiners ignored (docs/decisions/0190)', async () => {
    const { t, scope } = await setup();
    await t.product.createAttribute({ ...scope, name: 'Straße' });
    await t.product.createAttribute({ ...scope, name: 'ﬀ' });
    await t.product.createAttribute({ ...scope, name: 'ΟΔΟΣ' });
    const taken = await t.product.createAttribute({ ...scope, name: 'team' });
    for (const name of ['STRASSE', 'strasse', 'FF', 'οδος', 'οδοσ', 'te\u200dam', 'ｔｅａｍ']) {
      await expectDomainError(t.product.createAttribute({ ...scope, name }), 'conflict');
    }
    const other = await t.product.createAttribute({ ...scope, name: 'other' });
    await expectDomainError(t.product.renameAttribute({ ...scope, key: other.key, name: 'TEAM' }), 'conflict');
    expect((await t.product.renameAttribute({ ...scope, key: taken.key, name: 'TEAM' })).name).toBe('TEAM');
  });

  it('keeps names unique per account ignoring case, on create and on rename', async () => {
    const { t, scope, outsider, otherAccount } = await setup();
    const department = await t.product.createAttribute({ ...scope, name: 'Department' });
    const division = await t.product.createAttribute({ ...scope, name: 'division' });
    const conflict = await expectDomainError(t.product.createAttribute({ ...scope, name: 'DEPARTMENT' }), 'conflict', 'name');
    expect(conflict.message).toContain('DEPARTMENT');
    await expectDomainError(t.product.createAttribute({ ...scope, name: ' department ' }), 'conflict');
    await expectDomainError(t.product.renameAttribute({ ...scope, key: division.key, name: 'department' }), 'conflict', 'name');
    // Another account may use the same name.
    expect((await t.product.createAttribute({ actorUserKey: outsider.userKey, accountKey: otherAccount.accountKey, name: 'department' })).name).toBe('department');
    // Renaming to a new case of its own name is fine.
    expect(await t.product.renameAttribute({ ...scope, key: department.key, name: 'DEPARTMENT' })).toEqual({ key: department.key, name: 'DEPARTMENT' });
  });

  it('stops at the per-account limit', async () => {
    const { t, scope, outsider, otherAccount } = await setup(2);
    await t.product.createAttribute({ ...scope, name: 'one' });
    const two = await t.product.createAttribute({ ...scope, name: 'two' });
    const full = await expectDomainError(t.product.createAttribute({ ...scope, name: 'three' }), 'conflict');
    expect(full.message).toContain('2');
    // The limit is per account.
    await t.product.createAttribute({ actorUserKey: outsider.userKey, accountKey: otherAccount.accountKey, name: 'one' });
    // Deleting one frees a place.
    await t.product.deleteAttribute({ ...scope, key: two.key });
    expect((await t.product.createAttribute({ ...scope, name: 'three' })).name).toBe('three');
  });

  it('renames, validating the new name, and is not_found for an unknown key', async () => {
    const { t, scope } = await setup();
    const created = await t.product.createAttribute({ ...scope, name: 'department' });
    expect(await t.product.renameAttribute({ ...scope, key: created.key, name: ' dept ' })).toEqual({ key: created.key, name: 'dept' });
    expect(await t.product.getAttribute({ ...scope, key: created.key })).toEqual({ key: created.key, name: 'dept' });
    await expectDomainError(t.product.renameAttribute({ ...scope, key: created.key, name: 'x'.repeat(65) }), 'invalid', 'name');
    await expectDomainError(t.product.renameAttribute({ ...scope, key: 'unknown', name: 'other' }), 'not_found');
    await expectDomainError(t.product.getAttribute({ ...scope, key: 'unknown' }), 'not_found');
  });

  it('lists in creation order with offset and pageSize, and validates them', async () => {
    const { t, scope } = await setup();
    const names = ['a', 'b', 'c', 'd', 'e'];
    const created = [];
    for (const name of names) created.push(await t.product.createAttribute({ ...scope, name }));
    expect(await t.product.listAttributes({ ...scope, offset: 1, pageSize: 2 })).toEqual({ results: created.slice(1, 3), total: 5 });
    expect(await t.product.listAttributes({ ...scope, offset: 4 })).toEqual({ results: created.slice(4), total: 5 });
    expect(await t.product.listAttributes({ ...scope, offset: 10 })).toEqual({ results: [], total: 5 });
    expect((await t.product.listAttributes({ ...scope, pageSize: 1000 })).results).toHaveLength(5);
    await expectDomainError(t.product.listAttributes({ ...scope, offset: -1 }), 'invalid', 'offset');
    await expectDomainError(t.product.listAttributes({ ...scope, offset: 1.5 }), 'invalid', 'offset');
    await expectDomainError(t.product.listAttributes({ ...scope, pageSize: 0 }), 'invalid', 'pageSize');
    await expectDomainError(t.product.listAttributes({ ...scope, pageSize: 1001 }), 'invalid', 'pageSize');
    await expectDomainError(t.product.listAttributes({ ...scope, pageSize: Number.NaN }), 'invalid', 'pageSize');
  });

  it('deletes a name with every user\'s value of it', async () => {
    const { t, scope, admin, member } = await setup();
    const department = await t.product.createAttribute({ ...scope, name: 'department' });
    const division = await t.product.createAttribute({ ...scope, name: 'division' });
    for (const user of [admin, member]) {
      await t.product.setUserAttributes({ ...scope, userKey: user.userKey, values: [{ key: department.key, value: 'Sales' }, { key: division.key, value: 'EMEA' }] });
    }
    await t.product.deleteAttribute({ ...scope, key: department.key });
    for (const user of [admin, member]) {
      expect(await t.product.getUserAttributes({ ...scope, userKey: user.userKey })).toEqual([{ key: division.key, name: 'division', value: 'EMEA' }]);
    }
    await expectDomainError(t.product.getAttribute({ ...scope, key: department.key }), 'not_found');
    await expectDomainError(t.product.deleteAttribute({ ...scope, key: department.key }), 'not_found');
    // A new name of the same spelling starts without values.
    const again = await t.product.createAttribute({ ...scope, name: 'department' });
    expect((await t.product.getUserAttributes({ ...scope, userKey: member.userKey })).map((value) => value.key)).not.toContain(again.key);
  });
});

describe('user attribute values', () => {
  async function withNames() {
    const context = await setup();
    const department = await context.t.product.createAttribute({ ...context.scope, name: 'department' });
    const division = await context.t.product.createAttribute({ ...context.scope, name: 'division' });
    return { ...context, department, division };
  }

  it('sets values and reads them back in the names\' creation order', async () => {
    const { t, scope, member, department, division } = await withNames();
    await t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [{ key: division.key, value: 'EMEA' }, { key: department.key, value: 'Sales' }] });
    expect(await t.product.getUserAttributes({ ...scope, userKey: member.userKey })).toEqual([
      { key: department.key, name: 'department', value: 'Sales' },
      { key: division.key, name: 'division', value: 'EMEA' },
    ]);
    // Setting again overwrites; values not listed stay.
    await t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [{ key: department.key, value: 'Support' }] });
    expect((await t.product.getUserAttributes({ ...scope, userKey: member.userKey })).map((value) => value.value)).toEqual(['Support', 'EMEA']);
  });

  it('removes a value with null, and an empty list changes nothing', async () => {
    const { t, scope, member, department, division } = await withNames();
    await t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [{ key: department.key, value: 'Sales' }, { key: division.key, value: 'EMEA' }] });
    await t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [{ key: department.key, value: null }] });
    await t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [] });
    expect(await t.product.getUserAttributes({ ...scope, userKey: member.userKey })).toEqual([{ key: division.key, name: 'division', value: 'EMEA' }]);
  });

  it('is all or nothing: an unknown key is named and nothing is written', async () => {
    const { t, scope, member, department, division } = await withNames();
    await t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [{ key: division.key, value: 'EMEA' }] });
    const error = await expectDomainError(
      t.product.setUserAttributes({
        ...scope,
        userKey: member.userKey,
        values: [{ key: department.key, value: 'Sales' }, { key: 'no-such-key', value: 'x' }, { key: division.key, value: null }],
      }),
      'invalid',
    );
    expect(error.message).toContain('no-such-key');
    expect(await t.product.getUserAttributes({ ...scope, userKey: member.userKey })).toEqual([{ key: division.key, name: 'division', value: 'EMEA' }]);
  });

  it('refuses a key of another account as unknown', async () => {
    const { t, scope, member, outsider, otherAccount } = await withNames();
    const foreign = await t.product.createAttribute({ actorUserKey: outsider.userKey, accountKey: otherAccount.accountKey, name: 'secret' });
    const error = await expectDomainError(t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [{ key: foreign.key, value: 'x' }] }), 'invalid');
    expect(error.message).toContain(foreign.key);
  });

  it('refuses the same key twice in one request, and a value over 1024 characters', async () => {
    const { t, scope, member, department, division } = await withNames();
    const twice = await expectDomainError(
      t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [{ key: department.key, value: 'a' }, { key: department.key, value: 'b' }] }),
      'invalid',
      '[1].key',
    );
    expect(twice.message).toContain(department.key);
    await expectDomainError(
      t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [{ key: division.key, value: 'ok' }, { key: department.key, value: 'x'.repeat(1025) }] }),
      'invalid',
      '[1].value',
    );
    expect(await t.product.getUserAttributes({ ...scope, userKey: member.userKey })).toEqual([]);
    await t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [{ key: department.key, value: 'x'.repeat(1024) }] });
    expect((await t.product.getUserAttributes({ ...scope, userKey: member.userKey }))[0]?.value).toHaveLength(1024);
    // Counted in characters: 1024 emoji (2048 UTF-16 units) fit.
    await t.product.setUserAttributes({ ...scope, userKey: member.userKey, values: [{ key: division.key, value: '😀'.repeat(1024) }] });
    expect((await t.product.getUserAttributes({ ...scope, userKey: member.userKey }))[1]?.value).toBe('😀'.repeat(1024));
  });

  it('refuses more entries than the account may have names', async () => {
    const t = await createTestGatehouse({ settings: { maxAttributesPerAccount: 2 } });
    const account = await t.seedAccount();
    const admin = await t.seedUser({ accountKey: account.accountKey, role: 'admin' });
    const scope = { actorUserKey: admin.userKey, accountKey: account.accountKey };
    await expectDomainError(
      t.product.setUserAttributes({ ...scope, userKey: admin.userKey, values: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }, { key: 'c', value: '3' }] }),
      'invalid',
      'body',
    );
  });

  it('keeps values per account', async () => {
    const { t, scope, account, department } = await withNames();
    const second = await t.seedAccount('Second');
    const user = await t.seedUser({ accountKey: account.accountKey, role: 'member' });
    const admin2 = await t.seedUser({ accountKey: second.accountKey, role: 'admin' });
    await t.product.setMembership({ accountKey: second.accountKey, userKey: user.userKey, role: 'member' });
    await t.product.setUserAttributes({ ...scope, userKey: user.userKey, values: [{ key: department.key, value: 'Sales' }] });
    expect(await t.product.getUserAttributes({ actorUserKey: admin2.userKey, accountKey: second.accountKey, userKey: user.userKey })).toEqual([]);
  });

  it('is not_found for a user who is not in the account', async () => {
    const { t, scope, outsider, department } = await withNames();
    await expectDomainError(t.product.setUserAttributes({ ...scope, userKey: outsider.userKey, values: [{ key: department.key, value: 'x' }] }), 'not_found');
    await expectDomainError(t.product.getUserAttributes({ ...scope, userKey: outsider.userKey }), 'not_found');
    await expectDomainError(t.product.getUserAttributes({ ...scope, userKey: 'nobody' }), 'not_found');
  });
});

describe('who may administer attributes', () => {
  it('a member without the admin role is forbidden from every operation', async () => {
    const { t, scope, account, member } = await setup();
    const created = await t.product.createAttribute({ ...scope, name: 'department' });
    const as = { actorUserKey: member.userKey, accountKey: account.accountKey };
    await expectDomainError(t.product.createAttribute({ ...as, name: 'x' }), 'forbidden');
    await expectDomainError(t.product.listAttributes(as), 'forbidden');
    await expectDomainError(t.product.getAttribute({ ...as, key: created.key }), 'forbidden');
    await expectDomainError(t.product.renameAttribute({ ...as, key: created.key, name: 'y' }), 'forbidden');
    await expectDomainError(t.product.deleteAttribute({ ...as, key: created.key }), 'forbidden');
    await expectDomainError(t.product.setUserAttributes({ ...as, userKey: member.userKey, values: [{ key: created.key, value: 'v' }] }), 'forbidden');
    await expectDomainError(t.product.getUserAttributes({ ...as, userKey: member.userKey }), 'forbidden');
    expect(await t.product.listAttributes(scope)).toEqual({ results: [created], total: 1 });
  });

  it('a non-member and an unknown account are both not_found, with the same message', async () => {
    const { t, scope, account, outsider } = await setup();
    const created = await t.product.createAttribute({ ...scope, name: 'department' });
    const stranger = { actorUserKey: outsider.userKey, accountKey: account.accountKey };
    const unknown = { actorUserKey: outsider.userKey, accountKey: 'no-such-account' };
    const a = await expectDomainError(t.product.listAttributes(stranger), 'not_found');
    const b = await expectDomainError(t.product.listAttributes(unknown), 'not_found');
    expect(a.message).toBe(b.message);
    await expectDomainError(t.product.getAttribute({ ...stranger, key: created.key }), 'not_found');
    await expectDomainError(t.product.renameAttribute({ ...stranger, key: created.key, name: 'y' }), 'not_found');
    await expectDomainError(t.product.deleteAttribute({ ...stranger, key: created.key }), 'not_found');
    await expectDomainError(t.product.createAttribute({ ...unknown, name: 'x' }), 'not_found');
    expect((await t.product.getAttribute({ ...scope, key: created.key })).name).toBe('department');
  });

  it('an attribute key of another account is not_found in this one', async () => {
    const { t, scope, outsider, otherAccount } = await setup();
    const foreign = await t.product.createAttribute({ actorUserKey: outsider.userKey, accountKey: otherAccount.accountKey, name: 'department' });
    await expectDomainError(t.product.getAttribute({ ...scope, key: foreign.key }), 'not_found');
    await expectDomainError(t.product.renameAttribute({ ...scope, key: foreign.key, name: 'mine' }), 'not_found');
    await expectDomainError(t.product.deleteAttribute({ ...scope, key: foreign.key }), 'not_found');
    expect(await t.product.getAttribute({ actorUserKey: outsider.userKey, accountKey: otherAccount.accountKey, key: foreign.key })).toEqual(foreign);
  });
});
