import { DEFAULT_GRANT_TYPES, GRANT_TYPES, isGrantType, isPublicClient } from '../domain/grant-types.js';
import type { Client, GrantType } from '../domain/model.js';
import { redirectUriProblem, type ApplicationType } from '../domain/redirect-uri.js';
import { displayNameProblem } from '../domain/display-name.js';
import { isCataloguedScope, type ScopeCatalogue } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { DomainError, OAuthError } from '../errors.js';
import { constantTimeEqual, sha256 } from '../crypto.js';
import { openIdClientMetadata, type OpenIdClientMetadata, type OpenIdClientRegistration } from './openid-client-metadata.js';
import { changesWhatUsersAllowed, clientLinks, clientPresentation, type ClientLinks, type ClientLinksRegistration, type ClientPresentation } from '../clients/client-presentation.js';
import { assertUserMayServe, resourceServerResources } from './resource-indicators.js';

export interface ClientRegistration extends OpenIdClientRegistration, ClientLinksRegistration {
  name: string;
  /** Needed when the client has the `authorization_code` grant. */
  redirectUris: string[];
  scopes: string[];
  /** Default `['authorization_code', 'refresh_token']`. */
  grantTypes?: readonly string[];
  /**
   * A public client (single-page or native app, RFC 6749 §2.1): no secret, PKCE S256 always,
   * refresh tokens always rotated (docs/decisions/0027-public-clients.md). Fixed at creation.
   */
  public?: boolean;
  pkceRequired?: boolean;
  ownerUserKey?: string | null;
  /**
   * The configured resources (RFC 8707 URIs) this client serves as a resource server: it may
   * introspect their access tokens (RFC 7662 §2.1; confidential clients only). Default none.
   */
  resourceServerFor?: readonly string[];
  /**
   * The redirect URI rules of an application type (docs/decisions/0116-native-redirect-uris.md):
   * `native` also accepts private-use schemes (RFC 8252 §7.1), `web` only `https`. Without one,
   * Gatehouse's own rules: `https`, or `http` on loopback.
   */
  applicationType?: ApplicationType;
  /**
   * A first-party app the operator vouches for, marked so on the consent page
   * (docs/decisions/0155-who-is-asking-on-the-consent-page.md): the operator's to set (the CLI);
   * the portal never passes it.
   */
  firstParty?: boolean;
}

/** A client with its secret, as shown once at creation or rotation; `null` for a public client. */
export interface ClientWithSecret {
  client: Client;
  clientSecret: string | null;
}

/**
 * Validates a registration against the deployment's scope catalogue (`settings.scopes`); throws
 * `DomainError('invalid')` naming the field.
 *
 * @example
 * validateRegistration({ name: 'Orders app', redirectUris: ['https://app.example/cb'], scopes: ['orders.v1.read'] }, settings.scopes);
 */
export function validateRegistration(
  input: Pick<ClientRegistration, 'name' | 'redirectUris' | 'scopes' | 'grantTypes' | 'public' | 'applicationType'>,
  catalogue: ScopeCatalogue,
): {
  name: string;
  redirectUris: string[];
  scopes: string[];
  grantTypes: GrantType[];
} {
  const name = input.name.normalize('NFC').trim();
  if (name.length < 1 || [...name].length > 100) throw new DomainError('invalid', 'The name must be 1 to 100 characters without control characters.', { field: 'name' });
  // The consent page names the app with it: nothing invisible, nothing that reverses the text around it (docs/decisions/0190).
  const problem = displayNameProblem(name);
  if (problem !== undefined) throw new DomainError('invalid', `The name ${problem}.`, { field: 'name' });
  const grantTypes = validateGrantTypes(input.grantTypes ?? DEFAULT_GRANT_TYPES, input.public ?? false);
  const redirectUris = [...new Set(input.redirectUris.map((uri) => uri.trim()).filter((uri) => uri !== ''))];
  // A client without the code flow is never redirected to (RFC 6749 §4.4 has no redirection).
  if (redirectUris.length === 0 && grantTypes.includes('authorization_code')) {
    throw new DomainError('invalid', 'At least one redirect URI is needed.', { field: 'redirectUris' });
  }
  if (redirectUris.length > 20) throw new DomainError('invalid', 'At most 20 redirect URIs.', { field: 'redirectUris' });
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri, input.applicationType);
    if (problem) throw new DomainError('invalid', `The redirect URI ${uri} ${problem}.`, { field: 'redirectUris' });
  }
  const scopes = [...new Set(input.scopes)];
  if (scopes.length === 0) throw new DomainError('invalid', 'Choose at least one scope.', { field: 'scopes' });
  const unknown = scopes.find((scope) => !isCataloguedScope(catalogue, scope));
  if (unknown !== undefined) throw new DomainError('invalid', `The scope ${unknown} is not in the catalogue.`, { field: 'scopes' });
  return { name, redirectUris, scopes, grantTypes };
}

