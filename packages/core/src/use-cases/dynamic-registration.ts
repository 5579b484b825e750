import { applicationTypeOf, clientInformation, metadataError, readClientMetadata, type RequestedClientMetadata } from '../clients/client-metadata.js';
import { changesWhatUsersAllowed, CLIENT_LINK_FIELDS } from '../clients/client-presentation.js';
import { constantTimeEqual, sha256 } from '../crypto.js';
import { isPublicClient } from '../domain/grant-types.js';
import type { Client, ClientMetadata, SelfRegistration } from '../domain/model.js';
import { parseScope } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { DomainError, OAuthError } from '../errors.js';
import type { RegistrationAccessTokenRotation } from '../ports/repositories.js';
import { resourceServerResources } from './resource-indicators.js';
import { newClient, validateRegistration } from './clients.js';
import { openIdClientMetadata, type OpenIdClientMetadata } from './openid-client-metadata.js';

/** What the registration endpoint answers (RFC 7591 §3.2.1), `registration_client_uri` aside (the adapter knows its path). */
export interface DynamicClientRegistered {
  client: Client;
  /** RFC 7591 §3.2.1: the registered metadata, `client_secret` (a confidential client) and `registration_access_token` included. */
  information: Record<string, unknown>;
}

type RegistrationDeps = Pick<Deps, 'repos' | 'clock' | 'ids' | 'audit' | 'settings'>;

/** RFC 7591 §2: the methods a client may register; `client_secret_post` and `_basic` are both accepted at the token endpoint. */
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
type AuthMethod = (typeof AUTH_METHODS)[number];

/** The name of a client that gave none (RFC 7591 §2: `client_name` is optional). */
export const UNNAMED_CLIENT = 'Unnamed app';

/**
 * RFC 7591 §3: registers a client from its metadata (the parsed JSON body), under the host's
 * policy (`settings.registration`; docs/decisions/0115-dynamic-client-registration.md):
 * - `off`: nobody registers (`access_denied`);
 * - `open`: anyone, within the anonymous limits — scopes of `anonymousScopes` only (the others a
 *   request asks for are dropped, and the answer says which it got; docs/decisions/0196), no
 *   `client_credentials`; an initial access token, when one is presented, must be valid and lifts them;
 * - `token`: only with a valid initial access token (else `invalid_token`).
 * Every dynamic client uses PKCE. The client secret (a confidential client) and the registration
 * access token (RFC 7592) are returned once; only their hashes are stored. Unknown fields are
 * ignored; a field that cannot be accepted is `invalid_client_metadata` or `invalid_redirect_uri`
 * naming it, and nothing is stored.
 *
 * @example
 * const { information } = await registerDynamicClient(deps, {
 *   metadata: { client_name: 'Agent', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] },
 *   initialAccessToken: undefined,
 * });
 * information.client_id; information.registration_access_token;
 */
export async function registerDynamicClient(
  deps: RegistrationDeps,
  input: { metadata: unknown; initialAccessToken: string | undefined },
): Promise<DynamicClientRegistered> {
  const anonymous = checkInitialAccessToken(deps, input.initialAccessToken);
  const requested = readClientMetadata(input.metadata);
  const authMethod = authMethodOf(requested);
  const { applicationType, ...valid } = validated(deps, requested, { anonymous, isPublic: authMethod === 'none' });
  const resourceServerFor = servedResources(deps, requested, { anonymous, isPublic: authMethod === 'none' }) ?? [];
  // Every dynamic client uses PKCE (RFC 9700 §2.1.1; MCP requires it of every client).
  const { client, clientSecret } = newClient(deps, valid, { public: authMethod === 'none', pkceRequired: true, ownerUserKey: null }, resourceServerFor, openIdMetadataOf(requested));
  const registrationAccessToken = deps.ids.secret();
  const registered: Client = {
    ...client,
    registration: {
      kind: 'dynamic',
      registrationAccessTokenHash: sha256(registrationAccessToken),
      anonymous,
      metadata: metadataOf(requested, applicationType, authMethod),
      firstUsedAt: null,
    },
  };
  await deps.repos.clients.create(registered);
  deps.audit.record({ type: 'client.created', at: registered.createdAt, clientId: registered.clientId, reason: anonymous ? 'dynamic registration, anonymous' : 'dynamic registration, initial access token' });
  return {
    client: registered,
    information: {
      ...clientInformation(registered),
      // RFC 7591 §3.2.1: a secret that does not expire.
      ...(clientSecret === null ? {} : { client_secret: clientSecret, client_secret_expires_at: 0 }),
      registration_access_token: registrationAccessToken,
    },
  };
}

