import { assertGrantType, isPublicClient } from '../domain/grant-types.js';
import { OPENID_SCOPE } from '../domain/openid-scopes.js';
import type { AuthorizationCode, Client, Grant, OpenIdAuthentication } from '../domain/model.js';
import { timeOrderedId } from '../domain/time-ordered-id.js';
import { storedSecretHash, timeOrderedSecret } from '../domain/time-ordered-secret.js';
import type { Deps } from '../deps.js';
import { mayBeDropped } from './may-be-dropped.js';
import { OAuthError, StorageUnavailableError } from '../errors.js';
import { constantTimeEqual, sha256 } from '../crypto.js';
import { tokenTarget } from './resource-indicators.js';
import { readCodeForExchange, type CodeReadAhead } from './code-read.js';
import { principalOf, principalOrGone, tokenResponseFor, type TokenResponse } from './token-response.js';

/** RFC 7636 §4.1: code_verifier = 43*128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

const INVALID_CODE = 'The authorization code is invalid, expired or already used.';

/**
 * RFC 6749 §4.1.3: exchanges an authorization code for tokens. The code must belong to the
 * authenticated client, the redirect URI must equal the one of the authorization request (and may
 * be left out only when that request left it out too, docs/decisions/0182) and the PKCE verifier
 * must match the challenge. Single use, and that the code's sign-in session
 * has not ended (product logout), are decided by the database in the exchange's one transaction.
 * `resource` (RFC 8707 §2.2) picks the access token's audience among the code's resources
 * (docs/decisions/0110-resource-indicators.md); a refused one consumes nothing. `readAhead`: the
 * code's read, started before the client was authenticated (`readCodeAhead`; used only when it is
 * of this `code`; docs/decisions/0172-code-exchange-in-two-round-trips.md).
 *
 * @example
 * const tokens = await exchangeCode(deps, { client, code, redirectUri: 'https://app.example/cb' });
 * tokens.token_type; // 'Bearer'
 */
export async function exchangeCode(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'keys' | 'signer' | 'audit' | 'userDirectory'>,
  input: { client: Client; code: string; redirectUri: string | undefined; codeVerifier: string | undefined; resource?: string | undefined; readAhead?: CodeReadAhead | undefined },
): Promise<TokenResponse> {
  assertGrantType(input.client, 'authorization_code');
  const codeHash = storedSecretHash(input.code);
  // With Gatehouse's own users the owner's e-mail comes in the code's read (docs/decisions/0172).
  const { code, owner } = await (input.readAhead?.code === input.code ? input.readAhead.reading : readCodeForExchange(deps, codeHash));
  const now = deps.clock.now();
  if (!code) throw new OAuthError('invalid_grant', INVALID_CODE, { detail: 'unknown code' });

  // RFC 6749 §4.1.3: the code was issued to the authenticated client. Checked before the replay
  // check, so a client shown someone else's code learns nothing and revokes nothing.
  if (code.clientId !== input.client.clientId) {
    throw new OAuthError('invalid_grant', INVALID_CODE, { detail: `code of client ${code.clientId} presented by ${input.client.clientId}` });
  }
  if (code.consumedAt) {
    // RFC 6749 §4.1.2: a code reused by its own client revokes the grant it produced.
    await revokeReplayedGrant(deps, code.grantId, code.clientId, code.userKey, now);
    throw new OAuthError('invalid_grant', INVALID_CODE, { detail: 'code replayed' });
  }
  if (code.expiresAt.getTime() <= now.getTime()) throw new OAuthError('invalid_grant', INVALID_CODE, { detail: 'code expired' });
  // RFC 6749 §4.1.3: redirect_uri is REQUIRED if the authorization request included it, and then
  // identical; a request that omitted it (the client's only registered one, RFC 6749 §3.1.2.3)
  // lets the token request omit it too, and one sent must equal the code's
  // (docs/decisions/0182-redirect-uri-at-the-token-endpoint.md). An empty one is omitted (RFC 6749 §3.1).
  if (input.redirectUri) {
    if (!constantTimeEqual(code.redirectUri, input.redirectUri)) {
      throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request.');
    }
  } else if (code.redirectUriIncluded !== false) {
    throw new OAuthError('invalid_request', 'redirect_uri is required: the authorization request included it.');
  }
  // RFC 9700 §2.1.1: a public client's code is bound to nothing but its PKCE challenge.
  if (isPublicClient(input.client) && code.codeChallenge === null) throw new OAuthError('invalid_grant', 'A public client must use PKCE.');
  verifyPkce(code.codeChallenge, input.codeVerifier);
  // A scope taken from the client since the code was issued is not granted (docs/decisions/0204).
  const scopes = code.scopes.filter((scope) => input.client.scopes.includes(scope));
  if (scopes.length === 0) throw new OAuthError('invalid_grant', INVALID_CODE, { detail: `client ${input.client.clientId} may no longer have any scope of the code` });
  // RFC 8707 §2.2: the token's audience, one of the resources asked for at authorize.
  const target = tokenTarget(deps.settings, code.resources ?? [], input.resource, scopes);

  // The grant, the code consumed by it (one conditional update) and the refresh token (if any) are
  // written in one transaction: a replay that loses the race always finds the grant to revoke.
  const grant: Grant = {
    grantId: timeOrderedId(now, deps.ids),
    clientId: code.clientId,
    userKey: code.userKey,
    scopes,
    ...(code.resources === undefined || code.resources.length === 0 ? {} : { resources: code.resources }),
    sessionId: code.sessionId,
    // An OpenID Connect grant keeps the sign-in its ID tokens describe, those of a refresh too (OIDC Core §12.2).
    ...(code.openid === undefined ? {} : { openid: authenticationOf(code.openid) }),
    createdAt: now,
    revokedAt: null,
  };
  // RFC 6749 §1.5: a refresh token is issued at the server's discretion; a client not registered
  // for the refresh_token grant could not use one (docs/decisions/0188-refresh-tokens-only-for-refresh-clients.md).
  const refreshToken = input.client.grantTypes.includes('refresh_token') ? timeOrderedSecret(now, deps.ids) : undefined;
  // The owner is read before the write (nothing is written for an owner who is gone), and the
  // access token is signed while the write commits: sent only if the write won, dropped unseen
  // otherwise (docs/decisions/0078-exchange-response-prepared-during-the-write.md).
  const principal = owner === undefined ? await principalOf(deps, grant) : principalOrGone(owner.email, grant);
  // OIDC Core §3.1.3.3: a code of an OpenID Connect request (`openid` granted) gets an ID token, with its nonce.
  const idToken = code.openid === undefined || !scopes.includes(OPENID_SCOPE) ? undefined : { client: input.client, nonce: code.openid.nonce };
  const response = mayBeDropped(tokenResponseFor(deps, grant, target.scopes, refreshToken, principal, target.resource, idToken));
  const won = await writeOnceMore(() =>
    deps.repos.grants.createFromCode({
      grant,
      codeHash,
      ...(refreshToken === undefined
        ? {}
        : { refreshToken: { tokenHash: storedSecretHash(refreshToken), grantId: grant.grantId, createdAt: now, lastUsedAt: now, rotatedAt: null, supersededAt: null } }),
    }),
  );
  if (!won) {
    const consumed = await deps.repos.codes.findByHash(codeHash);
    // Consumed by this very exchange's grant: the first write committed though its answer was
    // lost, and the second found the code used (docs/decisions/0167-lost-commit-answers.md).
    if (consumed?.grantId === grant.grantId) return response;
    // Product logout ended the code's sign-in session: not a replay, nothing to revoke (the logout
    // revoked the session's grants) (docs/decisions/0005-codes-die-with-their-session.md).
    if (!consumed?.consumedAt) {
      throw new OAuthError('invalid_grant', INVALID_CODE, { detail: consumed ? 'sign-in session of the code ended' : 'code deleted concurrently' });
    }
    // RFC 6749 §4.1.2: the code was consumed concurrently, by its own client (the binding was
    // checked above): the grant it produced is revoked.
    await revokeReplayedGrant(deps, consumed.grantId, code.clientId, code.userKey, now);
    throw new OAuthError('invalid_grant', INVALID_CODE, { detail: 'code replayed concurrently' });
  }

  return response;
}

