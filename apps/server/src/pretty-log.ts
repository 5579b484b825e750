import type { LogDestination } from './log-destination.js';

/** Fields every line has, shown in the line's head (or not at all) rather than as `key=value`. */
const HEAD_FIELDS = new Set(['level', 'time', 'msg', 'service']);

const LEVEL_LABELS: Record<string, string> = { fatal: 'FATAL', error: 'ERROR', warn: 'WARN ', info: 'INFO ', debug: 'DEBUG', trace: 'TRACE' };

/** A value as `key=value` shows it: plain when it is one word, JSON otherwise (quotes, objects). */
function show(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/**
 * The fields the readable line leaves out because its head says them already: an audit line's
 * `audit=true`, `event` and `at` (its message is `audit <event>`, its time the line's), and an
 * `event` the message names.
 */
function repeatedFields(fields: Record<string, unknown>): Set<string> {
  const repeated = new Set<string>();
  const msg = typeof fields.msg === 'string' ? fields.msg : '';
  if (typeof fields.event === 'string' && msg.includes(fields.event)) repeated.add('event');
  if (fields.audit === true && msg.startsWith('audit ')) {
    repeated.add('audit');
    repeated.add('at');
  }
  return repeated;
}

/**
 * One JSON log line as a person reads it at a terminal:
 * `16:35:01 INFO  listening host=* port=3000`, an error's stack on the lines below.
 * It formats the line pino has already written, secrets already redacted (logger.ts), so the
 * readable form never shows more than the JSON one.
 *
 * @example
 * prettyLine('{"level":"info","time":"2026-01-02T16:35:01.000Z","msg":"listening","port":3000}\n');
 * // '16:35:01 INFO  listening port=3000\n'
 */
export function prettyLine(jsonLine: string): string {
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine;
  }
  const time = typeof fields.time === 'string' ? fields.time.slice(11, 19) : '';
  const level = LEVEL_LABELS[String(fields.level)] ?? String(fields.level).toUpperCase();
  const parts = [time, level, typeof fields.msg === 'string' ? fields.msg : ''].filter((part) => part !== '');
  let stack = '';
  const repeated = repeatedFields(fields);
  for (const [key, value] of Object.entries(fields)) {
    if (HEAD_FIELDS.has(key) || repeated.has(key) || value === undefined) continue;
    if (key === 'err' && typeof value === 'object' && value !== null && typeof (value as { stack?: unknown }).stack === 'string') {
      const { stack: errorStack, ...rest } = value as { stack: string };
      stack = `\n    ${errorStack.split('\n').join('\n    ')}`;
      parts.push(`err=${show(rest)}`);
      continue;
    }
    parts.push(`${key}=${show(value)}`);
  }
  return `${parts.join(' ')}${stack}\n`;
}

/** `destination`, receiving each JSON line as a readable one. */
export function prettyDestination(destination: LogDestination): LogDestination {
  return { write: (line: string) => destination.write(prettyLine(line)) };
}