/**
 * How long a registration access token still counts after a read or update replaced it: a retry
 * after a lost answer, whose new token the client never got
 * (docs/decisions/0185-registration-access-token-rotated.md).
 */
export const REGISTRATION_ACCESS_TOKEN_GRACE_SECONDS = 60;

/**
 * RFC 7592 §2.1: the client's registered metadata, for the holder of its registration access
 * token, with a new registration access token (RFC 7592 §3: the answer carries one, and only the
 * hash of the one presented is kept, so it is replaced; docs/decisions/0185). The secret is not
 * shown again (only its hash is kept); `client_secret_expires_at` says it does not expire.
 * Anything else — an unknown client, another kind of client, a wrong token, a request that lost
 * the replacement to another with the same token — is `invalid_token` (RFC 7592 §2: 401), alike.
 *
 * @example
 * const information = await readDynamicClient(deps, { clientId, registrationAccessToken });
 * information.registration_access_token; // the token for the next request: the one presented is replaced
 */
export async function readDynamicClient(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids'>,
  input: { clientId: string; registrationAccessToken: string },
): Promise<Record<string, unknown>> {
  const authenticated = await authenticateRegistration(deps, input);
  const registrationAccessToken = await rotateRegistrationAccessToken(deps, authenticated);
  return managementAnswer(clientInformation(authenticated.client), authenticated.client, registrationAccessToken);
}

/**
 * RFC 7592 §2.2: replaces the client's metadata with the request's (an omitted field takes its
 * default again), under the limits it registered with, and its registration access token with a
 * new one, in one write (docs/decisions/0185). The body's `client_id` must be the client's; a
 * `client_secret`, when sent, must be its secret. A public client stays public and a confidential
 * one confidential. An update that changes what the consent page showed, where codes go or widens
 * the scopes forgets every user's remembered consent to the client in the same write, so the next
 * authorization asks again (docs/decisions/0195). Nothing changes when anything is refused.
 *
 * @example
 * const information = await updateDynamicClient(deps, { clientId, registrationAccessToken, metadata: { client_id: clientId, redirect_uris: [...], … } });
 */
export async function updateDynamicClient(
  deps: RegistrationDeps,
  input: { clientId: string; registrationAccessToken: string; metadata: unknown },
): Promise<Record<string, unknown>> {
  const authenticated = await authenticateRegistration(deps, input);
  const { client: existing, registration } = authenticated;
  const requested = readClientMetadata(input.metadata);
  const body = input.metadata as Record<string, unknown>;
  if (body.client_id !== existing.clientId) throw new OAuthError('invalid_request', 'client_id: must be the client id of the registration being updated.');
  if (body.client_secret !== undefined) {
    const matches = typeof body.client_secret === 'string' && existing.clientSecretHash !== null && constantTimeEqual(sha256(body.client_secret), existing.clientSecretHash);
    if (!matches) throw new OAuthError('invalid_request', "client_secret: is not the client's secret.");
  }
  const authMethod = authMethodOf(requested);
  if ((authMethod === 'none') !== isPublicClient(existing)) {
    throw metadataError('token_endpoint_auth_method', 'cannot change between none and a secret method; register a new client instead.');
  }
  const valid = validated(deps, requested, { anonymous: registration.anonymous, isPublic: isPublicClient(existing) });
  const { applicationType, ...fields } = valid;
  // RFC 7592 §2.2: the new metadata replaces the old, the resources it serves included.
  const resourceServerFor = servedResources(deps, requested, { anonymous: registration.anonymous, isPublic: isPublicClient(existing) }) ?? [];
  // RFC 7592 §2.2: an omitted OpenID field takes its default again.
  const openid = openIdMetadataOf(requested);
  const metadata = metadataOf(requested, applicationType, authMethod);
  const changes = {
    ...fields,
    resourceServerFor,
    pkceRequired: true,
    metadata,
    idTokenSignedResponseAlg: openid.idTokenSignedResponseAlg,
    postLogoutRedirectUris: openid.postLogoutRedirectUris ?? [],
    defaultMaxAge: openid.defaultMaxAge,
    requireAuthTime: openid.requireAuthTime ?? false,
  };
  // docs/decisions/0195: what the users allowed is no longer what they would be asked about, so
  // their remembered consents go in the same write as the update (never one without the other).
  const forgetConsents = updateChangesWhatUsersAllowed(existing, registration, { ...fields, metadata });
  const registrationAccessToken = await rotateRegistrationAccessToken(deps, authenticated, changes, forgetConsents);
  deps.audit.record({
    type: 'client.updated',
    at: deps.clock.now(),
    clientId: existing.clientId,
    reason: forgetConsents ? 'dynamic registration update, remembered consents forgotten' : 'dynamic registration update',
  });
  const { resourceServerFor: _served, idTokenSignedResponseAlg: _alg, postLogoutRedirectUris: _uris, defaultMaxAge: _maxAge, requireAuthTime: _authTime, ...kept } = existing;
  const updated = { ...kept, ...fields, pkceRequired: true, registration: { ...registration, metadata }, ...(resourceServerFor.length === 0 ? {} : { resourceServerFor }), ...openid };
  return managementAnswer(clientInformation(updated), existing, registrationAccessToken);
}

