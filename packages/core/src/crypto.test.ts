import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, createScryptPasswordHasher, DEFAULT_SCRYPT_PARAMETERS, randomAlphanumeric, randomIdGenerator, sha256 } from './crypto.js';

describe('crypto helpers', () => {
  it('sha256 is the base64url SHA-256 of the UTF-8 value', () => {
    expect(sha256('abc')).toBe(createHash('sha256').update('abc').digest('base64url'));
    expect(sha256('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(sha256('é€')).toBe(createHash('sha256').update('é€', 'utf8').digest('base64url'));
  });

  it('constantTimeEqual compares whole strings of any length', () => {
    expect(constantTimeEqual('same', 'same')).toBe(true);
    expect(constantTimeEqual('same', 'sane')).toBe(false);
    expect(constantTimeEqual('short', 'longer value')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
  });

  it('generates [A-Za-z0-9] ids of 22 and secrets of 43 characters, all different', () => {
    const secrets = new Set(Array.from({ length: 200 }, () => randomIdGenerator.secret()));
    expect(secrets.size).toBe(200);
    for (const secret of secrets) expect(secret).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(randomIdGenerator.id()).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(randomAlphanumeric(1000)).toMatch(/^[A-Za-z0-9]{1000}$/);
  });

  it('uses every alphanumeric character (no truncated alphabet)', () => {
    expect(new Set(randomAlphanumeric(5000)).size).toBe(62);
  });

  it('draws every character equally often across many refills of the byte pool', () => {
    // 124,000 characters use about 32 pools of 4096 bytes; each character is expected 2000 times.
    const counts = new Map<string, number>();
    for (const character of randomAlphanumeric(124_000)) counts.set(character, (counts.get(character) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // ±9 standard deviations (σ ≈ 44): a biased or repeating pool lands far outside.
    for (const count of counts.values()) expect(Math.abs(count - 2000)).toBeLessThan(400);
    const ids = Array.from({ length: 5000 }, () => randomIdGenerator.id());
    expect(new Set(ids).size).toBe(5000);
  });
});

describe('scrypt password hasher', () => {
  // Small cost parameters keep the test fast; the format and the verification are the same.
  const hasher = createScryptPasswordHasher({ N: 1024, r: 8, p: 1 });

  it('verifies the right password only, with a salt per hash', async () => {
    const first = await hasher.hash('correct horse');
    const second = await hasher.hash('correct horse');
    expect(first).toMatch(/^scrypt\$1024\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain('correct horse');
    expect(await hasher.verify('correct horse', first)).toBe(true);
    expect(await hasher.verify('correct horse', second)).toBe(true);
    expect(await hasher.verify('wrong horse', first)).toBe(false);
  });

  it('reads the cost from the stored hash, so raising it later keeps old hashes working', async () => {
    const stored = await hasher.hash('correct horse');
    expect(await createScryptPasswordHasher({ N: 2048, r: 8, p: 1 }).verify('correct horse', stored)).toBe(true);
  });

  it('normalizes the password (NFKC) and refuses malformed hashes', async () => {
    const stored = await hasher.hash('caf\u00e9');
    expect(await hasher.verify('cafe\u0301', stored)).toBe(true);
    for (const bad of ['', 'bcrypt$x', 'scrypt$1024$8$1$salt', 'plain']) expect(await hasher.verify('x', bad)).toBe(false);
  });

  it('asks for a new hash when a stored one has another cost or is not scrypt', async () => {
    const stored = await hasher.hash('correct horse');
    expect(hasher.needsRehash(stored)).toBe(false);
    expect(createScryptPasswordHasher({ N: 2048, r: 8, p: 1 }).needsRehash(stored)).toBe(true);
    expect(createScryptPasswordHasher({ N: 1024, r: 16, p: 1 }).needsRehash(stored)).toBe(true);
    expect(createScryptPasswordHasher({ N: 1024, r: 8, p: 2 }).needsRehash(stored)).toBe(true);
    for (const other of ['', 'bcrypt$x', 'plain']) expect(hasher.needsRehash(other)).toBe(true);
  });
});

describe('scrypt password hasher defaults', () => {
  it('meets the OWASP minimum for scrypt: N=2^17, r=8, p=1 (docs/security.md)', async () => {
    expect(DEFAULT_SCRYPT_PARAMETERS).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    const strong = createScryptPasswordHasher();
    // One real hash at full cost: ~128 MiB of memory, which node:crypto refuses without a raised maxmem.
    const stored = await strong.hash('correct horse');
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(await strong.verify('correct horse', stored)).toBe(true);
    expect(strong.needsRehash(stored)).toBe(false);
  });

  it('asks for a new hash of the hashes made with the former default cost (N=2^14), which still verify', async () => {
    const former = await createScryptPasswordHasher({ N: 2 ** 14, r: 8, p: 1 }).hash('correct horse');
    const strong = createScryptPasswordHasher();
    expect(strong.needsRehash(former)).toBe(true);
    expect(await strong.verify('correct horse', former)).toBe(true);
  });

  it('refuses cost parameters node:crypto cannot use', () => {
    expect(() => createScryptPasswordHasher({ N: 1000, r: 8, p: 1 })).toThrow(/power of two/);
    expect(() => createScryptPasswordHasher({ N: 1024, r: 0, p: 1 })).toThrow();
  });
});
