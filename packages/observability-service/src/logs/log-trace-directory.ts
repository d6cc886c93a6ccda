import { sql, type Kysely } from 'kysely';
import type { LogTables } from './log-tables.js';
import { logColumn, logStride, type PackedLogRows } from './packed-log-rows.js';
import { traceKey, traceParts } from './log-trace-key.js';

/**
 * SQLite: the trace directory, which finds the log records of a trace id without an index entry
 * per record. Any per-record entry (an FTS5 term, a B-tree row) costs SQLite about a microsecond
 * and a random place in a large index, about a fifth of the writer's time at 100,000 records a
 * second; here each ingest transaction writes one row for all of its records, and the rows are
 * folded into per-part rows now and then.
 *
 * A record's trace id hashes to a 40-bit key (`traceKey`): a part (8 bits, one of 256) and a
 * print (32 bits). Each entry is a record's print and id, so a look-up reads only its part's
 * entries and finds ids directly; a different trace with the same key (1 in 2^40 per record) is
 * a false candidate, dropped because the query also compares `trace_id`.
 *
 * - `log_trace_runs`: one row per ingest transaction with traced records: its entries
 *   (`runEntryBytes` each: part, print, id), their smallest and largest record id and count.
 * - `log_trace_parts`: the folded entries, one row per part and block (`partEntryBytes` each:
 *   print, id), keyed `part * 2^32 + block` so a part's rows are one range of the table.
 * - `log_trace_blocks`: each block's id range and record count. Once the runs hold
 *   `blockRecords` records or `maxRuns` rows, the ingest transaction that adds the last one folds
 *   them into the newest block while it holds fewer than `blockRecords` records, else into a new
 *   block. A look-up finds the blocks whose id range meets the range asked for (in the blocks
 *   table, a row per 65,536 records), then reads its part's rows of those blocks only, and the
 *   runs (at most `maxRuns`).
 *
 * Ids are time-ordered (log-ids.ts), and a row's range is its smallest and largest id, so a late
 * record only widens its row's range. Retention removes the runs and blocks whose largest id is
 * below the cutoff (`pruneTraceDirectory`). PostgreSQL has a B-tree on `trace_id` instead.
 */

/** Runs are folded into a block once they hold this many records... */
export const blockRecords = 65_536;
/** ...or this many rows. */
export const maxRuns = 256;

/** part (1 byte), print (4), id (8: high and low 32 bits). */
export const runEntryBytes = 13;
/** print (4), id (8). */
export const partEntryBytes = 12;

const partKeySpan = 2 ** 32;

function writeId(buffer: Buffer, id: number, at: number): void {
  buffer.writeUInt32BE(Math.floor(id / 2 ** 32), at);
  buffer.writeUInt32BE(id >>> 0, at + 4);
}

function readId(buffer: Buffer, at: number): number {
  return buffer.readUInt32BE(at) * 2 ** 32 + buffer.readUInt32BE(at + 4);
}

/** Writes a run entry (part, print, id) of a record whose trace id has `key` at `at`. */
export function putEntry(entries: Buffer, at: number, key: number, id: number): void {
  entries[at] = key % traceParts;
  entries.writeUInt32BE(Math.floor(key / traceParts), at + 1);
  writeId(entries, id, at + 5);
}

/** Writes a record's run entry at `at`. */
function putRunEntry(entries: Buffer, at: number, traceId: string, id: number): void {
  putEntry(entries, at, traceKey(traceId), id);
}

/** One ingest transaction's entries: the records of the batches (ids assigned) that have a trace id. */
interface Run {
  entries: Buffer;
  firstId: number;
  lastId: number;
  records: number;
}

function runOf(batches: readonly PackedLogRows[]): Run | undefined {
  let traced = 0;
  for (const { traceKeys } of batches) for (const key of traceKeys) if (key >= 0) traced++;
  if (traced === 0) return undefined;
  const entries = Buffer.allocUnsafe(traced * runEntryBytes);
  let firstId = Number.POSITIVE_INFINITY;
  let lastId = Number.NEGATIVE_INFINITY;
  let offset = 0;
  for (const { count, values, traceKeys } of batches) {
    for (let row = 0; row < count; row++) {
      const key = traceKeys[row]!;
      if (key < 0) continue;
      const id = values[row * logStride + logColumn.id] as number;
      putEntry(entries, offset, key, id);
      offset += runEntryBytes;
      if (id < firstId) firstId = id;
      if (id > lastId) lastId = id;
    }
  }
  return { entries, firstId, lastId, records: traced };
}

