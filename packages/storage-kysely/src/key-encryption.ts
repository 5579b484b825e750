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

/** The shortest `signingKeySecret` the storages take (the reference server's rule for GATEHOUSE_KEY_SECRET). */
export const MIN_SIGNING_KEY_SECRET_LENGTH = 32;

/** Throws unless `secret` is a string of at least 32 characters (a passphrase or `openssl rand -base64 32`). */
export function assertSigningKeySecret(secret: unknown, secretName = 'signingKeySecret'): void {
  if (typeof secret !== 'string' || secret.length < MIN_SIGNING_KEY_SECRET_LENGTH) {
    throw new Error(`${secretName} must be a string of at least ${MIN_SIGNING_KEY_SECRET_LENGTH} characters (for example: openssl rand -base64 32).`);
  }
}

function isEncrypted(jwk: Record<string, unknown>): jwk is Record<string, unknown> & EncryptedJwk {
  return jwk.enc === FORMAT;
}

/** How the secret is named in errors (default: the storages' option, `signingKeySecret`). */
export interface KeyEncryptionOptions {
  /** The reference server says `GATEHOUSE_KEY_SECRET`, its environment variable. */
  secretName?: string;
}

/**
 * Wraps a `SigningKeyRepository` so private keys are stored encrypted with AES-256-GCM under a key
 * derived from `secret` with scrypt (a fresh salt and IV per key; the `kid` is the additional
 * authenticated data, so a ciphertext cannot be moved to another key record). The SQLite and
 * PostgreSQL storages apply it to their `signingKeys` repository (their `signingKeySecret` option,
 * docs/decisions/0145-embedders-production-wiring.md); use it directly for a repository of your own.
 *
 * Without a secret, keys are stored as they are; an encrypted key then fails to load with a
 * message naming the secret (`options.secretName`). With a secret, keys stored in the clear before
 * it was set keep working; new keys are encrypted (`gatehouse keys rotate` replaces a clear one).
 *
 * @example
 * const signingKeys = encryptSigningKeys(repositories.signingKeys, process.env.SIGNING_KEY_SECRET, { secretName: 'SIGNING_KEY_SECRET' });
 */
export function encryptSigningKeys(inner: SigningKeyRepository, secret: string | undefined, options: KeyEncryptionOptions = {}): SigningKeyRepository {
  const secretName = options.secretName ?? 'signingKeySecret';
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
      throw new KeyDecryptionError(`Signing key ${kid} is encrypted: set ${secretName} to the secret it was stored with.`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', keyFor(Buffer.from(stored.salt, 'base64url')), Buffer.from(stored.iv, 'base64url'));
      decipher.setAAD(Buffer.from(kid, 'utf8'));
      decipher.setAuthTag(Buffer.from(stored.tag, 'base64url'));
      const plain = Buffer.concat([decipher.update(Buffer.from(stored.ciphertext, 'base64url')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new KeyDecryptionError(`${secretName} does not decrypt signing key ${kid}: it is not the secret the key was stored with.`);
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
