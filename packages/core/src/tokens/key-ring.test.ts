import { compactVerify, SignJWT, type CryptoKey } from 'jose';
import { describe, expect, it } from 'vitest';
import { createControllableClock, createMemoryRepositories, createRecordingAuditLog, createSequentialIds } from '@gatehouse/core/testing';
import type { SigningKey } from '../domain/model.js';
import type { SigningKeyRepository } from '../ports/repositories.js';
import {
  createKeyRing,
  KEY_SET_MAX_AGE_MS,
  keyRotationTimings,
  RELOAD_ON_MISS_AT_MOST_EVERY_MS,
  signingCandidate,
  type KeyRing,
  type SigningAlgorithm,
} from './key-ring.js';

const TTL_SECONDS = 3600;
/** The JWKS lifetime of the default settings. */
const JWKS_MAX_AGE_SECONDS = 300;
const { newKeySignsAfterMs: NEW_KEY_SIGNS_AFTER_MS, retiredKeyGraceMs: RETIRED_KEY_GRACE_MS } = keyRotationTimings(JWKS_MAX_AGE_SECONDS);
const seconds = (ms: number) => ms / 1000;

/** One repository shared by several rings (instances and the `keys rotate` command), counting its reads. */
function sharedKeys(jwksMaxAgeSeconds = JWKS_MAX_AGE_SECONDS, algorithms: readonly SigningAlgorithm[] = ['ES256']) {
  const clock = createControllableClock();
  const inner = createMemoryRepositories().signingKeys;
  let reads = 0;
  const repository: SigningKeyRepository = {
    list: () => {
      reads += 1;
      return inner.list();
    },
    save: (key) => inner.save(key),
    retire: (kid, at) => inner.retire(kid, at),
    purgeRetiredBefore: (before) => inner.purgeRetiredBefore(before),
  };
  const ids = createSequentialIds();
  const ring = (kinds: readonly SigningAlgorithm[] = algorithms): KeyRing =>
    createKeyRing({ repository, clock, ids, audit: createRecordingAuditLog(), accessTokenTtlSeconds: TTL_SECONDS, jwksMaxAgeSeconds, algorithms: kinds });
  return { clock, ring, reads: () => reads, stored: () => inner.list() };
}

/** A token-shaped JWS signed by the ring's current signing key (only the header and signature matter here). */
async function signWith(ring: KeyRing, alg: SigningAlgorithm = 'ES256'): Promise<{ kid: string; jws: string }> {
  const { kid, key } = await ring.signingKey(alg);
  return { kid, jws: await new SignJWT({}).setProtectedHeader({ alg, kid }).sign(key) };
}

function key(kid: string, createdAt: number, retiredAt: number | null = null): SigningKey {
  return { kid, alg: 'ES256', publicJwk: {}, privateJwk: {}, createdAt: new Date(createdAt), retiredAt: retiredAt === null ? null : new Date(retiredAt) };
}

describe('signingCandidate', () => {
  const t = 1_000_000_000;
  it('is undefined without an active key', () => {
    expect(signingCandidate([], t, NEW_KEY_SIGNS_AFTER_MS)).toBeUndefined();
    expect(signingCandidate([key('old', 0, t - 1)], t, NEW_KEY_SIGNS_AFTER_MS)).toBeUndefined();
  });

  it('is the only key of a new database at once', () => {
    expect(signingCandidate([key('first', t)], t, NEW_KEY_SIGNS_AFTER_MS)?.kid).toBe('first');
  });

  it('after a rotation: the retired key until the new one has settled, then the new one', () => {
    const rotatedAt = t - 1000;
    const keys = [key('old', 0, rotatedAt), key('new', rotatedAt)];
    expect(signingCandidate(keys, rotatedAt, NEW_KEY_SIGNS_AFTER_MS)?.kid).toBe('old');
    expect(signingCandidate(keys, rotatedAt + NEW_KEY_SIGNS_AFTER_MS - 1, NEW_KEY_SIGNS_AFTER_MS)?.kid).toBe('old');
    expect(signingCandidate(keys, rotatedAt + NEW_KEY_SIGNS_AFTER_MS, NEW_KEY_SIGNS_AFTER_MS)?.kid).toBe('new');
  });

  it('of first keys made together by several instances: the oldest until one settles, then the newest settled; the same on every instance', () => {
    const keys = [key('b', t + 5), key('a', t)];
    expect(signingCandidate(keys, t + 6, NEW_KEY_SIGNS_AFTER_MS)?.kid).toBe('a');
    expect(signingCandidate([...keys].reverse(), t + 6, NEW_KEY_SIGNS_AFTER_MS)?.kid).toBe('a');
    expect(signingCandidate(keys, t + 5 + NEW_KEY_SIGNS_AFTER_MS, NEW_KEY_SIGNS_AFTER_MS)?.kid).toBe('b');
    const tie = [key('x', t), key('y', t)];
    expect(signingCandidate(tie, t, NEW_KEY_SIGNS_AFTER_MS)?.kid).toBe(signingCandidate([...tie].reverse(), t, NEW_KEY_SIGNS_AFTER_MS)?.kid);
  });

  it('never a key retired longer ago than the hand-over', () => {
    const keys = [key('old', 0, t - NEW_KEY_SIGNS_AFTER_MS), key('new', t - NEW_KEY_SIGNS_AFTER_MS + 1)];
    expect(signingCandidate(keys, t, NEW_KEY_SIGNS_AFTER_MS)?.kid).toBe('new');
  });
});

