import { canonicalResourceCatalogue, findResource, resourceCatalogueProblem, type ResourceCatalogue } from './domain/resources.js';
import { OIDC_SCOPES } from './domain/openid-scopes.js';
import { isLoopbackHost } from './domain/redirect-uri.js';
import { DEFAULT_SCOPES, scopeCatalogueProblem, type ScopeCatalogue } from './domain/scopes.js';
import { registrationSettings, type ClientMetadataDocumentSettings, type RegistrationOverrides, type RegistrationSettings } from './registration-settings.js';

/** Per-deployment settings of the core. */
export interface GatehouseSettings {
  /**
   * RFC 8414 issuer identifier: the `iss` of tokens and authorization responses (RFC 9207) and the
   * metadata's `issuer`, the same string everywhere (RFC 8414 §3.3). An absolute `https` (or `http`)
   * URL without a query, a fragment or a trailing slash (`https://auth.example.com`,
   * `https://orders.example/auth`); `defineSettings` refuses any other (docs/decisions/0183).
   */
  issuer: string;
  /**
   * The default audience: `aud` of access tokens requested without `resource` (RFC 8707), the
   * identifier of the APIs `bearerAuth(gatehouse)` protects. Defaults to the issuer.
   */
  audience: string;
  accessTokenTtlSeconds: number;
  codeTtlSeconds: number;
  sessionTtlSeconds: number;
  refreshToken: {
    /** Issue a new refresh token on each use (default off: a refresh token stays valid until logout, decision 0003). */
    rotate: boolean;
    /** Under rotation, a rotated token may be presented again within this many seconds (a lost response's retry). */
    reuseGraceSeconds: number;
    /** A refresh token unused for this long stops working (null: no limit). */
    idleTtlSeconds: number | null;
    /** A grant's refresh tokens stop working this long after the grant was made (null: no limit). */
    absoluteTtlSeconds: number | null;
  };
  maxAttributesPerAccount: number;
  /**
   * The most clients one user may own (registered in the portal or by the host for them; the
   * operator's clients have no owner): a further registration is refused
   * (docs/decisions/0192-clients-per-user.md). Default 100.
   */
  maxClientsPerUser: number;
  /** Lifetime of a login or consent request handed to the host application (docs/decisions/0091). */
  interactionTtlSeconds: number;
  /**
   * The most login requests and `prompt=login` markers made for browsers that are not signed in
   * the database keeps at once (docs/decisions/0108-anonymous-requests-store-bounded-state.md):
   * beyond it, expired ones are deleted, and a new one is refused while none has expired.
   * Each holds at most 4 KiB of request. Default 10,000.
   */
  maxAnonymousInteractions: number;
  /**
   * How long resource servers may cache the JWKS (its `Cache-Control: max-age`). A new signing
   * key is published this long (plus a margin) before it signs (docs/operations.md, key rotation).
   */
  jwksMaxAgeSeconds: number;
  /**
   * The scope catalogue: every scope a client may be registered with, with the words the consent
   * page shows. Registration, authorize, refresh, consent, the portal and `scopes_supported` read it.
   * Default: `DEFAULT_SCOPES`.
   */
  scopes: ScopeCatalogue;
  /**
   * The resource servers that accept Gatehouse's tokens (RFC 8707 resource indicators): a client
   * may ask for a token for one of them with `resource`; its `aud` is then the resource's URI and
   * its scopes those the resource accepts (docs/decisions/0110-resource-indicators.md). Kept in
   * canonical form. Default: none.
   */
  resources: ResourceCatalogue;
  /** Dynamic Client Registration (RFC 7591/7592): off by default (docs/decisions/0115-dynamic-client-registration.md). */
  registration: RegistrationSettings;
  /** Client ID Metadata Documents: off by default (docs/decisions/0117-client-id-metadata-documents.md). */
  clientMetadataDocuments: ClientMetadataDocumentSettings;
  /**
   * OpenID Connect (SPEC §9; docs/decisions/0130-openid-connect-scopes-and-claims.md): the OIDC
   * scopes (`OIDC_SCOPES`: `openid`, `profile`, `email`, `phone`, `address`, `offline_access`) join
   * the catalogue, a request with `openid` gets an ID token, and the HTTP adapter serves UserInfo,
   * `/.well-known/openid-configuration` and RP-initiated logout. Default off: nothing changes.
   */
  openid: boolean;
}

/**
 * What is wrong with an issuer identifier, or undefined when nothing is. RFC 8414 §2: an https URL
 * (http on loopback only) without a query or fragment; and no trailing slash, so that the one string every `iss` and the metadata's
 * `issuer` are made of needs no normalising (RFC 8414 §3.3, RFC 9207 §2; docs/decisions/0183).
 */
function issuerProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return `the issuer ${JSON.stringify(issuer)} is not an absolute URL (such as https://auth.example.com)`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `the issuer ${JSON.stringify(issuer)} is not an https URL (such as https://auth.example.com)`;
  // RFC 8414 §2: the issuer uses the https scheme; http only on a loopback host, for development
  // (docs/decisions/0187-issuer-https-outside-loopback.md).
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return `the issuer ${JSON.stringify(issuer)} is http on a host that is not loopback; write ${JSON.stringify(`https${issuer.slice('http'.length)}`)} (RFC 8414 §2; http is for development on localhost, 127.0.0.1 or [::1])`;
  }
  const plain = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  if (issuer.includes('?') || issuer.includes('#')) return `the issuer ${JSON.stringify(issuer)} has a query or fragment, which RFC 8414 §2 forbids; write ${JSON.stringify(plain)}`;
  if (issuer.endsWith('/')) {
    return `the issuer ${JSON.stringify(issuer)} ends with a slash; write ${JSON.stringify(plain)}: the metadata's issuer and every token's iss must be the same string (RFC 8414 §3.3, RFC 9207 §2)`;
  }
  // Written as a URL parser writes it back (lower-case scheme and host, no default port): clients
  // compare the issuer as a string, and the URLs made from it (the demo client's redirect URI
  // among them) must be too (docs/decisions/0197-redirect-uris-canonical.md).
  if (plain !== issuer) return `the issuer ${JSON.stringify(issuer)} is not written as a URL parser writes it back; write ${JSON.stringify(plain)}`;
  return undefined;
}

