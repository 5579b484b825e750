import type { Client } from './domain/model.js';
import { isCataloguedScope, type ScopeCatalogue } from './domain/scopes.js';

/**
 * Who may register a client at the registration endpoint (RFC 7591;
 * docs/decisions/0115-dynamic-client-registration.md): nobody (`off`, the default: no endpoint),
 * anyone within the limits for anonymous clients (`open`), or whoever presents an initial access
 * token (`token`).
 */
export type RegistrationPolicy = 'off' | 'open' | 'token';

/** Dynamic Client Registration (RFC 7591, RFC 7592). */
export interface RegistrationSettings {
  policy: RegistrationPolicy;
  /**
   * SHA-256 (base64url, `sha256(token)`) of each initial access token accepted (RFC 7591 §3): a
   * client that presents one registers without the anonymous limits. Needed by `token`; under
   * `open` a valid one lifts the limits too. Only hashes are kept.
   */
  initialAccessTokenHashes: readonly string[];
  /**
   * The scopes a client may have when nobody vouched for it: registered without an initial access
   * token, or named by a Client ID Metadata Document. `null`: the whole catalogue. A registration or
   * update that asks for other scopes of the catalogue gets only these, and is refused only when
   * none of them is left (docs/decisions/0196-registration-narrows-scope.md).
   */
  anonymousScopes: readonly string[] | null;
  /**
   * The resources (RFC 8707 URIs of `settings.resources`) a client nobody vouched for may get
   * tokens for: it must then name one of them at authorization, and gets no token for the default
   * audience. `null` (the default): no limit beyond its scopes (docs/decisions/0115-dynamic-client-registration.md).
   */
  anonymousResources: readonly string[] | null;
  /**
   * A client that registered itself (either way) and was never used (no code or token issued to
   * it) is deleted this long after it was registered; `null`: kept. Default 7 days.
   */
  unusedClientTtlSeconds: number | null;
}

/** Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; docs/decisions/0117-client-id-metadata-documents.md). */
export interface ClientMetadataDocumentSettings {
  /** Off by default. On, a `client_id` that is an `https` URL with a path names the client's metadata, fetched by Gatehouse. */
  enabled: boolean;
  /**
   * Only documents from these hosts are fetched (`null`: any host). `example.com` names that host;
   * `*.example.com` any host under it (not `example.com` itself). Compared ignoring case and a
   * trailing dot (`example.com.` is `example.com`; docs/decisions/0178).
   */
  allowedHosts: readonly string[] | null;
  /** Documents from these hosts are never fetched (the same patterns), before `allowedHosts`. */
  deniedHosts: readonly string[];
  /**
   * How long a fetched document is used before it is fetched again: its HTTP caching
   * (`Cache-Control: max-age`, `Expires`), else `defaultSeconds`, kept within `minSeconds` and `maxSeconds`.
   */
  cacheSeconds: { defaultSeconds: number; minSeconds: number; maxSeconds: number };
}

/** What `defineSettings` takes for these two: any part, the rest defaulted. */
export interface RegistrationOverrides {
  registration?: Partial<RegistrationSettings>;
  clientMetadataDocuments?: Partial<Omit<ClientMetadataDocumentSettings, 'cacheSeconds'>> & { cacheSeconds?: Partial<ClientMetadataDocumentSettings['cacheSeconds']> };
}

/**
 * How long a self-registered client that was never used is kept (seven days), the default of
 * `registration.unusedClientTtlSeconds`.
 *
 * @example
 * defineSettings({ issuer, registration: { policy: 'open', unusedClientTtlSeconds: DEFAULT_UNUSED_CLIENT_TTL_SECONDS } });
 */
export const DEFAULT_UNUSED_CLIENT_TTL_SECONDS = 7 * 86400;

const HOST_PATTERN = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$|^\d{1,3}(\.\d{1,3}){3}$/i;

/**
 * The two settings with their defaults, or the reason they cannot be used (a `token` policy
 * without tokens, an anonymous scope not in the catalogue, a host pattern that is not one, bounds in the wrong order).
 */
