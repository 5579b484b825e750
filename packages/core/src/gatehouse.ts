import type { Deps } from './deps.js';
import type { Gatehouse, RequestScopedGatehouse } from './gatehouse-api.js';
import type { Clock } from './ports/clock.js';
import type { IdGenerator } from './ports/ids.js';
import type { Repositories } from './ports/repositories.js';
import type { AuditLog, MessageTransport, PasswordHasher } from './ports/services.js';
import type { PasswordCheck, UserDirectory } from './ports/users.js';
import type { GatehouseSettings } from './settings.js';
import { createScryptPasswordHasher, randomIdGenerator } from './crypto.js';
import { createKeyRing, type KeyRing } from './tokens/key-ring.js';
import { verifyAccessToken } from './tokens/access-token.js';
import { createVerifiedTokenCache, DEFAULT_VERIFIED_TOKEN_CACHE_SIZE } from './tokens/verified-token-cache.js';
import * as attributes from './use-cases/attributes.js';
import * as authorize from './use-cases/authorize.js';
import * as steps from './use-cases/authorization-step.js';
import * as apps from './use-cases/authorized-apps.js';
import { clientCredentials } from './use-cases/client-credentials.js';
import * as clients from './use-cases/clients.js';
import * as interactions from './use-cases/interactions.js';
import { exchangeCode } from './use-cases/exchange-code.js';
import { introspectToken } from './use-cases/introspect.js';
import * as messages from './use-cases/messages.js';
import { purgeExpired } from './use-cases/purge.js';
import { refresh } from './use-cases/refresh.js';
import { revokeToken } from './use-cases/revoke.js';
import * as sessions from './use-cases/sessions.js';
import * as lookups from './use-cases/lookups.js';
import * as users from './use-cases/users.js';

export interface GatehouseOptions {
  repositories: Repositories;
  settings: GatehouseSettings;
  /** The source of time: in production one that reads the system clock, in tests a controllable one. */
  clock: Clock;
  ids?: IdGenerator;
  passwords?: PasswordHasher;
  /** Where sent messages go; the default records them as SENT without delivering. */
  transport?: MessageTransport;
  audit?: AuditLog;
  /** A key ring of your own (by default one on `repositories.signingKeys`, waiting out `settings.jwksMaxAgeSeconds`). */
  keys?: KeyRing;
  /**
   * How many verified access tokens to remember, so a token presented again skips the signature
   * check (its grant is still checked on every request). Default 10,000; 0 turns the cache off.
   */
  verifiedTokenCacheSize?: number;
  /**
   * Where users are found, for an application with users of its own (docs/decisions/0091).
   * Default: Gatehouse's own users repository. With a directory of your own and no
   * `passwordCheck`, Gatehouse's login page accepts no password: the host signs users in
   * (`startLogin` / `completeLogin`).
   */
  userDirectory?: UserDirectory;
  /** How Gatehouse's login page checks a password (default: Gatehouse's own users and `passwords`). */
  passwordCheck?: PasswordCheck;
}

/** The password check of a user directory without one: no password is right. */
const NO_PASSWORDS: PasswordCheck = { verify: async () => undefined };

type Bound<F> = F extends (deps: never, ...args: infer A) => infer R ? (...args: A) => R : never;

function bind<F extends (deps: Deps, ...args: never[]) => unknown>(deps: Deps, useCase: F): Bound<F> {
  return ((...args: never[]) => useCase(deps, ...args)) as Bound<F>;
}

/**
 * The use cases bound to their ports: what an adapter or an embedder calls.
 *
 * @example
 * import { createGatehouse, defineSettings } from '@gatehouse/core';
 * import { createMemoryRepositories } from '@gatehouse/core/testing';
 *
 * const gatehouse = createGatehouse({
 *   repositories: createMemoryRepositories(),
 *   settings: defineSettings({ issuer: 'https://auth.example.com' }),
 *   clock: systemClock, // from your composition root: { now: () => current time }
 * });
 * const { client, clientSecret } = await gatehouse.registerClient({ name: 'Demo', redirectUris: ['https://app.example/cb'], scopes: ['messaging.v1.send'] });
 */
export function createGatehouse(options: GatehouseOptions): Gatehouse {
  const { clock } = options;
  const ids = options.ids ?? randomIdGenerator;
  const audit = options.audit ?? { record: () => undefined };
  const keys =
    options.keys ??
    createKeyRing({
      repository: options.repositories.signingKeys,
      clock,
      ids,
      audit,
      accessTokenTtlSeconds: options.settings.accessTokenTtlSeconds,
      jwksMaxAgeSeconds: options.settings.jwksMaxAgeSeconds,
    });
  const deps: Deps = {
    repos: options.repositories,
    settings: options.settings,
    clock,
    ids,
    audit,
    keys,
    passwords: options.passwords ?? createScryptPasswordHasher(),
    transport: options.transport ?? { send: async () => 'SENT' },
    verifiedTokens: createVerifiedTokenCache({ maxEntries: options.verifiedTokenCacheSize ?? DEFAULT_VERIFIED_TOKEN_CACHE_SIZE }),
    ...(options.userDirectory === undefined ? {} : { userDirectory: options.userDirectory }),
    ...(options.passwordCheck !== undefined ? { passwordCheck: options.passwordCheck } : options.userDirectory !== undefined ? { passwordCheck: NO_PASSWORDS } : {}),
  };
  const gatehouse: Gatehouse = {
    ...useCases(deps),
    forRequest: (requestId: string): RequestScopedGatehouse => useCases({ ...deps, audit: withRequestId(deps.audit, requestId) }),
  };
  portsOf.set(gatehouse, deps);
  return gatehouse;
}

