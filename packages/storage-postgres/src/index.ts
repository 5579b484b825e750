export { openPostgresStorage, type PostgresStorageOptions } from './postgres-storage.js';
export { postgresDialect } from './postgres-dialect.js';
export type { Storage } from '@gatehouse/storage-kysely';
