import type { Grant, RefreshToken } from '../domain/model.js';
import { storedSecretHash } from '../domain/time-ordered-secret.js';
import type { Deps } from '../deps.js';
import { mayBeDropped } from './may-be-dropped.js';

/**
 * A refresh token as a refresh reads it, with its grant. `owner` is there when the owner's e-mail
 * came in the same read (Gatehouse's own users, `refreshTokens.findWithGrantAndOwnerEmail`):
 * `email` undefined when that user is gone. Without `owner` the refresh asks the user directory.
 */
export interface RefreshTokenForUse {
  found: { token: RefreshToken; grant: Grant } | undefined;
  owner?: { email: string | undefined };
}

/**
 * A refresh token's read started before the client is authenticated, so that it overlaps the rate
 * limiter's read (docs/decisions/0168-refresh-in-fewer-round-trips.md). Only a read: nothing is
 * decided or written until `refresh` has the authenticated client; a read-ahead of another token
 * than the one refreshed is ignored.
 */
export interface RefreshReadAhead {
  readonly refreshToken: string;
  readonly reading: Promise<RefreshTokenForUse>;
}

/**
 * Reads the token and its grant by the token's stored hash; with Gatehouse's own users (no host
 * `userDirectory`) and a repository that can, with the owner's e-mail in the same read.
 */
export async function readRefreshTokenForUse(deps: Pick<Deps, 'repos' | 'userDirectory'>, tokenHash: string): Promise<RefreshTokenForUse> {
  const { refreshTokens } = deps.repos;
  if (deps.userDirectory === undefined && refreshTokens.findWithGrantAndOwnerEmail !== undefined) {
    const found = await refreshTokens.findWithGrantAndOwnerEmail(tokenHash);
    return found === undefined ? { found: undefined } : { found: { token: found.token, grant: found.grant }, owner: { email: found.ownerEmail } };
  }
  return { found: await refreshTokens.findWithGrant(tokenHash) };
}

/**
 * Starts reading `refreshToken` for a coming `refresh` (pass the result as its `readAhead`). A
 * failed read is only seen by the refresh that awaits it: never an unhandled rejection when the
 * client is refused first.
 *
 * @example
 * const readAhead = gatehouse.readRefreshTokenAhead(form.refresh_token);
 * const client = await authenticate(request); // the rate limiter's read runs beside the token's
 * await gatehouse.refresh({ client, refreshToken: form.refresh_token, scope: undefined, readAhead });
 */
export function readRefreshTokenAhead(deps: Pick<Deps, 'repos' | 'userDirectory'>, refreshToken: string): RefreshReadAhead {
  return { refreshToken, reading: mayBeDropped(readRefreshTokenForUse(deps, storedSecretHash(refreshToken))) };
}