/**
 * The grant types of a registration, in their usual order (docs/decisions/0028-grant-types-per-client.md):
 * known ones, at least one, `refresh_token` only with `authorization_code` (refresh tokens come
 * from code exchanges), `client_credentials` only for a confidential client (RFC 6749 §4.4: the
 * client authenticates).
 */
function validateGrantTypes(requested: readonly string[], isPublic: boolean): GrantType[] {
  const unknown = requested.find((grantType) => !isGrantType(grantType));
  if (unknown !== undefined) {
    throw new DomainError('invalid', `The grant type ${unknown} is not supported (one of ${GRANT_TYPES.join(', ')}).`, { field: 'grantTypes' });
  }
  const grantTypes = GRANT_TYPES.filter((grantType) => requested.includes(grantType));
  if (grantTypes.length === 0) throw new DomainError('invalid', 'Choose at least one grant type.', { field: 'grantTypes' });
  if (grantTypes.includes('refresh_token') && !grantTypes.includes('authorization_code')) {
    throw new DomainError('invalid', 'refresh_token needs authorization_code: refresh tokens come from code exchanges.', { field: 'grantTypes' });
  }
  if (isPublic && grantTypes.includes('client_credentials')) {
    throw new DomainError('invalid', 'client_credentials is for confidential clients only: a public client has no secret to authenticate with.', { field: 'grantTypes' });
  }
  return grantTypes;
}

/**
 * Registers a client; the secret is returned once and only its SHA-256 is stored. A public
 * client gets no secret (`clientSecret: null`, `clientSecretHash: null`).
 *
 * @example
 * const { client, clientSecret } = await registerClient(deps, { name: 'Demo', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.send'] });
 * const spa = await registerClient(deps, { name: 'SPA', public: true, redirectUris: ['https://spa.example/cb'], scopes: ['messaging.v1.read'] });
 * spa.clientSecret; // null
 */
export async function registerClient(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'audit' | 'settings'>,
  input: ClientRegistration,
): Promise<ClientWithSecret> {
  const valid = validateRegistration(input, deps.settings.scopes);
  const resourceServerFor = resourceServerResources(deps.settings, input.resourceServerFor ?? [], input.public === true);
  assertUserMayServe(deps.settings, input.ownerUserKey ?? null, resourceServerFor);
  // A user's clients are bounded (docs/decisions/0192-clients-per-user.md): checked before the
  // write, so a burst of one user's registrations may pass it by the few in flight.
  if (input.ownerUserKey && (await deps.repos.clients.listByOwner(input.ownerUserKey)).length >= deps.settings.maxClientsPerUser) {
    const most = deps.settings.maxClientsPerUser;
    throw new DomainError('invalid', `You have ${most} client${most === 1 ? '' : 's'}, the most one user may register: delete one first.`, { field: 'name' });
  }
  // OpenID Connect client metadata (docs/decisions/0136-openid-client-metadata.md).
  const openid = openIdClientMetadata(input);
  // Its home page, logo, privacy policy and terms (docs/decisions/0155).
  const links = clientLinks(input);
  const created = newClient(deps, valid, input, resourceServerFor, openid);
  Object.assign(created.client, links, input.firstParty === true ? { firstParty: true } : {});
  await deps.repos.clients.create(created.client);
  const { client } = created;
  deps.audit.record({ type: 'client.created', at: client.createdAt, clientId: client.clientId, ...(client.ownerUserKey ? { userKey: client.ownerUserKey } : {}) });
  return created;
}

/**
 * A new client record of a validated registration, with its secret (`null` for a public
 * client), not stored yet: registration by the portal, the CLI or the host, and Dynamic Client
 * Registration (`use-cases/dynamic-registration.ts`) make clients the same way.
 * `resourceServerFor`: the resources it serves, already checked (`resourceServerResources`);
 * `openid`: its OpenID Connect metadata, already checked (`openIdClientMetadata`).
 */
export function newClient(
  deps: Pick<Deps, 'clock' | 'ids'>,
  valid: ReturnType<typeof validateRegistration>,
  input: Pick<ClientRegistration, 'public' | 'pkceRequired' | 'ownerUserKey'>,
  resourceServerFor: readonly string[] = [],
  openid: OpenIdClientMetadata = {},
): ClientWithSecret {
  const clientSecret = input.public ? null : deps.ids.secret();
  const client: Client = {
    clientId: deps.ids.id(),
    clientSecretHash: clientSecret === null ? null : sha256(clientSecret),
    ...valid,
    // RFC 9700 §2.1.1: a public client always uses PKCE.
    pkceRequired: input.public === true || (input.pkceRequired ?? false),
    ownerUserKey: input.ownerUserKey ?? null,
    createdAt: deps.clock.now(),
    ...(resourceServerFor.length === 0 ? {} : { resourceServerFor: [...resourceServerFor] }),
    ...openid,
  };
  return { client, clientSecret };
}

