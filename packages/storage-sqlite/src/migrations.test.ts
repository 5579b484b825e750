import { Migrator, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMigrationProvider, createUserTablesMigrationProvider, MIGRATION_LOCK_TABLE, MIGRATION_TABLE, USER_TABLES_MIGRATION_TABLE, type Database } from '@gatehouse/storage-kysely';
import { sqliteDialect } from './sqlite-dialect.js';
import { openSqlite } from './sqlite-storage.js';
import { tempDatabaseFile } from './test-support/temp-file.js';

/** Migrates only up to `name`: a database as an older Gatehouse left it. */
async function migrateTo(db: Kysely<Database>, name: string): Promise<void> {
  const migrator = new Migrator({ db, provider: createMigrationProvider(sqliteDialect), migrationTableName: MIGRATION_TABLE, migrationLockTableName: MIGRATION_LOCK_TABLE });
  const { error } = await migrator.migrateTo(name);
  if (error) throw error;
}

async function addUsers(db: Kysely<Database>, userKeys: string[]): Promise<void> {
  for (const userKey of userKeys) {
    await db
      .insertInto('users')
      .values({ user_key: userKey, email: `${userKey}@example.com`, email_folded: `${userKey}@example.com`, given_name: '', family_name: '', locale: 'en', password_hash: 'x' })
      .execute();
  }
}

describe('migration 0002: one owner per phone number (docs/decisions/0006-one-owner-per-phone-number.md)', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let opened: Awaited<ReturnType<typeof openSqlite>>;

  beforeEach(async () => {
    file = tempDatabaseFile();
    opened = await openSqlite({ filename: file.filename });
    await migrateTo(opened.db, '0001_initial');
  });

  afterEach(async () => {
    await opened.storage.close();
    file.remove();
  });

  it('refuses to migrate a database where a number has several owners, naming them, and changes nothing', async () => {
    const { db, storage } = opened;
    await addUsers(db, ['u1', 'u2', 'u3', 'u4']);
    await db
      .insertInto('user_phone_numbers')
      .values([
        { user_key: 'u2', phone_number: '+15551234567' },
        { user_key: 'u1', phone_number: '+15551234567' },
        { user_key: 'u3', phone_number: '+15551234567' },
        { user_key: 'u3', phone_number: '+4930123456' },
        { user_key: 'u4', phone_number: '+4930123456' },
        { user_key: 'u4', phone_number: '+15550000000' },
      ])
      .execute();

    await expect(storage.migrate()).rejects.toThrow(
      'Database migration 0002_one_owner_per_phone_number failed: 2 phone numbers belong to several users: +15551234567 (users u1, u2, u3), +4930123456 (users u3, u4). A phone number belongs to one user: delete the rows of user_phone_numbers that should not be there, then start again (docs/operations.md).',
    );

    expect(opened.database.prepare(`select name from ${MIGRATION_TABLE} order by name`).all()).toEqual([{ name: '0001_initial' }]);
    expect(await db.selectFrom('user_phone_numbers').selectAll().execute()).toHaveLength(6);

    // The operator's fix, then the migration runs and the database holds the rule from then on.
    await db.deleteFrom('user_phone_numbers').where('phone_number', '=', '+15551234567').where('user_key', '!=', 'u1').execute();
    await db.deleteFrom('user_phone_numbers').where('phone_number', '=', '+4930123456').where('user_key', '=', 'u4').execute();
    await storage.migrate();
    await expect(storage.repositories.users.addPhoneNumber('u2', '+15551234567')).rejects.toMatchObject({ kind: 'conflict', field: 'phone' });
    expect(await storage.repositories.users.listPhoneNumbers('u1')).toEqual(['+15551234567']);
  });

  it('keeps every number of a database without duplicates', async () => {
    const { db, storage } = opened;
    await addUsers(db, ['u1', 'u2']);
    await db.insertInto('user_phone_numbers').values([{ user_key: 'u1', phone_number: '+15551234567' }, { user_key: 'u1', phone_number: '+15550000000' }, { user_key: 'u2', phone_number: '+4930123456' }]).execute();
    await storage.migrate();
    expect(await storage.repositories.users.listPhoneNumbers('u1')).toEqual(['+15550000000', '+15551234567']);
    expect((await storage.repositories.users.findByPhoneNumber('+4930123456'))?.userKey).toBe('u2');
  });
});