describe('key ring across instances', () => {
  it('`keys rotate` elsewhere: every instance publishes the new key before any signs with it, and all switch when it settles', async () => {
    const { clock, ring } = sharedKeys();
    const [a, b] = [ring(), ring()];
    const first = await signWith(a);
    expect((await signWith(b)).kid).toBe(first.kid);
    clock.advance(seconds(NEW_KEY_SIGNS_AFTER_MS) + 1);
    // B has just read the set (publishing the JWKS), so a miss right after would not reload it.
    await b.jwks();

    const { kid: newKid } = await ring().rotate();
    // Both keep signing with the retired key while the new one settles.
    expect((await signWith(a)).kid).toBe(first.kid);
    clock.advance(seconds(KEY_SET_MAX_AGE_MS));
    // Within KEY_SET_MAX_AGE_MS every instance publishes it.
    expect((await a.jwks()).keys.map((jwk) => jwk.kid)).toEqual(expect.arrayContaining([first.kid, newKid]));
    expect((await b.jwks()).keys.map((jwk) => jwk.kid)).toEqual(expect.arrayContaining([first.kid, newKid]));
    expect((await signWith(a)).kid).toBe(first.kid);

    clock.advance(seconds(NEW_KEY_SIGNS_AFTER_MS - KEY_SET_MAX_AGE_MS));
    const fromA = await signWith(a);
    const fromB = await signWith(b);
    expect([fromA.kid, fromB.kid]).toEqual([newKid, newKid]);
    expect(await a.verificationKey(newKid)).toBeDefined();
    expect(await b.verificationKey(first.kid)).toBeDefined();
  });

  it('an instance that only verifies knows a key that has settled: its set is older than the reload interval, so the miss reloads', async () => {
    const { clock, ring } = sharedKeys();
    const [signer, verifier] = [ring(), ring()];
    const first = await signWith(signer);
    clock.advance(seconds(NEW_KEY_SIGNS_AFTER_MS));
    expect(await verifier.verificationKey(first.kid)).toBeDefined();
    // The verifier read the set just before the rotation; the signer uses the new key only once it has settled.
    const { kid: newKid } = await ring().rotate();
    clock.advance(seconds(NEW_KEY_SIGNS_AFTER_MS));
    const next = await signWith(signer);
    expect(next.kid).toBe(newKid);
    expect(NEW_KEY_SIGNS_AFTER_MS).toBeGreaterThan(RELOAD_ON_MISS_AT_MOST_EVERY_MS + KEY_SET_MAX_AGE_MS - 1000);
    expect(await verifier.verificationKey(newKid)).toBeDefined();
  });

  it('first keys made by instances starting together: each verifies the other\'s tokens at once', async () => {
    const { ring } = sharedKeys();
    const [a, b] = [ring(), ring()];
    // B read the (empty) set just before A stored the first key, then made its own.
    await b.jwks();
    const fromA = await signWith(a);
    const fromB = await signWith(b);
    expect(await b.verificationKey(fromA.kid)).toBeDefined();
    expect(await a.verificationKey(fromB.kid)).toBeDefined();
  });

  it('a retired key that signed during the hand-over stays published until its last token has expired, then is purged', async () => {
    const { clock, ring } = sharedKeys();
    const a = ring();
    const first = await signWith(a);
    clock.advance(seconds(NEW_KEY_SIGNS_AFTER_MS));
    await ring().rotate();
    clock.advance(seconds(NEW_KEY_SIGNS_AFTER_MS) - 1);
    expect((await signWith(a)).kid).toBe(first.kid);
    // Its token lives TTL_SECONDS from now: the key must be published at least that long.
    clock.advance(TTL_SECONDS - 1);
    expect((await a.jwks()).keys.map((jwk) => jwk.kid)).toContain(first.kid);
    expect(await a.purge()).toBe(0);
    clock.advance(seconds(RETIRED_KEY_GRACE_MS - NEW_KEY_SIGNS_AFTER_MS) + 3);
    expect((await a.jwks()).keys.map((jwk) => jwk.kid)).not.toContain(first.kid);
    expect(await a.purge()).toBe(1);
    expect(await a.verificationKey(first.kid)).toBeUndefined();
    expect((await signWith(a)).kid).not.toBe(first.kid);
  });

  it('unknown kids read the set at most once per interval once keys have settled, and concurrent misses share one read', async () => {
    const { clock, ring, reads } = sharedKeys();
    const a = ring();
    await signWith(a);
    clock.advance(seconds(NEW_KEY_SIGNS_AFTER_MS));
    await a.jwks();
    const before = reads();
    expect(await a.verificationKey('garbage-1')).toBeUndefined();
    expect(await a.verificationKey('garbage-2')).toBeUndefined();
    expect(reads()).toBe(before);
    clock.advance(seconds(RELOAD_ON_MISS_AT_MOST_EVERY_MS));
    expect(await Promise.all(['g3', 'g4', 'g5'].map((kid) => a.verificationKey(kid)))).toEqual([undefined, undefined, undefined]);
    expect(reads()).toBe(before + 1);
  });
});

