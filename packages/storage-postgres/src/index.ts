export { openPostgresStorage, type PostgresStorageOptions, type PostgresConnectionOptions, type PostgresPoolOptions } from './postgres-storage.js';
export { postgresDialect } from './postgres-dialect.js';
export type { Storage } from '@gatehouse/storage-kysely';
