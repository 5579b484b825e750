import { decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import type { Grant } from '../domain/model.js';
import { formatScope, parseScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { epochSeconds } from '../domain/time.js';
import { OAuthError } from '../errors.js';
import type { AccessTokenClaims } from './access-token-claims.js';
import { signEs256Compact } from './jws.js';
import { SIGNING_ALGORITHM } from './key-ring.js';

/** A verified access token of a live grant. */
export interface VerifiedAccessToken {
  claims: AccessTokenClaims;
  scopes: string[];
  userKey: string;
  clientId: string;
  grantId: string;
}

/** Signs an RFC 9068 JWT access token for a grant. */
export async function issueAccessToken(
  deps: Pick<Deps, 'clock' | 'ids' | 'settings' | 'keys'>,
  grant: Grant,
  principal: string,
  scopes: readonly string[],
): Promise<{ token: string; expiresIn: number }> {
  const { kid, key } = await deps.keys.signingKey();
  const iat = epochSeconds(deps.clock.now());
  const expiresIn = deps.settings.accessTokenTtlSeconds;
  const claims: AccessTokenClaims = {
    iss: deps.settings.issuer,
    sub: grant.userKey,
    aud: deps.settings.audience,
    client_id: grant.clientId,
    scope: formatScope(scopes),
    iat,
    exp: iat + expiresIn,
    jti: deps.ids.id(),
    principal,
    gid: grant.grantId,
  };
  // RFC 9068 §2.1: the header's typ is "at+jwt".
  const token = signEs256Compact({ alg: SIGNING_ALGORITHM, typ: 'at+jwt', kid }, claims, key);
  return { token, expiresIn };
}

const INVALID = 'The access token is invalid, expired or revoked.';

/**
 * Verifies signature, `typ`, `alg`, `iss`, `aud` and times (RFC 9068 §4), then that the
 * grant is still live: a revoked grant's tokens are refused at once.
 * Throws `OAuthError('invalid_token')`.
 */
export async function verifyAccessToken(
  deps: Pick<Deps, 'clock' | 'settings' | 'keys' | 'repos' | 'verifiedTokens'>,
  token: string,
): Promise<VerifiedAccessToken> {
  const claims = await verifiedClaims(deps, token);
  // Asked on every request, cached claims or not: a revoked grant's tokens are refused at once.
  const grant = await deps.repos.grants.findById(claims.gid);
  if (!grant || grant.revokedAt || grant.clientId !== claims.client_id || grant.userKey !== claims.sub) {
    throw new OAuthError('invalid_token', INVALID, { detail: `grant ${claims.gid} is revoked or gone` });
  }
  return { claims, scopes: parseScope(claims.scope), userKey: claims.sub, clientId: claims.client_id, grantId: claims.gid };
}

/** The token's claims from the verified-token cache when there, else verified (and then cached). */
async function verifiedClaims(deps: Pick<Deps, 'clock' | 'settings' | 'keys' | 'verifiedTokens'>, token: string): Promise<AccessTokenClaims> {
  const cache = deps.verifiedTokens;
  if (cache) {
    const cached = cache.get(token, epochSeconds(deps.clock.now()));
    // The key that verified it must still be one the ring knows.
    if (cached && (await deps.keys.verificationKey(cached.kid))) return cached.claims;
    if (cached) cache.delete(token);
  }
  const verified = await verifySignature(deps, token);
  cache?.set(token, verified);
  return verified.claims;
}

/** Signature and claim checks only (no grant look-up). */
export async function verifySignedClaims(
  deps: Pick<Deps, 'clock' | 'settings' | 'keys'>,
  token: string,
): Promise<AccessTokenClaims> {
  return (await verifySignature(deps, token)).claims;
}

async function verifySignature(deps: Pick<Deps, 'clock' | 'settings' | 'keys'>, token: string): Promise<{ claims: AccessTokenClaims; kid: string }> {
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    kid = header.kid;
  } catch (error) {
    throw new OAuthError('invalid_token', INVALID, { detail: 'not a JWS', cause: error });
  }
  if (!kid) throw new OAuthError('invalid_token', INVALID, { detail: 'no kid' });
  const key = await deps.keys.verificationKey(kid);
  if (!key) throw new OAuthError('invalid_token', INVALID, { detail: `unknown kid ${kid}` });
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [SIGNING_ALGORITHM],
      typ: 'at+jwt',
      issuer: deps.settings.issuer,
      audience: deps.settings.audience,
      currentDate: deps.clock.now(),
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'client_id', 'scope', 'gid', 'principal'],
    });
    const claims = payload as unknown as AccessTokenClaims;
    if (typeof claims.gid !== 'string' || typeof claims.client_id !== 'string' || typeof claims.scope !== 'string') {
      throw new OAuthError('invalid_token', INVALID, { detail: 'claims of the wrong type' });
    }
    if (typeof claims.iat === 'number' && claims.iat > epochSeconds(deps.clock.now()) + 60) {
      throw new OAuthError('invalid_token', INVALID, { detail: 'issued in the future' });
    }
    return { claims, kid };
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    const detail = error instanceof joseErrors.JOSEError ? error.code : 'verification failed';
    throw new OAuthError('invalid_token', INVALID, { detail, cause: error });
  }
}
