import { sha256 } from '../crypto.js';
import type { IdGenerator } from '../ports/ids.js';
import { timeDigits } from './time-ordered-id.js';

/**
 * Ends the time digits of a time-ordered secret. An `IdGenerator` secret holds only `[A-Za-z0-9]`,
 * so a code or refresh token issued before time-ordered secrets existed never has it there, and
 * keeps the stored hash it was issued with (docs/decisions/0077-time-ordered-secrets.md).
 */
const SEPARATOR = '_';
const TIME_ORDERED = /^[0-9A-Za-z]{8}_[0-9A-Za-z]/;
/** The time digits and the separator: what a stored hash keeps of its secret. */
const STORED_PREFIX_LENGTH = 9;

/**
 * A secret that starts with the millisecond it was made at: `timeDigits(now)`, `_`, then
 * `ids.secret()` (≥ 256 bits). Used for authorization codes and refresh tokens, whose stored
 * hashes (`storedSecretHash`) then sort by issue time: a new row is appended at the end of its
 * index, and the recent rows an exchange looks up sit together there, instead of on a random page
 * of a million-entry index (docs/decisions/0077-time-ordered-secrets.md). The prefix tells its
 * holder when it was issued, nothing else.
 *
 * @example
 * timeOrderedSecret(new Date('2026-01-01T00:00:00Z'), randomIdGenerator); // '0V70MWDg_' followed by 43 random characters
 */
export function timeOrderedSecret(now: Date, ids: IdGenerator): string {
  return timeDigits(now) + SEPARATOR + ids.secret();
}

/**
 * What is stored of a code or refresh token, and looked up by: its SHA-256 (base64url), after
 * the secret's own time digits and separator when it is time-ordered (`timeOrderedSecret`). The
 * prefix is not secret; the hash is the only part derived from the random part. A value of
 * another shape (a secret issued before time-ordered secrets) gives its plain SHA-256, as it was
 * stored then.
 *
 * @example
 * storedSecretHash('0V70MWDg_Xy…'); // '0V70MWDg_' followed by the SHA-256 of the whole value
 * storedSecretHash(randomIdGenerator.secret()) === sha256(…); // true: the shape of old secrets
 */
export function storedSecretHash(secret: string): string {
  const digest = sha256(secret);
  return TIME_ORDERED.test(secret) ? secret.slice(0, STORED_PREFIX_LENGTH) + digest : digest;
}