/**
 * Settings with the product's defaults. An issuer that is not an absolute URL, is http on a host
 * that is not loopback, or has a query, a fragment or a trailing slash, throws an `Error` naming the issuer to write instead
 * (docs/decisions/0183-resource-and-issuer-urls-agree.md). A scope catalogue that cannot be used (a scope that is
 * not a scope-token of the product's form, listed twice, or without a description; see
 * docs/decisions/0015-scopes-are-configuration.md), or a resource catalogue that cannot (a URI
 * that is not absolute `https`, has a query or fragment, is listed twice, or a scope outside the
 * catalogue; docs/decisions/0110-resource-indicators.md) throws an `Error` saying which.
 *
 * @example
 * const settings = defineSettings({ issuer: 'https://auth.example.com' });
 * settings.accessTokenTtlSeconds; // 3600
 *
 * @example
 * // An embedder's own scopes, beside (or instead of) the default four:
 * const settings = defineSettings({
 *   issuer: 'https://orders.example.com',
 *   scopes: [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }],
 * });
 *
 * @example
 * // An OpenID Provider: "Sign in with <your service>" (ID tokens, UserInfo, discovery):
 * const settings = defineSettings({ issuer: 'https://auth.example.com', openid: true });
 * settings.scopes.some((entry) => entry.scope === 'openid'); // true
 *
 * @example
 * // A resource server that asks for tokens of its own (RFC 8707 `resource`):
 * const settings = defineSettings({
 *   issuer: 'https://auth.example.com',
 *   scopes: [...DEFAULT_SCOPES, { scope: 'orders.v1.read', description: 'See your orders' }],
 *   resources: [{ resource: 'https://mcp.example.com/mcp', name: 'Orders MCP', scopes: ['orders.v1.read'], accessTokenTtlSeconds: 900 }],
 * });
 */
export function defineSettings(
  overrides: Partial<Omit<GatehouseSettings, 'refreshToken' | keyof RegistrationOverrides>> & RegistrationOverrides & {
    issuer: string;
    refreshToken?: Partial<GatehouseSettings['refreshToken']>;
  },
): GatehouseSettings {
  const wrongIssuer = issuerProblem(overrides.issuer);
  if (wrongIssuer !== undefined) throw new Error(`defineSettings: ${wrongIssuer}.`);
  const { refreshToken, scopes: ownScopes = DEFAULT_SCOPES, resources = [], registration, clientMetadataDocuments, openid = false, ...rest } = overrides;
  // OpenID Connect's scopes after the configured ones; one the embedder listed keeps its words.
  const scopes = openid ? [...ownScopes, ...OIDC_SCOPES.filter((entry) => !ownScopes.some((own) => own.scope === entry.scope))] : ownScopes;
  const problem = scopeCatalogueProblem(scopes, { openid }) ?? resourceCatalogueProblem(resources, scopes);
  if (problem !== undefined) throw new Error(`defineSettings: ${problem}.`);
  const selfRegistration = registrationSettings({ registration, clientMetadataDocuments }, scopes);
  if ('problem' in selfRegistration) throw new Error(`defineSettings: ${selfRegistration.problem}.`);
  const configured = canonicalResourceCatalogue(resources);
  const anonymousResources = selfRegistration.registration.anonymousResources?.map((uri) => findResource(configured, uri)?.resource ?? uri);
  const unknownResource = anonymousResources?.find((uri) => findResource(configured, uri) === undefined);
  if (unknownResource !== undefined) throw new Error(`defineSettings: registration.anonymousResources names ${JSON.stringify(unknownResource)}, which is not a configured resource.`);
  return {
    audience: overrides.audience ?? overrides.issuer,
    accessTokenTtlSeconds: 3600,
    codeTtlSeconds: 60,
    sessionTtlSeconds: 12 * 3600,
    maxAttributesPerAccount: 500,
    maxClientsPerUser: 100,
    interactionTtlSeconds: 600,
    maxAnonymousInteractions: 10_000,
    jwksMaxAgeSeconds: 300,
    ...rest,
    scopes: Object.freeze(scopes.map((entry) => Object.freeze({ scope: entry.scope, description: entry.description }))),
    resources: configured,
    openid,
    refreshToken: { rotate: false, reuseGraceSeconds: 10, idleTtlSeconds: null, absoluteTtlSeconds: null, ...refreshToken },
    ...selfRegistration,
    registration: Object.freeze({ ...selfRegistration.registration, anonymousResources: anonymousResources === undefined ? null : Object.freeze(anonymousResources) }),
  };
}

/**
 * The longest lifetime an access token may have: the default one or a resource's own. Signing
 * keys stay published, and revoked grants are kept, at least this long.
 *
 * @example
 * longestAccessTokenTtlSeconds(defineSettings({ issuer, resources: [{ …, accessTokenTtlSeconds: 7200 }] })); // 7200
 */
export function longestAccessTokenTtlSeconds(settings: Pick<GatehouseSettings, 'accessTokenTtlSeconds' | 'resources'>): number {
  return Math.max(settings.accessTokenTtlSeconds, ...settings.resources.map((entry) => entry.accessTokenTtlSeconds ?? 0));
}