/** A client of `ownerUserKey`; another user's client is "not found" (no existence leak). */
export async function findOwnedClient(deps: Pick<Deps, 'repos'>, ownerUserKey: string, clientId: string): Promise<Client> {
  const client = await deps.repos.clients.findById(clientId);
  if (!client || client.ownerUserKey !== ownerUserKey) throw new DomainError('not_found', 'No such client.');
  return client;
}

/** What an update of a client may change (each kept unless given); `firstParty` only by the operator (`ownerUserKey: null`). */
export type ClientUpdate = { ownerUserKey: string | null; clientId: string } & Pick<ClientRegistration, 'name' | 'redirectUris' | 'scopes' | 'pkceRequired' | 'grantTypes' | 'resourceServerFor' | 'firstParty'> &
  OpenIdClientRegistration &
  ClientLinksRegistration;

export async function updateClient(deps: Pick<Deps, 'repos' | 'clock' | 'audit' | 'settings'>, input: ClientUpdate): Promise<Client> {
  // The first-party mark is the operator's (docs/decisions/0155): a portal user cannot vouch for their own client.
  if (input.firstParty !== undefined && input.ownerUserKey !== null) {
    throw new DomainError('invalid', 'Only the operator can mark a client first-party.', { field: 'firstParty' });
  }
  const existing = input.ownerUserKey === null
    ? await deps.repos.clients.findById(input.clientId)
    : await findOwnedClient(deps, input.ownerUserKey, input.clientId);
  if (!existing) throw new DomainError('not_found', 'No such client.');
  // Public or confidential is fixed at creation; the grant types stay unless given.
  const valid = validateRegistration(
    { ...input, grantTypes: input.grantTypes ?? existing.grantTypes, public: isPublicClient(existing), applicationType: existing.registration?.metadata.applicationType },
    deps.settings.scopes,
  );
  // The resources it serves stay unless given (docs/decisions/0112-introspection-by-resource-servers.md).
  const resourceServerFor = resourceServerResources(deps.settings, input.resourceServerFor ?? existing.resourceServerFor ?? [], isPublicClient(existing));
  assertUserMayServe(deps.settings, input.ownerUserKey, resourceServerFor, existing.resourceServerFor);
  // The OpenID Connect metadata stays unless given (docs/decisions/0136-openid-client-metadata.md).
  const openid = openIdClientMetadata(input, existing);
  // The links stay unless given (docs/decisions/0155); a self-registered client's are its metadata's, not changed here.
  const links: ClientLinks = clientLinks(input, existing);
  const firstParty = input.firstParty ?? existing.firstParty === true;
  const changes = {
    ...valid,
    pkceRequired: isPublicClient(existing) || (input.pkceRequired ?? existing.pkceRequired),
    resourceServerFor,
    idTokenSignedResponseAlg: openid.idTokenSignedResponseAlg,
    postLogoutRedirectUris: openid.postLogoutRedirectUris ?? [],
    defaultMaxAge: openid.defaultMaxAge,
    requireAuthTime: openid.requireAuthTime ?? false,
    clientUri: links.clientUri,
    logoUri: links.logoUri,
    policyUri: links.policyUri,
    tosUri: links.tosUri,
    firstParty,
  };
  // An edit that changes what the users who allowed the client allowed (its name, links, where codes
  // go, scopes it did not have) forgets their remembered consent in the same write, as an RFC 7592
  // update does: the next request asks again (docs/decisions/0195).
  const forgetConsents = changesWhatUsersAllowed(existing, { name: valid.name, redirectUris: valid.redirectUris, scopes: valid.scopes, ...links });
  await deps.repos.clients.update(existing.clientId, changes, forgetConsents ? { forgetConsents } : undefined);
  deps.audit.record({
    type: 'client.updated',
    at: deps.clock.now(),
    clientId: existing.clientId,
    // Who edited it, as client.created and client.secret_rotated say: the owner in the portal; none for the operator.
    ...(input.ownerUserKey ? { userKey: input.ownerUserKey } : {}),
    ...(forgetConsents ? { reason: 'remembered consents forgotten' } : {}),
  });
  const { resourceServerFor: _previous, idTokenSignedResponseAlg: _alg, postLogoutRedirectUris: _uris, defaultMaxAge: _maxAge, requireAuthTime: _authTime, clientUri: _home, logoUri: _logo, policyUri: _policy, tosUri: _terms, firstParty: _firstParty, ...unchanged } =
    existing;
  return { ...unchanged, ...valid, pkceRequired: changes.pkceRequired, ...(resourceServerFor.length === 0 ? {} : { resourceServerFor }), ...openid, ...links, ...(firstParty ? { firstParty } : {}) };
}