/** The sign-in of a code's OpenID Connect request, without its nonce (which only the code's ID token carries). */
function authenticationOf(openid: NonNullable<AuthorizationCode['openid']>): OpenIdAuthentication {
  const { nonce: _nonce, ...authentication } = openid;
  return authentication;
}

/**
 * The exchange's write, sent once more when the connection was lost under it (`unreachable`;
 * docs/decisions/0167-lost-commit-answers.md): the answer of a commit that happened may have been
 * lost with it. The second write is conditional like the first, so nothing is written twice:
 * either it writes (the first did not), or it finds the code consumed — on PostgreSQL after
 * waiting for the first statement's row lock, if that one still runs — and the caller recognises
 * its own grant. Other failures (busy, full…) rolled the write back: answered at once (503).
 */
async function writeOnceMore(write: () => Promise<boolean>): Promise<boolean> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof StorageUnavailableError) || error.reason !== 'unreachable') throw error;
    return write();
  }
}


function verifyPkce(challenge: string | null, verifier: string | undefined): void {
  if (challenge === null) {
    // RFC 9700 §2.1.1: a verifier without a challenge is a downgrade attempt.
    if (verifier !== undefined) throw new OAuthError('invalid_grant', 'code_verifier was sent but no code_challenge was.');
    return;
  }
  if (verifier === undefined) throw new OAuthError('invalid_grant', 'code_verifier is required.');
  if (!CODE_VERIFIER.test(verifier)) throw new OAuthError('invalid_grant', 'code_verifier is malformed.');
  if (!constantTimeEqual(sha256(verifier), challenge)) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
}

/** RFC 6749 §4.1.2 / RFC 9700 §4.5: a reused code revokes the grant it produced. */
async function revokeReplayedGrant(
  deps: Pick<Deps, 'repos' | 'audit'>,
  grantId: string | null,
  clientId: string,
  userKey: string,
  now: Date,
): Promise<void> {
  if (grantId) await deps.repos.grants.revoke(grantId, now);
  deps.audit.record({ type: 'code.replayed', at: now, clientId, userKey, ...(grantId ? { grantIds: [grantId] } : {}) });
}
