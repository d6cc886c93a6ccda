import { afterAll, beforeAll } from 'vitest';
import type { App, Clock } from '@playstack/server-kit';
import { createTestDatabase, type TestClickHouse, type TestDatabase } from '@playstack/server-kit/testing';
import { asBrowser, setUpFirstAdmin, type BrowserSession } from './browser-session.js';
import { buildTestApp } from './test-app.js';

export type Side = 'sql' | 'columnar';
export interface Answer {
  status: number;
  body: unknown;
}

export interface SqlAndClickHouseApps {
  /** The app of a side (set once `beforeAll` ran). */
  app(side: Side): App;
  /** One request to a side, as its signed-in admin: JSON bodies parsed. */
  ask(side: Side, url: string, method?: 'GET' | 'POST', payload?: object): Promise<Answer>;
  /** The same request to both sides: [SQL's answer, ClickHouse's]. */
  both(url: string, method?: 'GET' | 'POST', payload?: object): Promise<[Answer, Answer]>;
}

/**
 * Two apps for an equivalence suite, built before its tests and closed after them: one with its
 * telemetry in the SQL store of `database()`, one with it in ClickHouse (users, sessions and keys
 * stay in SQL: that app has a service database of its own, of the same dialect), each with a
 * signed-in admin; `fill` then gives both the same data.
 */
export function sqlAndClickHouseApps(options: {
  database: () => TestDatabase;
  clickHouse: () => TestClickHouse;
  clock: Clock;
  sqlEnv?: Record<string, string>;
  fill: (sqlApp: App, columnarApp: App) => Promise<void>;
}): SqlAndClickHouseApps {
  const apps = new Map<Side, { app: App; session: BrowserSession }>();
  let columnarDatabase: TestDatabase | undefined;
  beforeAll(async () => {
    const sqlApp = await buildTestApp(options.database(), options.sqlEnv ?? {}, { clock: options.clock });
    columnarDatabase = await createTestDatabase(options.database().dialect);
    const clickHouse = options.clickHouse();
    const columnarApp = await buildTestApp(columnarDatabase, { CLICKHOUSE_URL: clickHouse.url, CLICKHOUSE_DATABASE: clickHouse.database() }, { clock: options.clock });
    apps.set('sql', { app: sqlApp, session: await setUpFirstAdmin(sqlApp) });
    apps.set('columnar', { app: columnarApp, session: await setUpFirstAdmin(columnarApp) });
    await options.fill(sqlApp, columnarApp);
  }, 120_000);
  afterAll(async () => {
    for (const { app } of apps.values()) await app.close();
    await columnarDatabase?.dispose();
  });
  const ask = async (side: Side, url: string, method: 'GET' | 'POST' = 'GET', payload?: object): Promise<Answer> => {
    const { app, session } = apps.get(side)!;
    const response = await asBrowser(app, session, { method, url, ...(payload ? { payload } : {}) });
    return { status: response.statusCode, body: response.headers['content-type']?.toString().includes('json') ? (response.json() as unknown) : response.body };
  };
  return {
    app: (side) => apps.get(side)!.app,
    ask,
    both: (url, method, payload) => Promise.all([ask('sql', url, method, payload), ask('columnar', url, method, payload)]),
  };
}
