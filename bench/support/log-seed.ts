// Shared by the logs benchmark: a SQLite log store of any size, seeded in SQL (no HTTP, no
// JavaScript per row), with words of known frequencies to search for.
import { SqliteDatabase } from '@playstack/server-kit';
import { firstIdAt } from '../../packages/observability-service/src/logs/log-ids.js';

/** Words every body draws from (uniformly, 15 per body): each is in about 15 / vocabularySize of the records. */
export const vocabularySize = 5_000;
const wordsPerBody = 15;
/** Words of fixed frequency, for searches whose match counts are known. */
export const seededWords = {
  /** In 1 record of 10,000. */
  rare: 'needle',
  /** In about 0.3% of the records, like any vocabulary word. */
  typical: 'w1234',
  /** In 1 record of 10. */
  common: 'request',
} as const;

/** The trace id of seeded record `n` (as the seeding SQL writes it). */
export function seededTraceId(n: number): string {
  return `${(n + 1).toString(16).padStart(16, '0')}${((BigInt(n) * 2654435761n) % 9223372036854775807n).toString(16).padStart(16, '0')}`;
}

/** The time of seeded record `n` of `count` spread over the `spanMs` before `endMs` (as the seeding SQL writes it; its id is that millisecond's first slot). */
export function seededTimeMs(n: number, count: number, endMs: number, spanMs: number): number {
  return endMs - spanMs + Math.floor(n * (spanMs / count));
}

/**
 * Fills `logs`, its FTS5 index and `log_counts` of a migrated SQLite file with `count` records
 * spread evenly over the `spanMs` before `endMs`: four services, mostly info, a trace id each
 * (`seededTraceId`), a body of about 150 characters. One INSERT ... SELECT over a recursive
 * sequence for the rows, one for the text index; the trace directory is the caller's
 * (`buildTraceDirectory`, which needs the service's JavaScript).
 */
export function seedLogs(file: string, count: number, endMs: number, spanMs: number): void {
  const db = new SqliteDatabase(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  const stepMs = spanMs / count;
  const startMs = endMs - spanMs;
  db.exec('create temp table vocabulary (i integer primary key, w text not null)');
  const insertWord = db.prepare('insert into vocabulary (i, w) values (?, ?)');
  db.transaction(() => {
    for (let i = 0; i < vocabularySize; i++) insertWord.run(i, `w${i}`);
  })();
  const words = Array.from({ length: wordsPerBody }, (_, k) => `(select w from vocabulary where i = (n * ${7919 + k * 104_729} + ${k * 31}) % ${vocabularySize})`).join(" || ' ' || ");
  db.transaction(() => {
    db.prepare(
      `with recursive seq(n) as (select 0 union all select n + 1 from seq where n < ?)
       insert into logs (id, time_ms, time_ns, observed_ms, severity_number, severity_text, body, body_json, event_name, service, environment,
                         service_version, instance, scope_name, scope_version, trace_id, span_id, flags, tenant_id, attributes, resource_attributes, received_at)
       select ? + cast(n * ? as integer) * 4096, ? + cast(n * ? as integer), 0, ? + cast(n * ? as integer),
              case when n % 100 < 70 then 9 when n % 100 < 90 then 5 when n % 100 < 97 then 13 else 17 end, null,
              'user ' || (n % 100000) || ' ' || ${words}
                || case when n % 10 = 3 then ' ${seededWords.common}' else '' end
                || case when n % 10000 = 7 then ' ${seededWords.rare}' else '' end,
              0, null, 'service-' || (n % 4), 'production', '1.0.0', 'instance-' || (n % 16), 'app', null,
              printf('%016x%016x', n + 1, (n * 2654435761) % 9223372036854775807), printf('%016x', n + 1), 1,
              'tenant-' || (n % 50), '{"region":"eu","shard":' || (n % 8) || '}', null, ? + cast(n * ? as integer)
       from seq`,
    ).run(count - 1, firstIdAt(startMs), stepMs, startMs, stepMs, startMs, stepMs, startMs, stepMs);
  })();
  db.transaction(() => {
    db.exec('insert into logs_fts (rowid, body) select id, body from logs');
    for (const periodMs of [60_000, 3_600_000]) {
      db.prepare(
        `insert into log_counts (period_ms, bucket, service, environment, severity_number, count)
         select ?, time_ms - time_ms % ?, service, environment, severity_number, count(*) from logs group by 2, 3, 4, 5`,
      ).run(periodMs, periodMs);
    }
  })();
  db.close();
}
