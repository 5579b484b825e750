import { createScryptPasswordHasher } from '@gatehouse/core';
import { createTestGatehouse } from '@gatehouse/core/testing';
import { describe, expect, it } from 'vitest';
import { createArgon2PasswordHasher, createTurns, DEFAULT_ARGON2_PARAMETERS } from './argon2-hasher.js';

// A cheaper cost for the tests' speed; the default's own check is the first test.
const CHEAP = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

describe('createArgon2PasswordHasher', () => {
  it('hashes with argon2id at OWASP\'s cost by default (19 MiB, t=2, p=1), in the PHC format, and verifies', async () => {
    const hasher = createArgon2PasswordHasher();
    const stored = await hasher.hash('correct horse');
    expect(DEFAULT_ARGON2_PARAMETERS).toEqual({ memoryCost: 19456, timeCost: 2, parallelism: 1 });
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(await hasher.verify('correct horse', stored)).toBe(true);
    expect(await hasher.verify('correct horse!', stored)).toBe(false);
    expect(hasher.needsRehash(stored)).toBe(false);
  });

  it('salts each hash', async () => {
    const hasher = createArgon2PasswordHasher({ parameters: CHEAP });
    expect(await hasher.hash('same')).not.toBe(await hasher.hash('same'));
  });

  it('verifies the scrypt hashes stored before, and says they need a rehash; another cost needs one too', async () => {
    const legacy = await createScryptPasswordHasher({ N: 2 ** 10, r: 8, p: 1 }).hash('old password');
    const hasher = createArgon2PasswordHasher({ parameters: CHEAP });
    expect(await hasher.verify('old password', legacy)).toBe(true);
    expect(await hasher.verify('wrong', legacy)).toBe(false);
    expect(hasher.needsRehash(legacy)).toBe(true);
    expect(hasher.needsRehash(await createArgon2PasswordHasher({ parameters: { ...CHEAP, timeCost: 2 } }).hash('x'))).toBe(true);
  });

  it('answers false, never throws, for a stored hash it cannot read', async () => {
    const hasher = createArgon2PasswordHasher({ parameters: CHEAP });
    for (const stored of ['', 'plain', '$argon2id$v=19$m=1024,t=1,p=1$broken', '$argon2i$v=19$m=1024,t=1,p=1$c2FsdHNhbHQ$aGFzaA', 'scrypt$x']) {
      expect(await hasher.verify('password', stored)).toBe(false);
    }
  });

  it('refuses costs argon2id does not allow', () => {
    expect(() => createArgon2PasswordHasher({ parameters: { memoryCost: 4, timeCost: 1, parallelism: 1 } })).toThrow(RangeError);
    expect(() => createArgon2PasswordHasher({ parameters: { ...CHEAP, timeCost: 0 } })).toThrow(RangeError);
    expect(() => createArgon2PasswordHasher({ maxConcurrent: 0 })).toThrow(RangeError);
  });

  it('replaces a scrypt hash by an argon2id one at the user\'s next successful sign-in (through the core)', async () => {
    const t = await createTestGatehouse({ passwords: createArgon2PasswordHasher({ parameters: CHEAP }) });
    const user = await t.seedUser({ email: 'ada@example.com', password: 'old password 123' });
    const legacy = await createScryptPasswordHasher({ N: 2 ** 10, r: 8, p: 1 }).hash('old password 123');
    await t.repositories.users.updatePasswordHash(user.userKey, legacy);
    await t.gatehouse.signIn({ email: 'ada@example.com', password: 'old password 123' });
    const stored = (await t.repositories.users.findByKey(user.userKey))?.passwordHash ?? '';
    expect(stored).toMatch(/^\$argon2id\$/);
    await t.gatehouse.signIn({ email: 'ada@example.com', password: 'old password 123' });
  });
});

describe('createTurns (what bounds the hashes running at once)', () => {
  it('runs at most `limit` tasks at once, the others in the order they came', async () => {
    const turn = createTurns(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const task = (id: number) =>
      turn(async () => {
        running += 1;
        most = Math.max(most, running);
        order.push(id);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
      });
    const all = [1, 2, 3, 4, 5].map(task);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual([1, 2]);
    while (releases.length > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(all);
    expect(order).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });

  it('frees the turn of a task that failed', async () => {
    const turn = createTurns(1);
    await expect(turn(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await turn(async () => 'next')).toBe('next');
  });
});
