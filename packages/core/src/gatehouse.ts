import type { Deps } from './deps.js';
import { isAbsentRepository } from './ports/absent-repository.js';
import type { Gatehouse, RequestScopedGatehouse } from './gatehouse-api.js';
import type { Clock } from './ports/clock.js';
import type { IdGenerator } from './ports/ids.js';
import type { OAuthRepositories } from './ports/repositories.js';
import type { UserRepository } from './product/ports.js';
import type { AuditLog, Es256Signer, PasswordHasher } from './ports/services.js';
import type { PasswordCheck, UserDirectory } from './ports/users.js';
import type { ClientMetadataDocumentFetcher } from './ports/client-metadata-documents.js';
import { longestAccessTokenTtlSeconds, type GatehouseSettings } from './settings.js';
import { createMetadataDocumentClients } from './clients/metadata-document-clients.js';
import { createScryptPasswordHasher, randomIdGenerator } from './crypto.js';
import { createKeyRing, type KeyRing } from './tokens/key-ring.js';
import { verifyAccessToken } from './tokens/access-token.js';
import { createVerifiedTokenCache, DEFAULT_VERIFIED_TOKEN_CACHE_SIZE } from './tokens/verified-token-cache.js';
import * as authorize from './use-cases/authorize.js';
import * as steps from './use-cases/authorization-step.js';
import * as apps from './use-cases/authorized-apps.js';
import { clientCredentials } from './use-cases/client-credentials.js';
import * as clients from './use-cases/clients.js';
import * as dynamicRegistration from './use-cases/dynamic-registration.js';
import * as interactions from './use-cases/interactions.js';
import { readCodeAhead } from './use-cases/code-read.js';
import { exchangeCode } from './use-cases/exchange-code.js';
import { introspectToken } from './use-cases/introspect.js';
import * as operator from './use-cases/operator.js';
import { purgeExpired } from './use-cases/purge.js';
import { refresh } from './use-cases/refresh.js';
import { readRefreshTokenAhead } from './use-cases/refresh-read.js';
import { revokeToken } from './use-cases/revoke.js';
import { userInfo } from './use-cases/userinfo.js';
import { checkEndSessionRequest } from './use-cases/end-session.js';
import * as sessions from './use-cases/sessions.js';
import { forgetUser } from './use-cases/forget-user.js';

/**
 * What `createGatehouse` needs of the storage: the OAuth part (docs/decisions/0161), and Gatehouse's
 * own users (`users`) only for its own login page and user directory, when no `userDirectory` is
 * given. A whole `Repositories` (a storage adapter's) will do.
 *
 * @example
 * // An embedder's storage: the OAuth part only, its users behind a userDirectory.
 * const repositories: GatehouseRepositories = { clients, codes, grants, refreshTokens, sessions, interactions, consents, signingKeys };
 * createGatehouse({ repositories, settings, clock, userDirectory });
 */
export type GatehouseRepositories = OAuthRepositories & { users?: UserRepository | undefined };

