import { createHash, randomBytes, randomFillSync, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import type { IdGenerator } from '../ports/ids.js';
import type { PasswordHasher } from '../ports/services.js';

/** SHA-256 of a high-entropy value, base64url. Right for random secrets, codes and tokens (no slow hash needed). */
export function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}

/** Compares two strings in time that depends only on their lengths. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    // Still spend a comparison so a length mismatch is not measurably faster.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random bytes drawn ahead in one call and handed out once each (as node:crypto's own UUIDs are). */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function nextRandomByte(): number {
  if (poolOffset === POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] as number;
}

/** A uniformly random `[A-Za-z0-9]` string (rejection sampling, no modulo bias). */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    // 248 = 4 × 62: bytes from 248 up would make the first characters likelier.
    if (byte < 248) out += ALPHANUMERIC[byte % 62];
  }
  return out;
}

/** The default generator: 22-character ids (~131 bits) and 43-character secrets (~256 bits). */
export const randomIdGenerator: IdGenerator = {
  id: () => randomAlphanumeric(22),
  secret: () => randomAlphanumeric(43),
};

interface ScryptParameters {
  N: number;
  r: number;
  p: number;
}

function scryptAsync(password: string, salt: Buffer, keyLength: number, params: ScryptParameters): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, keyLength, { ...params, maxmem: 256 * params.N * params.r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * Passwords hashed with scrypt (node:crypto, asynchronous). Stored as `scrypt$N$r$p$salt$hash`,
 * so the cost can be raised later without breaking stored hashes.
 *
 * @example
 * const hasher = createScryptPasswordHasher();
 * const stored = await hasher.hash('correct horse');
 * await hasher.verify('correct horse', stored); // true
 */
export function createScryptPasswordHasher(params: ScryptParameters = { N: 16384, r: 8, p: 1 }): PasswordHasher {
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await scryptAsync(password, salt, 32, params);
      return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
    },
    async verify(password, passwordHash) {
      const [scheme, n, r, p, salt, expected] = passwordHash.split('$');
      if (scheme !== 'scrypt' || !n || !r || !p || !salt || !expected) return false;
      const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), 32, { N: Number(n), r: Number(r), p: Number(p) });
      const stored = Buffer.from(expected, 'base64url');
      return stored.length === key.length && timingSafeEqual(stored, key);
    },
  };
}

/** A random integer in [0, max): for jitter, never for secrets. */
export function randomBelow(max: number): number {
  return randomInt(max);
}
