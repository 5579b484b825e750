import { createHash } from 'node:crypto';
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { Client, IdTokenSigningAlgorithm, OpenIdAuthentication } from '../domain/model.js';
import { epochSeconds } from '../domain/time.js';
import type { Deps } from '../deps.js';
import { signJwsCompact } from './jws.js';

/**
 * OIDC Core §2 ID token claims as Gatehouse issues them (docs/decisions/0131-id-tokens-rs256-and-es256.md):
 * `aud` is always the client's id, a single audience, so `azp` is never needed; `auth_time` is
 * always there (so `require_auth_time` and `max_age` are always met); `nonce` only when the
 * authorization request sent one (never after a refresh, §12.2).
 */
export interface IdTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  auth_time: number;
  nonce?: string;
  /** OIDC Core §3.1.3.6: the left half of the SHA-256 of the access token, base64url. */
  at_hash: string;
  /** OpenID Connect Front-Channel/Back-Channel Logout `sid`: the sign-in session, derived (`sessionIdForClients`). */
  sid?: string;
  amr?: string[];
  acr?: string;
}

/** The ID token's algorithm for a client: its `id_token_signed_response_alg`, RS256 by default (OIDC Core §15.1). */
export function idTokenAlgorithmOf(client: Pick<Client, 'idTokenSignedResponseAlg'>): IdTokenSigningAlgorithm {
  return client.idTokenSignedResponseAlg ?? 'RS256';
}

/**
 * OIDC Core §3.1.3.6 `at_hash`: the base64url of the left-most half of the hash of the access
 * token's ASCII octets, the hash being the one of the ID token's `alg` (SHA-256 for RS256 and ES256).
 *
 * @example
 * accessTokenHash('eyJ…'); // 22 base64url characters
 */
export function accessTokenHash(accessToken: string): string {
  const digest = createHash('sha256').update(accessToken, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/**
 * The `sid` an ID token carries for a sign-in session: not the stored session id (the hash the
 * session cookie is looked up by), but a one-way derivation of it under a label of its own, so
 * nothing a client sees is a database key (docs/decisions/0131).
 *
 * @example
 * sessionIdForClients(session.sessionId); // 43 base64url characters
 */
export function sessionIdForClients(sessionId: string): string {
  return createHash('sha256').update(`gatehouse sid\n${sessionId}`, 'utf8').digest('base64url');
}

/** What an ID token is issued for: the client, its user, the sign-in, and the access token issued beside it. */
export interface IdTokenInput {
  client: Pick<Client, 'clientId' | 'idTokenSignedResponseAlg'>;
  userKey: string;
  authentication: OpenIdAuthentication;
  /** The authorization request's `nonce` (a code exchange only). */
  nonce?: string | undefined;
  /** The sign-in session the grant was made under (`sid`), if any. */
  sessionId: string | null;
  accessToken: string;
}

/**
 * Signs an OIDC Core §2 ID token for a client, with the key of the client's algorithm (RS256
 * unless it asked for ES256), through the same signer as access tokens. Its lifetime is the
 * access tokens' default one (`settings.accessTokenTtlSeconds`), so a retired key stays published
 * while it lives.
 *
 * @example
 * const idToken = await issueIdToken(deps, { client, userKey, authentication: { authTime }, nonce, sessionId, accessToken });
 */
export async function issueIdToken(deps: Pick<Deps, 'clock' | 'settings' | 'keys' | 'signer'>, input: IdTokenInput): Promise<string> {
  const alg = idTokenAlgorithmOf(input.client);
  const { kid, key } = await deps.keys.signingKey(alg);
  const iat = epochSeconds(deps.clock.now());
  const { authentication } = input;
  const claims: IdTokenClaims = {
    iss: deps.settings.issuer,
    sub: input.userKey,
    aud: input.client.clientId,
    exp: iat + deps.settings.accessTokenTtlSeconds,
    iat,
    auth_time: epochSeconds(authentication.authTime),
    ...(input.nonce === undefined ? {} : { nonce: input.nonce }),
    at_hash: accessTokenHash(input.accessToken),
    ...(input.sessionId === null ? {} : { sid: sessionIdForClients(input.sessionId) }),
    ...(authentication.amr === undefined || authentication.amr.length === 0 ? {} : { amr: authentication.amr }),
    ...(authentication.acr === undefined ? {} : { acr: authentication.acr }),
  };
  // OIDC Core §2: a JWT; its typ is "JWT" (never RFC 9068's "at+jwt", which access tokens carry).
  return signJwsCompact({ alg, typ: 'JWT', kid }, claims, key, deps.signer);
}

/** What a valid `id_token_hint` says: who, for which clients, in which sign-in session. */
export interface IdTokenHint {
  sub: string;
  audiences: string[];
  sid: string | undefined;
  /** True when the token has expired: it may still identify the user and the client (OIDC Core §3.1.2.1, RP-Initiated Logout §2). */
  expired: boolean;
}

/**
 * Checks an `id_token_hint` (OIDC Core §3.1.2.1; RP-Initiated Logout 1.0 §2): an ID token this
 * server signed (a key of the ring, RS256 or ES256), for this issuer, with a `sub` and an
 * audience, and not an access token (`typ` `at+jwt`). An expired one is accepted, and said so:
 * it still names the user and the client. Undefined when it is none of that.
 *
 * @example
 * const hint = await verifyIdTokenHint(deps, idTokenHint);
 * if (hint?.audiences.includes(client.clientId)) …
 */
export async function verifyIdTokenHint(deps: Pick<Deps, 'clock' | 'settings' | 'keys'>, token: string): Promise<IdTokenHint | undefined> {
  let kid: string | undefined;
  let typ: string | undefined;
  try {
    ({ kid, typ } = decodeProtectedHeader(token));
  } catch {
    return undefined;
  }
  if (kid === undefined || typ?.toLowerCase() === 'at+jwt' || typ?.toLowerCase() === 'application/at+jwt') return undefined;
  const key = await deps.keys.verificationKey(kid);
  if (key === undefined) return undefined;
  let payload: Record<string, unknown>;
  try {
    const verified = await compactVerify(token, key, { algorithms: ['RS256', 'ES256'] });
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (payload === null || typeof payload !== 'object' || payload.iss !== deps.settings.issuer || typeof payload.sub !== 'string' || payload.sub === '') return undefined;
  const audiences = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud.filter((aud): aud is string => typeof aud === 'string') : [];
  if (audiences.length === 0 || typeof payload.exp !== 'number') return undefined;
  return {
    sub: payload.sub,
    audiences,
    sid: typeof payload.sid === 'string' ? payload.sid : undefined,
    expired: payload.exp <= epochSeconds(deps.clock.now()),
  };
}
