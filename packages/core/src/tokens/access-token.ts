import { decodeProtectedHeader, errors as joseErrors, jwtVerify } from 'jose';
import type { Grant } from '../domain/model.js';
import { canonicalResourceUri, type ResourceDefinition } from '../domain/resources.js';
import { formatScope, parseScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { epochSeconds } from '../domain/time.js';
import { OAuthError } from '../errors.js';
import type { AccessTokenClaims } from './access-token-claims.js';
import { signEs256Compact, signEs256CompactWith } from './jws.js';
import { SIGNING_ALGORITHM } from './key-ring.js';

interface VerifiedTokenOfGrant {
  claims: AccessTokenClaims;
  /** The token's `aud`: the default audience (`settings.audience`) or a configured resource's URI (RFC 8707). */
  audience: string;
  scopes: string[];
  clientId: string;
  grantId: string;
}

/** A token a user's grant issued: the API acts for `userKey`. */
export interface UserAccessToken extends VerifiedTokenOfGrant {
  subjectType: 'user';
  userKey: string;
}

/** A client-credentials token (RFC 6749 §4.4): the client acts for itself, there is no user. */
export interface ClientAccessToken extends VerifiedTokenOfGrant {
  subjectType: 'client';
  userKey: null;
}

/**
 * A verified access token of a live grant. `subjectType` (the grant's, not the token's word)
 * tells a user's token from a client's: an API that acts for a user refuses a client's token.
 */
export type VerifiedAccessToken = UserAccessToken | ClientAccessToken;

/**
 * Signs an RFC 9068 JWT access token for a grant: `sub` is the grant's user, or the client's id
 * for a client-credentials grant (RFC 9068 §2.2), which has no `principal` (pass `null`). Its
 * `aud` is `resource`'s URI and its lifetime the resource's (RFC 8707), or without one the
 * default audience (`settings.audience`) and `settings.accessTokenTtlSeconds`.
 */
export async function issueAccessToken(
  deps: Pick<Deps, 'clock' | 'ids' | 'settings' | 'keys' | 'signer'>,
  grant: Grant,
  principal: string | null,
  scopes: readonly string[],
  resource?: ResourceDefinition,
): Promise<{ token: string; expiresIn: number }> {
  const { kid, key } = await deps.keys.signingKey();
  const iat = epochSeconds(deps.clock.now());
  const expiresIn = resource?.accessTokenTtlSeconds ?? deps.settings.accessTokenTtlSeconds;
  const claims: AccessTokenClaims = {
    iss: deps.settings.issuer,
    sub: grant.userKey ?? grant.clientId,
    aud: resource?.resource ?? deps.settings.audience,
    client_id: grant.clientId,
    scope: formatScope(scopes),
    iat,
    exp: iat + expiresIn,
    jti: deps.ids.id(),
    ...(principal === null ? {} : { principal }),
    gid: grant.grantId,
  };
  // RFC 9068 §2.1: the header's typ is "at+jwt".
  const header = { alg: SIGNING_ALGORITHM, typ: 'at+jwt', kid } as const;
  const token = deps.signer === undefined ? signEs256Compact(header, claims, key) : await signEs256CompactWith(deps.signer, header, claims, key);
  return { token, expiresIn };
}

const INVALID = 'The access token is invalid, expired or revoked.';

/** What a resource server expects of a token: with `resource`, that it is for that resource (RFC 8707). */
export interface AccessTokenExpectations {
  /**
   * The resource (a configured URI, compared in canonical form) whose tokens are accepted: the
   * token's `aud` must be it. Without it, only tokens for the default audience (`settings.audience`).
   */
  resource?: string;
}

/**
 * Verifies signature, `typ`, `alg`, `iss`, `aud` and times (RFC 9068 §4), then that the
 * grant is still live: a revoked grant's tokens are refused at once. The audience must be the
 * default one (`settings.audience`), or `expected.resource` when given: a token for another
 * resource is refused (RFC 8707 §1, RFC 9068 §4; docs/decisions/0111-protected-resource-metadata.md).
 * Throws `OAuthError('invalid_token')`.
 *
 * @example
 * const token = await verifyAccessToken(deps, jwt, { resource: 'https://mcp.example.com/mcp' });
 * token.audience; // 'https://mcp.example.com/mcp'
 */
export async function verifyAccessToken(
  deps: Pick<Deps, 'clock' | 'settings' | 'keys' | 'repos' | 'verifiedTokens'>,
  token: string,
  expected: AccessTokenExpectations = {},
): Promise<VerifiedAccessToken> {
  const claims = await verifiedClaims(deps, token);
  if (!isExpectedAudience(deps.settings, claims.aud, expected.resource)) {
    // RFC 8707 §1: a token is good only at its audience.
    throw new OAuthError('invalid_token', 'The access token was issued for another resource.', { detail: `token for the audience ${claims.aud}, not ${expected.resource ?? deps.settings.audience}` });
  }
  // Asked on every request, cached claims or not: a revoked grant's tokens are refused at once.
  const grant = await deps.repos.grants.findById(claims.gid);
  if (!grant || grant.revokedAt || grant.clientId !== claims.client_id) {
    throw new OAuthError('invalid_token', INVALID, { detail: `grant ${claims.gid} is revoked or gone` });
  }
  const common = { claims, audience: claims.aud, scopes: parseScope(claims.scope), clientId: claims.client_id, grantId: claims.gid };
  // Whose token it is comes from the grant: a user's token names its user and principal, a
  // client's (RFC 9068 §2.2) names the client and no principal.
  if (grant.userKey === null) {
    if (claims.sub !== grant.clientId || claims.principal !== undefined) throw new OAuthError('invalid_token', INVALID, { detail: 'claims do not fit a client grant' });
    return { ...common, subjectType: 'client', userKey: null };
  }
  if (claims.sub !== grant.userKey || typeof claims.principal !== 'string') throw new OAuthError('invalid_token', INVALID, { detail: 'claims do not fit a user grant' });
  return { ...common, subjectType: 'user', userKey: grant.userKey };
}

/**
 * Whether a verified token's `aud` is the one expected: `resource` (canonical form), or the
 * default audience, as configured or, when that URI is also a configured resource, in its
 * canonical form (a token requested with `resource` = the default audience).
 */
function isExpectedAudience(settings: Deps['settings'], audience: string, resource: string | undefined): boolean {
  if (resource !== undefined) return audience === resource || audience === canonicalResourceUri(resource);
  if (audience === settings.audience) return true;
  return audience === canonicalResourceUri(settings.audience) && settings.resources.some((entry) => entry.resource === audience);
}

/** Every audience a token of this deployment may carry: the default one and each configured resource. */
const knownAudiences = new WeakMap<Deps['settings'], string[]>();

function audiencesOf(settings: Deps['settings']): string[] {
  let audiences = knownAudiences.get(settings);
  if (audiences === undefined) {
    audiences = [settings.audience, ...settings.resources.map((entry) => entry.resource)];
    knownAudiences.set(settings, audiences);
  }
  return audiences;
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
      // The default audience or a configured resource; which one a resource server takes is `verifyAccessToken`'s `expected`.
      audience: audiencesOf(deps.settings),
      currentDate: deps.clock.now(),
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'client_id', 'scope', 'gid'],
    });
    const claims = payload as unknown as AccessTokenClaims;
    if (
      typeof claims.aud !== 'string' ||
      typeof claims.gid !== 'string' ||
      typeof claims.client_id !== 'string' ||
      typeof claims.scope !== 'string' ||
      (claims.principal !== undefined && typeof claims.principal !== 'string')
    ) {
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
