import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { clickHouseAvailable, describeEachDatabase } from '@playstack/server-kit/testing';
import { sqlAlertReads, type AlertReads } from '../src/telemetry/alert-reads.js';
import { withDefaults, type AlertRuleSpec } from '../src/alerts/alert-rule.js';
import { ruleSeries } from '../src/alerts/alert-series.js';
import { sqlTelemetryDatabase } from '../src/telemetry/sql-telemetry-database.js';
import { LatencyHistogram } from '../src/storage/latency-histogram.js';
import { clickHouseAlertReads } from '../src/telemetry/clickhouse/clickhouse-alert-reads.js';
import { dayMs, minuteMs } from '../src/time-units.js';
import { clickHouseStoreForSuite } from './support/clickhouse-store.js';
import { generateDataSet, generatedServices, generatedTenants, generatedWorker } from './support/generated-occurrences.js';
import { buildTestApp } from './support/test-app.js';

// Alerts on ClickHouse: the reads rules, previews, sparklines and evidence make (AlertReads) give
// the same figures on ClickHouse as on the SQL tables, from the same occurrences.

const now = Date.parse('2026-11-21T12:00:00.000Z');
const services = [...generatedServices, generatedWorker];

/** Rows as compared: histograms as their buckets, in a stable order. */
function comparable<T extends { histogram: string; errorHistogram: string }>(rows: readonly T[]) {
  const buckets = (text: string) => LatencyHistogram.decode(text).buckets();
  return rows
    .map((row) => ({ ...row, histogram: buckets(row.histogram), errorHistogram: buckets(row.errorHistogram) }))
    .map((row) => JSON.stringify(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))))
    .sort();
}