export interface GatehouseOptions {
  /** The OAuth part of the storage, with Gatehouse's own `users` unless a `userDirectory` is given. */
  repositories: GatehouseRepositories;
  settings: GatehouseSettings;
  /** The source of time: in production one that reads the system clock, in tests a controllable one. */
  clock: Clock;
  ids?: IdGenerator;
  passwords?: PasswordHasher;
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
  /**
   * Where access tokens' ES256 signatures are computed. Default: synchronously on the calling
   * thread. `@gatehouse/http-express`'s `sharedSigningThread()` signs on a worker thread
   * (docs/decisions/0076-signing-on-a-thread.md).
   */
  signer?: Es256Signer;
  /**
   * Fetches Client ID Metadata Documents; needed when `settings.clientMetadataDocuments.enabled`.
   * `@gatehouse/http-express`'s `createClientMetadataDocumentFetcher()` is guarded against
   * server-side request forgery (docs/decisions/0118-guarded-document-fetcher.md).
   */
  clientMetadataDocumentFetcher?: ClientMetadataDocumentFetcher;
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
      // A retired key stays published while the longest-lived token it signed may live (a resource's own lifetime included).
      accessTokenTtlSeconds: longestAccessTokenTtlSeconds(options.settings),
      jwksMaxAgeSeconds: options.settings.jwksMaxAgeSeconds,
      // An OpenID Provider signs ID tokens RS256 by default, ES256 for clients that ask (docs/decisions/0131).
      algorithms: options.settings.openid ? ['ES256', 'RS256'] : ['ES256'],
    });
  if (options.settings.clientMetadataDocuments.enabled && options.clientMetadataDocumentFetcher === undefined) {
    throw new Error('createGatehouse: settings.clientMetadataDocuments.enabled needs a clientMetadataDocumentFetcher (createClientMetadataDocumentFetcher() from @gatehouse/http-express).');
  }
  // A placeholder of a storage without Gatehouse's user tables counts as none (docs/decisions/0201).
  if (options.userDirectory === undefined && isAbsentRepository(options.repositories.users)) {
    throw new Error(
      'createGatehouse: no users to sign in. Give a userDirectory of your own users (docs/embedding.md), or repositories.users for Gatehouse\'s own users (a storage opened with userTables).',
    );
  }
  const deps: Deps = {
    repos: options.repositories,
    settings: options.settings,
    clock,
    ids,
    audit,
    keys,
    passwords: options.passwords ?? createScryptPasswordHasher(),
    verifiedTokens: createVerifiedTokenCache({ maxEntries: options.verifiedTokenCacheSize ?? DEFAULT_VERIFIED_TOKEN_CACHE_SIZE }),
    ...(options.signer === undefined ? {} : { signer: options.signer }),
    ...(options.userDirectory === undefined ? {} : { userDirectory: options.userDirectory }),
    ...(options.passwordCheck !== undefined ? { passwordCheck: options.passwordCheck } : options.userDirectory !== undefined ? { passwordCheck: NO_PASSWORDS } : {}),
    ...(options.settings.clientMetadataDocuments.enabled && options.clientMetadataDocumentFetcher !== undefined
      ? {
          clientMetadataDocuments: createMetadataDocumentClients({
            clients: options.repositories.clients,
            clock,
            settings: options.settings,
            fetcher: options.clientMetadataDocumentFetcher,
            audit,
          }),
        }
      : {}),
  };
  const gatehouse: Gatehouse = {
    ...useCases(deps),
    forRequest: (requestId: string): RequestScopedGatehouse =>
      new RequestScope({ ...deps, audit: withRequestId(deps.audit, requestId) }) as unknown as RequestScopedGatehouse,
  };
  portsOf.set(gatehouse, deps);
  return gatehouse;
}

/** The ports behind each gatehouse, for the core's own tests only (not exported from the package). */
const portsOf = new WeakMap<RequestScopedGatehouse, Deps>();

/** The ports a gatehouse was made with: the core's tests reach the key ring and the token cache through it. */
export function depsOf(gatehouse: RequestScopedGatehouse): Deps {
  const deps = portsOf.get(gatehouse) ?? RequestScope.portsOf(gatehouse);
  if (!deps) throw new Error('Not a gatehouse made by createGatehouse.');
  return deps;
}

function withRequestId(audit: AuditLog, requestId: string): AuditLog {
  return { record: (event) => audit.record({ ...event, requestId }) };
}

/** How each use case is bound to the ports (everything of `RequestScopedGatehouse` but `settings` and `clock`). */
type UseCaseBinders = { readonly [K in Exclude<keyof RequestScopedGatehouse, 'settings' | 'clock'>]: (deps: Deps) => RequestScopedGatehouse[K] };

