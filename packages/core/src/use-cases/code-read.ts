import type { AuthorizationCode } from '../domain/model.js';
import { storedSecretHash } from '../domain/time-ordered-secret.js';
import type { Deps } from '../deps.js';
import { mayBeDropped } from './may-be-dropped.js';

/**
 * A code as the exchange reads it. `owner` is there when the owner's e-mail came in the same read
 * (Gatehouse's own users, `codes.findByHashWithOwnerEmail`): `email` undefined when that user is
 * gone. Without `owner` the exchange asks the user directory.
 */
export interface CodeForExchange {
  code: AuthorizationCode | undefined;
  owner?: { email: string | undefined };
}

/**
 * A code's read started before the client is authenticated, so that it overlaps the rate limiter's
 * read (docs/decisions/0172-code-exchange-in-two-round-trips.md). Only a read: nothing is decided
 * or written until `exchangeCode` has the authenticated client, and a read-ahead for another code
 * than the one exchanged is ignored.
 */
export interface CodeReadAhead {
  readonly code: string;
  readonly reading: Promise<CodeForExchange>;
}

/**
 * Reads the code by its stored hash; with Gatehouse's own users (no host `userDirectory`) and a
 * repository that can, with its owner's e-mail in the same read (one round trip instead of two).
 */
export async function readCodeForExchange(deps: Pick<Deps, 'repos' | 'userDirectory'>, codeHash: string): Promise<CodeForExchange> {
  const { codes } = deps.repos;
  if (deps.userDirectory === undefined && codes.findByHashWithOwnerEmail !== undefined) {
    const found = await codes.findByHashWithOwnerEmail(codeHash);
    return found === undefined ? { code: undefined } : { code: found.code, owner: { email: found.ownerEmail } };
  }
  return { code: await codes.findByHash(codeHash) };
}

/**
 * Starts reading `code` for a coming `exchangeCode` (pass the result as its `readAhead`). A failed
 * read is only seen by the exchange that awaits it: never an unhandled rejection when the client
 * is refused first.
 *
 * @example
 * const readAhead = gatehouse.readCodeAhead(form.code);
 * const client = await authenticate(request); // the rate limiter's read runs beside the code's
 * await gatehouse.exchangeCode({ client, code: form.code, redirectUri, codeVerifier, readAhead });
 */
export function readCodeAhead(deps: Pick<Deps, 'repos' | 'userDirectory'>, code: string): CodeReadAhead {
  return { code, reading: mayBeDropped(readCodeForExchange(deps, storedSecretHash(code))) };
}
