import { clientOrigin, type ClientOrigin } from '../clients/client-origin.js';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';

export interface AuthorizedApp {
  clientId: string;
  clientName: string;
  scopes: string[];
  /** When the user first granted access among the live grants (or, with none, last allowed the app). */
  firstGrantedAt: Date;
  grantCount: number;
  /** Whether the app registered itself, and where its metadata document is (docs/decisions/0117). */
  origin: ClientOrigin;
}

/**
 * The clients a user has live grants for or a remembered consent ("Authorized apps"): an app
 * whose grants all ended (e.g. by a logout) is still listed while its consent is remembered, so
 * that the user can withdraw it (docs/decisions/0095-remembered-consent.md).
 *
 * @example
 * const apps = await listAuthorizedApps(deps, 'u-1'); // [{ clientName: 'Orders app', scopes: [...], grantCount: 1, … }]
 */
export async function listAuthorizedApps(deps: Pick<Deps, 'repos'>, userKey: string): Promise<AuthorizedApp[]> {
  const grants = await deps.repos.grants.listActiveByUser(userKey);
  const apps = new Map<string, AuthorizedApp>();
  for (const grant of grants) {
    const app = apps.get(grant.clientId);
    if (app) {
      app.grantCount += 1;
      app.scopes = [...new Set([...app.scopes, ...grant.scopes])];
      if (grant.createdAt < app.firstGrantedAt) app.firstGrantedAt = grant.createdAt;
      continue;
    }
    const client = await deps.repos.clients.findById(grant.clientId);
    if (!client) continue;
    apps.set(grant.clientId, { clientId: client.clientId, clientName: client.name, scopes: [...grant.scopes], firstGrantedAt: grant.createdAt, grantCount: 1, origin: clientOrigin(client) });
  }
  for (const consent of await deps.repos.consents.listByUser(userKey)) {
    // Every scope allowed, for the default audience or at a resource (docs/decisions/0200).
    const allowed = [...new Set([...consent.scopes, ...Object.values(consent.resourceScopes ?? {}).flat()])];
    const app = apps.get(consent.clientId);
    if (app) {
      app.scopes = [...new Set([...app.scopes, ...allowed])];
      continue;
    }
    const client = await deps.repos.clients.findById(consent.clientId);
    if (!client) continue;
    apps.set(consent.clientId, { clientId: client.clientId, clientName: client.name, scopes: allowed, firstGrantedAt: consent.grantedAt, grantCount: 0, origin: clientOrigin(client) });
  }
  return [...apps.values()];
}

/**
 * Withdraws the access a user gave one client: its unused codes stop working, every grant is
 * revoked and the remembered consent forgotten, so the next request asks again. `DomainError('not_found')` when there was neither.
 *
 * @example
 * const { revokedGrantIds } = await revokeAuthorizedApp(deps, { userKey: 'u-1', clientId: 'c-1' });
 */
export async function revokeAuthorizedApp(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  input: { userKey: string; clientId: string },
): Promise<{ revokedGrantIds: string[] }> {
  const now = deps.clock.now();
  // Codes in flight first: an exchange that already won made a grant the revocation below finds;
  // any later one finds its code gone (docs/decisions/0105-withdrawn-access-stops-codes-in-flight.md).
  const deletedCodes = await deps.repos.codes.deleteUnused(input.userKey, input.clientId);
  const revokedGrantIds = await deps.repos.grants.revokeByUserAndClient(input.userKey, input.clientId, now);
  const forgotten = await deps.repos.consents.forget(input.userKey, input.clientId);
  if (revokedGrantIds.length === 0 && !forgotten && deletedCodes === 0) throw new DomainError('not_found', 'You have not authorized this client.');
  const reason = forgotten ? 'revoked by the user; consent forgotten' : 'revoked by the user';
  deps.audit.record({ type: 'grant.revoked', at: now, userKey: input.userKey, clientId: input.clientId, grantIds: revokedGrantIds, reason });
  return { revokedGrantIds };
}
