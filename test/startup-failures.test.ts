import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, freePort, testRedisEnv, type TestDatabase } from '@playstack/server-kit/testing';

const root = fileURLToPath(new URL('..', import.meta.url));
// Each test starts a service from its sources (tsx): 25-30 s at load average 16-19 on 2 cores,
// past the default 30 s.
vi.setConfig({ testTimeout: 90_000 });
const services = {
  'game-service': { entry: 'packages/game-service/src/main.ts', portVariable: 'GAME_PORT' },
  'observability-service': { entry: 'packages/observability-service/src/main.ts', portVariable: 'OBSERVABILITY_PORT' },
} as const;
type ServiceName = keyof typeof services;

interface Started {
  readonly child: ChildProcess;
  readonly port: number;
  /** What the service wrote to stderr: the one line a person sees when it cannot start. */
  stderr(): string;
  stdout(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs a service's real main module (from its sources) on a free port (unless `env` names one) and a fresh data directory. */
async function start(service: ServiceName, env: Record<string, string> = {}): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'startup-'));
  const portVariable = services[service].portVariable;
  const port = Number(env[portVariable] ?? (await freePort()));
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', services[service].entry], {
    cwd: root,
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_FORMAT: 'json', OTLP_GRPC_PORT: '0', [portVariable]: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  cleanups.push(async () => {
    child.kill('SIGKILL');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  });
  return { child, port, stderr: () => stderr, stdout: () => stdout, exited };
}

/** Polls `url` until `accept` takes the response; fails after `withinMs`. */
async function waitFor(url: string, accept: (response: Response) => boolean, withinMs = 60_000): Promise<Response> {
  const deadline = Date.now() + withinMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (accept(response)) return response;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url}: still ${last} after ${withinMs} ms`);
}

/**
 * A TCP port that refuses connections until `open()`, then forwards them to `target`: a real
 * PostgreSQL or Redis that comes up while the service waits for it.
 */
async function lateServer(target: URL): Promise<{ port: number; open(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  );
  return { port, open: () => new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve())) };
}

/** A port something else listens on until the test ends. */
async function takenPort(): Promise<number> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  return (holder.address() as net.AddressInfo).port;
}

describe('a port in use', () => {
  it.each(Object.keys(services) as ServiceName[])('%s: one line naming the port and its variable, no stack, exit 1', async (service) => {
    const port = await takenPort();
    const started = await start(service, { [services[service].portVariable]: String(port) });
    expect((await started.exited).code).toBe(1);
    expect(started.stderr()).toBe(
      `${service}: cannot listen on 127.0.0.1:${port}: the port is in use by another process; stop it or set ${services[service].portVariable} to a free port\n`,
    );
  });
});

it('observability-service: OTLP_GRPC_PORT in use is one line naming it, exit 1', async () => {
  const port = await takenPort();
  const started = await start('observability-service', { OTLP_GRPC_PORT: String(port) });
  expect((await started.exited).code).toBe(1);
  expect(started.stderr()).toBe(
    `observability-service: configuration error: OTLP/gRPC cannot listen on 127.0.0.1:${port} (OTLP_GRPC_PORT): the port is in use by another process; stop it, set OTLP_GRPC_PORT to a free port, or to 0 to turn OTLP/gRPC off\n`,
  );
});

describe('configuration mistakes', () => {
  it('an enum variable with a wrong value: one line listing the allowed values in words, exit 1', async () => {
    const started = await start('game-service', { LOG_LEVEL: 'loud' });
    expect((await started.exited).code).toBe(1);
    expect(started.stderr()).toBe('game-service: configuration error: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "loud"\n');
  });

  it('unknown variables that look like typos of known ones get a warning each; the service still starts', async () => {
    const started = await start('game-service', { GAME_PROT: '9999', PORT: '3000', REDIS_URI: 'redis://127.0.0.1:6379', LOG_FORMAT: 'json' });
    await waitFor(`http://127.0.0.1:${started.port}/readyz`, (response) => response.status === 200);
    const warnings = started
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; name: string; msg: string })
      .filter((line) => line.level === 40)
      .map((line) => `${line.name}: ${line.msg}`);
    expect(warnings).toEqual(
      expect.arrayContaining([
        'game-service: GAME_PROT is set but game-service does not read it; did you mean GAME_PORT?',
        'game-service: PORT is set but game-service does not read it; did you mean GAME_PORT?',
        'game-service: REDIS_URI is set but game-service does not read it; did you mean REDIS_URL?',
      ]),
    );
    expect(warnings.filter((warning) => warning.includes('PATH') || warning.includes('DATA_DIR'))).toEqual([]);
  });
});