describe('migration 0004: grant types per client (docs/decisions/0028-grant-types-per-client.md)', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let opened: Awaited<ReturnType<typeof openSqlite>>;

  beforeEach(async () => {
    file = tempDatabaseFile();
    opened = await openSqlite({ filename: file.filename });
    await migrateTo(opened.db, '0002_one_owner_per_phone_number');
  });

  afterEach(async () => {
    await opened.storage.close();
    file.remove();
  });

  it('gives every existing client the code flow with refresh tokens, and keeps it confidential', async () => {
    const { db, storage } = opened;
    await db
      .insertInto('clients')
      // The row as an older Gatehouse wrote it: no grant_types column yet.
      .values({ client_id: 'old', client_secret_hash: 'hash-of-old', name: 'Old', redirect_uris: '["https://a.example/cb"]', scopes: '["messaging.v1.read"]', pkce_required: 0, owner_user_key: null, created_at: 1 } as never)
      .execute();
    await storage.migrate();
    expect(await storage.repositories.clients.findById('old')).toEqual({
      clientId: 'old',
      clientSecretHash: 'hash-of-old',
      name: 'Old',
      redirectUris: ['https://a.example/cb'],
      scopes: ['messaging.v1.read'],
      grantTypes: ['authorization_code', 'refresh_token'],
      pkceRequired: false,
      ownerUserKey: null,
      createdAt: new Date(1),
    });
  });
});

describe('migration 0007: resource indicators (docs/decisions/0110-resource-indicators.md)', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let opened: Awaited<ReturnType<typeof openSqlite>>;

  beforeEach(async () => {
    file = tempDatabaseFile();
    opened = await openSqlite({ filename: file.filename });
    await migrateTo(opened.db, '0005_remembered_consent');
  });

  afterEach(async () => {
    await opened.storage.close();
    file.remove();
  });

  it('reads the clients, codes and grants written before it as before: no resources, not a resource server', async () => {
    const { db, storage } = opened;
    // The rows as an older Gatehouse wrote them: no resources or resource_server_for columns yet.
    await db
      .insertInto('clients')
      .values({ client_id: 'old', client_secret_hash: 'h', name: 'Old', redirect_uris: '["https://a.example/cb"]', scopes: '["messaging.v1.read"]', grant_types: '["authorization_code","refresh_token"]', pkce_required: 0, owner_user_key: null, created_at: 1 } as never)
      .execute();
    await db.insertInto('grants').values({ grant_id: 'g', client_id: 'old', user_key: 'u', scopes: '["messaging.v1.read"]', session_id: null, created_at: 2, revoked_at: null } as never).execute();
    await db
      .insertInto('authorization_codes')
      .values({ code_hash: 'c', client_id: 'old', user_key: 'u', redirect_uri: 'https://a.example/cb', scopes: '["messaging.v1.read"]', code_challenge: null, session_id: null, created_at: 2, expires_at: 3, consumed_at: 2, grant_id: 'g' } as never)
      .execute();
    await storage.migrate();
    expect(await storage.repositories.clients.findById('old')).not.toHaveProperty('resourceServerFor');
    expect(await storage.repositories.grants.findById('g')).toEqual({ grantId: 'g', clientId: 'old', userKey: 'u', scopes: ['messaging.v1.read'], sessionId: null, createdAt: new Date(2), revokedAt: null });
    expect(await storage.repositories.codes.findByHash('c')).not.toHaveProperty('resources');
  });
});

