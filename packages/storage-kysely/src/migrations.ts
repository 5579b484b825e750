import { attributeNameKey } from '@gatehouse/core';
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { StorageDialect } from './dialect.js';
import type { Database } from './schema.js';

/** Which parts of the schema a storage has (docs/decisions/0146-only-the-tables-a-host-uses.md). */
export interface SchemaParts {
  /**
   * The tables of Gatehouse-owned users and the product APIs (`USER_TABLES`); default true. Without
   * them a database has only the authorization server's tables (`OAUTH_TABLES`).
   */
  userTables?: boolean;
}

/**
 * The schema, in code (no migration files to ship), written once with kysely's schema builder
 * for every dialect. A migration is never edited once released; changes are new entries.
 *
 * Two tracks (docs/decisions/0146-only-the-tables-a-host-uses.md): these migrations, every
 * database's, create and change the authorization server's tables, and the user tables only where
 * `userTables` holds (0001, 0002); `createUserTablesMigrationProvider`'s, run only with
 * `userTables`, create the user tables where missing and carry every later change to them. A
 * migration here never touches a user table: it may not exist.
 */
export function createMigrationProvider(dialect: StorageDialect, parts: SchemaParts = {}): MigrationProvider {
  const userTables = parts.userTables !== false;
  const migrations: Record<string, Migration> = {
    '0001_initial': { up: (db) => createInitialSchema(db, dialect, userTables) },
    '0002_one_owner_per_phone_number': { up: (db) => (userTables ? makePhoneNumbersUnique(db) : Promise.resolve()) },
    '0003_interactions': { up: (db) => createInteractions(db, dialect) },
    '0004_client_types_and_grant_types': { up: (db) => addGrantTypesToClients(db) },
    '0005_remembered_consent': { up: (db) => createConsents(db, dialect) },
    '0006_authentication_time_and_superseded_tokens': { up: (db) => addAuthenticationTimeAndSupersededTokens(db) },
    '0007_resource_indicators': { up: (db) => addResourceIndicators(db) },
    '0008_dynamic_registration': { up: (db) => addSelfRegistrationToClients(db) },
    '0009_readiness_probe': { up: (db) => createReadinessProbe(db, dialect) },
    '0010_openid_connect': { up: (db) => addOpenIdConnect(db) },
    '0013_client_presentation': { up: (db) => addClientPresentation(db) },
    '0014_sessions_and_interactions_by_user': { up: (db) => addUserKeyIndexes(db) },
    '0016_redirect_uri_included': { up: (db) => addRedirectUriIncluded(db) },
    '0018_grants_without_refresh_tokens': { up: (db) => markGrantsWithoutRefreshTokens(db) },
  };
  return { getMigrations: async () => migrations };
}

/**
 * The user tables' own track: run only by a storage with `userTables`, under the same lock as the
 * main track. `0011_user_tables` creates every user table, index and constraint in its shape as of
 * migration 0010 where missing (a database created without them, or before them), and nothing on a
 * database that has them.
 */
export function createUserTablesMigrationProvider(dialect: StorageDialect): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '0011_user_tables': { up: (db) => createUserTables(db, dialect, { ifNotExists: true }) },
    '0012_disabled_users': { up: (db) => addDisabledUsers(db) },
    '0015_user_records_by_user': { up: (db) => addUserRecordIndexes(db) },
    '0017_attribute_names_unique_as_read': { up: (db) => foldAttributeNamesAsRead(db) },
  };
  return { getMigrations: async () => migrations };
}

export const MIGRATION_TABLE = 'gatehouse_migration';
export const MIGRATION_LOCK_TABLE = 'gatehouse_migration_lock';
/** Where the user tables' track records its migrations (the lock is the main track's). */
export const USER_TABLES_MIGRATION_TABLE = 'gatehouse_user_tables_migration';

export interface MigrateOptions extends SchemaParts {
  /** Schema of the migrator's tables (PostgreSQL); default: the connection's. */
  migrationTableSchema?: string;
  /** The table prefix of the database's TablePrefixPlugin, if any: the migrator's tables carry it too. */
  tablePrefix?: string;
}

