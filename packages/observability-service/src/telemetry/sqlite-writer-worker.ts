// The SQLite writer thread's entry (sqlite-writer-thread.ts starts it): its own connection to the
// service database, on which it runs the ingest writer's group commits, so that SQLite's work
// overlaps with parsing and validation on the main thread. It loads only
// the write path (the kit's `core`, Kysely, better-sqlite3), never Fastify or OpenTelemetry: the
// ingest path creates no telemetry of its own.
import { parentPort, workerData } from 'node:worker_threads';
import { sqliteDatabase } from '@playstack/server-kit/core';
import { sqlLogStore } from '../logs/index.js';
import { OccurrenceWriter } from './occurrence-writer.js';
import type { SqlTelemetryDatabase } from './sql-telemetry-database.js';
import type { SqliteWriterSettings, WriterReply, WriterRequest } from './sqlite-writer-protocol.js';

const port = parentPort!;
const settings = workerData as SqliteWriterSettings;
const post = (reply: WriterReply) => port.postMessage(reply);

const database = sqliteDatabase<SqlTelemetryDatabase>(settings.path, settings.pragmas);
/** The service clock's newest reading: every request carries it (tests move the clock by hand). */
let now = 0;
const writer = new OccurrenceWriter({
  database,
  clock: { now: () => now },
  maxRowsPerTransaction: settings.maxRowsPerTransaction,
  logs: sqlLogStore(database),
  countsIngestion: settings.countsIngestion,
  onCommit: (commit) => post({ type: 'commit', commit }),
});

function failure(error: unknown): { name: string; message: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
}

port.on('message', (request: WriterRequest) => {
  if (request.type === 'close') {
    // The thread's exit tells the service it is done.
    void writer
      .idle()
      .then(() => database.close())
      .finally(() => port.close());
    return;
  }
  now = Math.max(now, request.now);
  const { id } = request;
  writer.write(request.rows, request.refused, request.logs).then(
    () => post({ type: 'done', id }),
    (error: unknown) => post({ type: 'failed', id, error: failure(error) }),
  );
});

post({ type: 'ready' });
