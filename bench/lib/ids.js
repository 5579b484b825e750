// Random ids and hashes for bulk-seeded rows, in the shapes Gatehouse stores: 22-character ids,
// time-ordered grant ids, 43-character base64url SHA-256 digests, and the stored hashes of time-ordered
// codes and refresh tokens. Drawn from one large random buffer (fast for millions).
import { createHash, randomBytes } from 'node:crypto';
import { randomIdGenerator, storedSecretHash, timeOrderedId, timeOrderedSecret } from '@gatehouse/core';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function createIdSource(chunkBytes = 1 << 20) {
  let buffer = randomBytes(chunkBytes);
  let at = 0;
  function take(n) {
    if (at + n > buffer.length) {
      buffer = randomBytes(chunkBytes);
      at = 0;
    }
    const slice = buffer.subarray(at, at + n);
    at += n;
    return slice;
  }
  return {
    /** A 22-character [A-Za-z0-9] id, like the server's ids (a small modulo bias is fine for test data). */
    id() {
      const bytes = take(22);
      let out = '';
      for (let i = 0; i < 22; i += 1) out += ALPHANUMERIC[bytes[i] % 62];
      return out;
    },
    /** A grant id made at `at` (epoch ms) as the server makes it: core's `timeOrderedId`. */
    grantId(at) {
      return timeOrderedId(new Date(at), this);
    },
    /**
     * The stored hash of a code or refresh token issued at `at` (epoch ms), as the server stores
     * it: core's `storedSecretHash` of a `timeOrderedSecret`.
     */
    secretHash(at) {
      return storedSecretHash(timeOrderedCode(at));
    },
    /** A 43-character base64url string: the shape of a stored SHA-256 hash. */
    hash() {
      return take(32).toString('base64url');
    },
  };
}

/** How the server stores a code, a refresh token or a client secret: SHA-256, base64url. */
export function sha256(value) {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}

/** A code or refresh token made at `at` (epoch ms; default now), in the server's shape (core's `timeOrderedSecret`). */
export function timeOrderedCode(at = Date.now()) {
  return timeOrderedSecret(new Date(at), randomIdGenerator);
}

/** A 43-character [A-Za-z0-9] secret (≥ 256 bits), like the server's client secrets. */
export function secret() {
  const bytes = randomBytes(64);
  let out = '';
  for (const byte of bytes) {
    if (byte < 248) out += ALPHANUMERIC[byte % 62];
    if (out.length === 43) return out;
  }
  return out + secret().slice(0, 43 - out.length);
}
