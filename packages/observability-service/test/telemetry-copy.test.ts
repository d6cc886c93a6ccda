import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock, type App } from '@playstack/server-kit';
import { clickHouseAvailable, createTestDatabase, freePort, startTestClickHouse, type TestClickHouse, type TestDatabase } from '@playstack/server-kit/testing';
import { errorGroupOf } from '../src/errors/error-group-merge.js';
import type { NewOccurrence } from '../src/storage/storage-tables.js';
import { ClickHouseTelemetry } from '../src/telemetry/clickhouse/clickhouse-telemetry.js';
import type { ApdexThresholds } from '../src/service-settings/service-settings.js';
import { openTelemetryStore, parseStoreLocation, type TelemetryStore } from '../src/telemetry/index.js';
import type { CopyState } from '../src/telemetry-copy/copy-state.js';
import { allTime } from '../src/telemetry-copy/telemetry-copy-arguments.js';
import { runTelemetryCopyCommand, type TelemetryCopyIo } from '../src/telemetry-copy/telemetry-copy-command.js';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './support/browser-session.js';
import { comparableAnswer } from './support/comparable-answer.js';
import { generateErrorGroupedDataSet } from './support/generated-occurrences.js';
import { generateLogs } from './support/generated-logs.js';
import { eachLine } from './support/stream-lines.js';
import { buildTestApp } from './support/test-app.js';

// The telemetry copy command (src/telemetry-copy/): one generated data set (spans of several
// services with events, links and error groups, one resolved, one ignored, one resolved and seen
// again; log records with structured bodies) copied SQLite -> ClickHouse -> PostgreSQL -> SQLite,
// every stored row compared and every read endpoint asked of the source and each target; a copy
// killed with SIGKILL and run again; the crash between a batch's write and its record; and the
// command lines it refuses.

const now = Date.parse('2026-11-21T12:00:00.000Z');
const hourMs = 3_600_000;
const dayMs = 24 * hourMs;
const iso = (ms: number) => new Date(ms).toISOString();
const range = `from=${iso(now - 3 * dayMs)}&to=${iso(now + 2 * 60_000)}`;
const partRange = `from=${iso(now - 7 * hourMs + 12_345)}&to=${iso(now - hourMs)}`;
const entry = fileURLToPath(new URL('../src/telemetry-copy.ts', import.meta.url));
const postgres = Boolean(process.env.TEST_DATABASE_URL);

/** The generated spans, every fifth with OTLP's extras (events with fractional times, links, resource attributes). */
function generatedOccurrences(): { rows: NewOccurrence[]; traceId: string } {
  const data = generateErrorGroupedDataSet(now, 900, 11);
  const rows = data.rows.map((row, index) =>
    index % 5 === 0
      ? {
          ...row,
          events: JSON.stringify([{ name: 'retry', timeMs: row.started_at + 1.25, attributes: { attempt: 2 } }]),
          links: JSON.stringify([{ traceId: data.traceId, spanId: '00000000000000a1', traceState: 'k=v' }]),
          resource_attributes: JSON.stringify({ 'host.name': `host-${index % 3}` }),
        }
      : row,
  );
  return { rows, traceId: data.traceId };
}

const occurrences = generatedOccurrences();
const logs = generateLogs(now, 1_200);

/** A service over a store, with a signed-in admin. */
interface Served {
  app: App;
  session: BrowserSession;
}

async function ask(served: Served, url: string): Promise<{ status: number; body: unknown }> {
  const response = await asBrowser(served.app, served.session, { method: 'GET', url });
  return { status: response.statusCode, body: response.headers['content-type']?.toString().includes('json') ? (response.json() as unknown) : response.body };
}