/**
 * RFC 7592 §2.3: deletes the client with its grants and tokens (they stop working at once).
 *
 * @example
 * await deleteDynamicClient(deps, { clientId, registrationAccessToken }); // then 204
 */
export async function deleteDynamicClient(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  input: { clientId: string; registrationAccessToken: string },
): Promise<void> {
  const { client } = await authenticateRegistration(deps, input);
  if (!(await deps.repos.clients.delete(client.clientId))) throw registrationTokenRefused();
  deps.audit.record({ type: 'client.deleted', at: deps.clock.now(), clientId: client.clientId, reason: 'dynamic registration delete' });
}

/**
 * RFC 7591 §3: true when the registration is anonymous (no initial access token, allowed by
 * `open`); false with a valid token. A token that is not valid, or none under `token`, is
 * `invalid_token`; registration `off` is `access_denied`. The token's hash is compared with each
 * accepted hash in constant time.
 */
function checkInitialAccessToken(deps: Pick<Deps, 'settings'>, token: string | undefined): boolean {
  const { policy, initialAccessTokenHashes } = deps.settings.registration;
  if (policy === 'off') throw new OAuthError('access_denied', 'Client registration is not open on this server.');
  if (token === undefined) {
    if (policy === 'open') return true;
    throw new OAuthError('invalid_token', 'Registration needs an initial access token (Authorization: Bearer).');
  }
  const presented = sha256(token);
  let valid = false;
  for (const accepted of initialAccessTokenHashes) valid = constantTimeEqual(presented, accepted) || valid;
  if (!valid) throw new OAuthError('invalid_token', 'The initial access token is not valid.');
  return false;
}

type DynamicRegistration = Extract<SelfRegistration, { kind: 'dynamic' }>;

/** A management request whose registration access token was accepted. */
interface AuthenticatedRegistration {
  client: Client;
  registration: DynamicRegistration;
  /** True when the token presented is the one the current token replaced, within the grace: a retry after a lost answer. */
  retried: boolean;
}

/** Compared in place of a stored hash that is missing: no token's SHA-256 is the empty string. */
const NO_HASH = '';

/**
 * RFC 7592 §2: the dynamic client whose registration access token this is — its current token, or
 * the one that token replaced less than `REGISTRATION_ACCESS_TOKEN_GRACE_SECONDS` ago
 * (docs/decisions/0185); anything else is `invalid_token`. The client is read as stored now, past
 * any cache: another instance may have issued the token a moment ago.
 */
async function authenticateRegistration(deps: Pick<Deps, 'repos' | 'clock'>, input: { clientId: string; registrationAccessToken: string }): Promise<AuthenticatedRegistration> {
  const client = await deps.repos.clients.findById(input.clientId, { fresh: true });
  const registration = client?.registration?.kind === 'dynamic' ? client.registration : undefined;
  const previous = registration?.previousRegistrationAccessToken;
  const presented = sha256(input.registrationAccessToken);
  // Both compared, even for an unknown client, so timing tells neither which ids exist nor which token matched.
  const current = constantTimeEqual(presented, registration?.registrationAccessTokenHash ?? NO_HASH);
  const replaced = constantTimeEqual(presented, previous?.hash ?? NO_HASH);
  const withinGrace = previous !== undefined && previous.replacedAt.getTime() > deps.clock.now().getTime() - REGISTRATION_ACCESS_TOKEN_GRACE_SECONDS * 1000;
  if (!client || !registration || !(current || (replaced && withinGrace))) throw registrationTokenRefused();
  return { client, registration, retried: !current };
}