/**
 * Adds the batches' traced records to the directory, inside the ingest transaction that stores
 * them (ids assigned), and folds the runs into a block when they are due.
 */
export async function recordTraces(trx: Kysely<LogTables>, batches: readonly PackedLogRows[]): Promise<void> {
  const run = runOf(batches);
  if (run === undefined) return;
  await sql`insert into log_trace_runs (first_id, last_id, records, entries) values (${run.firstId}, ${run.lastId}, ${run.records}, ${run.entries})`.execute(trx);
  const pending = (await sql<{ runs: number; records: number }>`select count(*) as runs, coalesce(sum(records), 0) as records from log_trace_runs`.execute(trx)).rows[0]!;
  if (Number(pending.runs) >= maxRuns || Number(pending.records) >= blockRecords) await foldRuns(trx);
}

/** Moves every run's entries into the newest block while it is short of `blockRecords` records, else into a new one. */
export async function foldRuns(trx: Kysely<LogTables>): Promise<void> {
  const runs = await trx.selectFrom('log_trace_runs').select(['id', 'records', 'entries']).orderBy('id').execute();
  if (runs.length === 0) return;
  await foldEntries(
    trx,
    runs.map((run) => run.entries),
    runs.reduce((sum, run) => sum + Number(run.records), 0),
  );
  await sql`delete from log_trace_runs where id <= ${runs[runs.length - 1]!.id}`.execute(trx);
}

/** A block's entries of one part: what it held, then the entries folded in, and their id range. */
interface PartRow {
  stored: Buffer | undefined;
  entries: Buffer;
  filled: number;
  firstId: number;
  lastId: number;
}

/** Adds run-form entries (`runEntryBytes` each) of `records` records to the newest block or a new one. */
async function foldEntries(trx: Kysely<LogTables>, runEntries: readonly Buffer[], records: number): Promise<void> {
  const perPart = new Array<number>(traceParts).fill(0);
  for (const entries of runEntries) for (let at = 0; at < entries.length; at += runEntryBytes) perPart[entries[at]!]!++;
  const parts = new Map<number, PartRow>();
  perPart.forEach((count, part) => {
    if (count > 0) parts.set(part, { stored: undefined, entries: Buffer.allocUnsafe(count * partEntryBytes), filled: 0, firstId: Number.POSITIVE_INFINITY, lastId: Number.NEGATIVE_INFINITY });
  });
  let firstId = Number.POSITIVE_INFINITY;
  let lastId = Number.NEGATIVE_INFINITY;
  for (const entries of runEntries) {
    for (let at = 0; at < entries.length; at += runEntryBytes) {
      const row = parts.get(entries[at]!)!;
      entries.copy(row.entries, row.filled, at + 1, at + runEntryBytes);
      row.filled += partEntryBytes;
      const id = readId(entries, at + 5);
      if (id < row.firstId) row.firstId = id;
      if (id > row.lastId) row.lastId = id;
      if (id < firstId) firstId = id;
      if (id > lastId) lastId = id;
    }
  }
  const newest = await trx.selectFrom('log_trace_blocks').select(['block', 'records']).orderBy('block', 'desc').limit(1).executeTakeFirst();
  const extending = newest !== undefined && Number(newest.records) < blockRecords;
  const block = newest === undefined ? 0 : Number(newest.block) + (extending ? 0 : 1);
  await sql`
    insert into log_trace_blocks (block, first_id, last_id, records) values (${block}, ${firstId}, ${lastId}, ${records})
    on conflict (block) do update set
      first_id = min(first_id, excluded.first_id), last_id = max(last_id, excluded.last_id), records = records + excluded.records`.execute(trx);
  const keyOf = (part: number) => part * partKeySpan + block;
  if (extending) {
    const stored = await trx.selectFrom('log_trace_parts').select(['key', 'first_id', 'last_id', 'entries']).where('key', 'in', [...parts.keys()].map(keyOf)).execute();
    for (const { key, first_id, last_id, entries } of stored) {
      const row = parts.get(Math.floor(Number(key) / partKeySpan))!;
      row.stored = entries;
      row.firstId = Math.min(row.firstId, Number(first_id));
      row.lastId = Math.max(row.lastId, Number(last_id));
    }
  }
  for (const [part, row] of parts) {
    // A part's entries stay in the order they were folded: what the block held first.
    const entries = row.stored === undefined ? row.entries : Buffer.concat([row.stored, row.entries]);
    await sql`insert or replace into log_trace_parts (key, first_id, last_id, entries) values (${keyOf(part)}, ${row.firstId}, ${row.lastId}, ${entries})`.execute(trx);
  }
}

