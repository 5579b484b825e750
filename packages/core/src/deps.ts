import type { MetadataDocumentClients } from './clients/metadata-document-clients.js';
import type { Clock } from './ports/clock.js';
import type { IdGenerator } from './ports/ids.js';
import type { OAuthRepositories } from './ports/repositories.js';
import type { UserRepository } from './product/ports.js';
import type { AuditLog, Es256Signer, PasswordHasher } from './ports/services.js';
import type { PasswordCheck, UserDirectory } from './ports/users.js';
import type { GatehouseSettings } from './settings.js';
import type { KeyRing } from './tokens/key-ring.js';
import type { VerifiedTokenCache } from './tokens/verified-token-cache.js';

/** What every use case may depend on. `createGatehouse` builds it from the ports. */
export interface Deps {
  /** The OAuth part of the storage; `users` (Gatehouse's own) only when no `userDirectory` replaces them (docs/decisions/0161). */
  repos: OAuthRepositories & { users?: UserRepository | undefined };
  clock: Clock;
  ids: IdGenerator;
  passwords: PasswordHasher;
  audit: AuditLog;
  settings: GatehouseSettings;
  keys: KeyRing;
  /** Where access tokens' signatures are computed (default: on this thread, node:crypto). */
  signer?: Es256Signer;
  /** Claims of access tokens already verified (signature only; grants are still checked per request). */
  verifiedTokens?: VerifiedTokenCache;
  /** Where users are found (default: Gatehouse's own users repository; docs/decisions/0091). */
  userDirectory?: UserDirectory;
  /** How the login page checks a password (default: Gatehouse's own users and hasher). */
  passwordCheck?: PasswordCheck;
  /** The clients of Client ID Metadata Documents, when they are on (docs/decisions/0117). */
  clientMetadataDocuments?: MetadataDocumentClients;
}