/**
 * RFC 7592 §2.1, §2.2: a new registration access token for the client, its hash stored in one
 * compare-and-set on the hash the request was authenticated against (with an update's changes),
 * so that of two requests with the same token only one gets a token that works; the other is
 * `invalid_token`, as a wrong token is. The token presented stays valid for the grace, once the
 * client's own: a retry of the same request then replaces the new token, which never reached it,
 * and the one presented keeps its original grace (docs/decisions/0185).
 */
async function rotateRegistrationAccessToken(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids'>,
  { client, registration, retried }: AuthenticatedRegistration,
  changes?: RegistrationAccessTokenRotation['changes'],
  forgetConsents = false,
): Promise<string> {
  const token = deps.ids.secret();
  const previous = retried && registration.previousRegistrationAccessToken !== undefined ? registration.previousRegistrationAccessToken : { hash: registration.registrationAccessTokenHash, replacedAt: deps.clock.now() };
  const rotated = await deps.repos.clients.rotateRegistrationAccessToken({
    clientId: client.clientId,
    currentHash: registration.registrationAccessTokenHash,
    nextHash: sha256(token),
    previous,
    ...(changes === undefined ? {} : { changes }),
    ...(forgetConsents ? { forgetConsents } : {}),
  });
  if (!rotated) throw registrationTokenRefused();
  return token;
}

/** An RFC 7592 update's side of `changesWhatUsersAllowed`: the links are the registration's metadata. */
function updateChangesWhatUsersAllowed(existing: Client, registration: DynamicRegistration, next: { name: string; redirectUris: string[]; scopes: string[]; metadata: ClientMetadata }): boolean {
  const links = (metadata: ClientMetadata) => Object.fromEntries(CLIENT_LINK_FIELDS.map((field) => [field, metadata[field]]));
  return changesWhatUsersAllowed({ ...existing, ...links(registration.metadata) }, { name: next.name, redirectUris: next.redirectUris, scopes: next.scopes, ...links(next.metadata) });
}

/**
 * RFC 7592 §3: the client information response — the registered metadata, the new registration
 * access token and, for a confidential client, `client_secret_expires_at` (RFC 7591 §3.2.1: its
 * secret, not shown again, does not expire).
 */
function managementAnswer(information: Record<string, unknown>, client: Client, registrationAccessToken: string): Record<string, unknown> {
  return { ...information, ...(client.clientSecretHash === null ? {} : { client_secret_expires_at: 0 }), registration_access_token: registrationAccessToken };
}

function registrationTokenRefused(): OAuthError {
  return new OAuthError('invalid_token', 'The registration access token is not valid for this client.');
}

/** RFC 7591 §2: `client_secret_basic` unless said; only the methods Gatehouse's token endpoint takes. */
function authMethodOf(requested: RequestedClientMetadata): AuthMethod {
  const method = requested.tokenEndpointAuthMethod ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly string[]).includes(method)) {
    throw metadataError('token_endpoint_auth_method', `${method} is not supported (one of ${AUTH_METHODS.join(', ')}).`);
  }
  return method as AuthMethod;
}

/**
 * The registration the request asks for, judged: RFC 7591 §2 defaults (`grant_types`
 * `authorization_code`, `response_types` `code`) and §2.1 consistency, the anonymous limits, then
 * the rules every client follows (`validateRegistration`: name, redirect URIs of the application
 * type, catalogued scopes, grant types), each refusal naming the RFC field.
 */
function validated(deps: Pick<Deps, 'settings'>, requested: RequestedClientMetadata, options: { anonymous: boolean; isPublic: boolean }) {
  const grantTypes = requested.grantTypes ?? ['authorization_code'];
  const responseTypes = requested.responseTypes ?? (grantTypes.includes('authorization_code') ? ['code'] : []);
  const otherResponse = responseTypes.find((type) => type !== 'code');
  if (otherResponse !== undefined) throw metadataError('response_types', `${otherResponse} is not supported (only code).`);
  if (options.anonymous && grantTypes.includes('client_credentials')) {
    throw metadataError('grant_types', 'client_credentials needs an initial access token: a client that registered itself acts for users only.');
  }
  const scopes = registeredScopes(deps, requested.scope, options.anonymous);
  const applicationType = applicationTypeOf(requested.metadata.applicationType, requested.redirectUris);
  let valid: ReturnType<typeof validateRegistration>;
  try {
    valid = validateRegistration(
      { name: requested.clientName ?? UNNAMED_CLIENT, redirectUris: requested.redirectUris, scopes, grantTypes, public: options.isPublic, applicationType },
      deps.settings.scopes,
    );
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'invalid') throw metadataError(RFC_FIELDS[error.field ?? ''] ?? 'client_metadata', error.message);
    throw error;
  }
  // RFC 7591 §2.1: the code grant and the code response type go together.
  if (responseTypes.includes('code') !== valid.grantTypes.includes('authorization_code')) {
    throw metadataError('response_types', 'code goes with the authorization_code grant type, and only with it.');
  }
  return { ...valid, applicationType };
}