describe('migration 0008: clients that register themselves (docs/decisions/0115, 0119)', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let opened: Awaited<ReturnType<typeof openSqlite>>;

  beforeEach(async () => {
    file = tempDatabaseFile();
    opened = await openSqlite({ filename: file.filename });
    await migrateTo(opened.db, '0005_remembered_consent');
  });

  afterEach(async () => {
    await opened.storage.close();
    file.remove();
  });

  it('makes every existing client a static one, never purged as unused', async () => {
    const { db, storage } = opened;
    await db
      .insertInto('clients')
      // The row as an older Gatehouse wrote it: no registration columns yet.
      .values({ client_id: 'old', client_secret_hash: 'hash-of-old', name: 'Old', redirect_uris: '["https://a.example/cb"]', scopes: '["messaging.v1.read"]', pkce_required: 0, owner_user_key: null, created_at: 1, grant_types: '["authorization_code"]' } as never)
      .execute();
    await storage.migrate();
    const client = await storage.repositories.clients.findById('old');
    expect(client).toMatchObject({ clientId: 'old', name: 'Old', grantTypes: ['authorization_code'] });
    expect(client?.registration).toBeUndefined();
    expect(await storage.repositories.clients.purgeUnused(new Date(1_000_000_000_000_000))).toBe(0);
    expect(await storage.repositories.clients.findById('old')).toBeDefined();
  });
});

describe('migration 0016: whether a code\'s authorization request sent redirect_uri (docs/decisions/0182-redirect-uri-at-the-token-endpoint.md)', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let opened: Awaited<ReturnType<typeof openSqlite>>;

  beforeEach(async () => {
    file = tempDatabaseFile();
    opened = await openSqlite({ filename: file.filename });
    await migrateTo(opened.db, '0014_sessions_and_interactions_by_user');
  });

  afterEach(async () => {
    await opened.storage.close();
    file.remove();
  });

  it('says "included" for the codes written before it (the stricter rule), and keeps it for those written after', async () => {
    const { db, storage } = opened;
    await db
      .insertInto('clients')
      .values({ client_id: 'c', client_secret_hash: 'h', name: 'C', redirect_uris: '["https://a.example/cb"]', scopes: '["messaging.v1.read"]', grant_types: '["authorization_code"]', pkce_required: 0, owner_user_key: null, created_at: 1 } as never)
      .execute();
    // The row as an older Gatehouse wrote it: no redirect_uri_included column yet.
    await db
      .insertInto('authorization_codes')
      .values({ code_hash: 'old', client_id: 'c', user_key: 'u', redirect_uri: 'https://a.example/cb', scopes: '["messaging.v1.read"]', code_challenge: null, session_id: null, created_at: 2, expires_at: 3, consumed_at: null, grant_id: null } as never)
      .execute();
    await storage.migrate();
    expect(opened.database.prepare("select redirect_uri_included from authorization_codes where code_hash = 'old'").get()).toEqual({ redirect_uri_included: 1 });
    const old = await storage.repositories.codes.findByHash('old');
    expect(old).toMatchObject({ codeHash: 'old', redirectUri: 'https://a.example/cb' });
    expect(old).not.toHaveProperty('redirectUriIncluded');
    await storage.repositories.codes.save({ ...(old as NonNullable<typeof old>), codeHash: 'new', redirectUriIncluded: false });
    expect(await storage.repositories.codes.findByHash('new')).toMatchObject({ codeHash: 'new', redirectUriIncluded: false });
  });
});

