import type { Gatehouse, ProductApi } from '@gatehouse/core';
import type { OptionValues } from './usage.js';

/** What a command prints: one JSON object for `--json`, readable lines otherwise. */
export interface CommandOutput {
  json: Record<string, unknown>;
  text: string;
}

/** A migration as the storage reports it (`migrationStatus` of @gatehouse/storage-kysely, by shape). */
export interface MigrationStateLike {
  name: string;
  track?: string;
  executedAt: Date | null;
}

/** What the commands need of the host's storage (`openSqliteStorage`, `openPostgresStorage`, described by shape). */
export interface CliStorage {
  migrate(): Promise<void>;
  migrationStatus?(): Promise<MigrationStateLike[]>;
  close(): Promise<void>;
}

/** What a command runs with. */
export interface CommandContext {
  /** The OAuth part (`createGatehouse`). */
  gatehouse: Gatehouse;
  /** The product part beside it (`createProductApi`; docs/decisions/0161): Gatehouse's own users, for `--owner EMAIL`. */
  product: ProductApi;
  storage: CliStorage;
  /** How the storage is named in messages (`SQLite ./data/gatehouse.db`, or the config file's `describe`). */
  storageLabel: string;
  /** A short name of the database for JSON answers (the reference server: `sqlite` or `postgres`); default `storageLabel`. */
  storageKind?: string;
  /** All of standard input, as text (read only when a command asks). */
  readStdin(): Promise<string>;
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
}

/** One command of the `gatehouse` command line, written once for `@gatehouse/cli` and the reference server. */
export interface Command {
  path: readonly string[];
  usage: string;
  options: Record<string, OptionSpec>;
  /** Names of the positional arguments after the command path, all required. */
  positionals: readonly string[];
  /** False for a command that must run on a database whose migrations are pending (`migrate`, `migrate status`). */
  needsMigratedDatabase?: boolean;
  /** What `--help` prints after the usage line: what the command does, each option, and examples. */
  help?: string;
  run(context: CommandContext, values: OptionValues, positionals: string[]): Promise<CommandOutput>;
}
