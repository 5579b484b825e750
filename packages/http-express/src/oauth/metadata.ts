import { ID_TOKEN_SIGNING_ALGORITHMS, PROMPT_VALUES, SUPPORTED_CLAIMS, type GatehouseSettings, type ScopeCatalogue } from '@gatehouse/core';
import type { Request, Response } from 'express';
import { endpointUrl, type OAuthContext } from './context.js';
import { GRANT_TYPES } from './grant-types.js';
import { OAUTH_PATHS } from './paths.js';

/**
 * RFC 8414 §2 authorization server metadata: exactly what is implemented, URLs built from the
 * issuer (never from the Host header), `scopes_supported` from the configured catalogue;
 * `registration_endpoint` and `client_id_metadata_document_supported` when `settings` turn them on.
 * For an OpenID Provider (`settings.openid`), the OpenID Connect Discovery 1.0 §3 fields too: the
 * same document answers both well-known paths (docs/decisions/0133-discovery.md).
 *
 * @example
 * authorizationServerMetadata('https://auth.example.com', settings.scopes, settings);
 */
export function authorizationServerMetadata(
  issuer: string,
  scopes: ScopeCatalogue,
  settings?: Pick<GatehouseSettings, 'registration' | 'clientMetadataDocuments'> & Partial<Pick<GatehouseSettings, 'openid'>>,
): Record<string, unknown> {
  const selfRegistration = settings;
  const oauth = {
    issuer,
    authorization_endpoint: endpointUrl(issuer, OAUTH_PATHS.authorize),
    token_endpoint: endpointUrl(issuer, OAUTH_PATHS.token),
    jwks_uri: endpointUrl(issuer, OAUTH_PATHS.jwks),
    revocation_endpoint: endpointUrl(issuer, OAUTH_PATHS.revoke),
    introspection_endpoint: endpointUrl(issuer, OAUTH_PATHS.introspect),
    scopes_supported: scopes.map((entry) => entry.scope),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...GRANT_TYPES],
    // `none`: public clients (RFC 6749 §2.1) name themselves by client_id; they also revoke (RFC 7009 §5),
    // but introspection is for confidential clients (docs/decisions/0027-public-clients.md).
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    // RFC 9207 §3: every authorization response carries iss.
    authorization_response_iss_parameter_supported: true,
    // RFC 8414 §2 / RFC 7591 §3: only when the host opened registration (docs/decisions/0115).
    ...(selfRegistration !== undefined && selfRegistration.registration.policy !== 'off' ? { registration_endpoint: endpointUrl(issuer, OAUTH_PATHS.register) } : {}),
    // draft-ietf-oauth-client-id-metadata-document: an https client_id names the client's metadata (docs/decisions/0117).
    ...(selfRegistration?.clientMetadataDocuments.enabled ? { client_id_metadata_document_supported: true } : {}),
  };
  return settings?.openid === true ? { ...oauth, ...openIdProviderMetadata(issuer) } : oauth;
}

/**
 * OpenID Connect Discovery 1.0 §3: what the OpenID Provider implements, and nothing it does not:
 * the ID token algorithms (RS256 first, OIDC Core §15.1), the `prompt` values it acts on, no
 * `claims`, `request` or `request_uri` parameter (their defaults would be wrong: `request_uri`'s
 * is true), RP-Initiated Logout 1.0's `end_session_endpoint`.
 */
function openIdProviderMetadata(issuer: string): Record<string, unknown> {
  return {
    userinfo_endpoint: endpointUrl(issuer, OAUTH_PATHS.userinfo),
    end_session_endpoint: endpointUrl(issuer, OAUTH_PATHS.logout),
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...ID_TOKEN_SIGNING_ALGORITHMS],
    claims_supported: [...SUPPORTED_CLAIMS],
    claim_types_supported: ['normal'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    prompt_values_supported: [...PROMPT_VALUES],
    display_values_supported: ['page', 'popup', 'touch', 'wap'],
  };
}

/**
 * GET /.well-known/oauth-authorization-server (RFC 8414) and, for an OpenID Provider,
 * /.well-known/openid-configuration (Discovery 1.0 §4) under the issuer: one document.
 */
export function metadataEndpoint(ctx: OAuthContext) {
  const body = authorizationServerMetadata(ctx.issuer, ctx.gatehouse.settings.scopes, ctx.gatehouse.settings);
  return (_req: Request, res: Response): void => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.status(200).json(body);
  };
}

/**
 * GET /oauth/jwks: the public signing keys with their kids (RFC 7517 §5); old keys stay while their
 * tokens live, a new key is listed before it signs for longer than this answer may be cached.
 */
export function jwksEndpoint(ctx: OAuthContext) {
  return async (_req: Request, res: Response): Promise<void> => {
    const jwks = await ctx.gatehouse.jwks();
    // The key ring publishes a new key this long before it signs (docs/operations.md): one setting for both.
    res.setHeader('Cache-Control', `public, max-age=${ctx.gatehouse.settings.jwksMaxAgeSeconds}`);
    res.status(200).type('application/json').send(JSON.stringify(jwks));
  };
}
