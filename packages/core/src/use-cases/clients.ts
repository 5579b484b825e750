import type { Client } from '../domain/model.js';
import { redirectUriProblem } from '../domain/redirect-uri.js';
import { isCataloguedScope, type ScopeCatalogue } from '../domain/scopes.js';
import type { Deps } from '../deps.js';
import { DomainError, OAuthError } from '../errors.js';
import { constantTimeEqual, sha256 } from '../crypto.js';

export interface ClientRegistration {
  name: string;
  redirectUris: string[];
  scopes: string[];
  pkceRequired?: boolean;
  ownerUserKey?: string | null;
}

/** A client with its secret, as shown once at creation or rotation. */
export interface ClientWithSecret {
  client: Client;
  clientSecret: string;
}

/**
 * Validates a registration against the deployment's scope catalogue (`settings.scopes`); throws
 * `DomainError('invalid')` naming the field.
 *
 * @example
 * validateRegistration({ name: 'Orders app', redirectUris: ['https://app.example/cb'], scopes: ['orders.v1.read'] }, settings.scopes);
 */
export function validateRegistration(input: Pick<ClientRegistration, 'name' | 'redirectUris' | 'scopes'>, catalogue: ScopeCatalogue): {
  name: string;
  redirectUris: string[];
  scopes: string[];
} {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100 || /\p{Cc}/u.test(name)) {
    throw new DomainError('invalid', 'The name must be 1 to 100 characters without control characters.', { field: 'name' });
  }
  const redirectUris = [...new Set(input.redirectUris.map((uri) => uri.trim()).filter((uri) => uri !== ''))];
  if (redirectUris.length === 0) throw new DomainError('invalid', 'At least one redirect URI is needed.', { field: 'redirectUris' });
  if (redirectUris.length > 20) throw new DomainError('invalid', 'At most 20 redirect URIs.', { field: 'redirectUris' });
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new DomainError('invalid', `The redirect URI ${uri} ${problem}.`, { field: 'redirectUris' });
  }
  const scopes = [...new Set(input.scopes)];
  if (scopes.length === 0) throw new DomainError('invalid', 'Choose at least one scope.', { field: 'scopes' });
  const unknown = scopes.find((scope) => !isCataloguedScope(catalogue, scope));
  if (unknown !== undefined) throw new DomainError('invalid', `The scope ${unknown} is not in the catalogue.`, { field: 'scopes' });
  return { name, redirectUris, scopes };
}

/**
 * Registers a client; the secret is returned once and only its SHA-256 is stored.
 *
 * @example
 * const { client, clientSecret } = await registerClient(deps, { name: 'Demo', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.send'] });
 */
export async function registerClient(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'audit' | 'settings'>,
  input: ClientRegistration,
): Promise<ClientWithSecret> {
  const valid = validateRegistration(input, deps.settings.scopes);
  const clientSecret = deps.ids.secret();
  const client: Client = {
    clientId: deps.ids.id(),
    clientSecretHash: sha256(clientSecret),
    ...valid,
    pkceRequired: input.pkceRequired ?? false,
    ownerUserKey: input.ownerUserKey ?? null,
    createdAt: deps.clock.now(),
  };
  await deps.repos.clients.create(client);
  deps.audit.record({ type: 'client.created', at: client.createdAt, clientId: client.clientId, ...(client.ownerUserKey ? { userKey: client.ownerUserKey } : {}) });
  return { client, clientSecret };
}

/** A client of `ownerUserKey`; another user's client is "not found" (no existence leak). */
export async function findOwnedClient(deps: Pick<Deps, 'repos'>, ownerUserKey: string, clientId: string): Promise<Client> {
  const client = await deps.repos.clients.findById(clientId);
  if (!client || client.ownerUserKey !== ownerUserKey) throw new DomainError('not_found', 'No such client.');
  return client;
}

export async function updateClient(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit' | 'settings'>,
  input: { ownerUserKey: string | null; clientId: string } & Pick<ClientRegistration, 'name' | 'redirectUris' | 'scopes' | 'pkceRequired'>,
): Promise<Client> {
  const existing = input.ownerUserKey === null
    ? await deps.repos.clients.findById(input.clientId)
    : await findOwnedClient(deps, input.ownerUserKey, input.clientId);
  if (!existing) throw new DomainError('not_found', 'No such client.');
  const valid = validateRegistration(input, deps.settings.scopes);
  const changes = { ...valid, pkceRequired: input.pkceRequired ?? existing.pkceRequired };
  await deps.repos.clients.update(existing.clientId, changes);
  deps.audit.record({ type: 'client.updated', at: deps.clock.now(), clientId: existing.clientId });
  return { ...existing, ...changes };
}

/** Rotates the secret: the old one stops working at once; the new one is returned once. */
export async function rotateClientSecret(
  deps: Pick<Deps, 'repos' | 'clock' | 'ids' | 'audit'>,
  input: { ownerUserKey: string | null; clientId: string },
): Promise<ClientWithSecret> {
  const client = input.ownerUserKey === null
    ? await deps.repos.clients.findById(input.clientId)
    : await findOwnedClient(deps, input.ownerUserKey, input.clientId);
  if (!client) throw new DomainError('not_found', 'No such client.');
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
  deps.audit.record({ type: 'client.deleted', at: deps.clock.now(), clientId: input.clientId });
}

/**
 * RFC 6749 §2.3.1: authenticates a confidential client by id and secret, comparing the
 * secret's hash in constant time. Throws `OAuthError('invalid_client')`.
 */
export async function authenticateClient(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  credentials: { clientId: string; clientSecret: string },
): Promise<Client> {
  const client = await deps.repos.clients.findById(credentials.clientId);
  const presented = sha256(credentials.clientSecret);
  // Compare even for an unknown client, so timing does not tell which ids exist.
  const matches = constantTimeEqual(presented, client?.clientSecretHash ?? sha256('no client'));
  if (!client || !matches) {
    deps.audit.record({ type: 'client.authentication_failed', at: deps.clock.now(), clientId: credentials.clientId.slice(0, 64) });
    throw new OAuthError('invalid_client', 'Client authentication failed.', { detail: client ? 'wrong secret' : 'unknown client' });
  }
  return client;
}