/**
 * The ids in [fromId, toId) of records whose trace id has `traceId`'s key: every record of the
 * trace in the range, and rarely another trace's (the caller compares `trace_id`). Runs are read
 * before parts, so a fold between the two reads shows its entries twice (once kept), never not at all.
 */
export async function traceCandidateIds(db: Kysely<LogTables>, traceId: string, fromId: number, toId: number): Promise<number[]> {
  const key = traceKey(traceId);
  const part = key % traceParts;
  const print = Math.floor(key / traceParts);
  const ids = new Set<number>();
  /** Adds the ids in range of the entries with this print (and, in runs, this part): `printAt` within each entry, the id right after it. */
  const collect = (entries: Buffer, entryBytes: number, printAt: number) => {
    for (let at = 0; at < entries.length; at += entryBytes) {
      if (entries.readUInt32BE(at + printAt) !== print || (printAt > 0 && entries[at] !== part)) continue;
      const id = readId(entries, at + printAt + 4);
      if (id >= fromId && id < toId) ids.add(id);
    }
  };
  const runs = await sql<{ entries: Buffer }>`select entries from log_trace_runs where last_id >= ${fromId} and first_id < ${toId}`.execute(db);
  for (const { entries } of runs.rows) collect(entries, runEntryBytes, 1);
  // The blocks meeting the range (a small table: a row per 65,536 records), then only their rows of this part.
  const { first, last } = (await sql<{ first: number | null; last: number | null }>`
    select min(block) as first, max(block) as last from log_trace_blocks where last_id >= ${fromId} and first_id < ${toId}`.execute(db)).rows[0]!;
  if (first !== null && last !== null) {
    const parts = await sql<{ entries: Buffer }>`
      select entries from log_trace_parts
      where key >= ${part * partKeySpan + Number(first)} and key <= ${part * partKeySpan + Number(last)} and last_id >= ${fromId} and first_id < ${toId}`.execute(db);
    for (const { entries } of parts.rows) collect(entries, partEntryBytes, 0);
  }
  return [...ids];
}

/**
 * Removes the directory's rows whose records are all older than `cutoffId` (retention): runs, and
 * blocks with all their part rows (found by key, not by a scan of every part row). One
 * transaction, so a fold cannot slip between a block's rows and the block.
 */
export async function pruneTraceDirectory(db: Kysely<LogTables>, cutoffId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`delete from log_trace_runs where last_id < ${cutoffId}`.execute(trx);
    const expired = await sql<{ block: number }>`select block from log_trace_blocks where last_id < ${cutoffId}`.execute(trx);
    const keys = expired.rows.flatMap(({ block }) => Array.from({ length: traceParts }, (_, part) => part * partKeySpan + Number(block)));
    if (keys.length > 0) await sql`delete from log_trace_parts where key in (select value from json_each(${JSON.stringify(keys)}))`.execute(trx);
    await sql`delete from log_trace_blocks where last_id < ${cutoffId}`.execute(trx);
  });
}

/**
 * Builds the directory of the records already in `logs` (the migration that introduces it, and
 * bench seeds): blocks of `blockRecords` records in id order.
 */
export async function buildTraceDirectory(db: Kysely<LogTables>): Promise<void> {
  let afterId = -1;
  for (;;) {
    const rows = await db.selectFrom('logs').select(['id', 'trace_id']).where('id', '>', afterId).where('trace_id', 'is not', null).orderBy('id').limit(blockRecords).execute();
    if (rows.length === 0) return;
    const entries = Buffer.allocUnsafe(rows.length * runEntryBytes);
    rows.forEach((row, index) => putRunEntry(entries, index * runEntryBytes, row.trace_id!, Number(row.id)));
    await foldEntries(db, [entries], rows.length);
    afterId = Number(rows[rows.length - 1]!.id);
  }
}
