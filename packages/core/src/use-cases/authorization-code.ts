import { formatScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { secondsAfter } from '../domain/time.js';
import { storedSecretHash, timeOrderedSecret } from '../domain/time-ordered-secret.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { authorizationResponseUrl } from './authorization-response.js';

interface Approval {
  request: AuthorizationRequest;
  userKey: string;
  sessionId: string | null;
}

/** Remembers that the user allowed the client the request's scopes (docs/decisions/0095-remembered-consent.md). */
export async function rememberConsent(deps: Pick<Deps, 'repos' | 'clock'>, input: Approval): Promise<void> {
  await deps.repos.consents.remember({ userKey: input.userKey, clientId: input.request.clientId, scopes: [...input.request.scopes], grantedAt: deps.clock.now() });
}

/**
 * Issues a single-use code (RFC 6749 §4.1.2) bound to client, user, redirect URI, scopes,
 * resources (RFC 8707), PKCE challenge and sign-in session; only its hash is stored. The audit says whether the user gave
 * consent just now (`consent.granted`) or it was remembered (`consent.remembered`).
 */
export async function issueAuthorizationCode(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'audit'>,
  input: Approval,
  consent: 'given' | 'remembered',
): Promise<{ redirectTo: string }> {
  const { request } = input;
  const now = deps.clock.now();
  const code = timeOrderedSecret(now, deps.ids);
  await deps.repos.codes.save({
    codeHash: storedSecretHash(code),
    clientId: request.clientId,
    userKey: input.userKey,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    ...(request.resources === undefined || request.resources.length === 0 ? {} : { resources: request.resources }),
    codeChallenge: request.codeChallenge ?? null,
    sessionId: input.sessionId,
    createdAt: now,
    expiresAt: secondsAfter(now, deps.settings.codeTtlSeconds),
    consumedAt: null,
    grantId: null,
  });
  deps.audit.record({
    type: consent === 'given' ? 'consent.granted' : 'consent.remembered',
    at: now,
    userKey: input.userKey,
    clientId: request.clientId,
    reason: formatScope(request.scopes),
  });
  return { redirectTo: authorizationResponseUrl(deps.settings.issuer, request.redirectUri, { code, state: request.state }) };
}
