import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { GatehouseOptions, GatehouseSettings, Repositories } from '@gatehouse/core';
import type { CliStorage } from './command.js';

/** The storage a config file gives: the core's repositories, and what the commands need. */
export interface ConfiguredStorage extends CliStorage {
  repositories: Repositories;
}

/**
 * What `gatehouse.config.js` (or `.mjs`) exports by default: the host's own storage and settings,
 * so the commands see what its server sees.
 */
export interface GatehouseConfig {
  /** The storage (`openSqliteStorage`, `openPostgresStorage`, with the server's options), or a function that opens it; closed after each command. */
  storage: ConfiguredStorage | (() => ConfiguredStorage | Promise<ConfiguredStorage>);
  /** The server's settings (`defineSettings(…)`): the issuer and scopes clients are checked against. */
  settings: GatehouseSettings;
  /** Anything else `createGatehouse` takes (`userDirectory`, `passwords`…), as the server gives it. */
  gatehouse?: Partial<Omit<GatehouseOptions, 'repositories' | 'settings' | 'clock'>>;
  /** How messages name the database (default: "the configured storage"); never put a password here. */
  describe?: string;
}

/** The file names looked for, in order, in the working directory. */
export const CONFIG_FILE_NAMES = ['gatehouse.config.js', 'gatehouse.config.mjs'] as const;

/**
 * Types a config file (it only returns what it is given), as kysely-ctl's and drizzle-kit's do.
 *
 * @example
 * // gatehouse.config.js
 * import { defineConfig } from '@gatehouse/cli';
 * import { defineSettings } from '@gatehouse/core';
 * import { openPostgresStorage } from '@gatehouse/storage-postgres';
 * export default defineConfig({
 *   storage: () => openPostgresStorage({ connectionString: process.env.DATABASE_URL, signingKeySecret: process.env.GATEHOUSE_KEY_SECRET }),
 *   settings: defineSettings({ issuer: 'https://orders.example/auth' }),
 * });
 */
export function defineConfig<T extends GatehouseConfig | (() => GatehouseConfig | Promise<GatehouseConfig>)>(config: T): T {
  return config;
}

/** A config file that cannot be found or read: exit code 1 and what to do. */
export class ConfigFileError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ConfigFileError';
  }
}

/**
 * Finds the config file (`explicit`, else the first of `CONFIG_FILE_NAMES` in `cwd`), imports it
 * and checks its default export.
 *
 * @example
 * const { config, path } = await loadConfigFile(process.cwd());
 */
export async function loadConfigFile(cwd: string, explicit?: string): Promise<{ config: GatehouseConfig; path: string }> {
  const path = explicit === undefined ? CONFIG_FILE_NAMES.map((name) => join(cwd, name)).find((candidate) => existsSync(candidate)) : isAbsolute(explicit) ? explicit : resolve(cwd, explicit);
  if (path === undefined) {
    throw new ConfigFileError(`No ${CONFIG_FILE_NAMES.join(' or ')} in ${cwd}: create one that exports your storage and settings (see the @gatehouse/cli README), or pass --config FILE.`);
  }
  if (!existsSync(path)) throw new ConfigFileError(`--config ${explicit ?? path}: no such file.`);
  let loaded: unknown;
  try {
    loaded = ((await import(pathToFileURL(path).href)) as { default?: unknown }).default;
  } catch (error) {
    throw new ConfigFileError(`${path} could not be loaded: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, { cause: error });
  }
  const config = typeof loaded === 'function' ? await (loaded as () => unknown)() : loaded;
  if (typeof config !== 'object' || config === null) throw new ConfigFileError(`${path} must export default defineConfig({ storage, settings }).`);
  const { storage, settings } = config as Partial<GatehouseConfig>;
  if (storage === undefined || (typeof storage !== 'function' && typeof storage !== 'object')) throw new ConfigFileError(`${path}: storage is missing (a storage, or a function that opens one).`);
  if (typeof settings !== 'object' || settings === null || typeof (settings as { issuer?: unknown }).issuer !== 'string') {
    throw new ConfigFileError(`${path}: settings is missing (defineSettings({ issuer, … }) of @gatehouse/core, as your server's).`);
  }
  return { config: config as GatehouseConfig, path };
}

/**
 * Opens the config's storage, checking it has what the commands need.
 *
 * @example
 * const storage = await openConfiguredStorage(config);
 */
export async function openConfiguredStorage(config: GatehouseConfig): Promise<ConfiguredStorage> {
  const storage = typeof config.storage === 'function' ? await config.storage() : config.storage;
  if (typeof storage?.migrate !== 'function' || typeof storage.close !== 'function' || typeof storage.repositories !== 'object') {
    throw new ConfigFileError('The config file\'s storage must be a Gatehouse storage (openSqliteStorage or openPostgresStorage): it has no repositories, migrate() or close().');
  }
  return storage;
}