const USE_CASES: UseCaseBinders = {
  // Authorization (RFC 6749 §4.1)
  checkAuthorizationRequest: (deps) => bind(deps, authorize.checkAuthorizationRequest),
  approveAuthorization: (deps) => bind(deps, authorize.approveAuthorization),
  nextAuthorizationStep: (deps) => bind(deps, steps.nextAuthorizationStep),
  reauthenticated: (deps) => bind(deps, steps.reauthenticated),
  claimReauthentication: (deps) => bind(deps, steps.claimReauthentication),
  denyAuthorization: (deps) => bind(deps, authorize.denyAuthorization),
  cancelAuthorization: (deps) => bind(deps, authorize.cancelAuthorization),
  // Token endpoint, revocation, introspection
  authenticateClient: (deps) => bind(deps, clients.authenticateClient),
  exchangeCode: (deps) => bind(deps, exchangeCode),
  readCodeAhead: (deps) => bind(deps, readCodeAhead),
  refresh: (deps) => bind(deps, refresh),
  readRefreshTokenAhead: (deps) => bind(deps, readRefreshTokenAhead),
  clientCredentials: (deps) => bind(deps, clientCredentials),
  revokeToken: (deps) => bind(deps, revokeToken),
  introspectToken: (deps) => bind(deps, introspectToken),
  verifyAccessToken: (deps) => bind(deps, verifyAccessToken),
  jwks: ({ keys }) => () => keys.jwks(),
  rotateSigningKey: ({ keys }) => () => keys.rotate(),
  currentSigningKeyId: ({ keys }) => async () => (await keys.signingKey()).kid,
  // OpenID Connect (SPEC §9)
  userInfo: (deps) => bind(deps, userInfo),
  checkEndSessionRequest: (deps) => bind(deps, checkEndSessionRequest),
  // Sign-in sessions
  signIn: (deps) => bind(deps, sessions.signIn),
  resolveSession: (deps) => bind(deps, sessions.resolveSession),
  logout: (deps) => bind(deps, sessions.logout),
  replaceSession: (deps) => bind(deps, sessions.replaceSession),
  logoutUser: (deps) => bind(deps, sessions.logoutUser),
  forgetUser: (deps) => bind(deps, forgetUser),
  endUserAccess: (deps) => bind(deps, sessions.endUserAccess),
  // Login and consent handed to the host application (docs/decisions/0091)
  startLogin: (deps) => bind(deps, interactions.startLogin),
  describeLoginRequest: (deps) => bind(deps, interactions.describeLoginRequest),
  completeLogin: (deps) => bind(deps, interactions.completeLogin),
  startConsent: (deps) => bind(deps, interactions.startConsent),
  describeConsentRequest: (deps) => bind(deps, interactions.describeConsentRequest),
  completeConsent: (deps) => bind(deps, interactions.completeConsent),
  // Clients (portal, CLI)
  registerClient: (deps) => bind(deps, clients.registerClient),
  updateClient: (deps) => bind(deps, clients.updateClient),
  presentClient: (deps) => bind(deps, clients.presentClient),
  rotateClientSecret: (deps) => bind(deps, clients.rotateClientSecret),
  deleteClient: (deps) => bind(deps, clients.deleteClient),
  findOwnedClient: (deps) => bind(deps, clients.findOwnedClient),
  listClients: (deps) => (ownerUserKey?: string) =>
    ownerUserKey === undefined ? deps.repos.clients.listAll() : deps.repos.clients.listByOwner(ownerUserKey),
  listAuthorizedApps: (deps) => bind(deps, apps.listAuthorizedApps),
  // Dynamic Client Registration (RFC 7591, RFC 7592)
  registerDynamicClient: (deps) => bind(deps, dynamicRegistration.registerDynamicClient),
  readDynamicClient: (deps) => bind(deps, dynamicRegistration.readDynamicClient),
  updateDynamicClient: (deps) => bind(deps, dynamicRegistration.updateDynamicClient),
  deleteDynamicClient: (deps) => bind(deps, dynamicRegistration.deleteDynamicClient),
  revokeAuthorizedApp: (deps) => bind(deps, apps.revokeAuthorizedApp),
  // The operator's command line
  listUserSessions: (deps) => bind(deps, operator.listUserSessions),
  endSession: (deps) => bind(deps, operator.endSession),
  listGrants: (deps) => bind(deps, operator.listGrants),
  revokeGrants: (deps) => bind(deps, operator.revokeGrants),
  // Housekeeping
  purgeExpired: (deps) => bind(deps, purgeExpired),
};

/** The same table as pairs, for the two ways of binding it below. */
const USE_CASE_BINDERS = Object.entries(USE_CASES) as Array<[string, (deps: Deps) => unknown]>;

/** The use cases bound to `deps`, all at once (a gatehouse is made once per process). */
function useCases(deps: Deps): RequestScopedGatehouse {
  const scoped: Record<string, unknown> = { settings: deps.settings, clock: deps.clock };
  for (const [name, bindTo] of USE_CASE_BINDERS) scoped[name] = bindTo(deps);
  portsOf.set(scoped as unknown as RequestScopedGatehouse, deps);
  return scoped as unknown as RequestScopedGatehouse;
}

/**
 * One request's use cases (`forRequest`): each bound when it is read, so a request that calls two
 * use cases binds two, not sixty (bench/results/history.md, "Issue 16, part 6"). The use cases are
 * getters of the prototype, so `const { refresh } = gatehouse.forRequest(id)` works as before.
 */
class RequestScope {
  readonly settings: Readonly<GatehouseSettings>;
  readonly clock: Clock;
  readonly #deps: Deps;

  constructor(deps: Deps) {
    this.settings = deps.settings;
    this.clock = deps.clock;
    this.#deps = deps;
  }

  static portsOf(scope: object): Deps | undefined {
    return #deps in scope ? (scope as RequestScope).#deps : undefined;
  }
}

for (const [name, bindTo] of USE_CASE_BINDERS) {
  Object.defineProperty(RequestScope.prototype, name, {
    enumerable: true,
    get(this: RequestScope) {
      return bindTo(RequestScope.portsOf(this)!);
    },
  });
}

export type { Gatehouse, RequestScopedGatehouse } from './gatehouse-api.js';
