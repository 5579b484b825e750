import { createGatehouse, createProductApi, DomainError, isAbsentRepository, OAuthError, ownUserDirectory } from '@gatehouse/core';
import type { Command, OptionSpec } from './command.js';
import { CLI_COMMANDS } from './commands/index.js';
import { ConfigFileError, loadConfigFile, openConfiguredStorage } from './config-file.js';
import { parseCommandLine } from './command-line.js';
import { UsageError, type OptionValues } from './usage.js';

/** Where the command line reads and writes: the process's, or a test's. */
export interface GatehouseCliIo {
  /** Where `gatehouse.config.js` is looked for. */
  cwd: string;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Standard input (default: the process's). */
  stdin?: AsyncIterable<string | Uint8Array>;
}

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

const GLOBAL_OPTIONS: Record<string, OptionSpec> = { json: { type: 'boolean' }, help: { type: 'boolean' }, config: { type: 'string' } };

export const CLI_HELP = `gatehouse: manage the clients, signing keys and migrations of an embedded Gatehouse

Usage: gatehouse <command> [options] [--config FILE] [--json]

Commands:
${CLI_COMMANDS.map((command) => `  ${command.usage.replace(/^gatehouse /, '')}`).join('\n')}

The storage and settings come from gatehouse.config.js (or .mjs) in the working directory, or
--config FILE: export default defineConfig({ storage, settings }) of @gatehouse/cli.
Commands other than migrate and migrate status refuse a database with pending migrations.

Exit codes: 0 success, 1 failure (configuration, refused by Gatehouse's rules), 2 wrong usage.`;

/** Every option of every command, so the first pass reads option values as values, not as positionals. */
const ALL_OPTIONS: Record<string, OptionSpec> = Object.assign({}, GLOBAL_OPTIONS, ...CLI_COMMANDS.map((command) => command.options));

function parse(argv: string[], options: Record<string, OptionSpec>): { values: OptionValues; positionals: string[] } {
  return parseCommandLine(argv, { ...options, ...GLOBAL_OPTIONS });
}

/**
 * The command `positionals` name (the longest path first), and the positionals after it.
 *
 * @example
 * findCommand(CLI_COMMANDS, ['clients', 'show', 'c1']); // { command: clientsShow, rest: ['c1'] }
 */
export function findCommand<C extends Pick<Command, 'path'>>(commands: readonly C[], positionals: string[]): { command: C; rest: string[] } {
  const matching = commands.filter((command) => command.path.every((part, index) => positionals[index] === part)).sort((a, b) => b.path.length - a.path.length);
  const command = matching[0];
  if (command !== undefined) return { command, rest: positionals.slice(command.path.length) };
  const group = commands.filter((candidate) => candidate.path[0] === positionals[0]).map((candidate) => candidate.path.join(' '));
  throw new UsageError(group.length > 0 ? `unknown command "${positionals.slice(0, 2).join(' ')}"; try: ${group.join(', ')}` : `unknown command "${positionals[0]}"; run gatehouse --help`);
}

function describe(error: unknown): { code: string; message: string; exitCode: number } {
  if (error instanceof UsageError) return { code: 'usage', message: error.message, exitCode: EXIT.usage };
  if (error instanceof ConfigFileError) return { code: 'config', message: error.message, exitCode: EXIT.failure };
  if (error instanceof DomainError) return { code: error.kind, message: error.message, exitCode: EXIT.failure };
  if (error instanceof OAuthError) return { code: error.code, message: error.description, exitCode: EXIT.failure };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message: message.split('\n')[0] as string, exitCode: EXIT.failure };
}

async function readAll(input: AsyncIterable<string | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The `gatehouse` command line of `@gatehouse/cli`, callable in-process: returns the exit code.
 * It loads the host's `gatehouse.config.js`, opens its storage, runs one command on a Gatehouse
 * made of that storage and settings, and closes the storage.
 *
 * @example
 * process.exitCode = await runGatehouseCli(process.argv.slice(2), { cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr });
 */
export async function runGatehouseCli(argv: string[], io: GatehouseCliIo): Promise<number> {
  let json = argv.includes('--json');
  let label = 'gatehouse';
  try {
    const first = parse(argv, ALL_OPTIONS);
    json = first.values.json === true;
    if (first.positionals.length === 0) {
      if (first.values.help) {
        io.stdout.write(`${CLI_HELP}\n`);
        return EXIT.ok;
      }
      throw new UsageError('a command is needed; run gatehouse --help');
    }
    const { command, rest } = findCommand(CLI_COMMANDS, first.positionals);
    label = `gatehouse ${command.path.join(' ')}`;
    const { values } = parse(argv, command.options);
    if (values.help) {
      io.stdout.write(`Usage: ${command.usage}\n${command.help === undefined ? '' : `\n${command.help}\n`}`);
      return EXIT.ok;
    }
    if (rest.length !== command.positionals.length) {
      throw new UsageError(command.positionals.length === 0 ? `unexpected argument "${rest[0]}"` : `expected ${command.positionals.join(' ')} (usage: ${command.usage})`);
    }
    const { config } = await loadConfigFile(io.cwd, typeof values.config === 'string' ? values.config : undefined);
    const storage = await openConfiguredStorage(config);
    try {
      const storageLabel = config.describe ?? 'the configured storage';
      if (command.needsMigratedDatabase !== false && storage.migrationStatus !== undefined) {
        const pending = (await storage.migrationStatus()).filter((migration) => migration.executedAt === null).length;
        if (pending > 0) throw new ConfigFileError(`The database has ${pending} pending migration(s): run gatehouse migrate first.`);
      }
      // The CLI signs nobody in: on a storage without Gatehouse's user tables, and no directory of
      // the host's, its commands' gatehouse reads users through the storage's placeholder, whose
      // calls say what is missing (docs/decisions/0201; createGatehouse refuses it for serving).
      const usersAbsent = config.gatehouse?.userDirectory === undefined && isAbsentRepository(storage.repositories.users);
      const gatehouse = createGatehouse({
        ...config.gatehouse,
        ...(usersAbsent ? { userDirectory: ownUserDirectory(storage.repositories.users) } : {}),
        repositories: storage.repositories,
        settings: config.settings,
        clock: { now: () => new Date() },
      });
      const product = createProductApi({ gatehouse, repositories: storage.repositories, ...(config.gatehouse?.passwords === undefined ? {} : { passwords: config.gatehouse.passwords }) });
      const output = await command.run({ gatehouse, product, storage, storageLabel, readStdin: () => readAll(io.stdin ?? process.stdin) }, values, rest);
      io.stdout.write(json ? `${JSON.stringify(output.json)}\n` : `${output.text}\n`);
      return EXIT.ok;
    } finally {
      await storage.close();
    }
  } catch (error) {
    const { code, message, exitCode } = describe(error);
    io.stderr.write(`${label}: ${message}\n`);
    if (json) io.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    return exitCode;
  }
}
