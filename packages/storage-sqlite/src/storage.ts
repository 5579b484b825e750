import type { Repositories } from '@gatehouse/core';

/** A database with the core's repositories: what the server composes. */
export interface Storage {
  repositories: Repositories;
  /** Applies pending migrations; harmless to run again or from several processes. */
  migrate(): Promise<void>;
  /** True when the database answers (readiness). */
  ping(): Promise<boolean>;
  /** Finishes and closes the connection(s); the storage is unusable afterwards. */
  close(): Promise<void>;
}
