import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';

export interface AuthorizedApp {
  clientId: string;
  clientName: string;
  scopes: string[];
  /** When the user first granted access among the live grants. */
  firstGrantedAt: Date;
  grantCount: number;
}

/** The clients a user has live grants for ("Authorized apps"). */
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
    apps.set(grant.clientId, { clientId: client.clientId, clientName: client.name, scopes: [...grant.scopes], firstGrantedAt: grant.createdAt, grantCount: 1 });
  }
  return [...apps.values()];
}

/** Revokes every grant the user gave one client. */
export async function revokeAuthorizedApp(
  deps: Pick<Deps, 'repos' | 'clock' | 'audit'>,
  input: { userKey: string; clientId: string },
): Promise<{ revokedGrantIds: string[] }> {
  const now = deps.clock.now();
  const revokedGrantIds = await deps.repos.grants.revokeByUserAndClient(input.userKey, input.clientId, now);
  if (revokedGrantIds.length === 0) throw new DomainError('not_found', 'You have not authorized this client.');
  deps.audit.record({ type: 'grant.revoked', at: now, userKey: input.userKey, clientId: input.clientId, grantIds: revokedGrantIds, reason: 'revoked by the user' });
  return { revokedGrantIds };
}
