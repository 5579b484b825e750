import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

/** Where a line goes: `process.stdout` for `serve`, `process.stderr` for the other commands, a buffer in tests. */
export interface LogDestination {
  write(line: string): unknown;
}

/** The request being handled, so every line logged while handling it carries its id. */
export const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/**
 * Field names that must never reach a log line with their value. The code does not log them;
 * this is the second line of defence.
 */
const REDACTED = [
  'password',
  'clientSecret',
  'client_secret',
  'code_verifier',
  'access_token',
  'refresh_token',
  'token',
  'authorization',
  'cookie',
  'keySecret',
  'connectionString',
  'privateJwk',
]
  .flatMap((field) => [field, `*.${field}`])
  // `code` at the top level only: one level down it is an error's code (`err.code`), worth keeping.
  .concat('code');

/**
 * A pino logger writing JSON lines; inside a request each line carries `reqId`.
 *
 * @example
 * const logger = createLogger({ level: 'info', destination: process.stdout });
 * logger.info({ port: 3000 }, 'listening');
 */
export function createLogger(options: { level: LogLevel; destination: LogDestination }): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'gatehouse' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED, censor: '[redacted]' },
      mixin: () => {
        const context = requestContext.getStore();
        return context ? { reqId: context.requestId } : {};
      },
    },
    options.destination as DestinationStream,
  );
}