/**
 * What the consent page shows of a client (docs/decisions/0155-who-is-asking-on-the-consent-page.md):
 * who registered it (its owner's e-mail, the operator, or itself), its links, the first-party mark.
 *
 * @example
 * const shown = await presentClient(deps, client); // { registeredBy: { kind: 'user', email: 'dev@example.com' }, links: { … }, … }
 */
export async function presentClient(deps: Pick<Deps, 'repos' | 'userDirectory'>, client: Client): Promise<ClientPresentation> {
  // The users who sign in are the owners: the host's directory when it has one (a storage without
  // user tables may still hand over a users repository that refuses every call), else Gatehouse's own.
  const owners = deps.userDirectory ?? deps.repos.users;
  const owner = client.ownerUserKey === null || owners === undefined ? undefined : await owners.findByKey(client.ownerUserKey);
  return clientPresentation(client, owner?.email);
}

/** Rotates the secret: the old one stops working at once; the new one is returned once. A public client has none. */
export async function rotateClientSecret(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'audit'>,
  input: { ownerUserKey: string | null; clientId: string },
): Promise<ClientWithSecret & { clientSecret: string }> {
  const client = input.ownerUserKey === null
    ? await deps.repos.clients.findById(input.clientId)
    : await findOwnedClient(deps, input.ownerUserKey, input.clientId);
  if (!client) throw new DomainError('not_found', 'No such client.');
  if (isPublicClient(client)) throw new DomainError('invalid', 'A public client has no secret to rotate.', { field: 'clientSecret' });
  const clientSecret = deps.ids.secret();
  const clientSecretHash = sha256(clientSecret);
  await deps.repos.clients.updateSecretHash(client.clientId, clientSecretHash);
  deps.audit.record({ type: 'client.secret_rotated', at: deps.clock.now(), clientId: client.clientId, ...(input.ownerUserKey ? { userKey: input.ownerUserKey } : {}) });
  return { client: { ...client, clientSecretHash }, clientSecret };
}

/** Deletes a client; its codes, grants and refresh tokens go with it, so its access tokens stop working. */
export async function deleteClient(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  input: { ownerUserKey: string | null; clientId: string },
): Promise<void> {
  if (input.ownerUserKey !== null) await findOwnedClient(deps, input.ownerUserKey, input.clientId);
  const deleted = await deps.repos.clients.delete(input.clientId);
  if (!deleted) throw new DomainError('not_found', 'No such client.');
  deps.audit.record({ type: 'client.deleted', at: deps.clock.now(), clientId: input.clientId, ...(input.ownerUserKey ? { userKey: input.ownerUserKey } : {}) });
}

/**
 * RFC 6749 §2.3.1: authenticates a confidential client by id and secret, comparing the
 * secret's hash in constant time. A public client (RFC 6749 §2.1) presents its id alone
 * (`clientSecret: null`, `token_endpoint_auth_method: none`); a secret for a public client, or
 * none for a confidential one, fails. Throws `OAuthError('invalid_client')`.
 *
 * @example
 * const client = await authenticateClient(deps, { clientId, clientSecret });
 * const spa = await authenticateClient(deps, { clientId: publicClientId, clientSecret: null });
 */
export async function authenticateClient(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  credentials: { clientId: string; clientSecret: string | null },
): Promise<Client> {
  const client = await deps.repos.clients.findById(credentials.clientId);
  const fail = (detail: string): never => {
    deps.audit.record({ type: 'client.authentication_failed', at: deps.clock.now(), clientId: credentials.clientId.slice(0, 64) });
    throw new OAuthError('invalid_client', 'Client authentication failed.', { detail });
  };
  if (credentials.clientSecret === null) {
    if (client && isPublicClient(client)) return client;
    return fail(client ? 'confidential client without its secret' : 'unknown client');
  }
  const presented = sha256(credentials.clientSecret);
  // Compare even for an unknown or public client, so timing does not tell which ids exist.
  const matches = constantTimeEqual(presented, client?.clientSecretHash ?? sha256('no client'));
  if (!client || client.clientSecretHash === null || !matches) {
    return fail(!client ? 'unknown client' : client.clientSecretHash === null ? 'public client presented a secret' : 'wrong secret');
  }
  return client;
}
