import type { Client } from '../domain/model.js';
import type { Deps } from '../deps.js';

/**
 * Marks a self-registered client used when a code or token is first issued to it, so that the
 * purge of never-used clients spares it (docs/decisions/0119-unused-self-registered-clients.md).
 * Written once: a client already marked, or registered by an operator, the portal or the host,
 * costs no write (the client is read through the client cache where the host has one).
 *
 * @example
 * await noteFirstUse(deps, client, deps.clock.now());
 */
export async function noteFirstUse(deps: Pick<Deps, 'repos'>, client: Client | string, at: Date): Promise<void> {
  const found = typeof client === 'string' ? await deps.repos.clients.findById(client) : client;
  if (found?.registration && found.registration.firstUsedAt === null) await deps.repos.clients.markUsed(found.clientId, at);
}