/** The read endpoints asked of source and target, with their filters; `groups` are the error groups users set a status on. */
function questions(groups: readonly string[]): string[] {
  const traceIds = [occurrences.traceId, ...new Set(occurrences.rows.slice(0, 6).map((row) => row.trace_id))];
  return [
    '/api/v1/services',
    `/api/v1/services?${range}&environment=production`,
    `/api/v1/summary?${range}`,
    `/api/v1/summary?${partRange}&service=orders`,
    `/api/v1/trend?${range}&interval=1h`,
    `/api/v1/trend?${range}&service=payments&interval=6h`,
    `/api/v1/operations?${range}&limit=100`,
    ...[0, 200, 400, 600, 800].map((offset) => `/api/v1/occurrences?${range}&limit=200&offset=${offset}`),
    `/api/v1/occurrences?${range}&service=orders&status=error&limit=50`,
    `/api/v1/occurrences?${range}&attr.retries=2&limit=200`,
    `/api/v1/occurrences/durations?${range}`,
    ...traceIds.flatMap((traceId) => [`/api/v1/traces/${traceId}`, `/api/v1/traces/${traceId}/logs`]),
    `/api/v1/traces/${logs.traceIds[0]}/logs`,
    `/api/v1/database?${range}`,
    `/api/v1/dependencies?${range}`,
    `/api/v1/usage?${range}`,
    `/api/v1/usage/trend?${range}&interval=6h`,
    `/api/v1/usage/export?${range}&interval=1h&format=csv`,
    `/api/v1/errors?${range}&limit=100`,
    ...['resolved', 'ignored', 'regressed', 'unresolved'].map((status) => `/api/v1/errors?${range}&status=${status}`),
    ...groups.map((groupId) => `/api/v1/errors/${groupId}?${range}`),
    `/api/v1/logs?${range}&q=timeout&limit=200`,
    `/api/v1/logs?${range}&severity=warn&service=orders&limit=200`,
    `/api/v1/logs?${range}&attr.region=eu&limit=200`,
    `/api/v1/logs/trend?${range}&interval=1h`,
    `/api/v1/logs/trend?${range}&interval=6h&q=timeout`,
  ];
}

const sortedByJson = <T>(items: T[]): string[] => items.map((item) => JSON.stringify(item)).sort();

/**
 * What a store derives from its rows (rollups and tiers, error groups with their statuses, log
 * counts), asked of the store itself: after a resumed copy, the figures each row adds are in once.
 */
async function derivedFigures(store: TelemetryStore, groups: readonly string[]): Promise<unknown> {
  const read = { range: { fromMs: now - 3 * dayMs, toMs: now + 2 * 60_000 }, filters: {} };
  const query = { from: iso(read.range.fromMs), to: iso(read.range.toMs) };
  const thresholds: ApdexThresholds = async (services) => new Map(services.map((service) => [service, 500]));
  return comparableAnswer(
    await Promise.all([
      store.services(read, thresholds),
      store.trend(read, thresholds, '1h'),
      store.operations(read, thresholds, { limit: 100 }),
      store.database(read, 100),
      store.dependencies(read),
      store.usageTrend(read, undefined, '1h'),
      store.errorGroups(now, { ...query, limit: 100 }),
      ...groups.map((groupId) => store.errorGroup(now, groupId, query)),
      // The log store's counts come in no particular order.
      store.logs.trend(read, hourMs).then(sortedByJson),
      store.logs.tenantCounts({ ...read, bucketMs: hourMs }).then(sortedByJson),
    ]),
  );
}

/** Every stored occurrence and log record of a store, each as its sorted JSON, sorted: two stores hold the same rows when these are equal. */
async function storedRows(store: TelemetryStore): Promise<{ occurrences: string[]; logs: string[] }> {
  const request = { ...allTime, batchRows: 500 };
  const rows = async (batches: AsyncIterable<Array<{ row: object }>>) => {
    const found: string[] = [];
    for await (const batch of batches) for (const { row } of batch) found.push(JSON.stringify(Object.fromEntries(Object.entries(row).sort(([a], [b]) => (a < b ? -1 : 1)))));
    return found.sort();
  };
  return { occurrences: await rows(store.exportOccurrences(request)), logs: await rows(store.logs.exportRecords(request)) };
}

/** The command run in this process: its exit status and the lines it said. */
async function copy(args: readonly string[], io: Partial<TelemetryCopyIo> = {}): Promise<{ status: number; lines: string[] }> {
  const lines: string[] = [];
  const status = await runTelemetryCopyCommand(args, { say: (line) => lines.push(line), cwd: process.cwd(), env: process.env, stopped: () => false, ...io });
  return { status, lines };
}

