import { describe, expect, it } from 'vitest';
import { createKeyRing, type AuditLog, type SigningKey } from '@gatehouse/core';
import { createControllableClock, createMemoryRepositories, createSequentialIds } from '@gatehouse/core/testing';
import { encryptSigningKeys, KeyDecryptionError } from './key-encryption.js';

const SECRET = 'correct horse battery staple, long enough';
const noAudit: AuditLog = { record: () => undefined };

async function generateKey(signingKeys: ReturnType<typeof createMemoryRepositories>['signingKeys']) {
  const ring = createKeyRing({ repository: signingKeys, clock: createControllableClock(), ids: createSequentialIds('kid'), audit: noAudit, accessTokenTtlSeconds: 3600, jwksMaxAgeSeconds: 300 });
  await ring.signingKey();
  return ring;
}

describe('encryptSigningKeys', () => {
  it('stores the private JWK as AES-256-GCM ciphertext and gives it back decrypted', async () => {
    const inner = createMemoryRepositories().signingKeys;
    const wrapped = encryptSigningKeys(inner, SECRET);
    await generateKey(wrapped);

    const [stored] = await inner.list();
    const stringified = JSON.stringify(stored?.privateJwk);
    expect(stored?.privateJwk).toMatchObject({ enc: 'gatehouse-aes-256-gcm-v1' });
    expect(stored?.privateJwk).not.toHaveProperty('d');
    expect(stringified).not.toMatch(/"d"|"kty"/);

    const [read] = await wrapped.list();
    expect(read?.privateJwk).toMatchObject({ kty: 'EC', crv: 'P-256', kid: stored?.kid });
    expect(typeof read?.privateJwk.d).toBe('string');
    expect(read?.publicJwk).toEqual(stored?.publicJwk);
  });

  it('encrypts an RS256 key (OpenID Connect ID tokens) as it does an ES256 one, and signs with it after a restart', async () => {
    const inner = createMemoryRepositories().signingKeys;
    const ring = () => createKeyRing({ repository: encryptSigningKeys(inner, SECRET), clock: createControllableClock(), ids: createSequentialIds('kid'), audit: noAudit, accessTokenTtlSeconds: 3600, jwksMaxAgeSeconds: 300, algorithms: ['ES256', 'RS256'] });
    const kid = (await ring().signingKey('RS256')).kid;
    const stored = (await inner.list()).find((key) => key.alg === 'RS256');
    expect(stored?.privateJwk).toMatchObject({ enc: 'gatehouse-aes-256-gcm-v1' });
    expect(JSON.stringify(stored?.privateJwk)).not.toMatch(/"d"|"p"|"q"|"kty"/);
    expect((await ring().signingKey('RS256')).kid).toBe(kid);
  }, 30_000);

  it('signs with the decrypted key: a ring on the wrapped repository works across restarts', async () => {
    const inner = createMemoryRepositories().signingKeys;
    const first = await generateKey(encryptSigningKeys(inner, SECRET));
    const kid = (await first.signingKey()).kid;
    const restarted = await generateKey(encryptSigningKeys(inner, SECRET));
    expect((await restarted.signingKey()).kid).toBe(kid);
    expect(await inner.list()).toHaveLength(1);
  });

  it('refuses the wrong secret with a clear error naming the secret as the caller calls it', async () => {
    const inner = createMemoryRepositories().signingKeys;
    await generateKey(encryptSigningKeys(inner, SECRET));
    const [stored] = await inner.list();
    await expect(encryptSigningKeys(inner, 'a different secret of enough length!!').list()).rejects.toThrow(/^signingKeySecret does not decrypt/);
    const wrong = encryptSigningKeys(inner, 'a different secret of enough length!!', { secretName: 'GATEHOUSE_KEY_SECRET' });
    await expect(wrong.list()).rejects.toThrow(KeyDecryptionError);
    await expect(wrong.list()).rejects.toThrow(
      `GATEHOUSE_KEY_SECRET does not decrypt signing key ${stored?.kid}: it is not the secret the key was stored with.`,
    );
  });

  it('refuses an encrypted key when no secret is set', async () => {
    const inner = createMemoryRepositories().signingKeys;
    await generateKey(encryptSigningKeys(inner, SECRET));
    await expect(encryptSigningKeys(inner, undefined).list()).rejects.toThrow(/is encrypted: set signingKeySecret to the secret/);
  });

  it('binds the ciphertext to its kid: moved to another record it does not decrypt', async () => {
    const inner = createMemoryRepositories().signingKeys;
    await generateKey(encryptSigningKeys(inner, SECRET));
    const [stored] = (await inner.list()) as [SigningKey];
    await inner.save({ ...stored, kid: 'other-kid' });
    await expect(encryptSigningKeys(inner, SECRET).list()).rejects.toThrow(/signing key other-kid/);
  });

  it('stores keys as they are without a secret, and reads keys stored in the clear with one', async () => {
    const inner = createMemoryRepositories().signingKeys;
    await generateKey(encryptSigningKeys(inner, undefined));
    const [stored] = await inner.list();
    expect(stored?.privateJwk).toHaveProperty('d');
    const [read] = await encryptSigningKeys(inner, SECRET).list();
    expect(read?.privateJwk).toEqual(stored?.privateJwk);
  });
});