if (clickHouseAvailable()) describe('alert reads on ClickHouse', () => {
  const clock = new ManualClock(now);
  describeEachDatabase('the same as on the SQL tables from the same data', (database) => {
    // A ClickHouse database of each SQL database's own: both get the same data written once.
    const clickHouse = clickHouseStoreForSuite(clock);
    let app: App;
    let sql: AlertReads;
    let columnar: AlertReads;
    const data = generateDataSet(now, 1500);

    beforeAll(async () => {
      app = await buildTestApp(database(), { ROLLUP_TIER_INTERVAL_SECONDS: '3600' }, { clock });
      for (let offset = 0; offset < data.rows.length; offset += 400) {
        const chunk = data.rows.slice(offset, offset + 400);
        await Promise.all([app.telemetry.write(chunk), clickHouse().store.write(chunk)]);
      }
      sql = sqlAlertReads(sqlTelemetryDatabase(app).db);
      columnar = clickHouseAlertReads(clickHouse().store);
    }, 120_000);
    afterAll(async () => {
      await app?.close();
    });

    it('reads the same operation and tenant figures per minute', async () => {
      const from = now - dayMs;
      const operations = await sql.operationMinutes(services, from, now + minuteMs);
      expect(operations.length).toBeGreaterThan(100);
      // ClickHouse sums over span kinds, which rules do not ask about: sum the SQL rows likewise.
      const byKey = new Map<string, (typeof operations)[number]>();
      for (const row of operations) {
        const key = JSON.stringify([row.minute, row.service, row.environment, row.operation, row.spanRole]);
        const before = byKey.get(key);
        if (!before) byKey.set(key, row);
        else
          byKey.set(key, {
            ...row,
            count: before.count + row.count,
            errorCount: before.errorCount + row.errorCount,
            histogram: LatencyHistogram.decode(before.histogram).merge(LatencyHistogram.decode(row.histogram)).encode(),
            errorHistogram: LatencyHistogram.decode(before.errorHistogram).merge(LatencyHistogram.decode(row.errorHistogram)).encode(),
          });
      }
      expect(comparable(await columnar.operationMinutes(services, from, now + minuteMs))).toEqual(comparable([...byKey.values()]));
      expect(comparable(await columnar.operationMinutes(['orders'], from, now + minuteMs))).toEqual(comparable([...byKey.values()].filter((row) => row.service === 'orders')));

      const pairs = [
        { tenant: generatedTenants[0], service: 'gateway' },
        { tenant: generatedTenants[1], service: 'orders' },
        { tenant: generatedTenants[3], service: generatedWorker },
      ];
      const tenants = await sql.tenantMinutes(pairs, from, now + minuteMs);
      expect(tenants.length).toBeGreaterThan(10);
      expect(comparable(await columnar.tenantMinutes(pairs, from, now + minuteMs))).toEqual(comparable(tenants));
    });

    it('gives rules the same values minute by minute', async () => {
      const base = { name: 'watched', comparison: '>' as const, threshold: 0, forMinutes: 0, channels: [] as string[] };
      const specs: Array<Partial<AlertRuleSpec> & Pick<AlertRuleSpec, 'metric' | 'service'>> = [
        { metric: 'request-rate', service: 'gateway', windowMinutes: 60 },
        { metric: 'error-rate', service: 'orders', environment: 'production', windowMinutes: 60 },
        { metric: 'latency-p95', service: 'payments', operation: 'charge', windowMinutes: 60 },
        { metric: 'apdex', service: generatedWorker, windowMinutes: 60 },
        { metric: 'latency-p50', service: 'gateway', tenant: generatedTenants[0], windowMinutes: 60 },
        { metric: 'new-error-group', service: 'payments', windowMinutes: 60 },
      ];
      const thresholds = async (names: readonly string[]) => new Map(names.map((name) => [name, 500]));
      const first = now - 6 * 60 * minuteMs;
      for (const spec of specs) {
        const rule = withDefaults({ ...base, windowMinutes: 60, ...spec }, 'r', 'api');
        const expected = await ruleSeries(sql, rule, first, now, thresholds);
        expect(expected.points.some((point) => point.value !== null && point.value !== 0)).toBe(true);
        expect({ spec, series: await ruleSeries(columnar, rule, first, now, thresholds) }).toEqual({ spec, series: expected });
      }
    });

    it('finds the same error groups and evidence', async () => {
      const from = now - 3 * dayMs;
      const changes = await sql.errorGroupChanges(services, from, now + minuteMs);
      expect(changes.length).toBeGreaterThan(0);
      const sorted = (groups: typeof changes) => [...groups].sort((a, b) => a.groupId.localeCompare(b.groupId)).map((group) => ({ ...group, environments: [...group.environments].sort() }));
      expect(sorted(await columnar.errorGroupChanges(services, from, now + minuteMs))).toEqual(sorted(changes));

      for (const filter of [{ service: 'payments' }, { service: 'gateway', environment: 'staging' }, { service: 'orders', tenant: generatedTenants[1] }]) {
        for (const failing of [true, false]) {
          const expected = await sql.exampleTraces(filter, now - dayMs, now, failing);
          expect(expected.length).toBeGreaterThan(0);
          const traces = (list: typeof expected) => list.map(({ occurrenceId: _id, ...trace }) => trace);
          expect(traces(await columnar.exampleTraces(filter, now - dayMs, now, failing))).toEqual(traces(expected));
        }
        const top = await sql.topErrorGroupId(filter, now - dayMs, now);
        expect(await columnar.topErrorGroupId(filter, now - dayMs, now)).toBe(top);
        if (filter.service !== 'payments') continue;
        expect(top).toBeDefined();
        const details = await sql.errorGroupDetails(top!);
        const onClickHouse = await columnar.errorGroupDetails(top!);
        expect({ type: onClickHouse?.type, message: onClickHouse?.message, topFrame: onClickHouse?.topFrame }).toEqual({ type: details?.type, message: details?.message, topFrame: details?.topFrame });
      }
      expect(await columnar.errorGroupDetails('no-such-group')).toBeUndefined();
    });

    it('are what a service with CLICKHOUSE_URL evaluates rules, previews and evidence on', async () => {
      // A second service on ClickHouse; a service's spans written to ClickHouse only show it reads there.
      await clickHouse().store.write([{ ...data.rows[0]!, service: 'clickhouse-only', started_at: now - 5 * minuteMs }]);
      const onClickHouse = await buildTestApp(database(), { CLICKHOUSE_URL: clickHouse().url, CLICKHOUSE_DATABASE: clickHouse().store.database, ROLLUP_TIER_INTERVAL_SECONDS: '3600' }, { clock });
      try {
        const expected = await columnar.operationMinutes(services, now - dayMs, now + minuteMs);
        expect(expected.length).toBeGreaterThan(100);
        expect(comparable(await onClickHouse.alerts.reads.operationMinutes(services, now - dayMs, now + minuteMs))).toEqual(comparable(expected));
        expect(await sqlAlertReads(sqlTelemetryDatabase(onClickHouse).db).operationMinutes(['clickhouse-only'], now - dayMs, now + minuteMs)).toEqual([]);
        expect((await onClickHouse.alerts.reads.operationMinutes(['clickhouse-only'], now - dayMs, now + minuteMs)).map((row) => [row.service, row.count])).toEqual([['clickhouse-only', 1]]);
      } finally {
        await onClickHouse.close();
      }
    });
  });
});
