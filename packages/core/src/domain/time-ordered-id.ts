import type { IdGenerator } from '../ports/ids.js';

/** Base-62 digits in ASCII order, so that a bytewise comparison of two encodings orders their numbers. */
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62^8 milliseconds reach past the year 8000. */
const TIME_DIGITS = 8;

/**
 * An identifier that sorts by creation time: the millisecond of `now` in eight base-62 digits,
 * then `ids.id()` for uniqueness. Rows keyed by it (grants, and the codes and refresh tokens that
 * point at a grant) are appended at the end of their indexes instead of landing on a random page
 * of them, which keeps a grown database's writes as cheap as an empty one's
 * (docs/decisions/0071-time-ordered-grant-ids.md). It reveals when it was made, nothing more:
 * use it for identifiers, never for secrets.
 *
 * @example
 * timeOrderedId(new Date('2026-01-01T00:00:00Z'), randomIdGenerator); // '0V70MWDg' followed by a 22-character random id
 */
export function timeOrderedId(now: Date, ids: IdGenerator): string {
  return timeDigits(now) + ids.id();
}

/** The millisecond of `now` in `TIME_DIGITS` base-62 digits, which sort as the times do. */
export function timeDigits(now: Date): string {
  let millis = now.getTime();
  if (!Number.isSafeInteger(millis) || millis < 0) throw new RangeError(`A time-ordered value needs a time after 1970 (got ${String(now)}).`);
  let time = '';
  for (let i = 0; i < TIME_DIGITS; i++) {
    time = DIGITS[millis % 62] + time;
    millis = Math.floor(millis / 62);
  }
  return time;
}
