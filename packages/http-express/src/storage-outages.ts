import { isAbsentRepository, type Repositories, type StorageFailureReason, type StorageUnavailableError } from '@gatehouse/core';

/** A logger's method, as pino's and the HTTP adapter's loggers have it. */
type LogMethod = (obj: object, msg: string) => void;

/** An outage of the storage under way: since when, why it began, how many requests it failed. */
export interface StorageOutage {
  reason: StorageFailureReason;
  /** Epoch milliseconds of its first failure. */
  since: number;
  failures: number;
}

/**
 * What Gatehouse knows of its storage's health, shared by the error answers (which report each
 * failure), the storage's calls (whose first success ends an outage, `watchStorage`) and a
 * readiness probe (docs/decisions/0100-storage-outages-answered-503.md).
 */
export interface StorageOutages {
  /** A request (or probe) failed because the storage is unavailable: the first failure of an outage is logged. */
  failed(error: StorageUnavailableError): void;
  /** The storage took a write: ends the outage under way, if any (logged once). */
  succeeded(): void;
  /** The outage under way, or undefined. */
  readonly current: StorageOutage | undefined;
}

export interface StorageOutageOptions {
  /** Where the start (at `error`, with the cause) and the end (at `info`) of each outage go; a pino logger fits. */
  logger?: { error: LogMethod; info?: LogMethod };
  /** Called for every failure (e.g. a counter). */
  onFailure?: (error: StorageUnavailableError) => void;
  /** Called when an outage begins (with it) and when it ends (undefined), e.g. a gauge. */
  onChange?: (outage: StorageOutage | undefined) => void;
  /** Epoch milliseconds (default `Date.now`). */
  now?: () => number;
}

/**
 * How long a client should wait before sending again (`Retry-After`, RFC 9110 §10.2.3): a lock
 * held past the timeout is likely free soon; the other outages take longer.
 */
const RETRY_AFTER_SECONDS: Record<StorageFailureReason, number> = { busy: 1, unreachable: 5, full: 5, read_only: 5, io: 5 };

/** The `Retry-After` of an answer to a request that failed because the storage is unavailable. */
export function retryAfterSeconds(error: StorageUnavailableError): number {
  return RETRY_AFTER_SECONDS[error.reason] ?? 5;
}

/**
 * Tracks storage outages so that each is logged once, however many requests it fails: the first
 * failure logs at `error` with its reason and cause (the driver's code and message), later ones
 * are only counted, and the first success (a write, `watchStorage`, or a readiness probe's) logs
 * the recovery with the outage's length and count.
 *
 * @example
 * const storageOutages = createStorageOutages({ logger });
 * const gatehouse = createGatehouse({ repositories: watchStorage(storage.repositories, storageOutages), clock, settings });
 * app.use(createGatehouseRouter({ gatehouse, logger, storageOutages }));
 */
export function createStorageOutages(options: StorageOutageOptions = {}): StorageOutages {
  const now = options.now ?? Date.now;
  let current: StorageOutage | undefined;
  return {
    failed(error) {
      options.onFailure?.(error);
      if (current !== undefined) {
        current.failures += 1;
        return;
      }
      current = { reason: error.reason, since: now(), failures: 1 };
      options.logger?.error(
        { event: 'storage_unavailable', reason: error.reason, detail: error.message, cause: causeOf(error) },
        'database unavailable: requests that need it are answered 503 until it recovers',
      );
      options.onChange?.(current);
    },
    succeeded() {
      if (current === undefined) return;
      const ended = current;
      current = undefined;
      options.logger?.info?.({ event: 'storage_recovered', reason: ended.reason, downMs: now() - ended.since, failures: ended.failures }, 'database available again');
      options.onChange?.(undefined);
    },
    get current() {
      return current;
    },
  };
}

/** The driver's code and message (a connection error, a SQLite result code): no secret is in them. */
function causeOf(error: StorageUnavailableError): { code?: string; message: string } | undefined {
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause === undefined || cause === null) return undefined;
  return { ...(typeof cause.code === 'string' ? { code: cause.code } : {}), message: typeof cause.message === 'string' ? cause.message : String(cause) };
}

/** The repository ports' reads: `find…` and `list…`; every other method writes. */
const READ_METHOD = /^(find|list)/;

/**
 * `repositories`, each write reporting to `outages`: while an outage is under way, the first write
 * that succeeds ends it. Reads do not count, since a full disk or a read-only file still answers
 * them; they are passed through as they are. Outside an outage a write costs one check more.
 * (Failures are reported where they are answered, by the error handlers, and by a readiness probe.)
 *
 * @example
 * const repositories = watchStorage(storage.repositories, storageOutages);
 */
export function watchStorage(repositories: Repositories, outages: StorageOutages): Repositories {
  const succeeded = <T>(value: T): T => {
    outages.succeeded();
    return value;
  };
  const watched: Record<string, unknown> = {};
  for (const [name, repository] of Object.entries(repositories) as Array<[string, Record<string, unknown>]>) {
    // A placeholder of tables the storage does not have stays as it is: nothing to watch (docs/decisions/0201).
    if (isAbsentRepository(repository)) {
      watched[name] = repository;
      continue;
    }
    const methods: Record<string, unknown> = {};
    for (const method of memberNames(repository)) {
      const member = repository[method];
      if (typeof member !== 'function') {
        methods[method] = member;
        continue;
      }
      const call = member as (...args: unknown[]) => unknown;
      if (READ_METHOD.test(method)) {
        methods[method] = call.bind(repository);
        continue;
      }
      methods[method] = (...args: unknown[]): unknown => {
        const result = call.apply(repository, args);
        return outages.current !== undefined && result instanceof Promise ? result.then(succeeded) : result;
      };
    }
    watched[name] = methods;
  }
  return watched as unknown as Repositories;
}

/** The names of an object's members, its class's methods included (not those of `Object`). */
function memberNames(target: object): string[] {
  const names = new Set<string>();
  for (let layer: object | null = target; layer !== null && layer !== Object.prototype; layer = Object.getPrototypeOf(layer) as object | null) {
    for (const name of Object.getOwnPropertyNames(layer)) if (name !== 'constructor') names.add(name);
  }
  return [...names];
}
