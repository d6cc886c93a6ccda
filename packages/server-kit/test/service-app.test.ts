import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  commonConfigProperties,
  configSchema,
  createServer,
  createServiceApp,
  loadConfig,
  openDatabase,
  Readiness,
  systemRoutes,
  type App,
  type ServiceMigration,
} from '../src/index.js';
import { createTestDatabase, describeEachDatabase, freePort, TestRedisServer, type TestDatabase } from '../src/testing/index.js';

const schema = configSchema({ ...commonConfigProperties });

const migrations: Record<string, ServiceMigration> = {
  '2026-11-21-01-widgets': {
    async up(db) {
      await db.schema.createTable('widget').addColumn('id', 'integer', (col) => col.primaryKey()).execute();
    },
  },
};

async function buildKitApp(env: Record<string, string>, features?: (app: App) => Promise<void>): Promise<App> {
  const config = loadConfig(schema, { LOG_LEVEL: 'silent', ...env });
  return createServiceApp({
    features,
    config,
    version: { name: 'kit-test', version: '1.2.3', commit: 'abc', apiVersion: '0.1.0' },
    metricsPrefix: 'kit',
    sqliteFile: 'kit.sqlite',
    migrations,
    migrationTablePrefix: 'kit',
    bodyLimitBytes: 1024,
    openapi: { info: { title: 'kit', version: '0.1.0', description: 'kit test' }, tags: [] },
  });
}

