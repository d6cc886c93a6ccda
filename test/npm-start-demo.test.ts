import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { freePort } from '@playstack/server-kit/testing';
import type { Occurrence } from '../packages/observability-service/src/query/query-schemas.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A span as the trace read API returns it. */
type StoredSpan = Occurrence;

/** Polls until `read` answers something, or fails after `withinMs`. */
async function eventually<T>(what: string, read: () => Promise<T | undefined>, withinMs: number): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}


interface Started {
  dataDir: string;
  ports: { game: number; observability: number };
  pid: number;
  output(): string;
}

/**
 * `npm start` on free ports and a fresh DATA_DIR, without the caller's OTEL_* variables; runs
 * `body`, then stops it (SIGTERM to its group) and removes the directory. A failure carries the output.
 */
async function withNpmStart(extraEnv: Record<string, string>, body: (started: Started) => Promise<void>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-demo-'));
  const ports = { game: await freePort(), observability: await freePort() };
  const env: NodeJS.ProcessEnv = { ...process.env, GAME_PORT: String(ports.game), OBSERVABILITY_PORT: String(ports.observability), OTLP_GRPC_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  for (const name of Object.keys(env)) if (name.startsWith('OTEL_') || name === 'DEMO_TRAFFIC' || name === 'GAME_DEV_AUTH') delete env[name];
  const child = spawn('npm', ['start', '--silent'], { cwd: root, detached: true, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await body({ dataDir, ports, pid: child.pid!, output: () => output });
  } catch (error) {
    throw new Error(`${String(error)}\noutput of npm start:\n${output}`);
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await new Promise((resolve) => child.once('close', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

it(
  '`npm start` is alive: the game service reports to the observability service and demo players play; the first user sees game-service server spans, SQL under them, traces that start in the client library, the game service\'s logs, and the observability service\'s own API requests',
  async () => {
    // Info: the game service's request lines are among the logs it sends.
    await withNpmStart({ LOG_LEVEL: 'info' }, async ({ dataDir, ports, output }) => {
      const observability = `http://127.0.0.1:${ports.observability}`;
      await eventually('observability-service ready', async () => ((await fetch(`${observability}/readyz`)).ok ? true : undefined), 150_000);
      const setup = await fetch(`${observability}/api/v1/auth/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'first@example.com', password: 'correct horse battery staple', name: 'First User' }),
      });
      expect(setup.status).toBeLessThan(300);
      const cookie = /obs_session=[^;]+/.exec(setup.headers.get('set-cookie') ?? '')![0];
      const read = async <T>(path: string): Promise<T> => {
        const response = await fetch(`${observability}${path}`, { headers: { cookie } });
        if (!response.ok) throw new Error(`${path}: ${response.status}`);
        return (await response.json()) as T;
      };

      // Within a minute of the first user: game-service is listed, with a run submission that a
      // demo player's round started, and the SQL of it under the game service's server span.
      const found = await eventually(
        'a demo round, the game service\'s server span in it and SQL under that',
        async () => {
          const { services } = await read<{ services: Array<{ service: string }> }>('/api/v1/services');
          if (!services.some((row) => row.service === 'game-service')) return undefined;
          const { items } = await read<{ items: Array<{ traceId: string; operation: string; kind: string }> }>('/api/v1/occurrences?service=game-service&limit=200');
          for (const traceId of new Set(items.filter((item) => item.kind === 'server' && item.operation.startsWith('POST /v1/games/:gameId/runs')).map((item) => item.traceId))) {
            const { spans } = await read<{ spans: StoredSpan[] }>(`/api/v1/traces/${traceId}`);
            const server = spans.find((span) => span.service === 'game-service' && span.kind === 'server');
            const round = spans.find((span) => span.service === 'demo-game');
            const sql = spans.filter((span) => span.db !== null && span.parentSpanId === server?.spanId);
            if (server && round && sql.length > 0) return { services, spans, server, round, sql };
          }
          return undefined;
        },
        60_000,
      );
      expect(found.sql[0]!.db!.system).toBe('sqlite');
      expect(found.round.operation).toMatch(/^play (demo|tiles)$/);
      // The server span descends from the demo round: one trace from the client into the service.
      const byId = new Map(found.spans.map((span) => [span.spanId, span]));
      let ancestor = found.server.parentSpanId ? byId.get(found.server.parentSpanId) : undefined;
      while (ancestor && ancestor.service !== 'demo-game') ancestor = ancestor.parentSpanId ? byId.get(ancestor.parentSpanId) : undefined;
      expect(ancestor?.spanId).toBe(found.round.spanId);

      // The observability service traces its own dashboard and API requests into itself, never
      // its ingest (the game service's exports arrive all the while).
      const own = await eventually(
        'the observability service\'s own server spans',
        async () => {
          const { items } = await read<{ items: Array<{ operation: string; kind: string }> }>('/api/v1/occurrences?service=observability-service&limit=200');
          return items.some((item) => item.kind === 'server' && item.operation === 'GET /api/v1/services') ? items : undefined;
        },
        30_000,
      );
      expect(own.filter((item) => /^POST \/(v1\/(traces|logs)|api\/v1\/ingest)$/.test(item.operation))).toEqual([]);

      // The game service's log lines arrive as log records, tied to the traces of their requests.
      const gameLogs = await eventually(
        'the game service\'s log records',
        async () => {
          const { items } = await read<{ items: Array<{ body: unknown; traceId: string | null }> }>('/api/v1/logs?service=game-service&limit=200');
          return items.some((item) => item.traceId) ? items : undefined;
        },
        30_000,
      );
      expect(gameLogs.length).toBeGreaterThan(0);

      // The key the launcher made: owner-only, in DATA_DIR, never printed whole.
      const keyFile = join(dataDir, 'game-service-ingestion.key');
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const key = readFileSync(keyFile, 'utf8').trim();
      expect(key).toMatch(/^obsk_/);
      expect(output()).toContain(key.slice(0, 13));
      expect(output()).not.toContain(key);
    });
  },
  240_000,
);

it(
  '`DEMO_TRAFFIC=0 npm start`: no demo players, the game service still reports to the observability service',
  async () => {
    await withNpmStart({ DEMO_TRAFFIC: '0' }, async ({ dataDir, ports, pid, output }) => {
      for (const port of [ports.game, ports.observability]) {
        await eventually(`port ${port} ready`, async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok ? true : undefined), 150_000);
      }
      // What the launcher started: the two services, and no demo players.
      const rows = execFileSync('ps', ['-ww', '-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
        .split('\n')
        .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
        .filter((match): match is RegExpExecArray => match !== null);
      const family = new Set([pid]);
      for (let grew = true; grew; ) {
        grew = false;
        for (const [, pid, parent] of rows) if (family.has(Number(parent)) && !family.has(Number(pid))) grew = Boolean(family.add(Number(pid)));
      }
      const started = rows.filter(([, pid]) => family.has(Number(pid))).map(([, , , args]) => args!);
      expect(started.some((args) => args.includes('game-service/dist/main.js'))).toBe(true);
      expect(started.filter((args) => args.includes('traffic.mjs'))).toEqual([]);
      expect(output()).not.toContain('demo players');
      expect(output()).toContain('game-service sends its traces to observability-service');
      expect(statSync(join(dataDir, 'game-service-ingestion.key')).mode & 0o777).toBe(0o600);
    });
  },
  240_000,
);