describe('rotation and resource servers caching the JWKS (docs/operations.md)', () => {
  it('publishes the new key at once and signs with it, on every instance, only once a JWKS cached before the rotation has expired', async () => {
    const { clock, ring } = sharedKeys();
    const [a, b] = [ring(), ring()];
    const first = await signWith(a);
    clock.advance(TTL_SECONDS);
    // A resource server fetched the JWKS (from B) just before the rotation and keeps it JWKS_MAX_AGE_SECONDS.
    const cachedKids = (await b.jwks()).keys.map((jwk) => jwk.kid);
    const rotatedAt = clock.now().getTime();
    const { kid: newKid, signsFrom } = await ring().rotate();
    const { newKeySignsAfterMs } = keyRotationTimings(JWKS_MAX_AGE_SECONDS);
    expect(signsFrom).toEqual(new Date(rotatedAt + newKeySignsAfterMs));
    expect(newKeySignsAfterMs).toBeGreaterThanOrEqual(JWKS_MAX_AGE_SECONDS * 1000 + KEY_SET_MAX_AGE_MS);

    expect((await a.jwks()).keys.map((jwk) => jwk.kid)).toEqual(expect.arrayContaining([first.kid, newKid]));
    // Another instance may publish its older set for KEY_SET_MAX_AGE_MS, which a resource server may then cache.
    clock.advance(seconds(KEY_SET_MAX_AGE_MS) + JWKS_MAX_AGE_SECONDS);
    for (const instance of [a, b]) expect(cachedKids).toContain((await signWith(instance)).kid);
    clock.advance(seconds(newKeySignsAfterMs - KEY_SET_MAX_AGE_MS) - JWKS_MAX_AGE_SECONDS - 1);
    for (const instance of [a, b]) expect((await signWith(instance)).kid).toBe(first.kid);
    clock.advance(1);
    for (const instance of [a, b]) expect((await signWith(instance)).kid).toBe(newKid);
  });

  it('a shorter JWKS lifetime shortens the wait', async () => {
    const { clock, ring } = sharedKeys(60);
    const a = ring();
    const first = await signWith(a);
    clock.advance(TTL_SECONDS);
    const { kid: newKid } = await a.rotate();
    const { newKeySignsAfterMs } = keyRotationTimings(60);
    expect(newKeySignsAfterMs).toBeLessThan(keyRotationTimings(JWKS_MAX_AGE_SECONDS).newKeySignsAfterMs);
    clock.advance(seconds(newKeySignsAfterMs) - 1);
    expect((await signWith(a)).kid).toBe(first.kid);
    clock.advance(1);
    expect((await signWith(a)).kid).toBe(newKid);
  });
});