/** The command as a child process (as `npm run telemetry:copy` runs it, from its sources), with its stderr lines as they come. */
function copyProcess(args: readonly string[], onLine: (line: string, kill: () => void) => void = () => undefined): Promise<{ status: number | null; signal: NodeJS.Signals | null; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', entry, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: string[] = [];
  eachLine(child.stderr!, (line) => {
    lines.push(line);
    onLine(line, () => child.kill('SIGKILL'));
  });
  return new Promise((resolve) => child.once('exit', (status, signal) => resolve({ status, signal, lines })));
}

if (clickHouseAvailable()) describe('telemetry copy between stores', () => {
  const clock = new ManualClock(now);
  let clickHouse: TestClickHouse;
  let scratch: string;
  let source: Served & { database: TestDatabase };
  /** The groups the source's users set a status on: resolved, ignored (after resolved), resolved then seen again. */
  let groups: string[];
  let sourceRows: Awaited<ReturnType<typeof storedRows>>;
  const databases: TestDatabase[] = [];
  const clickHouseDatabases: string[] = [];
  const served: Served[] = [];

  const sqliteStore = (database: TestDatabase) => `sqlite:${database.env.DATA_DIR}`;
  const postgresStore = (database: TestDatabase) => `${database.env.DATABASE_URL}?schema=${database.env.DATABASE_SCHEMA}`;
  const newDatabase = async (dialect: 'sqlite' | 'postgres') => {
    const database = await createTestDatabase(dialect);
    databases.push(database);
    return database;
  };
  const newClickHouseStore = () => {
    const database = clickHouse.database();
    clickHouseDatabases.push(database);
    return { location: `clickhouse:${clickHouse.url}/${database}`, env: { CLICKHOUSE_URL: clickHouse.url, CLICKHOUSE_DATABASE: database } };
  };
  /** The service started over a copy's target (its own SQLite database for users when the telemetry is in ClickHouse). */
  const serve = async (database: TestDatabase, env: Record<string, string> = {}): Promise<Served> => {
    const app = await buildTestApp(database, { ROLLUP_TIER_INTERVAL_SECONDS: '3600', ...env }, { clock });
    const session = await setUpFirstAdmin(app);
    served.push({ app, session });
    return { app, session };
  };
  /** Every question asked of the source and of `target`: the same answers, ids aside. */
  const expectSameAnswers = async (target: Served) => {
    for (const url of questions(groups)) {
      const [expected, actual] = await Promise.all([ask(source, url), ask(target, url)]);
      expect(expected.status, url).toBe(200);
      expect(comparableAnswer(actual.body), url).toEqual(comparableAnswer(expected.body));
    }
    await expectSameLogPages(target);
  };
  /** A copy's target, read through the store the command opens: the source's rows, each once, and the figures derived from them once. */
  const expectSameStore = async (location: string) => {
    const target = await openTelemetryStore(parseStoreLocation(location, scratch), { role: 'source', maxRowsPerWrite: 1, env: {} });
    try {
      const rows = await storedRows(target.store);
      expect(rows.occurrences).toEqual(sourceRows.occurrences);
      expect(rows.logs).toEqual(sourceRows.logs);
      expect(await derivedFigures(target.store, groups)).toEqual(await derivedFigures(source.app.telemetry, groups));
    } finally {
      await target.close();
    }
  };
  /** Every log record, page by page (each store's own cursors): the same pages. */
  const expectSameLogPages = async (target: Served) => {
    type Page = { items: unknown[]; nextCursor: string | null };
    const page = async (side: Served, cursor: string | null) => (await ask(side, `/api/v1/logs?${range}&limit=200${cursor === null ? '' : `&cursor=${cursor}`}`)).body as Page;
    let cursors: [string | null, string | null] = [null, null];
    let records = 0;
    do {
      const [expected, actual] = await Promise.all([page(source, cursors[0]), page(target, cursors[1])]);
      expect(comparableAnswer(actual)).toEqual(comparableAnswer(expected));
      records += expected.items.length;
      cursors = [expected.nextCursor, actual.nextCursor];
      expect(cursors[1] === null).toBe(cursors[0] === null);
    } while (cursors[0] !== null);
    expect(records).toBe(logs.records.length);
  };
  const expectSameRows = async (target: Served) => {
    const rows = await storedRows(target.app.telemetry);
    expect(rows.occurrences.length).toBe(sourceRows.occurrences.length);
    expect(rows.occurrences).toEqual(sourceRows.occurrences);
    expect(rows.logs).toEqual(sourceRows.logs);
  };
  const state = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as CopyState;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'playstack-telemetry-copy-'));
    clickHouse = await startTestClickHouse();
    const database = await newDatabase('sqlite');
    source = { ...(await serve(database)), database };
    const { app } = source;
    for (let offset = 0; offset < occurrences.rows.length; offset += 300) await app.telemetry.write(occurrences.rows.slice(offset, offset + 300));
    for (let offset = 0; offset < logs.records.length; offset += 400) await app.telemetry.write([], 0, logs.records.slice(offset, offset + 400));
    const listed = (await ask(source, `/api/v1/errors?${range}&sort=count&limit=3`)).body as { items: Array<{ groupId: string }> };
    groups = listed.items.map((item) => item.groupId);
    expect(groups).toHaveLength(3);
    const setStatus = async (groupId: string, status: string) => {
      const response = await asBrowser(app, source.session, { method: 'POST', url: `/api/v1/errors/${groupId}/status`, payload: { status } });
      expect(response.statusCode).toBe(200);
      clock.advance(1);
    };
    await setStatus(groups[0]!, 'resolved');
    await setStatus(groups[1]!, 'resolved');
    await setStatus(groups[1]!, 'ignored');
    await setStatus(groups[2]!, 'resolved');
    clock.advance(60_000);
    const original = occurrences.rows.find((row) => errorGroupOf(row)?.groupId === groups[2])!;
    await app.telemetry.write([{ ...original, span_id: 'fedcba9876543210', started_at: clock.now() - 1_000 }]);
    const regressed = (await ask(source, `/api/v1/errors/${groups[2]}?${range}`)).body as { status: string };
    expect(regressed.status).toBe('regressed');
    sourceRows = await storedRows(app.telemetry);
  }, 120_000);

  afterAll(async () => {
    for (const { app } of served) await app.close();
    for (const database of databases) await database.dispose();
    if (clickHouse) {
      for (const database of clickHouseDatabases) {
        const telemetry = new ClickHouseTelemetry({ url: clickHouse.url, database, clock: systemClock, maxRowsPerInsert: 1 });
        await telemetry.dropDatabase().catch(() => undefined);
        await telemetry.close();
      }
      await clickHouse.dispose();
    }
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  describe('copies every row, and the target answers every read endpoint as the source', () => {
    const columnar = () => newClickHouseStore();
    let inClickHouse: ReturnType<typeof columnar>;
    let inPostgres: TestDatabase;

    it('SQLite -> ClickHouse', async () => {
      inClickHouse = columnar();
      const { status, lines } = await copy(['--from', sqliteStore(source.database), '--to', inClickHouse.location, '--state', join(scratch, 'to-clickhouse.json')]);
      const totals = `${(occurrences.rows.length + 1).toLocaleString('en-US')} occurrences, ${logs.records.length.toLocaleString('en-US')} log records and 4 error group status changes`;
      expect(lines.at(-1)).toMatch(new RegExp(`^telemetry copy: done in [\\d.]+ s: ${totals} copied to clickhouse:`));
      expect(status).toBe(0);
      const target = await serve(await newDatabase('sqlite'), inClickHouse.env);
      await expectSameRows(target);
      await expectSameAnswers(target);
      // Copied rows keep when they were received, and are not ingestion: the target's health counts none as accepted.
      type Health = { ingestion: { acceptedLast24h: number; lastReceivedAt: string | null } };
      const [sourceHealth, targetHealth] = await Promise.all([ask(source, '/api/v1/health'), ask(target, '/api/v1/health')]);
      expect((targetHealth.body as Health).ingestion.lastReceivedAt).toBe((sourceHealth.body as Health).ingestion.lastReceivedAt);
      expect((sourceHealth.body as Health).ingestion.acceptedLast24h).toBeGreaterThan(0);
      expect((targetHealth.body as Health).ingestion.acceptedLast24h).toBe(0);
    }, 60_000);

    /** Copies `from` into the SQL database `into`, then serves it: the source's rows and answers. */
    const copyInto = async (from: string, into: TestDatabase, stateFile: string) => {
      const location = into.dialect === 'postgres' ? postgresStore(into) : sqliteStore(into);
      expect((await copy(['--from', from, '--to', location, '--state', join(scratch, stateFile)])).status).toBe(0);
      const target = await serve(into);
      await expectSameRows(target);
      await expectSameAnswers(target);
    };

    it.skipIf(!postgres)('ClickHouse -> PostgreSQL', async () => {
      inPostgres = await newDatabase('postgres');
      await copyInto(inClickHouse.location, inPostgres, 'to-postgres.json');
    }, 60_000);

    it.skipIf(!postgres)('PostgreSQL -> SQLite', async () => {
      await copyInto(postgresStore(inPostgres), await newDatabase('sqlite'), 'to-sqlite.json');
    }, 60_000);

    // Without PostgreSQL (its two links above are reported as skipped), ClickHouse straight to SQLite.
    if (!postgres) {
      it('ClickHouse -> SQLite', async () => {
        await copyInto(inClickHouse.location, await newDatabase('sqlite'), 'to-sqlite.json');
      }, 60_000);
    }
  });

  it('a copy killed with SIGKILL mid-way, run again, ends with exactly the source\'s rows and answers', async () => {
    const target = newClickHouseStore();
    const stateFile = join(scratch, 'killed.json');
    const args = ['--from', sqliteStore(source.database), '--to', target.location, '--state', stateFile];
    const killed = await copyProcess([...args, '--batch-rows', '40'], (line, kill) => {
      if (/^occurrences: [\d,]+ copied/.test(line)) kill();
    });
    expect(killed.signal).toBe('SIGKILL');
    const interrupted = state(stateFile);
    expect(interrupted.complete).toBe(false);
    expect(interrupted.occurrences.copied).toBeGreaterThan(0);
    expect(interrupted.occurrences.copied).toBeLessThan(occurrences.rows.length);
    // Run again with larger batches: the batch the kill may have cut is read again by its positions, whatever the batch size.
    const resumed = await copy(args);
    expect(resumed.lines[0]).toMatch(/^telemetry copy: continuing from /);
    expect(resumed.status).toBe(0);
    await expectSameStore(target.location);
  }, 60_000);

  describe('a batch durable on the target whose progress was not saved (the crash between the two) is not written again', () => {
    /** Stops the copy by throwing right after the nth write of `kind` is durable, before it is recorded. */
    const crashAfter = (kind: 'occurrences' | 'logs', nth: number) => {
      let writes = 0;
      return (written: string) => {
        if (written === kind && (writes += 1) === nth) throw new Error('simulated crash');
      };
    };

    const targets = {
      SQLite: async () => sqliteStore(await newDatabase('sqlite')),
      ClickHouse: async () => newClickHouseStore().location,
    };
    for (const [name, makeTarget] of Object.entries(targets)) {
      it(`on ${name}: occurrences, then log records`, async () => {
        const target = await makeTarget();
        const stateFile = join(scratch, `crash-${name}.json`);
        const args = ['--from', sqliteStore(source.database), '--to', target, '--state', stateFile, '--batch-rows', '250'];
        for (const kind of ['occurrences', 'logs'] as const) {
          const crashed = await copy(args, { afterWrite: crashAfter(kind, 2) });
          expect(crashed.status).toBe(1);
          expect(crashed.lines.at(-1)).toMatch(/^telemetry copy failed: simulated crash; what was copied is recorded in .*: run the same command again to continue$/);
          const stopped = state(stateFile)[kind];
          expect(stopped.pending).not.toBeNull();
          expect(stopped.copied).toBe(250);
        }
        expect((await copy(args)).status).toBe(0);
        await expectSameStore(target);
      }, 60_000);
    }
  });

  describe('refuses what it cannot do, in one line', () => {
    it('a wrong command line: exit 2, one line saying what is wrong (the real process too, no stack trace)', async () => {
      const from = sqliteStore(source.database);
      const cases: Array<[string[], RegExp]> = [
        [[], /--from <store> is required/],
        [['--from', from], /--to <store> is required/],
        [['--from', from, '--to', 'mysql://db/x'], /--to: "mysql:\/\/db\/x" is not a store: sqlite:/],
        [['--from', from, '--to', 'clickhouse:http://127.0.0.1:8123/bad-name'], /ClickHouse database "bad-name" is not a plain identifier/],
        [['--from', from, '--to', 'sqlite:./elsewhere', '--from-time', 'yesterday'], /--from-time yesterday is not an ISO 8601 time/],
        [['--from', from, '--to', 'sqlite:./elsewhere', '--from-time', '2026-11-02', '--to-time', '2026-11-01'], /--to-time must be later than --from-time/],
        [['--from', from, '--to', 'sqlite:./elsewhere', '--batch-rows', '0'], /--batch-rows 0 is not a whole number from 1 to 100000/],
        [['--from', from, '--to', 'sqlite:./elsewhere', '--frm', 'x'], /Unknown option '--frm'/],
        [['--from', from, '--to', `sqlite:${join(source.database.env.DATA_DIR!, 'observability.sqlite')}`], /--from and --to are the same store .*: refusing to copy a store onto itself/],
      ];
      for (const [args, message] of cases) {
        const { status, lines } = await copy(args);
        expect(lines, args.join(' ')).toHaveLength(1);
        expect(lines[0]).toMatch(message);
        expect(status).toBe(2);
      }
      const real = await copyProcess(['--from', from, '--to', from]);
      expect(real.status).toBe(2);
      expect(real.lines).toEqual([expect.stringMatching(/^telemetry copy: --from and --to are the same store/)]);
    }, 60_000);

    it('a target already holding telemetry in the range, without --append; a source or target that does not answer: exit 1', async () => {
      const target = await newDatabase('sqlite');
      const stateFile = join(scratch, 'refused.json');
      expect((await copy(['--from', sqliteStore(source.database), '--to', sqliteStore(target), '--state', stateFile, '--to-time', iso(now - 2 * dayMs)])).status).toBe(0);
      rmSync(stateFile);
      const refused = await copy(['--from', sqliteStore(source.database), '--to', sqliteStore(target), '--state', stateFile]);
      expect(refused.status).toBe(1);
      expect(refused.lines).toEqual([expect.stringMatching(/^telemetry copy: the target sqlite:.* already holds occurrences in the range \(all times\) and .* records no copy into it: --append copies into it anyway/)]);
      const appended = await copy(['--from', sqliteStore(source.database), '--to', sqliteStore(target), '--state', stateFile, '--append', '--from-time', iso(now - 2 * dayMs)]);
      expect(appended.status).toBe(0);
      await expectSameStore(sqliteStore(target));

      const closedPort = await freePort();
      for (const [args, message] of [
        [['--from', sqliteStore(source.database), '--to', `clickhouse:http://127.0.0.1:${closedPort}/copy_target`], /^telemetry copy: the target clickhouse:http:\/\/127\.0\.0\.1:\d+\/copy_target \(--to\) does not answer: /],
        [['--from', `postgres://postgres@127.0.0.1:${closedPort}/test`, '--to', sqliteStore(target)], /^telemetry copy: the source postgres:\/\/postgres@127\.0\.0\.1:\d+\/test\?schema=public \(--from\) does not answer: /],
        [['--from', `sqlite:${join(scratch, 'nothing-here')}`, '--to', sqliteStore(target)], /^telemetry copy: the source sqlite:.*nothing-here\/observability\.sqlite \(--from\) has no telemetry: there is no /],
      ] as const) {
        const { status, lines } = await copy([...args, '--state', join(scratch, 'unreachable.json')]);
        expect(lines).toEqual([expect.stringMatching(message)]);
        expect(status).toBe(1);
      }
    }, 60_000);

    it('a complete copy run again copies nothing', async () => {
      const again = await copy(['--from', sqliteStore(source.database), '--to', `clickhouse:${clickHouse.url}/${clickHouseDatabases[0]}`, '--state', join(scratch, 'to-clickhouse.json')]);
      expect(again.status).toBe(0);
      expect(again.lines).toEqual([expect.stringMatching(/records this copy as complete \([\d,]+ occurrences, [\d,]+ log records\); nothing left to copy/)]);
    });
  });
});
