import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseStoreLocation, storeForms, StoreLocationError, type TelemetryStoreLocation } from '../telemetry/index.js';

/** Rows per batch by default: a few MB of spans in memory. */
export const defaultBatchRows = 5_000;
export const maxBatchRows = 100_000;
/** The state file when --state names none: in the directory the command runs in. */
export const defaultStateFile = 'telemetry-copy.state.json';
/** "Everything": before this no store keeps telemetry, and ClickHouse's dates end soon after it. */
export const allTime = { fromMs: 0, toMs: Date.UTC(2100, 0, 1) } as const;

export const telemetryCopyUsage = `Copies the observability service's telemetry (spans with their events and links, log records,
error group statuses) from one store to another; users, sessions, keys and settings stay where they are.

  npm run telemetry:copy -- --from <store> --to <store> [options]

Stores:
  sqlite:<DATA_DIR>              the service's observability.sqlite in it (or sqlite:<file>.sqlite)
  postgres://<user>@<host>/<db>  DATABASE_URL's form; ?schema=<name> for DATABASE_SCHEMA (default public)
  clickhouse:http://<host>:8123/<database>
                                 CLICKHOUSE_URL and CLICKHOUSE_DATABASE (default playstack_telemetry)

Options:
  --from-time <ISO 8601>  copy only telemetry from this time on (default: all)
  --to-time <ISO 8601>    copy only telemetry before this time (default: all)
  --state <file>          where progress is kept (default: ./${defaultStateFile}); run the same
                          command again after an interruption and it continues from there
  --restart               forget the progress in the state file and start over
  --append                copy into a target that already holds telemetry in the range
  --batch-rows <n>        rows read and written together (default ${defaultBatchRows}, at most ${maxBatchRows})
  --help                  this text

Exit status: 0 copied (or nothing left to copy), 1 the copy failed or was refused, 2 a wrong
command line, 130 interrupted (progress saved).`;

/** A command line that cannot be run: the message says what to change. */
export class UsageError extends Error {}

export interface TelemetryCopyArguments {
  help: boolean;
  from: TelemetryStoreLocation;
  to: TelemetryStoreLocation;
  fromMs: number;
  toMs: number;
  stateFile: string;
  restart: boolean;
  append: boolean;
  batchRows: number;
}

function timeOf(option: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(ms)) throw new UsageError(`${option} ${text} is not an ISO 8601 time (2026-11-01 or 2026-11-01T12:00:00Z)`);
  return ms;
}

function storeOf(option: string, text: string | undefined, cwd: string): TelemetryStoreLocation {
  if (text === undefined) throw new UsageError(`${option} <store> is required (${storeForms})`);
  try {
    return parseStoreLocation(text, cwd);
  } catch (error) {
    if (error instanceof StoreLocationError) throw new UsageError(`${option}: ${error.message}`);
    throw error;
  }
}

/** The command line, checked; a UsageError says what is wrong with it. */
export function parseTelemetryCopyArguments(argv: readonly string[], cwd: string): TelemetryCopyArguments | { help: true } {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        'from-time': { type: 'string' },
        'to-time': { type: 'string' },
        state: { type: 'string' },
        restart: { type: 'boolean' },
        append: { type: 'boolean' },
        'batch-rows': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]!.replace(/\. To specify .*$/, ''));
  }
  if (values.help) return { help: true };
  const from = storeOf('--from', values.from, cwd);
  const to = storeOf('--to', values.to, cwd);
  const fromMs = timeOf('--from-time', values['from-time'], allTime.fromMs);
  const toMs = timeOf('--to-time', values['to-time'], allTime.toMs);
  if (toMs <= fromMs) throw new UsageError(`--to-time must be later than --from-time`);
  const batchText = values['batch-rows'];
  const batchRows = batchText === undefined ? defaultBatchRows : /^\d+$/.test(batchText) ? Number(batchText) : Number.NaN;
  if (!Number.isSafeInteger(batchRows) || batchRows < 1 || batchRows > maxBatchRows) throw new UsageError(`--batch-rows ${batchText} is not a whole number from 1 to ${maxBatchRows}`);
  if (values.state === '') throw new UsageError('--state needs a file name');
  return {
    help: false,
    from,
    to,
    fromMs,
    toMs,
    stateFile: resolve(cwd, values.state ?? defaultStateFile),
    restart: values.restart ?? false,
    append: values.append ?? false,
    batchRows,
  };
}
