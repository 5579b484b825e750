// tsyringe checks for the Reflect metadata API when it loads, even without decorators.
import 'reflect-metadata';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import {
  cachedClientRepository,
  cachedUserRepositories,
  createGatehouse,
  createProductApi,
  DEFAULT_CLIENT_CACHE,
  DEFAULT_USER_CACHE,
  defineSettings,
  type AuditLog,
  type Clock,
  type Gatehouse,
  type GatehouseSettings,
  type PasswordHasher,
  type ProductApi,
  type Repositories,
} from '@gatehouse/core';
import type { Express } from 'express';
import { createPinoAuditLog } from './audit-log.js';
import type { Config } from './config.js';
import { createHttpApp } from './http/app.js';
import type { LogDestination } from './log-destination.js';
import { workerIndex } from './cluster/worker-messages.js';
import { createLogger, type Logger } from './logger.js';
import type { Metrics } from './metrics/metrics.js';
import { createShutdownState, type ShutdownState } from './shutdown-state.js';
import { createArgon2PasswordHasher } from '@gatehouse/argon2';
import { sharedSigningThread } from '@gatehouse/core/threads';
import { createClientMetadataDocumentFetcher, createStorageOutages, watchStorage, type StorageOutages } from '@gatehouse/http-express';
import { openStorage, type Storage } from './storage.js';

/** A symbol that remembers the type it resolves to. */
export type Token<T> = symbol & { readonly __resolvesTo?: T };
const token = <T>(description: string): Token<T> => Symbol(description) as Token<T>;

/** Every service of the server, by token. */
export const TOKENS = {
  config: token<Config>('Config'),
  logger: token<Logger>('Logger'),
  clock: token<Clock>('Clock'),
  storage: token<Storage>('Storage'),
  storageOutages: token<StorageOutages>('StorageOutages'),
  repositories: token<Repositories>('Repositories'),
  auditLog: token<AuditLog>('AuditLog'),
  settings: token<GatehouseSettings>('GatehouseSettings'),
  passwords: token<PasswordHasher>('PasswordHasher'),
  /** The OAuth part (docs/decisions/0161). */
  gatehouse: token<Gatehouse>('Gatehouse'),
  /** The product part beside it: users, accounts, attributes, messages (docs/decisions/0161). */
  product: token<ProductApi>('ProductApi'),
  httpApp: token<Express>('HttpApp'),
  shutdown: token<ShutdownState>('ShutdownState'),
} as const;

export function resolve<T>(container: DependencyContainer, key: Token<T>): T {
  return container.resolve<T>(key);
}

/** The system clock: the one place the server reads the time for the core. */
export const systemClock: Clock = { now: () => new Date() };

export function settingsFrom(config: Config): GatehouseSettings {
  return defineSettings({
    issuer: config.issuer,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    codeTtlSeconds: config.codeTtlSeconds,
    sessionTtlSeconds: config.sessionTtlSeconds,
    refreshToken: config.refreshToken,
    jwksMaxAgeSeconds: config.jwksMaxAgeSeconds,
    scopes: config.scopes,
    maxAnonymousInteractions: config.maxAnonymousInteractions,
    resources: config.resources,
    registration: {
      policy: config.registration.policy,
      initialAccessTokenHashes: config.registration.initialAccessTokenHashes,
      anonymousScopes: config.registration.anonymousScopes,
      anonymousResources: config.registration.anonymousResources,
      unusedClientTtlSeconds: config.registration.unusedClientTtlSeconds,
    },
    clientMetadataDocuments: {
      enabled: config.clientMetadataDocuments.enabled,
      allowedHosts: config.clientMetadataDocuments.allowedHosts,
      deniedHosts: config.clientMetadataDocuments.deniedHosts,
    },
    openid: config.openid,
  });
}

/**
 * The fetcher of Client ID Metadata Documents: public addresses only, unless
 * `GATEHOUSE_CLIENT_METADATA_DOCUMENT_ALLOW_PRIVATE` (development); Node's trusted CAs, to which
 * `NODE_EXTRA_CA_CERTS` adds.
 */
function documentFetcher(config: Config) {
  const allow = config.clientMetadataDocuments.allowPrivateAddresses;
  return createClientMetadataDocumentFetcher({ allowLoopback: allow, allowPrivateNetworks: allow });
}

/**
 * The composition root: opens (and migrates) the database the configuration names and
 * registers every service on a child container. The CLI commands and `serve` all start here.
 *
 * @example
 * const services = await createContainer(loadConfig(process.env), { logDestination: process.stderr });
 * const gatehouse = resolve(services, TOKENS.gatehouse);
 */
