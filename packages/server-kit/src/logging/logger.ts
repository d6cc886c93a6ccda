import pino, { type Logger, type LoggerOptions } from 'pino';
import { activeSpanIds } from '../telemetry/tracing.js';
import { prettyLines, type LineSink } from './pretty-lines.js';
import { stdoutSink } from './stdout-sink.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
/** `pretty`: one readable line per event, for a person at a terminal; `json`: JSON lines, for machines. */
export type LogFormat = 'pretty' | 'json';

export interface LoggerSettings {
  level: LogLevel;
  /** The service's name, on every line (`name` in JSON). */
  name?: string | undefined;
  /** Unset: pretty when stdout is a terminal, JSON otherwise. */
  format?: LogFormat | undefined;
  /** Where lines go; standard output by default (`stdoutSink`; tests pass their own). */
  destination?: LineSink | undefined;
  /** Each line carries the active span's `trace_id` and `span_id` (set when tracing is on). */
  traceIds?: boolean | undefined;
  /** Also hands each JSON line to this (the OpenTelemetry log export, when on). */
  exportLine?: ((line: string) => void) | undefined;
}

/** The format `LOG_FORMAT` asks for, or the one that suits stdout when it is unset. */
export function resolveLogFormat(format: LogFormat | undefined): LogFormat {
  return format ?? (process.stdout.isTTY ? 'pretty' : 'json');
}

/** pino options shared by both services: JSON lines, secrets redacted. */
export function loggerOptions(level: LogLevel, name?: string): LoggerOptions {
  return {
    level,
    ...(name === undefined ? {} : { name }),
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-csrf-token"]',
        'res.headers["set-cookie"]',
      ],
      censor: '[redacted]',
    },
  };
}

/** The logger a service writes through: pino, its lines pretty or JSON as the settings say. */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = { ...loggerOptions(settings.level, settings.name), ...(settings.traceIds ? { mixin: activeSpanIds } : {}) };
  const destination = settings.destination ?? stdoutSink();
  const colors = settings.destination === undefined && process.stdout.isTTY === true && process.stdout.hasColors() && !process.env.NO_COLOR;
  const lines = resolveLogFormat(settings.format) === 'json' ? destination : prettyLines(destination, { colors });
  const { exportLine } = settings;
  if (!exportLine) return pino(options, lines);
  // The export takes pino's JSON line, before any pretty formatting.
  return pino(options, {
    write(line: string) {
      exportLine(line);
      return lines.write(line);
    },
  });
}
