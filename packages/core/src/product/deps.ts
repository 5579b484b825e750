import type { RequestScopedGatehouse } from '../gatehouse-api.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/ids.js';
import type { AuditLog, MessageTransport, PasswordHasher } from '../ports/services.js';
import type { GatehouseSettings } from '../settings.js';
import type { ProductRepositories } from './ports.js';

/**
 * What every product use case may depend on (docs/decisions/0161). `createProductApi` builds it.
 * The product part reaches the OAuth part only through the Gatehouse facade (`gatehouse`): ending a
 * user's sessions and grants is `gatehouse.endUserAccess`, never a write to the OAuth repositories.
 */
export interface ProductDeps {
  repos: ProductRepositories;
  gatehouse: RequestScopedGatehouse;
  clock: Clock;
  ids: IdGenerator;
  passwords: PasswordHasher;
  transport: MessageTransport;
  audit: AuditLog;
  settings: Readonly<GatehouseSettings>;
}
