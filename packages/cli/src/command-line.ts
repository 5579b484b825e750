import { parseArgs } from 'node:util';
import type { OptionSpec } from './command.js';
import { UsageError, type OptionValues } from './usage.js';

/**
 * Reads a command line as node:util's `parseArgs` does in strict mode (unknown options refused,
 * `--help`/`-h` always known), except that an option that takes a value takes the next argument
 * whatever it begins with, as POSIX getopt does: `--session -Xk2…` is the session `-Xk2…` (ids and
 * hashes in base64url begin with `-` one time in 64). Wrong use is a `UsageError` of one line.
 *
 * @example
 * const { values, positionals } = parseCommandLine(['sessions', 'end', '--session', '-Xk2'], { session: { type: 'string' } });
 * // values.session === '-Xk2', positionals: ['sessions', 'end']
 */
export function parseCommandLine(argv: readonly string[], options: Record<string, OptionSpec>): { values: OptionValues; positionals: string[] } {
  const known: Record<string, OptionSpec & { short?: string }> = { ...options, help: { type: 'boolean', short: 'h' } };
  const args: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (arg === '--') {
      args.push(...argv.slice(index));
      break;
    }
    const takesValue = arg.startsWith('--') && !arg.includes('=') && known[arg.slice(2)]?.type === 'string';
    if (takesValue && index + 1 < argv.length) {
      args.push(`${arg}=${argv[index + 1] as string}`);
      index += 1;
    } else {
      args.push(arg);
    }
  }
  try {
    const { values, positionals } = parseArgs({ args, options: known, allowPositionals: true, strict: true });
    // Multiple boolean options are never declared: a repeated option is a list of its strings.
    return { values: values as OptionValues, positionals };
  } catch (error) {
    // node:util parseArgs errors are one line ("Unknown option '--nmae'. …"): keep the first sentence.
    throw new UsageError(error instanceof Error ? (error.message.split('. ')[0] as string).replace(/\.$/, '') : String(error));
  }
}
