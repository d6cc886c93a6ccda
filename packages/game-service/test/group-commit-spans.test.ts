import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, startTracing, type Database, type Tracing } from '@playstack/server-kit';
import { describeEachDatabase, OtlpJsonReceiver } from '@playstack/server-kit/testing';
import { GroupCommitWriter } from '../src/group-commit.js';

interface WriterTables {
  traced_writes: { name: string };
}

const exportVariables = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' };

describeEachDatabase('group commit spans', (testDatabase) => {
  const receiver = new OtlpJsonReceiver();
  let tracing: Tracing;
  let database: Database<WriterTables>;

  beforeAll(async () => {
    Object.assign(process.env, exportVariables, { OTEL_EXPORTER_OTLP_ENDPOINT: await receiver.start() });
    tracing = (await startTracing({ serviceName: 'group-commit-spans-test', serviceVersion: '0' }))!;
    const env = testDatabase().env;
    database = await openDatabase<WriterTables>({ url: env.DATABASE_URL, schema: env.DATABASE_SCHEMA ?? 'public', poolSize: 2, dataDir: env.DATA_DIR!, fileName: 'writer-spans.sqlite', sqliteSynchronous: 'normal' });
    await database.db.schema.createTable('traced_writes').addColumn('name', 'text', (col) => col.primaryKey()).execute();
  });
  afterAll(async () => {
    await database.close();
    await tracing.shutdown();
    for (const name of [...Object.keys(exportVariables), 'OTEL_EXPORTER_OTLP_ENDPOINT']) delete process.env[name];
    await receiver.close();
  });

  it("each write of a shared transaction is its own caller's SQL span; the transaction's statements are the first caller's", async () => {
    const group = new GroupCommitWriter(database.db, { dialect: database.dialect, maxBatch: 64 });
    const callers = ['first', 'second', 'third'];
    const transactions = new Set<unknown>();
    // Queued in the same turn: one batch, one transaction, three callers' traces.
    const parents = await Promise.all(
      callers.map((name) =>
        tracing.tracer.startActiveSpan(name, async (span) => {
          await group.write(async (trx) => {
            transactions.add(trx);
            await trx.insertInto('traced_writes').values({ name }).execute();
          });
          span.end();
          return span.spanContext();
        }),
      ),
    );
    expect(transactions.size).toBe(1);
    const inserts = () => receiver.spans.filter((span) => span.name === 'INSERT traced_writes');
    await receiver.waitFor(() => inserts().length >= 3 && receiver.spans.some((span) => span.name === 'COMMIT'));
    for (const parent of parents) {
      const own = inserts().filter((span) => span.traceId === parent.traceId);
      expect(own).toHaveLength(1);
      expect(own[0]!.parentSpanId).toBe(parent.spanId);
    }
    const commit = receiver.spans.find((span) => span.name === 'COMMIT')!;
    expect(commit).toMatchObject({ traceId: parents[0]!.traceId, parentSpanId: parents[0]!.spanId });
  });
});
