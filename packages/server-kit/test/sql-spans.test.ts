import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, startTracing, type Database, type Tracing } from '../src/index.js';
import { describeEachDatabase, OtlpJsonReceiver } from '../src/testing/index.js';

const exportVariables = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' };

describeEachDatabase('SQL spans', (testDatabase) => {
  const receiver = new OtlpJsonReceiver();
  let tracing: Tracing;
  let database: Database;

  beforeAll(async () => {
    Object.assign(process.env, exportVariables, { OTEL_EXPORTER_OTLP_ENDPOINT: await receiver.start() });
    tracing = (await startTracing({ serviceName: 'sql-spans-test', serviceVersion: '0' }))!;
    const env = testDatabase().env;
    database = await openDatabase({ url: env.DATABASE_URL, schema: env.DATABASE_SCHEMA ?? 'public', poolSize: 2, dataDir: env.DATA_DIR!, fileName: 'spans.sqlite', sqliteSynchronous: 'normal' });
    await sql`create table spanned (id integer primary key, name text not null)`.execute(database.db);
  });
  afterAll(async () => {
    await database.close();
    await tracing.shutdown();
    for (const name of [...Object.keys(exportVariables), 'OTEL_EXPORTER_OTLP_ENDPOINT']) delete process.env[name];
    await receiver.close();
  });

  it('a statement under a recording span is its child: rows returned, or a failure recorded on it (thrown at once or rejected)', async () => {
    const parent = await tracing.tracer.startActiveSpan('parent', async (span) => {
      await sql`insert into spanned (id, name) values (1, 'one')`.execute(database.db);
      const rows = await sql`select id, name from spanned where id = ${1}`.execute(database.db);
      expect(rows.rows).toHaveLength(1);
      // The same key again: SQLite's driver throws at once, PostgreSQL's rejects.
      await expect(sql`insert into spanned (id, name) values (1, 'again')`.execute(database.db)).rejects.toThrow();
      // The failure leaves the connection usable and the next statement traced too.
      await sql`select count(*) as n from spanned`.execute(database.db);
      span.end();
      return span.spanContext();
    });
    const inTrace = () => receiver.spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId);
    await receiver.waitFor(() => inTrace().length >= 4);
    const [insert, select, failed, count] = inTrace();
    const system = testDatabase().dialect === 'sqlite' ? 'sqlite' : 'postgresql';
    expect(insert).toMatchObject({ name: 'INSERT spanned', kind: 3, statusCode: 0, attributes: { 'db.system': system, 'db.system.name': system, 'db.operation.name': 'INSERT', 'db.collection.name': 'spanned' } });
    expect(select).toMatchObject({ name: 'SELECT spanned', statusCode: 0, attributes: { 'db.response.returned_rows': 1 } });
    expect(select!.attributes['db.query.text']).not.toContain("'one'");
    expect(failed).toMatchObject({ name: 'INSERT spanned', statusCode: 2 });
    expect(failed!.events.some((event) => event.name === 'exception' && typeof event.attributes['exception.message'] === 'string')).toBe(true);
    expect(count).toMatchObject({ name: 'SELECT spanned', statusCode: 0 });
  });

  it('a statement outside any recording span starts none', async () => {
    const before = receiver.spans.length;
    await sql`select count(*) as n from spanned`.execute(database.db);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.spans.slice(before)).toEqual([]);
  });
});
