import { readFileSync } from 'node:fs';
import { findCommand, parseCommandLine } from '@gatehouse/cli';
import { DomainError, OAuthError, type Gatehouse, type ProductApi } from '@gatehouse/core';
import * as v from 'valibot';
import { ConfigError, describeDatabase, loadConfig, unknownVariableWarnings, workerCount, type Config } from '../config.js';
import { createContainer, resolve, TOKENS } from '../container.js';
import { KeyDecryptionError } from '@gatehouse/storage-sqlite';
import { COMMANDS as BASE_COMMANDS, type Command, type CommandContext, type OptionSpec, type OptionValues } from './commands.js';
import { OPERATOR_COMMANDS } from './operator-commands.js';
import { serve, type SignalSource } from './serve.js';
import { COMMAND_HELP } from './help.js';
import { GENERAL_HELP, UsageError } from './usage.js';

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Standard input (read by `users create` and `users set-password` with `--password-stdin`; default: the process's). */
  stdin?: AsyncIterable<string | Uint8Array>;
  /** Where `serve` writes its log lines (default: `stdout`). */
  logs?: { write(text: string): unknown };
  /** Where `serve` listens for SIGTERM / SIGINT (the process by default). */
  signals?: SignalSource;
  /** Called by `serve` once it listens (tests use it to learn the port). */
  onListening?: (info: { port: number }) => void;
}

const GLOBAL_OPTIONS: Record<string, OptionSpec> = { json: { type: 'boolean' }, help: { type: 'boolean' }, version: { type: 'boolean' } };

/** The server package's version (apps/server/package.json, two levels up from src/cli and dist/cli). */
export function serverVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}

async function readAll(input: AsyncIterable<string | Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

const COMMANDS: readonly Command[] = [...BASE_COMMANDS, ...OPERATOR_COMMANDS];

/** Every option of every command, so the first pass reads option values as values, not as positionals. */
const ALL_OPTIONS: Record<string, OptionSpec> = Object.assign({}, GLOBAL_OPTIONS, { workers: { type: 'string' } }, ...COMMANDS.map((command) => command.options));

const SERVE: Pick<Command, 'path' | 'usage' | 'options' | 'positionals'> = {
  path: ['serve'],
  usage: 'gatehouse serve [--workers N|auto]   (N processes share the port; default GATEHOUSE_WORKERS, else 1)',
  options: { workers: { type: 'string' } },
  positionals: [],
};

/** Every command `runCli` dispatches, as typed (`serve`, `users list`, …): `gatehouse --help` lists each. */
export const DISPATCHED_COMMANDS: readonly string[] = [SERVE, ...COMMANDS].map((command) => command.path.join(' '));

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** What a command that opens no database gets for the gatehouse and the storage: any use is a bug, said at once. */
function noDatabase<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get(_target, name) {
      throw new Error(`this command opens no database (it used ${what}.${String(name)})`);
    },
  });
}

function parse(argv: string[], options: Record<string, OptionSpec>): { values: OptionValues; positionals: string[] } {
  return parseCommandLine(argv, { ...options, ...GLOBAL_OPTIONS });
}

/** `serve`, or the command of the shared lookup (`findCommand` of @gatehouse/cli: the longest path first). */
function commandOf(positionals: string[]): { command: Command | typeof SERVE; rest: string[] } {
  if (positionals[0] === 'serve') return { command: SERVE, rest: positionals.slice(1) };
  return findCommand(COMMANDS, positionals);
}

/** One line for the person at the terminal; internal errors say no more than their message. */
function describe(error: unknown): { code: string; message: string; exitCode: number } {
  if (error instanceof UsageError) return { code: 'usage', message: error.message, exitCode: EXIT.usage };
  if (error instanceof ConfigError) return { code: 'config', message: error.message, exitCode: EXIT.failure };
  if (error instanceof KeyDecryptionError) return { code: 'key_secret', message: error.message, exitCode: EXIT.failure };
  if (error instanceof DomainError) return { code: error.kind, message: error.message, exitCode: EXIT.failure };
  if (error instanceof OAuthError) return { code: error.code, message: error.description, exitCode: EXIT.failure };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message: message.split('\n')[0] as string, exitCode: EXIT.failure };
}

