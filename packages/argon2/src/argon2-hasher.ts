import { availableParallelism } from 'node:os';
import { createScryptPasswordHasher, type PasswordHasher } from '@gatehouse/core';
import { hash, verify, type Algorithm } from '@node-rs/argon2';

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which an isolated module cannot read). */
const ARGON2ID = 2 as Algorithm.Argon2id;

/** argon2id's costs (RFC 9106 §3.1): memory in KiB, iterations, lanes. */
export interface Argon2Parameters {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/**
 * OWASP's Password Storage Cheat Sheet's first argon2id setting: 19 MiB, 2 iterations, 1 lane.
 * About 20 ms of one core per hash (a 2-core machine signs in well over 15 users a second per core)
 * and 19 MiB while it runs (docs/decisions/0170-argon2id-passwords.md).
 */
export const DEFAULT_ARGON2_PARAMETERS: Readonly<Argon2Parameters> = Object.freeze({ memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 });

export interface Argon2HasherOptions {
  /** argon2id's costs (default `DEFAULT_ARGON2_PARAMETERS`). */
  parameters?: Argon2Parameters;
  /**
   * How many hashes (or verifications) run at once; the others wait their turn, so that a burst
   * of sign-ins takes `maxConcurrent × memoryCost` of memory and that many cores, never more.
   * Default: half the cores, at least 1.
   */
  maxConcurrent?: number;
}

/**
 * A `PasswordHasher` (`createGatehouse({ passwords })`) with argon2id, the password hash OWASP
 * recommends first: it stores `$argon2id$v=19$m=…,t=…,p=…$salt$hash` (the PHC string format). It
 * still verifies the `scrypt$…` hashes of Gatehouse's default hasher, and says they need a rehash,
 * so each is replaced by an argon2id hash at the user's next successful sign-in (the core does it).
 * At most `maxConcurrent` hashes run at once (docs/decisions/0170-argon2id-passwords.md).
 *
 * @example
 * import { createArgon2PasswordHasher } from '@gatehouse/argon2';
 * const gatehouse = createGatehouse({ repositories, settings, clock, passwords: createArgon2PasswordHasher() });
 */
export function createArgon2PasswordHasher(options: Argon2HasherOptions = {}): PasswordHasher {
  const parameters = options.parameters ?? DEFAULT_ARGON2_PARAMETERS;
  checkParameters(parameters);
  const maxConcurrent = options.maxConcurrent ?? Math.max(1, Math.floor(availableParallelism() / 2));
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw new RangeError('maxConcurrent must be a whole number, 1 or more.');
  const turn = createTurns(maxConcurrent);
  const scrypt = createScryptPasswordHasher();
  const current = `$argon2id$v=19$m=${parameters.memoryCost},t=${parameters.timeCost},p=${parameters.parallelism}$`;
  return {
    hash: (password) => turn(() => hash(password, { algorithm: ARGON2ID, ...parameters })),
    async verify(password, passwordHash) {
      if (passwordHash.startsWith('scrypt$')) return turn(() => scrypt.verify(password, passwordHash));
      if (!passwordHash.startsWith('$argon2id$')) return false;
      try {
        return await turn(() => verify(passwordHash, password));
      } catch {
        // A malformed stored hash is no match, never a crash of the sign-in.
        return false;
      }
    },
    needsRehash: (passwordHash) => !passwordHash.startsWith(current),
  };
}

function checkParameters({ memoryCost, timeCost, parallelism }: Argon2Parameters): void {
  // RFC 9106 §3.1: m ≥ 8p KiB, t ≥ 1, 1 ≤ p < 2^24.
  if (!Number.isInteger(parallelism) || parallelism < 1 || parallelism >= 2 ** 24) throw new RangeError('argon2id parallelism must be a whole number from 1.');
  if (!Number.isInteger(memoryCost) || memoryCost < 8 * parallelism) throw new RangeError('argon2id memoryCost (KiB) must be a whole number of at least 8 × parallelism.');
  if (!Number.isInteger(timeCost) || timeCost < 1) throw new RangeError('argon2id timeCost must be a whole number, 1 or more.');
}

/** Runs at most `limit` tasks at once, the others in the order they came (exported for its test, not from the package). */
export function createTurns(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  const next = () => {
    running -= 1;
    waiting.shift()?.();
  };
  return async (task) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      next();
    }
  };
}
