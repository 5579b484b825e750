import type { HttpLogger } from '../logger.js';

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  obj: object;
  msg: string | undefined;
}

/** A logger that keeps its lines, to assert on them (and that no secret is in any of them). */
export interface RecordingLogger extends HttpLogger {
  lines: LogLine[];
  /** Every line serialised, for `expect(logger.text()).not.toContain(secret)`. */
  text(): string;
}

export function createRecordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  const record = (level: LogLine['level']) => (obj: object, msg?: string) => void lines.push({ level, obj, msg });
  return {
    lines,
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    text: () =>
      lines
        .map((line) => JSON.stringify({ ...line, obj: line.obj }, (_key, value: unknown) => (value instanceof Error ? { message: value.message, stack: value.stack } : value)))
        .join('\n'),
  };
}