/**
 * The `gatehouse` command line, callable in-process: returns the exit code instead of exiting.
 *
 * @example
 * const code = await runCli(['accounts', 'create', '--name', 'Acme', '--json'], { env: process.env, stdout: process.stdout, stderr: process.stderr });
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let json = argv.includes('--json');
  let label = 'gatehouse';
  try {
    const first = parse(argv, ALL_OPTIONS);
    json = first.values.json === true;
    if (first.positionals.length === 0) {
      if (first.values.version) {
        const version = serverVersion();
        io.stdout.write(json ? `${JSON.stringify({ version })}\n` : `gatehouse ${version}\n`);
        return EXIT.ok;
      }
      if (first.values.help) {
        io.stdout.write(`${GENERAL_HELP}\n`);
        return EXIT.ok;
      }
      throw new UsageError('a command is needed; run gatehouse --help');
    }
    const { command, rest } = commandOf(first.positionals);
    label = `gatehouse ${command.path.join(' ')}`;
    const { values } = parse(argv, command.options);
    if (values.help) {
      const details = COMMAND_HELP[command.path.join(' ')] ?? ('help' in command ? command.help : undefined);
      io.stdout.write(`Usage: ${command.usage}\n${details === undefined ? '' : `\n${details}\n`}`);
      return EXIT.ok;
    }
    if (rest.length !== command.positionals.length) {
      throw new UsageError(
        command.positionals.length === 0 ? `unexpected argument "${rest[0]}"` : `expected ${command.positionals.join(' ')} (usage: ${command.usage})`,
      );
    }
    // A misspelt variable would otherwise pass silently: one line each, before anything else (docs/decisions/0150).
    for (const warning of unknownVariableWarnings(io.env)) io.stderr.write(`${label}: warning: ${warning}\n`);
    const config: Config = loadConfig(io.env);
    if (command === SERVE) return await serve(withWorkers(config, values.workers), io);
    return await runCommand(command as Command, config, values, rest, io, json);
  } catch (error) {
    const { code, message, exitCode } = describe(error);
    io.stderr.write(`${label}: ${message}\n`);
    if (json) io.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    return exitCode;
  }
}

/** `serve --workers N|auto` over `GATEHOUSE_WORKERS` (docs/decisions/0171-serve-workers.md). */
function withWorkers(config: Config, option: OptionValues[string]): Config {
  if (option === undefined) return config;
  const parsed = v.safeParse(workerCount, String(option));
  if (!parsed.success) throw new UsageError(`--workers ${parsed.issues[0].message}`);
  return { ...config, workers: parsed.output };
}

async function runCommand(command: Command, config: Config, values: OptionValues, positionals: string[], io: CliIo, json: boolean): Promise<number> {
  if (command.database === false) {
    const context: CommandContext = {
      gatehouse: noDatabase<Gatehouse>('gatehouse'),
      product: noDatabase<ProductApi>('product'),
      storage: noDatabase<CommandContext['storage']>('storage'),
      storageLabel: describeDatabase(config),
      storageKind: config.database.kind,
      config,
      readStdin: () => readAll(io.stdin ?? process.stdin),
    };
    const output = await command.run(context, values, positionals);
    io.stdout.write(json ? `${JSON.stringify(output.json)}\n` : `${output.text}\n`);
    return EXIT.ok;
  }
  // Logs (audit events included) go to stderr: stdout is the command's answer.
  const container = await createContainer(config, { logDestination: io.stderr });
  const storage = resolve(container, TOKENS.storage);
  try {
    const readStdin = () => readAll(io.stdin ?? process.stdin);
    const output = await command.run({ gatehouse: resolve(container, TOKENS.gatehouse), product: resolve(container, TOKENS.product), config, readStdin, storage, storageLabel: describeDatabase(config), storageKind: config.database.kind }, values, positionals);
    io.stdout.write(json ? `${JSON.stringify(output.json)}\n` : `${output.text}\n`);
    return EXIT.ok;
  } finally {
    await storage.close();
  }
}