describe('SQLite memory mapping', () => {
  it('maps SQLITE_MMAP_MB of the file (1024 MiB unless set), and none at 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kit-mmap-'));
    try {
      for (const [env, expected] of [[{}, 1024 * 1024 * 1024], [{ SQLITE_MMAP_MB: '64' }, 64 * 1024 * 1024], [{ SQLITE_MMAP_MB: '0' }, 0]] as const) {
        const app = await buildKitApp({ DATA_DIR: dir, ...env });
        try {
          const { rows } = await sql<{ mmap_size: number }>`pragma mmap_size`.execute(app.database.db);
          expect(rows[0]?.mmap_size, JSON.stringify(env)).toBe(expected);
        } finally {
          await app.close();
        }
      }
      expect(() => loadConfig(schema, { SQLITE_MMAP_MB: '-1' })).toThrow(/SQLITE_MMAP_MB/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite page cache and checkpoints', () => {
  it('sizes the page cache by SQLITE_CACHE_MB (64 MiB unless set) and checkpoints every SQLITE_WAL_AUTOCHECKPOINT_PAGES (10,000 unless set)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kit-cache-'));
    try {
      const cases = [
        [{}, -64 * 1024, 10_000],
        [{ SQLITE_CACHE_MB: '8', SQLITE_WAL_AUTOCHECKPOINT_PAGES: '1000' }, -8 * 1024, 1_000],
      ] as const;
      for (const [env, cacheSize, autocheckpoint] of cases) {
        const app = await buildKitApp({ DATA_DIR: dir, ...env });
        try {
          const cache = await sql<{ cache_size: number }>`pragma cache_size`.execute(app.database.db);
          expect(cache.rows[0]?.cache_size, JSON.stringify(env)).toBe(cacheSize);
          const checkpoint = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(app.database.db);
          expect(checkpoint.rows[0]?.wal_autocheckpoint, JSON.stringify(env)).toBe(autocheckpoint);
        } finally {
          await app.close();
        }
      }
      expect(() => loadConfig(schema, { SQLITE_CACHE_MB: '0' })).toThrow(/SQLITE_CACHE_MB/);
      expect(() => loadConfig(schema, { SQLITE_WAL_AUTOCHECKPOINT_PAGES: '10' })).toThrow(/SQLITE_WAL_AUTOCHECKPOINT_PAGES/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a service app whose features fail to register', () => {
  it('passes the error on and closes the database it opened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kit-failed-boot-'));
    try {
      const features = async (app: App) => {
        await app.register(async () => {
          throw new Error('a feature could not start');
        });
      };
      await expect(buildKitApp({ DATA_DIR: dir }, features)).rejects.toThrow('a feature could not start');
      // SQLite removes its write-ahead log when the last connection closes.
      expect(existsSync(join(dir, 'kit.sqlite'))).toBe(true);
      expect(existsSync(join(dir, 'kit.sqlite-wal'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeEachDatabase('a service app', (database) => {
  let app: App;
  beforeAll(async () => {
    app = await buildKitApp(database().env);
  });
  afterAll(async () => {
    await app.close();
  });

  it('runs the migrations at boot', async () => {
    await app.database.db.insertInto('widget').values({ id: 1 }).execute();
    const rows = await app.database.db.selectFrom('widget').selectAll().execute();
    expect(rows).toEqual([{ id: 1 }]);
  });

  it('runs the migrations once: a second boot on the same database succeeds', async () => {
    const again = await buildKitApp(database().env);
    await again.close();
  });

  it('answers /readyz 200 when the database answers', async () => {
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
  });

  it('serves /metrics publicly in Prometheus text format when METRICS_TOKEN is unset', async () => {
    await app.inject({ method: 'GET', url: '/healthz' });
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    expect(response.body).toContain('kit_process_cpu_user_seconds_total');
    expect(response.body).toMatch(/kit_http_requests_total\{method="GET",route="\/healthz",status_code="200"\} \d+/);
    expect(response.body).toContain('kit_http_request_duration_seconds_bucket{le="0.001",method="GET",route="/healthz",status_code="200"}');
  });
});

describe('/metrics with METRICS_TOKEN set', () => {
  let database: TestDatabase;
  let app: App;
  const token = 'monitor-token-123';
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    app = await buildKitApp({ ...database.env, METRICS_TOKEN: token });
  });
  afterAll(async () => {
    await app.close();
    await database.dispose();
  });

  it('answers 401 unauthorized without the token', async () => {
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('unauthorized');
  });

  it('answers 401 with a wrong token', async () => {
    const response = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer monitor-token-124' } });
    expect(response.statusCode).toBe(401);
  });

  it('answers 200 with the token', async () => {
    const response = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('kit_http_requests_total');
  });
});

describe('readiness when PostgreSQL is unreachable', () => {
  it('answers /readyz 503 naming the database check when PostgreSQL is pointed at a closed port', async () => {
    const closedPort = await freePort();
    const database = await openDatabase({
      url: `postgres://nobody@127.0.0.1:${closedPort}/none`,
      schema: 'public',
      poolSize: 1,
      dataDir: '.',
      fileName: 'unused',
      sqliteSynchronous: 'normal',
    });
    const readiness = new Readiness();
    readiness.register('database', () => database.ping());
    const app = createServer({ logLevel: 'silent', trustProxy: false, bodyLimitBytes: 1024 });
    await app.register(systemRoutes, { version: { name: 'x', version: '1', commit: 'c', apiVersion: '0.1.0' }, readiness, readinessTimeoutMs: 2000 });
    try {
      const response = await app.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ status: 'not-ready', failing: [{ check: 'database', reason: expect.stringMatching(/ECONNREFUSED|connect/) }], degraded: [] });
    } finally {
      await app.close();
      await database.close();
    }
  });

  // Needs a real PostgreSQL behind a proxy the test can cut; CI always sets TEST_DATABASE_URL.
  if (process.env.TEST_DATABASE_URL) it('a running service turns 503 when its PostgreSQL goes away, and 200 when it returns', async () => {
    const target = new URL(process.env.TEST_DATABASE_URL!);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const proxied = new URL(target);
    proxied.host = `127.0.0.1:${proxy.port}`;
    const database = await createTestDatabase('postgres');
    const app = await buildKitApp({ ...database.env, DATABASE_URL: proxied.toString(), DATABASE_POOL_SIZE: '1' });
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      proxy.cutAll();
      proxy.refuse = true;
      const down = await app.inject({ method: 'GET', url: '/readyz' });
      expect(down.statusCode).toBe(503);
      expect(down.json().failing[0].check).toBe('database');
      proxy.refuse = false;
      let status = 0;
      for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
        status = (await app.inject({ method: 'GET', url: '/readyz' })).statusCode;
      }
      expect(status).toBe(200);
      await sql`select 1`.execute(app.database.db);
    } finally {
      await app.close();
      await proxy.close();
      await database.dispose();
    }
  });
});

describe('/readyz of a service whose Redis is down', () => {
  it('stays 200 and says Redis is degraded, with the metric at 1, until Redis answers again', async () => {
    const server = await TestRedisServer.start();
    const database = await createTestDatabase('sqlite');
    const app = await buildKitApp({ ...database.env, REDIS_URL: server.url });
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready', failing: [], degraded: [] });
      await server.stop();
      const down = await app.inject({ method: 'GET', url: '/readyz' });
      expect(down.statusCode).toBe(200);
      expect(down.json()).toEqual({
        status: 'ready',
        failing: [],
        degraded: [{ check: 'redis', reason: expect.stringMatching(/^Redis unreachable for \d+ s \(.+\): rate limits count per instance/) }],
      });
      expect((await app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^kit_redis_degraded 1$/m);
      await server.start();
      await vi.waitFor(async () => expect((await app.inject({ method: 'GET', url: '/readyz' })).json().degraded).toEqual([]), { timeout: 3_000, interval: 20 });
      expect((await app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/^kit_redis_degraded 0$/m);
    } finally {
      await app.close();
      await database.dispose();
      await server.dispose();
    }
  });
});

/** A TCP proxy the test can cut: every open connection is destroyed, new ones refused. */
async function startTcpProxy(host: string, port: number) {
  const sockets = new Set<net.Socket>();
  const state = { refuse: false };
  const server = net.createServer((client) => {
    if (state.refuse) {
      client.destroy();
      return;
    }
    const upstream = net.connect(port, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    set refuse(value: boolean) {
      state.refuse = value;
    },
    cutAll() {
      for (const socket of sockets) socket.destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
