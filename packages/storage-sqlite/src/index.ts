export { openSqliteStorage, type SqliteStorageOptions, type SqliteSynchronous } from './sqlite-storage.js';
export { pingDatabase, type Storage } from './storage.js';
// Dialect-neutral pieces, shared with @gatehouse/storage-postgres.
export { createKyselyRepositories } from './kysely-repositories.js';
export { createMigrationProvider, migrateToLatest, MIGRATION_TABLE, MIGRATION_LOCK_TABLE } from './migrations.js';
export type { StorageDialect } from './dialect.js';
export type * from './schema.js';
export { sqliteDialect } from './sqlite-dialect.js';
