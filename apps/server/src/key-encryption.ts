import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import type { SigningKey, SigningKeyRepository } from '@gatehouse/core';

/** The stored form of an encrypted private JWK (it replaces the JWK in the `privateJwk` column). */
interface EncryptedJwk {
  enc: 'gatehouse-aes-256-gcm-v1';
  /** scrypt salt, IV, ciphertext and GCM tag, base64url. */
  salt: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

const FORMAT = 'gatehouse-aes-256-gcm-v1';
// scrypt (RFC 7914) with the Node defaults' cost, raised: the secret may be a passphrase.
const SCRYPT = { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** A private key that cannot be read: no secret set, or the wrong one. */
export class KeyDecryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyDecryptionError';
  }
}

function isEncrypted(jwk: Record<string, unknown>): jwk is Record<string, unknown> & EncryptedJwk {
  return jwk.enc === FORMAT;
}

/**
 * Wraps a `SigningKeyRepository` so private keys are stored encrypted with AES-256-GCM under a key
 * derived from `secret` with scrypt (a fresh salt and IV per key; the `kid` is the additional
 * authenticated data, so a ciphertext cannot be moved to another key record).
 *
 * Without a secret, keys are stored as they are; an encrypted key then fails to load with a
 * message naming GATEHOUSE_KEY_SECRET. With a secret, keys stored in the clear before it was set
 * keep working; new keys are encrypted (`gatehouse keys rotate` replaces a clear one).
 *
 * @example
 * const signingKeys = encryptSigningKeys(storage.repositories.signingKeys, process.env.GATEHOUSE_KEY_SECRET);
 */
export function encryptSigningKeys(inner: SigningKeyRepository, secret: string | undefined): SigningKeyRepository {
  const derived = new Map<string, Buffer>();
  const keyFor = (salt: Buffer): Buffer => {
    const id = salt.toString('base64url');
    let key = derived.get(id);
    if (!key) {
      key = scryptSync(secret ?? '', salt, 32, SCRYPT);
      derived.set(id, key);
    }
    return key;
  };

  function encrypt(kid: string, jwk: Record<string, unknown>): EncryptedJwk {
    const salt = randomBytes(16);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyFor(salt), iv);
    cipher.setAAD(Buffer.from(kid, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
    return {
      enc: FORMAT,
      salt: salt.toString('base64url'),
      iv: iv.toString('base64url'),
      ciphertext: ciphertext.toString('base64url'),
      tag: cipher.getAuthTag().toString('base64url'),
    };
  }

  function decrypt(kid: string, stored: EncryptedJwk): Record<string, unknown> {
    if (secret === undefined) {
      throw new KeyDecryptionError(`Signing key ${kid} is encrypted: set GATEHOUSE_KEY_SECRET to the secret it was stored with.`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', keyFor(Buffer.from(stored.salt, 'base64url')), Buffer.from(stored.iv, 'base64url'));
      decipher.setAAD(Buffer.from(kid, 'utf8'));
      decipher.setAuthTag(Buffer.from(stored.tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(stored.ciphertext, 'base64url')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new KeyDecryptionError(`GATEHOUSE_KEY_SECRET does not decrypt signing key ${kid}: it is not the secret the key was stored with.`);
    }
  }

  return {
    async list() {
      const keys = await inner.list();
      return keys.map((key): SigningKey => (isEncrypted(key.privateJwk) ? { ...key, privateJwk: decrypt(key.kid, key.privateJwk) } : key));
    },
    async save(key) {
      await inner.save(secret === undefined ? key : { ...key, privateJwk: { ...encrypt(key.kid, key.privateJwk) } });
    },
    retire: (kid, at) => inner.retire(kid, at),
    purgeRetiredBefore: (before) => inner.purgeRetiredBefore(before),
  };
}
