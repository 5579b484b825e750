// The dialect-neutral kysely code of @gatehouse/storage-sqlite and @gatehouse/storage-postgres.
export { checkWrites, countActive, pingDatabase, type ActiveCounts, type ConnectionStats, type Storage } from './storage.js';
export { createKyselyRepositories } from './kysely-repositories.js';
export { createMigrationProvider, migrateToLatest, MIGRATION_TABLE, MIGRATION_LOCK_TABLE, type MigrateOptions } from './migrations.js';
export { directExecutorOf, param, reusableQuery, setDirectExecutor, type BackgroundStatement, type BoundQuery, type DirectExecutor, type DirectStep, type ReusableQuery } from './reusable-query.js';
export type { StorageDialect } from './dialect.js';
export type * from './schema.js';
export { TablePrefixPlugin, GATEHOUSE_TABLES, assertTablePrefix } from './table-prefix.js';
