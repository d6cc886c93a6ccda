import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '@playstack/server-kit';
import { clickHouseAvailable } from '@playstack/server-kit/testing';
import { ClickHouseLogStore } from '../src/telemetry/clickhouse/clickhouse-log-store.js';
import { clickHouseStoreForSuite } from './support/clickhouse-store.js';
import { eachLine } from './support/stream-lines.js';

// What the ClickHouse store acknowledged (spans and log records) survives its process being
// killed (SIGKILL) at once: a write resolves only after ClickHouse has answered the inserts holding it.

const writerProcess = fileURLToPath(new URL('./support/clickhouse-writer-process.ts', import.meta.url));
const rowsPerWrite = 100;
const logsPerWrite = 40;
const concurrentWriters = 6;
/** The process is killed once this many writes have been acknowledged. */
const killAfterAcknowledged = 25;

if (clickHouseAvailable()) describe('ClickHouse store durability', () => {
  const suite = clickHouseStoreForSuite(new ManualClock(Date.now()));

  it('keeps every acknowledged write, its spans and log records whole, when the writing process is killed with writes in flight', async () => {
    const { store, url } = suite();
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', writerProcess], {
      env: { ...process.env, CLICKHOUSE_URL: url, CLICKHOUSE_DATABASE: store.database, ROWS: String(rowsPerWrite), LOGS: String(logsPerWrite), WRITERS: String(concurrentWriters) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const acknowledged = await new Promise<string[]>((resolve, reject) => {
      const traces: string[] = [];
      eachLine(child.stdout!, (line) => {
        if (line.startsWith('acknowledged ')) traces.push(line.slice('acknowledged '.length));
        if (traces.length >= killAfterAcknowledged) {
          child.kill('SIGKILL');
          resolve(traces);
        }
      });
      child.once('exit', () => reject(new Error(`the writer exited after ${traces.length} acknowledgements`)));
    });
    await exited;
    const logs = new ClickHouseLogStore(store);
    for (const traceId of acknowledged) {
      expect((await store.traceSpans(traceId, 10 * rowsPerWrite)).length).toBe(rowsPerWrite);
      const records = await logs.traceLogs(traceId, 10 * logsPerWrite);
      expect(records.length).toBe(logsPerWrite);
      expect(new Set(records.map((record) => record.id)).size).toBe(logsPerWrite);
    }
    const stored = (await store.storage()).occurrences;
    expect(stored).toBeGreaterThanOrEqual(acknowledged.length * rowsPerWrite);
    // Whatever else is stored was in flight: whole writes only (an insert is atomic).
    expect(stored % rowsPerWrite).toBe(0);
    const [counted] = await store.rows<{ n: string }>(`SELECT count() AS n FROM ${store.database}.logs`);
    const storedLogs = Number(counted!.n);
    expect(storedLogs).toBeGreaterThanOrEqual(acknowledged.length * logsPerWrite);
    expect(storedLogs % logsPerWrite).toBe(0);
  }, 120_000);
});