/** The ports behind each gatehouse, for the core's own tests only (not exported from the package). */
const portsOf = new WeakMap<RequestScopedGatehouse, Deps>();

/** The ports a gatehouse was made with: the core's tests reach the key ring and the token cache through it. */
export function depsOf(gatehouse: RequestScopedGatehouse): Deps {
  const deps = portsOf.get(gatehouse);
  if (!deps) throw new Error('Not a gatehouse made by createGatehouse.');
  return deps;
}

function withRequestId(audit: AuditLog, requestId: string): AuditLog {
  return { record: (event) => audit.record({ ...event, requestId }) };
}

/** The use cases bound to `deps`. */
function useCases(deps: Deps): RequestScopedGatehouse {
  const { keys } = deps;
  const scoped: RequestScopedGatehouse = {
    settings: deps.settings,
    clock: deps.clock,
    // Authorization (RFC 6749 §4.1)
    checkAuthorizationRequest: bind(deps, authorize.checkAuthorizationRequest),
    approveAuthorization: bind(deps, authorize.approveAuthorization),
    nextAuthorizationStep: bind(deps, steps.nextAuthorizationStep),
    reauthenticated: bind(deps, steps.reauthenticated),
    denyAuthorization: bind(deps, authorize.denyAuthorization),
    // Token endpoint, revocation, introspection
    authenticateClient: bind(deps, clients.authenticateClient),
    exchangeCode: bind(deps, exchangeCode),
    refresh: bind(deps, refresh),
    clientCredentials: bind(deps, clientCredentials),
    revokeToken: bind(deps, revokeToken),
    introspectToken: bind(deps, introspectToken),
    verifyAccessToken: bind(deps, verifyAccessToken),
    jwks: () => keys.jwks(),
    rotateSigningKey: () => keys.rotate(),
    currentSigningKeyId: async () => (await keys.signingKey()).kid,
    // Sign-in sessions
    signIn: bind(deps, sessions.signIn),
    resolveSession: bind(deps, sessions.resolveSession),
    logout: bind(deps, sessions.logout),
    logoutUser: bind(deps, sessions.logoutUser),
    // Login and consent handed to the host application (docs/decisions/0091)
    startLogin: bind(deps, interactions.startLogin),
    completeLogin: bind(deps, interactions.completeLogin),
    startConsent: bind(deps, interactions.startConsent),
    describeConsentRequest: bind(deps, interactions.describeConsentRequest),
    completeConsent: bind(deps, interactions.completeConsent),
    // Clients (portal, CLI)
    registerClient: bind(deps, clients.registerClient),
    updateClient: bind(deps, clients.updateClient),
    rotateClientSecret: bind(deps, clients.rotateClientSecret),
    deleteClient: bind(deps, clients.deleteClient),
    findOwnedClient: bind(deps, clients.findOwnedClient),
    listClients: (ownerUserKey?: string) =>
      ownerUserKey === undefined ? deps.repos.clients.listAll() : deps.repos.clients.listByOwner(ownerUserKey),
    listAuthorizedApps: bind(deps, apps.listAuthorizedApps),
    revokeAuthorizedApp: bind(deps, apps.revokeAuthorizedApp),
    // Users and accounts
    createAccount: bind(deps, users.createAccount),
    createUser: bind(deps, users.createUser),
    changePassword: bind(deps, users.changePassword),
    setMembership: bind(deps, users.setMembership),
    addPhoneNumber: bind(deps, users.addPhoneNumber),
    currentUser: bind(deps, users.currentUser),
    findUserByEmail: bind(deps, lookups.findUserByEmail),
    findAccount: bind(deps, lookups.findAccount),
    listPhoneNumbers: bind(deps, lookups.listPhoneNumbers),
    findPhoneNumberOwner: bind(deps, lookups.findPhoneNumberOwner),
    // Attribute administration
    createAttribute: bind(deps, attributes.createAttribute),
    listAttributes: bind(deps, attributes.listAttributes),
    getAttribute: bind(deps, attributes.getAttribute),
    renameAttribute: bind(deps, attributes.renameAttribute),
    deleteAttribute: bind(deps, attributes.deleteAttribute),
    setUserAttributes: bind(deps, attributes.setUserAttributes),
    getUserAttributes: bind(deps, attributes.getUserAttributes),
    // Messaging
    sendMessage: bind(deps, messages.sendMessage),
    listMessages: bind(deps, messages.listMessages),
    // Housekeeping
    purgeExpired: bind(deps, purgeExpired),
  };
  portsOf.set(scoped, deps);
  return scoped;
}

export type { Gatehouse, RequestScopedGatehouse } from './gatehouse-api.js';
