import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './command-line.js';
import { UsageError } from './usage.js';

const OPTIONS = { session: { type: 'string' }, scope: { type: 'string', multiple: true }, json: { type: 'boolean' } } as const;

describe('parseCommandLine', () => {
  it('gives an option that takes a value the next argument, even one that begins with "-" (a base64url id)', () => {
    expect(parseCommandLine(['sessions', 'end', '--session', '-Xk2_a', '--json'], OPTIONS)).toEqual({
      values: { session: '-Xk2_a', json: true },
      positionals: ['sessions', 'end'],
    });
    expect(parseCommandLine(['--scope', '-a', '--scope', 'b', '--session=--x'], OPTIONS).values).toEqual({ scope: ['-a', 'b'], session: '--x' });
  });

  it('reads boolean options, --help and -h, and what follows "--" as positionals', () => {
    expect(parseCommandLine(['-h', '--json', 'x', '--', '--session'], OPTIONS)).toEqual({ values: { help: true, json: true }, positionals: ['x', '--session'] });
  });

  it('refuses an unknown option and a value-taking option at the end, in one line', () => {
    expect(() => parseCommandLine(['--nmae', 'x'], OPTIONS)).toThrow(UsageError);
    expect(() => parseCommandLine(['--nmae', 'x'], OPTIONS)).toThrow(/^Unknown option '--nmae'$/);
    expect(() => parseCommandLine(['--session'], OPTIONS)).toThrow(UsageError);
    expect(() => parseCommandLine(['--json=yes'], OPTIONS)).toThrow(UsageError);
  });
});
