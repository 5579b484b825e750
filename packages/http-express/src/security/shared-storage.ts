import type { FailureStore } from './failure-store.js';

/**
 * What Gatehouse's router reads of the host's storage (`openPostgresStorage`, `openSqliteStorage`,
 * described by shape: the adapters do not depend on each other).
 */
export interface RouterStorage {
  /** Several instances use this database (PostgreSQL by default; SQLite when opened with `sharedByInstances: true`). */
  readonly sharedByInstances?: boolean | undefined;
  /** Failure counts every instance shares (PostgreSQL's), used when no `failureStore` is given. */
  readonly failedAttempts?: FailureStore | undefined;
}

/** What the router's storage-dependent wiring resolves to. */
export interface SharedWiring {
  /** The store failures are counted in: the one given, else the storage's, else none (this process's memory). */
  failureStore: FailureStore | undefined;
}

/**
 * A set-up that cannot work, found when the router is built: the message says what to change.
 *
 * @example
 * try {
 *   app.use('/auth', createGatehouseRouter({ gatehouse, storage })); // PostgreSQL, no csrfKey
 * } catch (error) {
 *   if (error instanceof GatehouseSetupError) console.error(error.message); // "… csrfKey …"
 *   throw error;
 * }
 */
export class GatehouseSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatehouseSetupError';
  }
}

/**
 * The failure store and the start-up checks of a router on `storage`
 * (docs/decisions/0145-embedders-production-wiring.md): failures are counted in the storage's
 * shared `failedAttempts` unless a `failureStore` is given; on a storage several instances share,
 * the router refuses to start without a `csrfKey` (every instance must key its CSRF tokens alike)
 * or with failures counted in one process's memory, rather than fall back to a per-process default.
 *
 * @example
 * const { failureStore } = sharedWiring({ storage, csrfKey: process.env.CSRF_KEY });
 */
export function sharedWiring(options: { storage?: RouterStorage | undefined; failureStore?: FailureStore | undefined; csrfKey?: string | Uint8Array | undefined }): SharedWiring {
  const { storage } = options;
  const failureStore = options.failureStore ?? storage?.failedAttempts;
  if (storage?.sharedByInstances === true) {
    const fix = 'or, if this is the only instance on this database, open the storage with sharedByInstances: false';
    if (options.csrfKey === undefined || options.csrfKey.length === 0) {
      throw new GatehouseSetupError(
        `The storage is shared by several instances (sharedByInstances), but no csrfKey was given: give every instance the same csrfKey (a secret of 32 random bytes from your secret store), ${fix}.`,
      );
    }
    if (failureStore === undefined) {
      throw new GatehouseSetupError(
        `The storage is shared by several instances (sharedByInstances), but failed sign-ins would be counted in this process's memory: give a failureStore every instance shares, ${fix}.`,
      );
    }
  }
  return { failureStore };
}