/**
 * The scopes a registration gets (docs/decisions/0196-registration-narrows-scope.md): without
 * `scope`, every scope it may have; with one, those it asked for. An anonymous client may have
 * `registration.anonymousScopes` only (default: the whole catalogue), so the scopes of the catalogue
 * outside them are dropped from its request — RFC 7591 §3.2.1 lets the server replace a requested
 * value, and the answer's `scope` says what was registered (an MCP client asks for every scope the
 * protected resource lists). A request left with none of them is refused; a scope the catalogue does
 * not have is kept, for `validateRegistration` to refuse as before.
 */
function registeredScopes(deps: Pick<Deps, 'settings'>, scope: string | undefined, anonymous: boolean): string[] {
  const { anonymousScopes } = deps.settings.registration;
  const catalogue = deps.settings.scopes.map((entry) => entry.scope);
  const allowed = anonymous && anonymousScopes !== null ? anonymousScopes : catalogue;
  if (scope === undefined) return [...allowed];
  const asked = parseScope(scope);
  if (!anonymous) return asked;
  const kept = asked.filter((entry) => allowed.includes(entry) || !catalogue.includes(entry));
  if (asked.length > 0 && kept.length === 0) {
    const refused = asked.length === 1 ? `${asked[0]} is not available` : `none of ${asked.join(', ')} is available`;
    throw metadataError('scope', `${refused} to clients that register themselves.`);
  }
  return kept;
}

/**
 * The OpenID Connect metadata of a registration (OIDC Dynamic Client Registration §2,
 * RP-Initiated Logout §3.1; docs/decisions/0136), judged as every client's is, a refusal
 * naming the RFC field (`invalid_client_metadata`).
 */
function openIdMetadataOf(requested: RequestedClientMetadata): OpenIdClientMetadata {
  try {
    return openIdClientMetadata(requested.openid);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'invalid') throw metadataError(OPENID_FIELDS[error.field ?? ''] ?? 'client_metadata', error.message);
    throw error;
  }
}

const OPENID_FIELDS: Record<string, string> = {
  idTokenSignedResponseAlg: 'id_token_signed_response_alg',
  postLogoutRedirectUris: 'post_logout_redirect_uris',
  defaultMaxAge: 'default_max_age',
  requireAuthTime: 'require_auth_time',
};

/** `validateRegistration`'s field names as RFC 7591 names them. */
const RFC_FIELDS: Record<string, string> = { name: 'client_name', redirectUris: 'redirect_uris', scopes: 'scope', grantTypes: 'grant_types' };

function metadataOf(requested: RequestedClientMetadata, applicationType: ClientMetadata['applicationType'], authMethod: AuthMethod): ClientMetadata {
  return { ...requested.metadata, applicationType, tokenEndpointAuthMethod: authMethod };
}

/**
 * The resources the client asks to serve as a resource server (`resource_server_for`, RFC 7662
 * §2.1; docs/decisions/0112): only a client registered with an initial access token may, and only
 * a confidential one, each a configured resource. Undefined when it asked for none.
 */
function servedResources(deps: Pick<Deps, 'settings'>, requested: RequestedClientMetadata, options: { anonymous: boolean; isPublic: boolean }): string[] | undefined {
  if (requested.resourceServerFor === undefined || requested.resourceServerFor.length === 0) return undefined;
  if (options.anonymous) throw metadataError('resource_server_for', 'needs an initial access token: a client that registered itself cannot introspect other clients\' tokens.');
  try {
    return resourceServerResources(deps.settings, requested.resourceServerFor, options.isPublic);
  } catch (error) {
    if (error instanceof DomainError) throw metadataError('resource_server_for', error.message);
    throw error;
  }
}
