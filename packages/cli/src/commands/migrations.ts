import type { Command } from '../command.js';

export const migrate: Command = {
  path: ['migrate'],
  usage: 'gatehouse migrate [--json]',
  options: {},
  positionals: [],
  help: `Creates Gatehouse's tables and applies pending migrations; harmless when up to date, and from
several processes at once.

Options:
  --json    print {"migrated": true, "database"}

Examples:
  gatehouse migrate
  gatehouse migrate --config ./deploy/gatehouse.config.js --json`,
  needsMigratedDatabase: false,
  async run({ storage, storageLabel, storageKind }) {
    // Harmless when up to date, and from several processes at once (the migrator's lock).
    await storage.migrate();
    return { json: { migrated: true, database: storageKind ?? storageLabel }, text: `Database is up to date (${storageLabel}).` };
  },
};

export const migrateStatus: Command = {
  path: ['migrate', 'status'],
  usage: 'gatehouse migrate status [--json]',
  options: {},
  positionals: [],
  help: `Says which migrations have run and which are pending, changing nothing.

Options:
  --json    print {"database", "pending", "migrations": [{"name", "track", "executedAt"}]}

Examples:
  gatehouse migrate status`,
  needsMigratedDatabase: false,
  async run({ storage, storageLabel }) {
    if (storage.migrationStatus === undefined) throw new Error('This storage cannot report its migrations.');
    const migrations = await storage.migrationStatus();
    const pending = migrations.filter((migration) => migration.executedAt === null);
    return {
      json: { database: storageLabel, pending: pending.length, migrations: migrations.map((migration) => ({ ...migration, executedAt: migration.executedAt?.toISOString() ?? null })) },
      text: [
        pending.length === 0 ? `Database is up to date (${storageLabel}).` : `${pending.length} pending migration(s) (${storageLabel}): run gatehouse migrate.`,
        ...migrations.map((migration) => `  ${migration.executedAt === null ? 'pending ' : 'applied '} ${migration.name}${migration.executedAt === null ? '' : `  ${migration.executedAt.toISOString()}`}`),
      ].join('\n'),
    };
  },
};
