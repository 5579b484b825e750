import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Gatehouse } from '@gatehouse/core';
import { createControllableClock } from '@gatehouse/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { createContainer, resolve, TOKENS } from './container.js';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-user-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rolesShownBy(gatehouse: Gatehouse, userKey: string): Promise<string[]> {
  const { memberships } = await gatehouse.currentUser(userKey);
  return memberships.map(({ account, role }) => `${account.name}:${role}`);
}

describe('the server caches what Users/me shows (docs/decisions/0079-current-user-cached-in-memory.md)', () => {
  it('a membership change is seen at once by the instance that made it, within 5 s by another; the admin role check never waits', async () => {
    const clock = createControllableClock();
    const config = loadConfig({ GATEHOUSE_DB: join(dir, 'gatehouse.db'), GATEHOUSE_LOG_LEVEL: 'silent' });
    const silent = { write: () => undefined };
    const here = await createContainer(config, { logDestination: silent, clock });
    const there = await createContainer(config, { logDestination: silent, clock });
    try {
      const a: Gatehouse = resolve(here, TOKENS.gatehouse);
      const b: Gatehouse = resolve(there, TOKENS.gatehouse);
      const account = await a.createAccount({ name: 'Acme' });
      const user = await a.createUser({ email: 'cached@example.com', password: 'correct horse battery' });
      await a.setMembership({ accountKey: account.accountKey, userKey: user.userKey, role: 'member' });
      // Both instances have read the user (their caches are warm).
      expect(await rolesShownBy(a, user.userKey)).toEqual(['Acme:member']);
      expect(await rolesShownBy(b, user.userKey)).toEqual(['Acme:member']);

      await a.setMembership({ accountKey: account.accountKey, userKey: user.userKey, role: 'admin' });
      expect(await rolesShownBy(a, user.userKey)).toEqual(['Acme:admin']);
      // The other instance: the old role in Users/me until its entry is 5 s old.
      expect(await rolesShownBy(b, user.userKey)).toEqual(['Acme:member']);
      const repositories = resolve(there, TOKENS.repositories);
      expect(await repositories.accounts.findRole(account.accountKey, user.userKey)).toBe('admin');
      clock.advance(5);
      expect(await rolesShownBy(b, user.userKey)).toEqual(['Acme:admin']);
    } finally {
      await resolve(here, TOKENS.storage).close();
      await resolve(there, TOKENS.storage).close();
    }
  });
});
