/** Wrong use of the command line: exit code 2 and a one-line message. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The values `node:util` parseArgs gives for a command's options. */
export type OptionValues = Record<string, string | boolean | string[] | undefined>;

/**
 * The value of `--name`, which must be given and not blank.
 *
 * @example
 * const name = requiredOption(values, 'name'); // UsageError "--name is required" when missing
 */
export function requiredOption(values: OptionValues, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

/**
 * The value of `--name` when given.
 *
 * @example
 * const owner = optionalOption(values, 'owner');
 */
export function optionalOption(values: OptionValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Every value of a repeatable `--name` (none: an empty list).
 *
 * @example
 * const redirectUris = listOption(values, 'redirect-uri');
 */
export function listOption(values: OptionValues, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}
