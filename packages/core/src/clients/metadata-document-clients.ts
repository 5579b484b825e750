import { sha256 } from '../crypto.js';
import type { Client, GrantType } from '../domain/model.js';
import { redirectUriProblem } from '../domain/redirect-uri.js';
import { displayNameProblem } from '../domain/display-name.js';
import { isCataloguedScope, parseScope } from '../domain/scopes.js';
import { DomainError, OAuthError } from '../errors.js';
import type { Clock } from '../ports/clock.js';
import type { ClientMetadataDocumentFetcher, FetchedClientMetadataDocument } from '../ports/client-metadata-documents.js';
import type { AuditLog } from '../ports/services.js';
import type { ClientRepository, Repositories } from '../ports/repositories.js';
import { hostMatches } from '../registration-settings.js';
import type { GatehouseSettings } from '../settings.js';
import { openIdClientMetadata, type OpenIdClientMetadata } from '../use-cases/openid-client-metadata.js';
import { applicationTypeOf, readClientMetadata } from './client-metadata.js';

/** The largest document Gatehouse reads (draft-ietf-oauth-client-id-metadata-document; docs/decisions/0117). */
export const CLIENT_METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;

/** How long a fetch may take, from the DNS look-up to the last byte. */
export const CLIENT_METADATA_DOCUMENT_TIMEOUT_MS = 5_000;

/** Single- and double-dot path segments, also percent-encoded, which a client id URL must not have. */
const DOT_SEGMENTS = new Set(['.', '..', '%2e', '%2e%2e', '.%2e', '%2e.']);

/** The longest client id URL accepted: the bound of a client id at the token endpoint. */
export const CLIENT_ID_URL_MAX_LENGTH = 512;

/** A client found for an authorization request, or why there is none (shown on the error page, never redirected). */
export type ClientLookup = { client: Client } | { problem: string; detail: string };

/** The clients of Client ID Metadata Documents: fetched, judged, stored and cached (docs/decisions/0117-client-id-metadata-documents.md). */
export interface MetadataDocumentClients {
  /**
   * The client the document at `clientId` (an `https` URL) describes: the stored one while its
   * document is fresh, else fetched again. `mayFetch`, asked just before a fetch would start (not
   * for a stored document, nor one already being fetched), refuses it with `false`: the adapter's
   * rate limit per address (docs/decisions/0166-client-metadata-document-fetches-rate-limited.md).
   */
  resolve(clientId: string, options?: ClientLookupOptions): Promise<ClientLookup>;
}

/** What the caller of a client look-up decides: whether a document may be fetched now. */
export interface ClientLookupOptions {
  mayFetch?: (() => Promise<boolean>) | undefined;
}

/** What a look-up refused by `mayFetch` says on the error page. */
export const FETCH_REFUSED_PROBLEM = 'Too many new apps were started from your network. Please try again later.';

/**
 * True when a client id names a Client ID Metadata Document: an `https` URL. Client ids Gatehouse
 * generates are alphanumeric, so the two never meet.
 *
 * @example
 * isClientIdUrl('https://agent.example/client.json'); // true
 */