/**
 * Applies pending migrations. Running it again, or from several processes at once, is
 * harmless: the migrator runs them in one transaction under its lock and records what ran.
 */
export async function migrateToLatest(
  db: Kysely<Database>,
  dialect: StorageDialect,
  options: MigrateOptions = {},
): Promise<void> {
  // `db` carries the TablePrefixPlugin that renames the tables the migrations create; the
  // migrator's own tables are not Gatehouse tables for that plugin, so they are named here.
  const prefix = options.tablePrefix ?? '';
  const track = (provider: MigrationProvider, migrationTableName: string) =>
    new Migrator({
      db,
      provider,
      migrationTableName,
      migrationLockTableName: prefix + MIGRATION_LOCK_TABLE,
      ...(options.migrationTableSchema === undefined ? {} : { migrationTableSchema: options.migrationTableSchema }),
    });
  await runTrack(track(createMigrationProvider(dialect, options), prefix + MIGRATION_TABLE));
  if (options.userTables !== false) await runTrack(track(createUserTablesMigrationProvider(dialect), prefix + USER_TABLES_MIGRATION_TABLE));
}

/** One migration of `migrationStatus`: its name, and when it ran (null: pending). */
export interface MigrationState {
  name: string;
  /** `main`, or `user-tables` (the user tables' own track, decision 0146). */
  track: 'main' | 'user-tables';
  executedAt: Date | null;
}

/**
 * Every migration this version knows for the storage's parts, applied or pending, in order
 * (`gatehouse migrate status`). Reads only: it creates nothing, not even the migrator's tables
 * (a database never migrated has every migration pending).
 *
 * @example
 * const pending = (await migrationStatus(db, sqliteDialect)).filter((migration) => migration.executedAt === null);
 */
export async function migrationStatus(db: Kysely<Database>, dialect: StorageDialect, options: MigrateOptions = {}): Promise<MigrationState[]> {
  const prefix = options.tablePrefix ?? '';
  const executed = async (table: string): Promise<Map<string, Date>> => {
    const from = options.migrationTableSchema === undefined ? sql.table(table) : sql.table(`${options.migrationTableSchema}.${table}`);
    try {
      const { rows } = await sql<{ name: string; timestamp: string }>`select name, timestamp from ${from}`.execute(db);
      return new Map(rows.map((row) => [row.name, new Date(row.timestamp)]));
    } catch (error) {
      // No migrator table yet: nothing ran. Any other failure (an outage) is the caller's to see.
      if (/no such table|does not exist/i.test(error instanceof Error ? error.message : '')) return new Map();
      throw error;
    }
  };
  const states = async (provider: MigrationProvider, table: string, track: MigrationState['track']): Promise<MigrationState[]> => {
    const ran = await executed(prefix + table);
    return Object.keys(await provider.getMigrations())
      .sort()
      .map((name) => ({ name, track, executedAt: ran.get(name) ?? null }));
  };
  const main = await states(createMigrationProvider(dialect, options), MIGRATION_TABLE, 'main');
  return options.userTables === false ? main : [...main, ...(await states(createUserTablesMigrationProvider(dialect), USER_TABLES_MIGRATION_TABLE, 'user-tables'))];
}

