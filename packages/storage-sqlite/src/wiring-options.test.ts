import { KeyDecryptionError } from '@gatehouse/storage-kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, openSqliteStorage } from './sqlite-storage.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

const SECRET = 'a signing key secret of at least 32 characters';
const key = (kid: string) => ({ kid, alg: 'ES256' as const, publicJwk: { kty: 'EC', kid }, privateJwk: { kty: 'EC', kid, d: 'private-part' }, createdAt: new Date(1_000), retiredAt: null });

// The production wiring an embedder gets from the storage (docs/decisions/0145-embedders-production-wiring.md).
describe('openSqliteStorage: production wiring options', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  beforeEach(() => {
    file = tempDatabaseFile();
  });
  afterEach(() => {
    file.remove();
  });

  it('stores private signing keys encrypted under signingKeySecret, and reads them back only with it', async () => {
    const { storage, database } = await openSqlite({ filename: file.filename, signingKeySecret: SECRET });
    try {
      await storage.migrate();
      await storage.repositories.signingKeys.save(key('k1'));
      const row = database.prepare('select private_jwk from signing_keys').get() as { private_jwk: string };
      expect(row.private_jwk).toContain('gatehouse-aes-256-gcm-v1');
      expect(row.private_jwk).not.toContain('private-part');
      expect((await storage.repositories.signingKeys.list())[0]?.privateJwk).toEqual({ kty: 'EC', kid: 'k1', d: 'private-part' });
    } finally {
      await storage.close();
    }
    const withoutSecret = await openSqliteStorage({ filename: file.filename });
    try {
      await expect(withoutSecret.repositories.signingKeys.list()).rejects.toThrow(KeyDecryptionError);
      await expect(withoutSecret.repositories.signingKeys.list()).rejects.toThrow('Signing key k1 is encrypted: set signingKeySecret to the secret it was stored with.');
    } finally {
      await withoutSecret.close();
    }
    const named = await openSqliteStorage({ filename: file.filename, signingKeySecret: `${SECRET}, but another`, signingKeySecretName: 'SIGNING_KEY_SECRET' });
    try {
      await expect(named.repositories.signingKeys.list()).rejects.toThrow('SIGNING_KEY_SECRET does not decrypt signing key k1');
    } finally {
      await named.close();
    }
  });

  it('stores keys as JWK without a secret (unchanged), and refuses a secret too short to be one', async () => {
    const { storage, database } = await openSqlite({ filename: ':memory:' });
    try {
      await storage.migrate();
      await storage.repositories.signingKeys.save(key('k1'));
      expect((database.prepare('select private_jwk from signing_keys').get() as { private_jwk: string }).private_jwk).toContain('private-part');
    } finally {
      await storage.close();
    }
    await expect(openSqliteStorage({ filename: ':memory:', signingKeySecret: 'short' })).rejects.toThrow('signingKeySecret must be a string of at least 32 characters');
  });

  it('is one instance by default, several when the host says so', async () => {
    const single = await openSqliteStorage({ filename: ':memory:' });
    const shared = await openSqliteStorage({ filename: ':memory:', sharedByInstances: true });
    try {
      expect(single.sharedByInstances).toBe(false);
      expect(shared.sharedByInstances).toBe(true);
    } finally {
      await Promise.all([single.close(), shared.close()]);
    }
  });
});