describe('two kinds of key: ES256 and RS256 (OpenID Connect ID tokens, docs/decisions/0131)', () => {
  it('makes the first key of each kind together, publishes both and verifies with each', async () => {
    const { ring, stored } = sharedKeys(JWKS_MAX_AGE_SECONDS, ['ES256', 'RS256']);
    const a = ring();
    const es = await signWith(a, 'ES256');
    expect((await stored()).map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
    const rs = await signWith(a, 'RS256');
    expect(rs.kid).not.toBe(es.kid);
    const jwks = (await a.jwks()).keys;
    expect(jwks.map((jwk) => [jwk.kid, jwk.alg, jwk.kty, jwk.use])).toEqual(
      expect.arrayContaining([
        [es.kid, 'ES256', 'EC', 'sig'],
        [rs.kid, 'RS256', 'RSA', 'sig'],
      ]),
    );
    // RSA 2048 (RFC 7518 §3.3: at least 2048 bits): a 256-byte modulus.
    const rsaJwk = jwks.find((jwk) => jwk.kid === rs.kid);
    expect(Buffer.from(rsaJwk?.n as string, 'base64url').length).toBe(256);
    expect(jwks.every((jwk) => jwk.d === undefined && jwk.p === undefined)).toBe(true);
    await expect(compactVerify(rs.jws, (await a.verificationKey(rs.kid)) as CryptoKey)).resolves.toBeDefined();
    await expect(compactVerify(es.jws, (await a.verificationKey(es.kid)) as CryptoKey)).resolves.toBeDefined();
  });

  it('a database of ES256 keys only (stored before OpenID Connect) gets its RS256 key when one is first needed; the ES256 key stays', async () => {
    const { ring, stored } = sharedKeys();
    const before = await signWith(ring(['ES256']));
    const oidc = ring(['ES256', 'RS256']);
    expect((await signWith(oidc, 'ES256')).kid).toBe(before.kid);
    expect((await stored()).map((key) => key.alg)).toEqual(['ES256']);
    const rs = await signWith(oidc, 'RS256');
    expect((await stored()).map((key) => [key.kid, key.alg])).toEqual([
      [before.kid, 'ES256'],
      [rs.kid, 'RS256'],
    ]);
    expect((await oidc.jwks()).keys.map((jwk) => jwk.kid)).toEqual([before.kid, rs.kid]);
  });

  it('rotates both kinds: each new key is published at once and signs once settled, each old one stays published', async () => {
    const { clock, ring, stored } = sharedKeys(JWKS_MAX_AGE_SECONDS, ['ES256', 'RS256']);
    const a = ring();
    const es = await signWith(a, 'ES256');
    const rs = await signWith(a, 'RS256');
    clock.advance(TTL_SECONDS);
    const rotated = await ring().rotate();
    expect(rotated.keys.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
    expect(rotated.kid).toBe(rotated.keys.find((key) => key.alg === 'ES256')?.kid);
    // One rotation's keys are stamped together (after the slower RSA key exists): they settle at the same moment.
    const createdAts = (await stored()).filter((key) => rotated.keys.some((made) => made.kid === key.kid)).map((key) => key.createdAt.getTime());
    expect(new Set(createdAts).size).toBe(1);
    const newRs = rotated.keys.find((key) => key.alg === 'RS256')?.kid as string;
    clock.advance(seconds(KEY_SET_MAX_AGE_MS));
    expect((await a.jwks()).keys.map((jwk) => jwk.kid)).toEqual(expect.arrayContaining([es.kid, rs.kid, rotated.kid, newRs]));
    expect((await signWith(a, 'RS256')).kid).toBe(rs.kid);
    clock.advance(seconds(NEW_KEY_SIGNS_AFTER_MS));
    expect((await signWith(a, 'RS256')).kid).toBe(newRs);
    expect((await signWith(a, 'ES256')).kid).toBe(rotated.kid);
  });

  it('a ring that keeps ES256 only still rotates an RS256 key it finds active (none is left without a successor)', async () => {
    const { ring, stored } = sharedKeys(JWKS_MAX_AGE_SECONDS, ['ES256', 'RS256']);
    await signWith(ring(), 'ES256');
    const rotated = await ring(['ES256']).rotate();
    expect(rotated.keys.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
    expect((await stored()).filter((key) => key.retiredAt === null).map((key) => key.kid).sort()).toEqual(rotated.keys.map((key) => key.kid).sort());
  });
});
