/** One pino log line, parsed. */
export interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

/** pino's numeric levels. */
export const logLevels = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

/** A log destination tests pass to an app (`logStream`), keeping the lines it was given. */
export class CapturedLogs {
  readonly lines: LogLine[] = [];

  write(line: string): void {
    this.lines.push(JSON.parse(line) as LogLine);
  }

  /** The lines at `level` or above. */
  atLeast(level: keyof typeof logLevels): LogLine[] {
    return this.lines.filter((line) => line.level >= logLevels[level]);
  }
}
