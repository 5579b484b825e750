export { openSqliteStorage, type SqliteStorageOptions, type SqliteFileOptions, type SqliteConnectionOptions, type SqliteSynchronous } from './sqlite-storage.js';
export { pingDatabase, type Storage } from '@gatehouse/storage-kysely';
export { sqliteDialect } from './sqlite-dialect.js';
export { hostSharedWriteThread, type SharedWriteThreadChannel, type SharedWriteThreadHost, type SharedWriteThreadOptions, type SharedWriteThreadReply } from './shared-write-thread.js';
export { createSqliteFailureStore, ensureFailedAttemptsTable, FAILED_ATTEMPTS_TABLE, type SqliteFailureStore } from './failed-attempts.js';
export type { FailedAttemptKey } from '@gatehouse/storage-kysely';
export { encryptSigningKeys, KeyDecryptionError, UserTablesOffError, type StorageWiringOptions } from '@gatehouse/storage-kysely';
