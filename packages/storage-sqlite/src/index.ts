export { openSqliteStorage, type SqliteStorageOptions, type SqliteFileOptions, type SqliteConnectionOptions, type SqliteSynchronous } from './sqlite-storage.js';
export { pingDatabase, type Storage } from '@gatehouse/storage-kysely';
export { sqliteDialect } from './sqlite-dialect.js';
export { encryptSigningKeys, KeyDecryptionError, UserTablesOffError, type StorageWiringOptions } from '@gatehouse/storage-kysely';
