// The dialect-neutral kysely code of @gatehouse/storage-sqlite and @gatehouse/storage-postgres.
export { checkWrites, countActive, pingDatabase, type ActiveCounts, type ConnectionStats, type Storage, type StorageFailureStore, type FailedAttemptKey, type StorageWiringOptions } from './storage.js';
export { createKyselyRepositories, type KyselyRepositoryOptions } from './kysely-repositories.js';
export { encryptSigningKeys, assertSigningKeySecret, KeyDecryptionError, MIN_SIGNING_KEY_SECRET_LENGTH, type KeyEncryptionOptions } from './key-encryption.js';
export { createMigrationProvider, createUserTablesMigrationProvider, migrateToLatest, migrationStatus, type MigrationState, MIGRATION_TABLE, MIGRATION_LOCK_TABLE, USER_TABLES_MIGRATION_TABLE, type MigrateOptions, type SchemaParts } from './migrations.js';
export { UserTablesOffError } from './user-tables-off.js';
export { storageNames, DEFAULT_HOST_TABLE_PREFIX, type StorageNames } from './storage-names.js';
export { batchPerTurn, type BatchPerTurnOptions, type BatchRunner } from './batch-per-turn.js';
export { inTransaction, param, reusableQuery, setQueryRunner, type BoundQuery, type QueryRunner, type ReusableQuery } from './reusable-query.js';
export { codeExchangeQueries, codeExchangeValues, type CodeExchange, type CodeExchangeValues } from './repositories/code-exchange.js';
export { refreshTokenValues } from './repositories/refresh-tokens.js';
export { attributeValueQueries } from './repositories/attributes.js';
export type { StorageDialect } from './dialect.js';
export type * from './schema.js';
export { TablePrefixPlugin, GATEHOUSE_TABLES, OAUTH_TABLES, USER_TABLES, assertTablePrefix } from './table-prefix.js';