export function isClientIdUrl(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/**
 * The client of an authorization request (RFC 6749 §4.1.1 `client_id`): a registered client, or,
 * with Client ID Metadata Documents on, the client an `https` client id describes. A
 * metadata-document client stored while the feature was on is not known once it is off.
 *
 * @example
 * const found = await findAuthorizingClient(deps, params.client_id);
 * if ('problem' in found) showErrorPage(found.problem);
 */
export async function findAuthorizingClient(
  // `Deps`'s two members, named here: deps.ts imports this module's types.
  deps: { repos: Pick<Repositories, 'clients'>; clientMetadataDocuments?: MetadataDocumentClients | undefined },
  clientId: string,
  options: ClientLookupOptions = {},
): Promise<ClientLookup> {
  if (deps.clientMetadataDocuments && isClientIdUrl(clientId)) return deps.clientMetadataDocuments.resolve(clientId, options);
  const client = await deps.repos.clients.findById(clientId);
  if (!client || client.registration?.kind === 'metadata-document') return { problem: 'The client is not known.', detail: `unknown client_id ${clientId.slice(0, 200)}` };
  return { client };
}

/**
 * The resolver `createGatehouse` builds when `settings.clientMetadataDocuments.enabled`: a stored
 * document is used until it expires; then it is fetched again (one fetch per URL at a time), judged,
 * and stored; a document that cannot be fetched or used is never replaced by a stale copy.
 */
export function createMetadataDocumentClients(options: {
  clients: ClientRepository;
  clock: Clock;
  settings: GatehouseSettings;
  fetcher: ClientMetadataDocumentFetcher;
  audit: AuditLog;
}): MetadataDocumentClients {
  const { clients, clock, settings, fetcher, audit } = options;
  const inFlight = new Map<string, Promise<ClientLookup>>();

  async function refresh(clientId: string): Promise<ClientLookup> {
    const fetched = await fetcher.fetchDocument(clientId);
    const now = clock.now();
    const judged = judgeDocument(clientId, fetched, settings, now);
    if ('problem' in judged) return judged;
    const outcome = await clients.saveMetadataDocumentClient(judged.client);
    if (outcome === 'other-client') return { problem: 'The client is not known.', detail: `client_id ${clientId.slice(0, 200)} belongs to a client of another kind` };
    if (outcome === 'created') audit.record({ type: 'client.created', at: now, clientId, reason: 'client metadata document' });
    if (outcome === 'changed') audit.record({ type: 'client.updated', at: now, clientId, reason: 'client metadata document changed; remembered consent forgotten' });
    return { client: (await clients.findById(clientId)) ?? judged.client };
  }

  return {
    async resolve(clientId, options = {}) {
      const problem = clientIdUrlProblem(clientId, settings);
      if (problem !== undefined) return { problem, detail: `client_id ${clientId.slice(0, 200)}` };
      const stored = await clients.findById(clientId);
      if (stored?.registration?.kind === 'metadata-document' && stored.registration.documentExpiresAt.getTime() > clock.now().getTime()) return { client: stored };
      let pending = inFlight.get(clientId);
      // Only a fetch that would start is asked about: one under way is joined whatever the limit says.
      if (!pending && options.mayFetch !== undefined && !(await options.mayFetch())) {
        return { problem: FETCH_REFUSED_PROBLEM, detail: `fetch of client_id ${clientId.slice(0, 200)} refused by the rate limit` };
      }
      pending = inFlight.get(clientId);
      if (!pending) {
        pending = refresh(clientId).finally(() => inFlight.delete(clientId));
        inFlight.set(clientId, pending);
      }
      return pending;
    },
  };
}

/**
 * Why a client id URL cannot name a metadata document Gatehouse fetches, in words for the error
 * page, or a host the settings refuse; undefined when it can. The draft's rules
 * (draft-ietf-oauth-client-id-metadata-document §3): `https`, a path, no single- or double-dot path
 * segments, no fragment, no user name or password; a port and a query are allowed. And Gatehouse's
 * (docs/decisions/0178-metadata-document-client-ids-canonical.md): the client id is written exactly
 * as the URL parser of the fetch reads it (no backslash, tab or line break it would turn into a
 * path or drop, no upper-case host, no `:443`), and its host does not end with a dot.
 */
export function clientIdUrlProblem(clientId: string, settings: Pick<GatehouseSettings, 'clientMetadataDocuments'>): string | undefined {
  const invalid = (why: string) => `The client_id is not a valid client metadata document URL: ${why}`;
  if (clientId.length > CLIENT_ID_URL_MAX_LENGTH) return invalid(`it is longer than ${CLIENT_ID_URL_MAX_LENGTH} characters.`);
  if (!URL.canParse(clientId)) return invalid('it is not a URL.');
  const url = new URL(clientId);
  if (url.protocol !== 'https:' || !clientId.startsWith('https://')) return invalid('it must start with https://.');
  // The URL parser reads "\" as "/" in an https URL and drops tabs and line breaks (WHATWG URL
  // §4.4), so such a client id would be fetched from another path than the one checked below.
  if (clientId.includes('\\')) return invalid('it contains a backslash.');
  if (/[\s\p{Cc}]/u.test(clientId)) return invalid('it contains a space, a tab, a line break or another control character.');
  // draft-ietf-oauth-client-id-metadata-document §3: no user name or password, no fragment, a path without dot segments.
  if (url.username || url.password) return invalid('it must not contain a user name or password.');
  if (clientId.includes('#')) return invalid('it must not contain a fragment (#).');
  // The path as written (URL would resolve dot segments away): from the first "/" after the host, up to the query.
  const afterScheme = clientId.slice('https://'.length);
  const authorityEnd = afterScheme.search(/[/?]/);
  const path = authorityEnd < 0 || afterScheme[authorityEnd] !== '/' ? '' : (afterScheme.slice(authorityEnd).split('?', 1)[0] as string);
  if (path === '' || path === '/') return invalid('it must have a path (such as /client.json).');
  if (path.split('/').some((segment) => DOT_SEGMENTS.has(segment.toLowerCase()))) {
    return invalid('it must not contain . or .. path segments, also not written with %2e.');
  }
  // DNS and TLS take "host." for "host"; the host lists would not (docs/decisions/0178).
  if (url.hostname.endsWith('.')) return invalid(`its host must not end with a dot (${url.hostname.replace(/\.+$/, '')}, not ${url.hostname}).`);
  // The fetch reads the client id as the URL parser writes it; anything else is not fetched, so
  // the URL fetched is the one checked, character for character (docs/decisions/0178).
  if (url.href !== clientId) {
    return invalid(`it must be written exactly as its URL reads back, ${url.href.slice(0, 200)} (a lower-case host, no :443, other characters percent-encoded).`);
  }
  const { allowedHosts, deniedHosts } = settings.clientMetadataDocuments;
  if (hostMatches(url.hostname, deniedHosts) || (allowedHosts !== null && !hostMatches(url.hostname, allowedHosts))) {
    return `Gatehouse does not accept clients whose metadata is at ${url.hostname}.`;
  }
  return undefined;
}

/**
 * The client a fetched document describes, or what is wrong with it, in words for the error page
 * (the private detail goes to the log): it must be a 200 answer with a JSON object of at most
 * 5 KiB whose `client_id` is the URL it came from, without `client_secret` or
 * `client_secret_expires_at`, a public client (`token_endpoint_auth_method` `none`, for now), with
 * redirect URIs. Scopes outside the anonymous limits and grant types a public client cannot have
 * are left out, not refused: one document serves many servers.
 */
export function judgeDocument(clientId: string, fetched: FetchedClientMetadataDocument, settings: GatehouseSettings, now: Date): { client: Client } | { problem: string; detail: string } {
  const refuse = (problem: string, detail: string) => ({ problem: `The app's metadata document (${clientId.slice(0, 200)}) ${problem}`, detail });
  if (fetched.kind === 'failed') {
    if (fetched.reason === 'too-large') return refuse(`is larger than ${CLIENT_METADATA_DOCUMENT_MAX_BYTES / 1024} KiB.`, fetched.detail);
    if (fetched.reason === 'timeout') return refuse(`did not arrive within ${CLIENT_METADATA_DOCUMENT_TIMEOUT_MS / 1000} seconds.`, fetched.detail);
    // Unreachable and refused addresses read the same: the page tells no one what an address inside the network is.
    return refuse('could not be fetched.', `${fetched.reason}: ${fetched.detail}`);
  }
  if (fetched.status >= 300 && fetched.status < 400) return refuse(`answered with a redirect (HTTP ${fetched.status}), which Gatehouse does not follow.`, `status ${fetched.status}`);
  if (fetched.status !== 200) return refuse(`could not be fetched (HTTP ${fetched.status}).`, `status ${fetched.status}`);
  if (fetched.body.byteLength > CLIENT_METADATA_DOCUMENT_MAX_BYTES) return refuse(`is larger than ${CLIENT_METADATA_DOCUMENT_MAX_BYTES / 1024} KiB.`, `${fetched.body.byteLength} bytes`);
  const mediaType = (fetched.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (mediaType !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(mediaType)) return refuse('is not JSON (its Content-Type is not application/json).', `content-type ${mediaType}`);
  let text: string;
  let document: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(fetched.body);
    document = JSON.parse(text);
  } catch {
    return refuse('is not valid JSON.', 'parse failed');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return refuse('is not a JSON object.', 'not an object');
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) return refuse('names another client_id: it must be its own URL.', `client_id ${String(fields.client_id).slice(0, 200)}`);
  // draft-ietf-oauth-client-id-metadata-document §4.1: "the client_secret and client_secret_expires_at properties MUST NOT be used".
  const secretField = ['client_secret', 'client_secret_expires_at'].find((field) => Object.hasOwn(fields, field));
  if (secretField !== undefined) return refuse(`contains ${secretField}, which a metadata document must not have: it cannot hold a shared secret.`, secretField);
  let requested: ReturnType<typeof readClientMetadata>;
  try {
    requested = readClientMetadata(document);
  } catch (error) {
    if (error instanceof OAuthError) return refuse(`is not valid: ${error.description}`, error.code);
    throw error;
  }
  const authMethod = requested.tokenEndpointAuthMethod ?? 'none';
  if (authMethod !== 'none') return refuse(`uses token_endpoint_auth_method ${authMethod}; only none (a public client) is accepted.`, authMethod);
  const applicationType = applicationTypeOf(requested.metadata.applicationType, requested.redirectUris);
  const redirectUris = requested.redirectUris.filter((uri) => redirectUriProblem(uri, applicationType) === undefined);
  if (redirectUris.length === 0) return refuse('lists no redirect URI Gatehouse accepts.', `redirect_uris ${requested.redirectUris.length}`);
  const name = requested.clientName?.normalize('NFC').trim();
  if (name !== undefined && (name.length < 1 || [...name].length > 100)) return refuse('has a client_name that is not 1 to 100 characters without control characters.', 'client_name');
  // The consent page names the app with it (docs/decisions/0190).
  const nameProblem = name === undefined ? undefined : displayNameProblem(name);
  if (nameProblem !== undefined) return refuse(`has a client_name that ${nameProblem}.`, 'client_name');
  const { anonymousScopes } = settings.registration;
  const allowed = (scope: string) => isCataloguedScope(settings.scopes, scope) && (anonymousScopes === null || anonymousScopes.includes(scope));
  const scopes = requested.scope === undefined ? settings.scopes.map((entry) => entry.scope).filter(allowed) : [...new Set(parseScope(requested.scope))].filter(allowed);
  // OpenID Connect metadata (docs/decisions/0136): a document that cannot be used is refused, as a wrong name is.
  let openid: OpenIdClientMetadata;
  try {
    openid = openIdClientMetadata(requested.openid);
  } catch (error) {
    if (error instanceof DomainError) return refuse(`is not valid: ${error.message}`, error.field ?? 'openid');
    throw error;
  }
  const requestedGrants = requested.grantTypes ?? ['authorization_code'];
  const grantTypes: GrantType[] = requestedGrants.includes('refresh_token') ? ['authorization_code', 'refresh_token'] : ['authorization_code'];
  return {
    client: {
      clientId,
      clientSecretHash: null,
      name: name ?? new URL(clientId).hostname,
      redirectUris: [...new Set(redirectUris)],
      scopes,
      grantTypes,
      pkceRequired: true,
      ownerUserKey: null,
      createdAt: now,
      ...openid,
      registration: {
        kind: 'metadata-document',
        documentHash: sha256(text),
        documentExpiresAt: new Date(now.getTime() + cacheLifetimeSeconds(fetched.headers, settings.clientMetadataDocuments.cacheSeconds) * 1000),
        metadata: { ...requested.metadata, applicationType, tokenEndpointAuthMethod: 'none' },
        firstUsedAt: null,
      },
    },
  };
}

/**
 * How long a document may be used (RFC 9111 §4.2.1): `Cache-Control` `s-maxage` or `max-age`
 * (`no-store` or `no-cache`: no time at all), else `Expires` minus `Date`, else the default; kept
 * within the bounds.
 *
 * @example
 * cacheLifetimeSeconds({ 'cache-control': 'public, max-age=600' }, { defaultSeconds: 300, minSeconds: 60, maxSeconds: 86400 }); // 600
 */
export function cacheLifetimeSeconds(headers: Readonly<Record<string, string>>, bounds: { defaultSeconds: number; minSeconds: number; maxSeconds: number }): number {
  const directives = new Map<string, string | undefined>();
  for (const part of (headers['cache-control'] ?? '').split(',')) {
    const [name, value] = part.split('=', 2).map((piece) => piece.trim());
    if (name) directives.set(name.toLowerCase(), value?.replace(/^"|"$/g, ''));
  }
  let seconds: number | undefined;
  if (directives.has('no-store') || directives.has('no-cache')) seconds = 0;
  else {
    const maxAge = directives.get('s-maxage') ?? directives.get('max-age');
    if (maxAge !== undefined && /^\d+$/.test(maxAge)) seconds = Number(maxAge);
    else if (headers.expires !== undefined) {
      const expires = Date.parse(headers.expires);
      const date = headers.date === undefined ? Number.NaN : Date.parse(headers.date);
      if (!Number.isNaN(expires) && !Number.isNaN(date)) seconds = Math.max(0, Math.floor((expires - date) / 1000));
      else if (Number.isNaN(expires)) seconds = 0; // RFC 9111 §5.3: an invalid Expires means already expired
    }
  }
  return Math.min(bounds.maxSeconds, Math.max(bounds.minSeconds, seconds ?? bounds.defaultSeconds));
}