describe('migration 0017: attribute names unique as read (docs/decisions/0190-attribute-names-unique-as-read.md)', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let opened: Awaited<ReturnType<typeof openSqlite>>;

  beforeEach(async () => {
    file = tempDatabaseFile();
    opened = await openSqlite({ filename: file.filename });
    await migrateTo(opened.db, '0016_redirect_uri_included');
    const userTracks = new Migrator({ db: opened.db, provider: createUserTablesMigrationProvider(sqliteDialect), migrationTableName: USER_TABLES_MIGRATION_TABLE, migrationLockTableName: MIGRATION_LOCK_TABLE });
    const { error } = await userTracks.migrateTo('0015_user_records_by_user');
    if (error) throw error;
  });

  afterEach(async () => {
    await opened.storage.close();
    file.remove();
  });

  it('recomputes every folded name; names that now share a key stay, the first by position taking it; later creates and renames are checked by the new key', async () => {
    const { db, storage } = opened;
    await db.insertInto('accounts').values({ account_key: 'a1', name: 'Acme' }).execute();
    await db.insertInto('accounts').values({ account_key: 'a2', name: 'Other' }).execute();
    // As an older Gatehouse folded them: lower case only.
    const names: Array<[string, string, string, number]> = [
      ['a1', 'k1', 'Straße', 1],
      ['a1', 'k2', 'STRASSE', 2],
      ['a1', 'k3', 'Cafe\u0301', 3],
      ['a1', 'k4', 'Department', 4],
      ['a2', 'k5', 'ﬀ', 1],
    ];
    for (const [account, key, name, position] of names) {
      await db.insertInto('attribute_names').values({ account_key: account, attribute_key: key, name, name_folded: name.toLowerCase(), position }).execute();
    }
    await storage.migrate();
    const folded = Object.fromEntries(
      (opened.database.prepare('select attribute_key, name_folded from attribute_names').all() as Array<{ attribute_key: string; name_folded: string }>).map((row) => [row.attribute_key, row.name_folded]),
    );
    // k2's old fold was k1's new key: it keeps a fold of its own, which no name can have.
    expect(folded).toEqual({ k1: 'strasse', k2: 'strasse\u0001k2', k3: 'café', k4: 'department', k5: 'ff' });
    const attributes = storage.repositories.attributes;
    expect((await attributes.list('a1', { offset: 0, limit: 10 })).results.map((entry) => entry.name)).toEqual(['Straße', 'STRASSE', 'Cafe\u0301', 'Department']);
    expect(await attributes.create('a1', { key: 'k6', name: 'strasse' }, 100)).toBe('duplicate-name');
    expect(await attributes.create('a1', { key: 'k7', name: 'Café' }, 100)).toBe('duplicate-name');
    expect(await attributes.create('a2', { key: 'k8', name: 'FF' }, 100)).toBe('duplicate-name');
    expect(await attributes.rename('a1', 'k4', 'CAFÉ')).toBe('duplicate-name');
    expect(await attributes.rename('a1', 'k3', 'Café')).toBe('renamed');
    expect(await attributes.create('a1', { key: 'k9', name: 'Division' }, 100)).toBe('created');
  });
});

describe('migration 0018: grants made without a refresh token (docs/decisions/0193-grants-without-refresh-tokens-purged.md)', () => {
  let file: ReturnType<typeof tempDatabaseFile>;
  let opened: Awaited<ReturnType<typeof openSqlite>>;

  beforeEach(async () => {
    file = tempDatabaseFile();
    opened = await openSqlite({ filename: file.filename });
    await migrateTo(opened.db, '0016_redirect_uri_included');
  });

  afterEach(async () => {
    await opened.storage.close();
    file.remove();
  });

  it('marks the grants written before it that have no refresh token, which the purge then takes once old; a grant with one stays', async () => {
    const { db, storage } = opened;
    await db
      .insertInto('clients')
      .values({ client_id: 'c', client_secret_hash: 'h', name: 'C', redirect_uris: '["https://a.example/cb"]', scopes: '["messaging.v1.read"]', grant_types: '["authorization_code"]', pkce_required: 0, owner_user_key: null, created_at: 1 } as never)
      .execute();
    // The rows as an older Gatehouse wrote them: no refreshable column yet.
    for (const [grantId, userKey] of [['with-token', 'u'], ['without-token', 'u'], ['machine', '']] as const) {
      await db.insertInto('grants').values({ grant_id: grantId, client_id: 'c', user_key: userKey, scopes: '["messaging.v1.read"]', resources: '[]', session_id: null, openid: null, created_at: 2, revoked_at: null } as never).execute();
    }
    await db.insertInto('refresh_tokens').values({ token_hash: 'rt', grant_id: 'with-token', created_at: 2, last_used_at: 2, rotated_at: null, superseded_at: null }).execute();
    await storage.migrate();
    expect(opened.database.prepare('select grant_id, refreshable from grants order by grant_id').all()).toEqual([
      { grant_id: 'machine', refreshable: 0 },
      { grant_id: 'with-token', refreshable: 1 },
      { grant_id: 'without-token', refreshable: 0 },
    ]);
    expect(await storage.repositories.grants.purge(new Date(1000))).toBe(2);
    expect((await storage.repositories.grants.findById('with-token'))?.grantId).toBe('with-token');
    expect((await storage.repositories.refreshTokens.findByHash('rt'))?.grantId).toBe('with-token');
  });
});
