/** Anything lines can be written to (process.stdout, a test's collector). */
export interface LineSink {
  write(line: string): unknown;
}

const levelNames: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const levelColors: Record<number, string> = { 10: '90', 20: '90', 30: '32', 40: '33', 50: '31', 60: '35' };
const errorLevel = 50;
/** pino's own fields, and those a request line already says in its message. */
const shownElsewhere = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'v', 'err', 'req', 'res', 'responseTime']);

/** ANSI SGR: `code` on, then its own "off" (39 resets a colour, 22 bold). */
function paint(text: string, code: string, colors: boolean): string {
  return colors ? `\u001b[${code}m${text}\u001b[${code === '1' ? '22' : '39'}m` : text;
}

function clock(time: unknown): string {
  const date = typeof time === 'number' ? new Date(time) : new Date();
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/**
 * One pino JSON line as a person reads it: `12:04:31 WARN  game-service  message key=value`.
 * An error adds its type and message; at error level its stack follows, indented.
 */
export function formatLine(json: string, colors: boolean): string {
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = typeof event.level === 'number' ? event.level : 30;
  const parts = [clock(event.time), paint((levelNames[level] ?? String(level)).padEnd(5), levelColors[level] ?? '0', colors)];
  if (typeof event.name === 'string') parts.push(paint(event.name, '1', colors) + ' ');
  if (typeof event.msg === 'string' && event.msg !== '') parts.push(event.msg);
  const err = event.err as { type?: string; message?: string; stack?: string } | undefined;
  if (err?.message && err.message !== event.msg) parts.push(`(${err.type ?? 'Error'}: ${err.message})`);
  for (const [key, value] of Object.entries(event)) if (!shownElsewhere.has(key) && value !== undefined) parts.push(`${key}=${valueText(value)}`);
  let text = parts.join(' ');
  if (level >= errorLevel && err?.stack) text += `\n${err.stack.split('\n').slice(1).map((line) => `    ${line.trim()}`).join('\n')}`;
  return `${text}\n`;
}

/** A pino destination that writes each line formatted for a person. */
export function prettyLines(sink: LineSink, options: { colors: boolean }): LineSink {
  return { write: (line: string) => sink.write(formatLine(line, options.colors)) };
}