describe('PostgreSQL or Redis unreachable at boot', () => {
  it('past the window: one line naming DATABASE_URL, its password masked, and the cause; exit 1', async () => {
    const closedPort = await freePort();
    const started = await start('game-service', { DATABASE_URL: `postgres://app:hunter2@127.0.0.1:${closedPort}/app`, STARTUP_TIMEOUT_SECONDS: '2' });
    expect((await started.exited).code).toBe(1);
    expect(started.stderr()).toBe(
      `game-service: PostgreSQL at DATABASE_URL=postgres://app:***@127.0.0.1:${closedPort}/app did not answer within 2 s (STARTUP_TIMEOUT_SECONDS): connect ECONNREFUSED 127.0.0.1:${closedPort}\n`,
    );
    expect(started.stdout()).not.toContain('hunter2');
  });

  it('past the window: one line naming REDIS_URL, its password masked, and the cause; exit 1', async () => {
    const closedPort = await freePort();
    const started = await start('observability-service', { REDIS_URL: `redis://:hunter2@127.0.0.1:${closedPort}`, STARTUP_TIMEOUT_SECONDS: '2' });
    expect((await started.exited).code).toBe(1);
    expect(started.stderr()).toBe(
      `observability-service: Redis at REDIS_URL=redis://:***@127.0.0.1:${closedPort} did not answer within 2 s (STARTUP_TIMEOUT_SECONDS): connect ECONNREFUSED 127.0.0.1:${closedPort}\n`,
    );
    expect(started.stdout()).not.toContain('hunter2');
  });

  it('waiting, it answers /healthz and says on /readyz what it waits for; asked to stop, it exits 0 at once', async () => {
    const closedPort = await freePort();
    const started = await start('game-service', { DATABASE_URL: `postgres://app:hunter2@127.0.0.1:${closedPort}/app`, STARTUP_TIMEOUT_SECONDS: '60' });
    expect(await (await waitFor(`http://127.0.0.1:${started.port}/healthz`, (response) => response.ok)).json()).toEqual({ status: 'ok' });
    const readiness = await waitFor(`http://127.0.0.1:${started.port}/readyz`, (response) => response.status === 503);
    const body = (await readiness.json()) as { status: string; failing: Array<{ check: string; reason: string }> };
    expect(body.status).toBe('not-ready');
    expect(body.failing).toEqual([{ check: 'database', reason: expect.stringContaining(`waiting for PostgreSQL (DATABASE_URL=postgres://app:***@127.0.0.1:${closedPort}/app)`) }]);
    const api = await fetch(`http://127.0.0.1:${started.port}/v1/games/demo/leaderboards/high-score`);
    expect(api.status).toBe(503);
    expect(api.headers.get('retry-after')).toBe('5');
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('not-ready');
    const askedAt = Date.now();
    started.child.kill('SIGTERM');
    expect((await started.exited).code).toBe(0);
    expect(Date.now() - askedAt).toBeLessThan(5_000);
    expect(started.stderr()).toBe('');
  });
});

// Like every PostgreSQL and Redis suite, only when the run has them (npm test says so at the end).
if (process.env.TEST_DATABASE_URL) describe('PostgreSQL at boot (TEST_DATABASE_URL)', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    // The services first (the file's cleanups), then the schema they were using.
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await database?.dispose();
    database = undefined;
  });

  it.each(Object.keys(services) as ServiceName[])('%s waits for PostgreSQL that comes up within the window, then migrates and becomes ready', async (service) => {
    database = await createTestDatabase('postgres');
    const target = new URL(database.env.DATABASE_URL!);
    const late = await lateServer(target);
    const proxied = new URL(target);
    proxied.host = `127.0.0.1:${late.port}`;
    const started = await start(service, { ...database.env, DATABASE_URL: proxied.toString(), STARTUP_TIMEOUT_SECONDS: '60' });
    const waiting = await waitFor(`http://127.0.0.1:${started.port}/readyz`, (response) => response.status === 503);
    expect(JSON.stringify(await waiting.json())).toContain('waiting for PostgreSQL');
    await late.open();
    const ready = await waitFor(`http://127.0.0.1:${started.port}/readyz`, (response) => response.status === 200);
    expect(((await ready.json()) as { status: string }).status).toBe('ready');
    expect(started.stdout()).toContain('PostgreSQL answers (after');
  });

  it('a database that does not exist is not retried: one line at once', async () => {
    const missing = new URL(process.env.TEST_DATABASE_URL!);
    missing.pathname = '/no_such_database_for_playstack';
    const started = await start('game-service', { DATABASE_URL: missing.toString(), STARTUP_TIMEOUT_SECONDS: '60' });
    const startedAt = Date.now();
    expect((await started.exited).code).toBe(1);
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect(started.stderr()).toMatch(/^game-service: PostgreSQL at DATABASE_URL=\S+\/no_such_database_for_playstack refused the connection: database "no_such_database_for_playstack" does not exist\n$/);
  });
});

if (process.env.TEST_REDIS_URL) describe('Redis at boot (TEST_REDIS_URL)', () => {
  it('the game service waits for Redis that comes up within the window, then becomes ready', async () => {
    const late = await lateServer(new URL(process.env.TEST_REDIS_URL!));
    const started = await start('game-service', { REDIS_URL: `redis://127.0.0.1:${late.port}`, REDIS_KEY_PREFIX: testRedisEnv()!.REDIS_KEY_PREFIX!, STARTUP_TIMEOUT_SECONDS: '60' });
    const waiting = await waitFor(`http://127.0.0.1:${started.port}/readyz`, (response) => response.status === 503);
    expect(JSON.stringify(await waiting.json())).toContain(`waiting for Redis (REDIS_URL=redis://127.0.0.1:${late.port})`);
    await late.open();
    await waitFor(`http://127.0.0.1:${started.port}/readyz`, (response) => response.status === 200);
    expect(started.stdout()).toContain('Redis answers (after');
  });
});