export function registrationSettings(
  overrides: RegistrationOverrides,
  catalogue: ScopeCatalogue,
): { registration: RegistrationSettings; clientMetadataDocuments: ClientMetadataDocumentSettings } | { problem: string } {
  const registration: RegistrationSettings = {
    policy: 'off',
    initialAccessTokenHashes: [],
    anonymousScopes: null,
    anonymousResources: null,
    unusedClientTtlSeconds: DEFAULT_UNUSED_CLIENT_TTL_SECONDS,
    ...overrides.registration,
  };
  const { cacheSeconds, ...documents } = overrides.clientMetadataDocuments ?? {};
  const clientMetadataDocuments: ClientMetadataDocumentSettings = {
    enabled: false,
    allowedHosts: null,
    deniedHosts: [],
    ...documents,
    cacheSeconds: { defaultSeconds: 300, minSeconds: 60, maxSeconds: 86400, ...cacheSeconds },
  };
  if (!['off', 'open', 'token'].includes(registration.policy)) return { problem: `registration.policy must be off, open or token (got ${JSON.stringify(registration.policy)})` };
  if (registration.policy === 'token' && registration.initialAccessTokenHashes.length === 0) {
    return { problem: 'registration.policy "token" needs at least one initial access token (registration.initialAccessTokenHashes)' };
  }
  const unknownScope = registration.anonymousScopes?.find((scope) => !isCataloguedScope(catalogue, scope));
  if (unknownScope !== undefined) return { problem: `registration.anonymousScopes names "${unknownScope}", which is not in the scope catalogue` };
  const badHost = [...(clientMetadataDocuments.allowedHosts ?? []), ...clientMetadataDocuments.deniedHosts].find((host) => !isHostPattern(host));
  if (badHost !== undefined) return { problem: `clientMetadataDocuments: "${badHost}" is not a host name or *.domain pattern` };
  const { minSeconds, defaultSeconds, maxSeconds } = clientMetadataDocuments.cacheSeconds;
  if (!(minSeconds >= 0 && minSeconds <= defaultSeconds && defaultSeconds <= maxSeconds)) {
    return { problem: 'clientMetadataDocuments.cacheSeconds must have 0 ≤ minSeconds ≤ defaultSeconds ≤ maxSeconds' };
  }
  return {
    registration: Object.freeze({
      ...registration,
      initialAccessTokenHashes: Object.freeze([...registration.initialAccessTokenHashes]),
      anonymousScopes: registration.anonymousScopes === null ? null : Object.freeze([...registration.anonymousScopes]),
      anonymousResources: registration.anonymousResources === null ? null : Object.freeze([...registration.anonymousResources]),
    }),
    clientMetadataDocuments: Object.freeze({
      ...clientMetadataDocuments,
      allowedHosts: clientMetadataDocuments.allowedHosts === null ? null : Object.freeze(clientMetadataDocuments.allowedHosts.map((host) => host.toLowerCase())),
      deniedHosts: Object.freeze(clientMetadataDocuments.deniedHosts.map((host) => host.toLowerCase())),
      cacheSeconds: Object.freeze({ ...clientMetadataDocuments.cacheSeconds }),
    }),
  };
}

/**
 * True for a client nobody vouched for: one that registered itself without an initial access token,
 * or the client of a Client ID Metadata Document. The anonymous limits apply to it
 * (`anonymousScopes`, `anonymousResources`; docs/decisions/0115-dynamic-client-registration.md).
 *
 * @example
 * isUnvouchedClient(client); // false for a client of the portal, the CLI or the host
 */
export function isUnvouchedClient(client: Pick<Client, 'registration'>): boolean {
  const registration = client.registration;
  return registration !== undefined && (registration.kind === 'metadata-document' || registration.anonymous);
}

/**
 * True when `pattern` names hosts as the metadata-document host lists take them: a host name
 * (`agent.example`), an IPv4 address, or `*.` and a domain for the hosts under it.
 *
 * @example
 * isHostPattern('*.example.com'); // true
 * isHostPattern('https://example.com'); // false
 */
export function isHostPattern(pattern: string): boolean {
  return HOST_PATTERN.test(pattern);
}

/**
 * True when `hostname` is named by one of `patterns` (`example.com`, or `*.example.com` for the
 * hosts under it). Both are compared ignoring case and without a trailing dot: DNS and the TLS
 * host name check take `example.com.` for `example.com`, so a list must too
 * (docs/decisions/0178-metadata-document-client-ids-canonical.md).
 *
 * @example
 * hostMatches('mcp.example.com', ['*.example.com']); // true
 * hostMatches('example.com', ['*.example.com']); // false
 * hostMatches('Example.COM.', ['example.com']); // true
 */
export function hostMatches(hostname: string, patterns: readonly string[]): boolean {
  const host = comparableHost(hostname);
  return patterns.some((raw) => {
    const pattern = comparableHost(raw);
    return pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern;
  });
}

/** A host name or pattern as the host lists compare it: lower case, without trailing dots. */
function comparableHost(host: string): string {
  return host.toLowerCase().replace(/\.+$/, '');
}