async function runTrack(migrator: Migrator): Promise<void> {
  const { error, results } = await migrator.migrateToLatest();
  // kysely's wording for a migration recorded in the database but not known here: a newer version ran.
  const unknown = error instanceof Error ? /previously executed migration (\S+) is missing/.exec(error.message)?.[1] : undefined;
  if (unknown !== undefined) {
    throw new Error(
      `The database was migrated by a newer version of Gatehouse (it has migration ${unknown}, unknown to this version): run that version, or restore a backup made for this one.`,
      { cause: error },
    );
  }
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName;
    throw new Error(`Database migration${failed ? ` ${failed}` : ''} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

// The schema builder is untyped on purpose: migrations describe the tables, they do not use them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type SchemaDb = Kysely<any>;

async function createInitialSchema(db: SchemaDb, dialect: StorageDialect, userTables: boolean): Promise<void> {
  const key = dialect.keyType;
  const time = 'bigint'; // epoch ms; SQLite gives "bigint" INTEGER affinity
  const cascade = 'cascade';
  if (userTables) await createUserTables(db, dialect, { ifNotExists: false });

  await db.schema
    .createTable('clients')
    .addColumn('client_id', key, (c) => c.primaryKey())
    .addColumn('client_secret_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('pkce_required', 'integer', (c) => c.notNull())
    .addColumn('owner_user_key', key)
    .addColumn('created_at', time, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('clients_by_owner').on('clients').column('owner_user_key').execute();

  // A client's grants, codes and refresh tokens go with it (ON DELETE CASCADE).
  await db.schema
    .createTable('grants')
    .addColumn('grant_id', key, (c) => c.primaryKey())
    .addColumn('client_id', key, (c) => c.notNull().references('clients.client_id').onDelete(cascade))
    .addColumn('user_key', key, (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('session_id', key)
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('revoked_at', time)
    .execute();
  await db.schema.createIndex('grants_by_user').on('grants').columns(['user_key', 'created_at']).execute();
  await db.schema.createIndex('grants_by_client').on('grants').columns(['client_id', 'user_key']).execute();
  await db.schema.createIndex('grants_by_session').on('grants').column('session_id').where('session_id', 'is not', null).execute();
  await db.schema.createIndex('grants_revoked').on('grants').column('revoked_at').where('revoked_at', 'is not', null).execute();

  // A consumed code keeps a reference to its grant and is deleted with it, so a replay is
  // detected as long as the grant lives and the table stays bounded.
  await db.schema
    .createTable('authorization_codes')
    .addColumn('code_hash', key, (c) => c.primaryKey())
    .addColumn('client_id', key, (c) => c.notNull().references('clients.client_id').onDelete(cascade))
    .addColumn('user_key', key, (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text')
    .addColumn('session_id', key)
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .addColumn('consumed_at', time)
    .addColumn('grant_id', key, (c) => c.references('grants.grant_id').onDelete(cascade))
    .execute();
  await db.schema.createIndex('authorization_codes_by_client').on('authorization_codes').column('client_id').execute();
  await db.schema
    .createIndex('authorization_codes_by_grant')
    .on('authorization_codes')
    .column('grant_id')
    .where('grant_id', 'is not', null)
    .execute();
  await db.schema
    .createIndex('authorization_codes_unused_by_expiry')
    .on('authorization_codes')
    .column('expires_at')
    .where(sql.ref('consumed_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('token_hash', key, (c) => c.primaryKey())
    .addColumn('grant_id', key, (c) => c.notNull().references('grants.grant_id').onDelete(cascade))
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('last_used_at', time, (c) => c.notNull())
    .addColumn('rotated_at', time)
    .execute();
  await db.schema.createIndex('refresh_tokens_by_grant').on('refresh_tokens').column('grant_id').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('session_id', key, (c) => c.primaryKey())
    .addColumn('user_key', key, (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .addColumn('ended_at', time)
    .execute();
  await db.schema.createIndex('sessions_by_expiry').on('sessions').column('expires_at').execute();
  await db.schema.createIndex('sessions_ended').on('sessions').column('ended_at').where('ended_at', 'is not', null).execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', key, (c) => c.primaryKey())
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('retired_at', time)
    .execute();
}

/**
 * The user tables (`USER_TABLES`) as 0001 created them, with 0002's unique phone numbers when
 * `ifNotExists` (the user tables' track: a database without them gets them whole; one with them,
 * nothing). 0001 itself creates them without 0002's index, which 0002 adds after its check.
 */
async function createUserTables(db: SchemaDb, dialect: StorageDialect, options: { ifNotExists: boolean }): Promise<void> {
  const key = dialect.keyType;
  const time = 'bigint';
  const cascade = 'cascade';
  const table = (name: string) => (options.ifNotExists ? db.schema.createTable(name).ifNotExists() : db.schema.createTable(name));
  const index = (name: string) => (options.ifNotExists ? db.schema.createIndex(name).ifNotExists() : db.schema.createIndex(name));
  await table('users')
    .addColumn('user_key', key, (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_folded', 'text', (c) => c.notNull())
    .addColumn('given_name', 'text', (c) => c.notNull())
    .addColumn('family_name', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .execute();
  await index('users_email_folded').unique().on('users').column('email_folded').execute();

  await table('user_phone_numbers')
    .addColumn('user_key', key, (c) => c.notNull().references('users.user_key').onDelete(cascade))
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_phone_numbers_pk', ['user_key', 'phone_number'])
    .execute();

  await table('accounts')
    .addColumn('account_key', key, (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();

  await table('memberships')
    .addColumn('account_key', key, (c) => c.notNull().references('accounts.account_key').onDelete(cascade))
    .addColumn('user_key', key, (c) => c.notNull().references('users.user_key').onDelete(cascade))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'member')`))
    .addPrimaryKeyConstraint('memberships_pk', ['account_key', 'user_key'])
    .execute();
  await index('memberships_by_user').on('memberships').column('user_key').execute();

  // Names are unique per account ignoring case through the folded column (the same fold as
  // the in-memory adapter, on every dialect); `position` keeps the creation order.
  await table('attribute_names')
    .addColumn('account_key', key, (c) => c.notNull())
    .addColumn('attribute_key', key, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_folded', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('attribute_names_pk', ['account_key', 'attribute_key'])
    .execute();
  await index('attribute_names_unique_name').unique().on('attribute_names').columns(['account_key', 'name_folded']).execute();
  await index('attribute_names_by_position').unique().on('attribute_names').columns(['account_key', 'position']).execute();

  await table('user_attribute_values')
    .addColumn('account_key', key, (c) => c.notNull())
    .addColumn('user_key', key, (c) => c.notNull())
    .addColumn('attribute_key', key, (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_attribute_values_pk', ['account_key', 'user_key', 'attribute_key'])
    .addForeignKeyConstraint('user_attribute_values_name_fk', ['account_key', 'attribute_key'], 'attribute_names', ['account_key', 'attribute_key'], (fk) =>
      fk.onDelete(cascade),
    )
    .execute();
  await index('user_attribute_values_by_attribute')
    .on('user_attribute_values')
    .columns(['account_key', 'attribute_key'])
    .execute();

  await table('messages')
    .addColumn('id', key, (c) => c.primaryKey())
    .addColumn('owner_phone_number', 'text', (c) => c.notNull())
    .addColumn('contact_phone_numbers', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('author_user_key', key, (c) => c.notNull())
    .addColumn('sent_at', time, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .execute();
  await index('messages_by_owner').on('messages').columns(['owner_phone_number', 'sent_at', 'id']).execute();

  if (options.ifNotExists) await index('user_phone_numbers_unique_number').unique().on('user_phone_numbers').column('phone_number').execute();
}

/** How many numbers with several owners the refusal names (the message stays one readable line). */
const DUPLICATES_NAMED = 20;

/**
 * A phone number belongs to one user (docs/decisions/0006-one-owner-per-phone-number.md). A
 * database where some number has several owners is refused, naming them, and left as it was:
 * which user keeps the number is the operator's call, never a guess.
 */
async function makePhoneNumbersUnique(db: SchemaDb): Promise<void> {
  const duplicates = (await db
    .selectFrom('user_phone_numbers')
    .select('phone_number')
    .groupBy('phone_number')
    .having((eb) => eb.fn.countAll(), '>', 1)
    .orderBy('phone_number')
    .execute()) as Array<{ phone_number: string }>;
  if (duplicates.length > 0) {
    const named = duplicates.slice(0, DUPLICATES_NAMED).map((row) => row.phone_number);
    const owners = (await db
      .selectFrom('user_phone_numbers')
      .select(['phone_number', 'user_key'])
      .where('phone_number', 'in', named)
      .orderBy('phone_number')
      .orderBy('user_key')
      .execute()) as Array<{ phone_number: string; user_key: string }>;
    const described = named.map((number) => `${number} (users ${owners.filter((row) => row.phone_number === number).map((row) => row.user_key).join(', ')})`);
    const more = duplicates.length > named.length ? `, and ${duplicates.length - named.length} more` : '';
    throw new Error(
      `${duplicates.length} phone number${duplicates.length === 1 ? '' : 's'} belong${duplicates.length === 1 ? 's' : ''} to several users: ${described.join(', ')}${more}. ` +
        'A phone number belongs to one user: delete the rows of user_phone_numbers that should not be there, then start again (docs/operations.md).',
    );
  }
  await db.schema.createIndex('user_phone_numbers_unique_number').unique().on('user_phone_numbers').column('phone_number').execute();
}

/** Login and consent requests handed to the host application (docs/decisions/0091). */
async function createInteractions(db: SchemaDb, dialect: StorageDialect): Promise<void> {
  const time = 'bigint';
  await db.schema
    .createTable('interactions')
    .addColumn('interaction_hash', dialect.keyType, (c) => c.primaryKey())
    .addColumn('kind', dialect.keyType, (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('user_key', dialect.keyType)
    .addColumn('session_id', dialect.keyType)
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('expires_at', time, (c) => c.notNull())
    .addColumn('consumed_at', time)
    .execute();
  await db.schema.createIndex('interactions_by_expiry').on('interactions').column('expires_at').execute();
}

/**
 * Remembered consent, one row per scope a user allowed a client, so that allowing more scopes is
 * an insert, never a read then a write (docs/decisions/0095-remembered-consent.md). The rows go
 * with their client (ON DELETE CASCADE).
 */
async function createConsents(db: SchemaDb, dialect: StorageDialect): Promise<void> {
  const key = dialect.keyType;
  await db.schema
    .createTable('consents')
    .addColumn('user_key', key, (c) => c.notNull())
    .addColumn('client_id', key, (c) => c.notNull().references('clients.client_id').onDelete('cascade'))
    .addColumn('scope', key, (c) => c.notNull())
    .addColumn('granted_at', 'bigint', (c) => c.notNull())
    .execute();
  // A unique index rather than a named constraint: index names carry the table prefix (TablePrefixPlugin).
  await db.schema.createIndex('consents_unique').unique().on('consents').columns(['user_key', 'client_id', 'scope']).execute();
  await db.schema.createIndex('consents_by_client').on('consents').column('client_id').execute();
}

/**
 * Grant types per client (docs/decisions/0028-grant-types-per-client.md): every existing client
 * keeps what it could do, the authorization-code flow with refresh tokens. Public clients
 * (no secret) and grants without a user need no new column: they are encoded in the existing
 * NOT NULL columns as an empty string (see `schema.ts`), since SQLite cannot drop a NOT NULL
 * constraint without rebuilding tables that others reference.
 */
async function addGrantTypesToClients(db: SchemaDb): Promise<void> {
  await db.schema
    .alterTable('clients')
    .addColumn('grant_types', 'text', (c) => c.notNull().defaultTo(JSON.stringify(['authorization_code', 'refresh_token'])))
    .execute();
}

/**
 * Issue #28's rules (docs/decisions/0105 to 0107): when a session's user last proved who they are
 * (the host may have signed them in before the session began; null: when the session began, as
 * every session before this migration), a refresh token replaced by a retry within the rotation
 * grace, and the user's unused codes found without reading the whole table (a withdrawn app or a
 * password change deletes them).
 */
async function addAuthenticationTimeAndSupersededTokens(db: SchemaDb): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('authenticated_at', 'bigint').execute();
  await db.schema.alterTable('refresh_tokens').addColumn('superseded_at', 'bigint').execute();
  await db.schema
    .createIndex('authorization_codes_unused_by_user')
    .on('authorization_codes')
    .columns(['user_key', 'client_id'])
    .where(sql.ref('consumed_at'), 'is', null)
    .execute();
}

/**
 * RFC 8707 resource indicators (docs/decisions/0110-resource-indicators.md): the resources a code
 * was requested for and its grant covers, and the resources a client serves as a resource server
 * (docs/decisions/0112-introspection-by-resource-servers.md); JSON lists, `[]` for every existing
 * row (none requested, not a resource server).
 */
async function addResourceIndicators(db: SchemaDb): Promise<void> {
  const none = JSON.stringify([]);
  await db.schema.alterTable('authorization_codes').addColumn('resources', 'text', (c) => c.notNull().defaultTo(none)).execute();
  await db.schema.alterTable('grants').addColumn('resources', 'text', (c) => c.notNull().defaultTo(none)).execute();
  await db.schema.alterTable('clients').addColumn('resource_server_for', 'text', (c) => c.notNull().defaultTo(none)).execute();
}

/**
 * Clients that register themselves (docs/decisions/0115-dynamic-client-registration.md, 0117):
 * how each client came to be (every existing one is `static`), the details of a self-registered
 * one (its metadata, the hash of its registration access token or of its metadata document), and
 * when it was first used, so that those never used can be purged (decision 0119).
 */
async function addSelfRegistrationToClients(db: SchemaDb): Promise<void> {
  await db.schema.alterTable('clients').addColumn('registration', 'text', (c) => c.notNull().defaultTo('static')).execute();
  await db.schema.alterTable('clients').addColumn('registration_details', 'text').execute();
  await db.schema.alterTable('clients').addColumn('first_used_at', 'bigint').execute();
  await db.schema.createIndex('clients_never_used').on('clients').columns(['registration', 'created_at']).where(sql.ref('first_used_at'), 'is', null).execute();
}

/**
 * One row that readiness writes and commits (`Storage.checkWrites`): a database that answers
 * reads but takes no writes (a full disk, a read-only file or server) is not ready
 * (docs/decisions/0103-readiness-checks-writes.md).
 */
async function createReadinessProbe(db: SchemaDb, dialect: StorageDialect): Promise<void> {
  await db.schema
    .createTable('readiness_probe')
    .addColumn('probe_key', dialect.keyType, (c) => c.primaryKey())
    .addColumn('written_at', 'bigint', (c) => c.notNull())
    .addColumn('padding', 'text', (c) => c.notNull())
    .execute();
}

/**
 * OpenID Connect (docs/decisions/0130-0136): how a session's user authenticated (`amr`, `acr`),
 * the sign-in and nonce an OpenID Connect code and grant keep for their ID tokens (`openid`, JSON,
 * null for an OAuth one), and a client's OpenID Connect metadata. Existing rows: OAuth codes and
 * grants, sessions whose methods are not known, clients with the defaults.
 */
async function addOpenIdConnect(db: SchemaDb): Promise<void> {
  const none = JSON.stringify([]);
  await db.schema.alterTable('sessions').addColumn('amr', 'text', (c) => c.notNull().defaultTo(none)).execute();
  await db.schema.alterTable('sessions').addColumn('acr', 'text').execute();
  await db.schema.alterTable('authorization_codes').addColumn('openid', 'text').execute();
  await db.schema.alterTable('grants').addColumn('openid', 'text').execute();
  await db.schema.alterTable('clients').addColumn('id_token_signed_response_alg', 'text').execute();
  await db.schema.alterTable('clients').addColumn('post_logout_redirect_uris', 'text', (c) => c.notNull().defaultTo(none)).execute();
  await db.schema.alterTable('clients').addColumn('default_max_age', 'bigint').execute();
  await db.schema.alterTable('clients').addColumn('require_auth_time', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

/** A user the operator disabled cannot sign in (docs/decisions/0153-disabled-users.md); null: enabled. */
async function addDisabledUsers(db: SchemaDb): Promise<void> {
  await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
}

/**
 * What acts on every session or login request of one user searches instead of scanning: the host's
 * sign-out (`sessions.endByUser`), `forgetUser` and the operator's `users delete`
 * (`deleteByUser`), `sessions list` (`listActiveByUser`).
 */
async function addUserKeyIndexes(db: SchemaDb): Promise<void> {
  await db.schema.createIndex('sessions_by_user').on('sessions').column('user_key').execute();
  await db.schema.createIndex('interactions_by_user').on('interactions').column('user_key').execute();
}

/** `users.delete` finds a user's attribute values (every account) and sent messages by index (docs/decisions/0158-deleting-a-user.md). */
async function addUserRecordIndexes(db: SchemaDb): Promise<void> {
  await db.schema.createIndex('user_attribute_values_by_user').on('user_attribute_values').column('user_key').execute();
  await db.schema.createIndex('messages_by_author').on('messages').column('author_user_key').execute();
}

/**
 * Attribute names unique as a reader tells them apart (docs/decisions/0190-attribute-names-unique-as-read.md):
 * every stored `name_folded` recomputed with core's `attributeNameKey`. Names that were distinct
 * under the old fold (lower case) and now share a key stay as they were: the first of the
 * account (by position) takes the key, a later one keeps its old fold, or, when that is another
 * name's key already, its old fold followed by U+0001 and its own key (a name never contains a
 * control character). Nothing is renamed; the next create or rename is checked by the new key.
 */
async function foldAttributeNamesAsRead(db: SchemaDb): Promise<void> {
  const rows = (await db
    .selectFrom('attribute_names')
    .select(['account_key', 'attribute_key', 'name', 'name_folded'])
    .orderBy('account_key')
    .orderBy('position')
    .orderBy('attribute_key')
    .execute()) as Array<{ account_key: string; attribute_key: string; name: string; name_folded: string }>;
  const takenByAccount = new Map<string, Set<string>>();
  const changes: Array<{ accountKey: string; attributeKey: string; folded: string }> = [];
  for (const row of rows) {
    let taken = takenByAccount.get(row.account_key);
    if (taken === undefined) takenByAccount.set(row.account_key, (taken = new Set()));
    const key = attributeNameKey(row.name);
    const folded = !taken.has(key) ? key : !taken.has(row.name_folded) ? row.name_folded : `${row.name_folded}\u0001${row.attribute_key}`;
    taken.add(folded);
    if (folded !== row.name_folded) changes.push({ accountKey: row.account_key, attributeKey: row.attribute_key, folded });
  }
  // Two passes, so that no row takes a key another still holds for a moment (the unique index
  // checks each statement): first a placeholder of its own, then its new key.
  const set = async (change: (typeof changes)[number], folded: string) =>
    db.updateTable('attribute_names').set({ name_folded: folded }).where('account_key', '=', change.accountKey).where('attribute_key', '=', change.attributeKey).execute();
  for (const change of changes) await set(change, `\u0001${change.attributeKey}`);
  for (const change of changes) await set(change, change.folded);
}

/**
 * What the consent page shows of a client (docs/decisions/0155-who-is-asking-on-the-consent-page.md):
 * its home page, logo, privacy policy and terms (RFC 7591 §2; null when absent) and the operator's
 * first-party mark (0/1).
 */
async function addClientPresentation(db: SchemaDb): Promise<void> {
  for (const column of ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri']) await db.schema.alterTable('clients').addColumn(column, 'text').execute();
  await db.schema.alterTable('clients').addColumn('first_party', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

/**
 * Whether a code's authorization request sent `redirect_uri` (0/1), so that the token request may
 * leave it out only when that request did (RFC 6749 §4.1.3;
 * docs/decisions/0182-redirect-uri-at-the-token-endpoint.md). Existing codes (they live 60 s) and
 * the codes an older version still writes during a rolling update say 1: the stricter rule, as before.
 */
async function addRedirectUriIncluded(db: SchemaDb): Promise<void> {
  await db.schema.alterTable('authorization_codes').addColumn('redirect_uri_included', 'integer', (c) => c.notNull().defaultTo(1)).execute();
}

/**
 * Whether a grant was made with a refresh token (0/1), so that the purge finds by index the grants
 * made without one, dead once their one access token has expired
 * (docs/decisions/0193-grants-without-refresh-tokens-purged.md). Existing grants with no refresh token
 * (decision 0188's, and client-credentials grants) say 0; a grant an older version writes during a
 * rolling update says 1, and is kept as it was before.
 */
async function markGrantsWithoutRefreshTokens(db: SchemaDb): Promise<void> {
  await db.schema.alterTable('grants').addColumn('refreshable', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  await db
    .updateTable('grants')
    .set({ refreshable: 0 })
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('refresh_tokens').select('refresh_tokens.grant_id').whereRef('refresh_tokens.grant_id', '=', 'grants.grant_id'))))
    .execute();
  await db.schema.createIndex('grants_without_refresh_tokens').on('grants').column('created_at').where(sql.ref('refreshable'), '=', 0).execute();
}
