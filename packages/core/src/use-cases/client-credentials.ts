import { noteFirstUse } from '../clients/first-use.js';
import { assertGrantType, isPublicClient } from '../domain/grant-types.js';
import type { Client, Grant } from '../domain/model.js';
import { isOpenIdConnectScope } from '../domain/openid-scopes.js';
import { formatScope, isCataloguedScope, isValidScopeToken, parseScope } from '../domain/scopes.js';
import { timeOrderedId } from '../domain/time-ordered-id.js';
import type { Deps } from '../deps.js';
import { OAuthError } from '../errors.js';
import { issueAccessToken } from '../tokens/access-token.js';
import { tokenTarget } from './resource-indicators.js';

/** RFC 6749 §4.4.3 / §5.1: an access token and no refresh token (§4.4.3: SHOULD NOT be included). */
export interface ClientCredentialsTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/**
 * RFC 6749 §4.4: a confidential client registered for `client_credentials` gets an access token
 * for itself: `sub` is its id (RFC 9068 §2.2), no `principal`, no refresh token. `scope` may
 * narrow its registered scopes (none: all of them that the catalogue still offers). The token
 * stands on a grant without a user, so revocation and introspection work as for any token, and
 * revoking it refuses the token at once (docs/decisions/0029-client-credentials-grants.md).
 * `resource` (RFC 8707 §2.2) may name any configured resource: the token is for it, with the
 * scopes it accepts (docs/decisions/0110-resource-indicators.md).
 *
 * @example
 * const tokens = await clientCredentials(deps, { client, scope: 'orders.v1.read' });
 * tokens.access_token; // a JWT with sub = client.clientId
 */
export async function clientCredentials(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'settings' | 'keys' | 'signer'>,
  input: { client: Client; scope: string | undefined; resource?: string | undefined },
): Promise<ClientCredentialsTokenResponse> {
  const { client } = input;
  // RFC 6749 §4.4: "MUST only be used by confidential clients".
  if (isPublicClient(client)) throw new OAuthError('unauthorized_client', 'A public client may not use the client_credentials grant.', { detail: `client ${client.clientId}` });
  assertGrantType(client, 'client_credentials');
  const { scopes, resource } = tokenTarget(deps.settings, 'configured', input.resource, requestedScopes(deps.settings.scopes, client.scopes, input.scope));
  const now = deps.clock.now();
  const grant: Grant = {
    grantId: timeOrderedId(now, deps.ids),
    clientId: client.clientId,
    userKey: null,
    scopes,
    ...(resource === undefined ? {} : { resources: [resource.resource] }),
    sessionId: null,
    createdAt: now,
    revokedAt: null,
  };
  await deps.repos.grants.create(grant);
  await noteFirstUse(deps, client, now);
  const { token, expiresIn } = await issueAccessToken(deps, grant, null, scopes, resource);
  return { access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: formatScope(scopes) };
}

/**
 * RFC 6749 §3.3: the requested scopes, all registered and catalogued; none requested means all of
 * them. The OpenID Connect scopes are about a user, whom a client's own token has none of: never
 * part of one (docs/decisions/0130).
 */
function requestedScopes(catalogue: Deps['settings']['scopes'], registered: readonly string[], requested: string | undefined): string[] {
  if (requested === undefined || requested.trim() === '') {
    const all = registered.filter((scope) => isCataloguedScope(catalogue, scope) && !isOpenIdConnectScope(scope));
    if (all.length === 0) throw new OAuthError('invalid_scope', 'The client has no scopes to request.');
    return all;
  }
  const scopes = parseScope(requested);
  const bad = scopes.find((scope) => !isValidScopeToken(scope) || !isCataloguedScope(catalogue, scope) || !registered.includes(scope) || isOpenIdConnectScope(scope));
  if (bad !== undefined) throw new OAuthError('invalid_scope', `The scope ${JSON.stringify(bad)} is not available to this client.`);
  return scopes;
}
