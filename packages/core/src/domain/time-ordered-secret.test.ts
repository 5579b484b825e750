import { describe, expect, it } from 'vitest';
import { randomIdGenerator, sha256 } from '../crypto.js';
import { storedSecretHash, timeOrderedSecret } from './time-ordered-secret.js';

describe('timeOrderedSecret', () => {
  it('is the millisecond in eight base-62 digits, an underscore, then the generator’s secret', () => {
    const secret = timeOrderedSecret(new Date('2026-01-01T00:00:00Z'), { id: () => 'unused', secret: () => 'S'.repeat(43) });
    expect(secret).toBe(`0V70MWDg_${'S'.repeat(43)}`);
  });

  it('keeps the generator’s ≥ 256 bits: a thousand secrets of one millisecond are all different', () => {
    const now = new Date('2026-11-23T04:00:00.123Z');
    const secrets = Array.from({ length: 1000 }, () => timeOrderedSecret(now, randomIdGenerator));
    expect(new Set(secrets).size).toBe(1000);
    for (const secret of secrets) expect(secret).toMatch(/^[0-9A-Za-z]{8}_[0-9A-Za-z]{43}$/);
  });
});

describe('storedSecretHash', () => {
  it('keeps a time-ordered secret’s prefix in front of the SHA-256 of the whole secret', () => {
    const secret = timeOrderedSecret(new Date('2026-01-01T00:00:00Z'), randomIdGenerator);
    expect(storedSecretHash(secret)).toBe(`0V70MWDg_${sha256(secret)}`);
    // Nothing of the random part is kept but through the hash.
    expect(storedSecretHash(secret)).not.toContain(secret.slice(9, 20));
  });

  it('stores the hashes of later secrets after earlier ones (bytewise, as SQLite and PostgreSQL "C" sort)', () => {
    const times = [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, Date.UTC(2026, 10, 23), Date.UTC(2030, 5, 1)];
    const hashes = times.map((time) => storedSecretHash(timeOrderedSecret(new Date(time), randomIdGenerator)));
    const sorted = [...hashes].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(sorted).toEqual(hashes);
  });

  it('gives a secret of the earlier shape the plain SHA-256 it was stored with', () => {
    const legacy = randomIdGenerator.secret();
    expect(storedSecretHash(legacy)).toBe(sha256(legacy));
    // Shapes that only look close are not time-ordered either: no separator, or nothing after it.
    expect(storedSecretHash('0V70MWDgX' + 'a'.repeat(42))).toBe(sha256('0V70MWDgX' + 'a'.repeat(42)));
    expect(storedSecretHash('0V70MWDg_')).toBe(sha256('0V70MWDg_'));
    expect(storedSecretHash('0V70MW-g_abc')).toBe(sha256('0V70MW-g_abc'));
  });

  it('gives different secrets of the same millisecond different hashes', () => {
    const now = new Date('2026-11-23T04:00:00Z');
    const a = timeOrderedSecret(now, randomIdGenerator);
    const b = timeOrderedSecret(now, randomIdGenerator);
    expect(storedSecretHash(a)).not.toBe(storedSecretHash(b));
    expect(storedSecretHash(a).slice(0, 9)).toBe(storedSecretHash(b).slice(0, 9));
  });
});