export async function createContainer(
  config: Config,
  options: {
    logDestination: LogDestination;
    clock?: Clock;
    /** Prometheus metrics (serve with GATEHOUSE_METRICS_PORT): audit events and readiness pings are counted. */
    metrics?: Metrics;
  },
): Promise<DependencyContainer> {
  const logger = createLogger({ level: config.logLevel, format: config.logFormat, destination: options.logDestination, worker: workerIndex(process.env) });
  const storage = await openStorage(config.database, config.keySecret, config);
  const c = rootContainer.createChildContainer();
  const once = <T>(factory: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory<T>(factory) });

  c.register(TOKENS.config, { useValue: config });
  c.register(TOKENS.logger, { useValue: logger });
  c.register(TOKENS.clock, { useValue: options.clock ?? systemClock });
  c.register(TOKENS.storage, { useValue: storage });
  // Sessions, grants and the connection's state, read when Prometheus scrapes.
  options.metrics?.observeStorage(storage, options.clock ?? systemClock);
  // The database's outages: each logged once with its cause, counted when metrics are on, seen by
  // the error answers (503), the storage's calls (the recovery) and readiness (docs/decisions/0100).
  c.register(
    TOKENS.storageOutages,
    once((d) =>
      createStorageOutages({
        logger: resolve(d, TOKENS.logger),
        ...(options.metrics ? { onFailure: options.metrics.countStorageFailure, onChange: options.metrics.setStorageOutage } : {}),
      }),
    ),
  );
  c.register(TOKENS.settings, once(() => settingsFrom(config)));
  c.register(TOKENS.shutdown, { useValue: createShutdownState() });
  c.register(
    TOKENS.auditLog,
    once((d) => {
      const audit = createPinoAuditLog(resolve(d, TOKENS.logger));
      return options.metrics ? options.metrics.countAuditEvents(audit) : audit;
    }),
  );
  c.register(
    TOKENS.repositories,
    once((d): Repositories => {
      // Every call on the database (not the caches) reports to the outage tracker: the first to succeed ends an outage.
      const repositories = watchStorage(resolve(d, TOKENS.storage).repositories, resolve(d, TOKENS.storageOutages));
      return {
        ...repositories,
        // Clients from memory for a few seconds: a change made on this instance is seen at once,
        // one made on another within the TTL (docs/decisions/0069-clients-cached-in-memory.md).
        clients: cachedClientRepository(repositories.clients, resolve(d, TOKENS.clock), DEFAULT_CLIENT_CACHE),
        // The same for what Users/me shows, a user and their memberships; the grant is still read on
        // every bearer request (docs/decisions/0079-current-user-cached-in-memory.md).
        ...cachedUserRepositories(repositories, resolve(d, TOKENS.clock), DEFAULT_USER_CACHE),
      };
    }),
  );
  // argon2id at OWASP's cost; scrypt hashes of earlier releases still verify and are replaced at
  // sign-in (docs/decisions/0170-argon2id-passwords.md). One hasher for both parts: the product's
  // new passwords are the ones the gatehouse checks.
  c.register(TOKENS.passwords, once(() => createArgon2PasswordHasher()));
  c.register(
    TOKENS.gatehouse,
    once((d) =>
      createGatehouse({
        repositories: resolve(d, TOKENS.repositories),
        settings: resolve(d, TOKENS.settings),
        clock: resolve(d, TOKENS.clock),
        audit: resolve(d, TOKENS.auditLog),
        passwords: resolve(d, TOKENS.passwords),
        // Access tokens are signed on a worker thread, off the event loop (docs/decisions/0076-signing-on-a-thread.md).
        signer: sharedSigningThread(),
        // Client ID Metadata Documents, fetched with the SSRF guards (docs/decisions/0118-guarded-document-fetcher.md).
        ...(config.clientMetadataDocuments.enabled ? { clientMetadataDocumentFetcher: documentFetcher(config) } : {}),
      }),
    ),
  );
  c.register(
    TOKENS.product,
    once((d) =>
      createProductApi({
        gatehouse: resolve(d, TOKENS.gatehouse),
        repositories: resolve(d, TOKENS.repositories),
        audit: resolve(d, TOKENS.auditLog),
        passwords: resolve(d, TOKENS.passwords),
      }),
    ),
  );
  c.register(
    TOKENS.httpApp,
    once((d) =>
      createHttpApp({
        config: resolve(d, TOKENS.config),
        gatehouse: resolve(d, TOKENS.gatehouse),
        product: resolve(d, TOKENS.product),
        storage: resolve(d, TOKENS.storage),
        storageOutages: resolve(d, TOKENS.storageOutages),
        logger: resolve(d, TOKENS.logger),
        shutdown: resolve(d, TOKENS.shutdown),
        metrics: options.metrics,
      }),
    ),
  );
  return c;
}
