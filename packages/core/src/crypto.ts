import { hash, randomBytes, randomFillSync, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import type { IdGenerator } from './ports/ids.js';
import type { PasswordHasher } from './ports/services.js';

/**
 * SHA-256 of a high-entropy value, base64url. Right for random secrets, codes and tokens (no slow hash needed).
 *
 * @example
 * const sessionId = sha256(sessionToken); // what is stored; the token itself never is
 */
export function sha256(value: string): string {
  // Node's one-shot digest (strings as UTF-8): no Hash object per call, about a third of the time.
  return hash('sha256', value, 'base64url');
}

/**
 * Compares two strings in time that depends only on their lengths.
 *
 * @example
 * if (!constantTimeEqual(sha256(presented), stored)) throw new OAuthError('invalid_client', 'The client is not known or its secret is wrong.');
 */
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

/**
 * A uniformly random `[A-Za-z0-9]` string (rejection sampling, no modulo bias).
 *
 * @example
 * const clientId = randomAlphanumeric(22); // ~131 bits
 */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    // 248 = 4 × 62: bytes from 248 up would make the first characters likelier.
    if (byte < 248) out += ALPHANUMERIC[byte % 62];
  }
  return out;
}

/**
 * The default generator: 22-character ids (~131 bits) and 43-character secrets (~256 bits).
 *
 * @example
 * const gatehouse = createGatehouse({ repositories, settings, clock, ids: randomIdGenerator });
 */
export const randomIdGenerator: IdGenerator = {
  id: () => randomAlphanumeric(22),
  secret: () => randomAlphanumeric(43),
};

/** scrypt's cost (RFC 7914 §2): CPU/memory cost `N` (a power of two), block size `r`, parallelism `p`. */
export interface ScryptParameters {
  N: number;
  r: number;
  p: number;
}

/**
 * The OWASP Password Storage Cheat Sheet's minimum for scrypt: N=2^17 (128 MiB), r=8, p=1
 * (docs/security.md). About a hundred milliseconds of one libuv thread per hash.
 */
export const DEFAULT_SCRYPT_PARAMETERS: Readonly<ScryptParameters> = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });

/** scrypt needs 128·N·r bytes (RFC 7914 §5); node:crypto refuses more than `maxmem` (32 MiB by default), so allow twice that. */
const maxmemFor = (params: ScryptParameters) => 2 * 128 * params.N * params.r;

function scryptAsync(password: string, salt: Buffer, keyLength: number, params: ScryptParameters): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, keyLength, { ...params, maxmem: maxmemFor(params) }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

function checkParameters(params: ScryptParameters): void {
  const { N, r, p } = params;
  if (!Number.isSafeInteger(N) || N < 2 || (N & (N - 1)) !== 0) throw new RangeError(`scrypt N must be a power of two above 1 (got ${N})`);
  if (!Number.isSafeInteger(r) || r < 1 || !Number.isSafeInteger(p) || p < 1) throw new RangeError(`scrypt r and p must be positive integers (got r=${r}, p=${p})`);
}

/**
 * Passwords hashed with scrypt (node:crypto, asynchronous: the work runs in libuv's thread pool,
 * not on the event loop). Stored as `scrypt$N$r$p$salt$hash`: a hash is verified with the cost it
 * names, so hashes of an older cost keep working, and `needsRehash` tells sign-in to replace them.
 * The default cost is `DEFAULT_SCRYPT_PARAMETERS`; a cheaper one is for tests only.
 *
 * @example
 * const hasher = createScryptPasswordHasher();
 * const stored = await hasher.hash('correct horse');
 * await hasher.verify('correct horse', stored); // true
 * hasher.needsRehash(stored); // false
 */
export function createScryptPasswordHasher(params: ScryptParameters = DEFAULT_SCRYPT_PARAMETERS): PasswordHasher {
  checkParameters(params);
  const prefix = `scrypt$${params.N}$${params.r}$${params.p}$`;
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await scryptAsync(password, salt, 32, params);
      return `${prefix}${salt.toString('base64url')}$${key.toString('base64url')}`;
    },
    async verify(password, passwordHash) {
      const [scheme, n, r, p, salt, expected] = passwordHash.split('$');
      if (scheme !== 'scrypt' || !n || !r || !p || !salt || !expected) return false;
      const stored = { N: Number(n), r: Number(r), p: Number(p) };
      try {
        checkParameters(stored);
      } catch {
        return false;
      }
      const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), 32, stored);
      const storedKey = Buffer.from(expected, 'base64url');
      return storedKey.length === key.length && timingSafeEqual(storedKey, key);
    },
    needsRehash(passwordHash) {
      return !passwordHash.startsWith(prefix) || passwordHash.split('$').length !== 6;
    },
  };
}

/** A random integer in [0, max): for jitter, never for secrets. */
export function randomBelow(max: number): number {
  return randomInt(max);
}
