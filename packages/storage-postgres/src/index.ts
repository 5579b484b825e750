export { openPostgresStorage, type PostgresStorage, type PostgresStorageOptions, type PostgresConnectionOptions, type PostgresPoolOptions } from './postgres-storage.js';
export { createPostgresFailureStore, ensureFailedAttemptsTable, FAILED_ATTEMPTS_TABLE, type PostgresFailureStore, type FailedAttemptKey } from './failed-attempts.js';
export { postgresDialect } from './postgres-dialect.js';
export type { Storage } from '@gatehouse/storage-kysely';
export { encryptSigningKeys, KeyDecryptionError, UserTablesOffError, type StorageWiringOptions } from '@gatehouse/storage-kysely';
