export { openSqliteStorage, type SqliteStorageOptions, type SqliteFileOptions, type SqliteConnectionOptions, type SqliteSynchronous } from './sqlite-storage.js';
export { pingDatabase, type Storage } from '@gatehouse/storage-kysely';
export { sqliteDialect } from './sqlite-dialect.js';
export { createSqliteFailureStore, ensureFailedAttemptsTable, FAILED_ATTEMPTS_TABLE, type SqliteFailureStore, type FailedAttemptKey } from './failed-attempts.js';
export { encryptSigningKeys, KeyDecryptionError, UserTablesOffError, type StorageWiringOptions } from '@gatehouse/storage-kysely';
