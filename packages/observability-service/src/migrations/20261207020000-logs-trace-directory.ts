import { sql, type Kysely } from 'kysely';
import type { Dialect, ServiceMigration } from '@playstack/server-kit';
import { buildTraceDirectory } from '../logs/log-trace-directory.js';

/**
 * SQLite: log records are found by trace id through the trace directory
 * (src/logs/log-trace-directory.ts) instead of a `trace` column of the FTS5 index, whose unique
 * term per record cost about a fifth of the writer's time; the text index keeps the bodies
 * alone. Both are built here from the stored records (the index as before: `columnsize=0`,
 * `automerge=16`, `crisismerge=64`). PostgreSQL: nothing changes (a B-tree on `trace_id`).
 */
export const logsTraceDirectory: ServiceMigration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    if (dialect !== 'sqlite') return;
    await sql`drop table logs_fts`.execute(db);
    await sql`create virtual table logs_fts using fts5(body, content='', columnsize=0, tokenize='unicode61 remove_diacritics 0')`.execute(db);
    await sql`insert into logs_fts (logs_fts, rank) values ('automerge', 16)`.execute(db);
    await sql`insert into logs_fts (logs_fts, rank) values ('crisismerge', 64)`.execute(db);
    // In id order: FTS5 writes a segment whenever a rowid is lower than the one before.
    await sql`insert into logs_fts (rowid, body) select id, body from logs order by id`.execute(db);
    await sql`create table log_trace_runs (id integer primary key, first_id integer not null, last_id integer not null, records integer not null, entries blob not null)`.execute(db);
    await sql`create table log_trace_blocks (block integer primary key, first_id integer not null, last_id integer not null, records integer not null)`.execute(db);
    await sql`create table log_trace_parts (key integer primary key, first_id integer not null, last_id integer not null, entries blob not null)`.execute(db);
    await buildTraceDirectory(db);
  },
};
