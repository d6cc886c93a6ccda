// Player sessions over HTTP: sign-ins (POST /auth/exchange, dev provider) and refresh-token
// rotations (POST /auth/refresh, each connection presenting the token it last received, 50 per
// sign-in) per second with p50/p99 latency, on SQLite and (with BENCH_DATABASE_URL or TEST_DATABASE_URL) on
// PostgreSQL, next to the ceiling of a bare Fastify route taking the same body and answering a
// session-sized response.
//
//   npx tsx --conditions=source bench/sessions.ts
//
// The server under test runs in a child process, so it has a core of its own while autocannon
// drives it from this one. BENCH_DURATION_S (default 5) and BENCH_CONNECTIONS (default 32) set
// the load.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp, loadGameConfig } from '@playstack/game-service';

// autocannon ships no types; these are the parts used here, kept local to this file.
type Context = { refreshToken?: string };
interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: LoadRequest, context: Context) => LoadRequest;
  onResponse?: (status: number, body: string, context: Context) => void;
}
interface LoadResult {
  duration: number;
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
  requests: LoadRequest[];
}) => Promise<LoadResult>;

const durationSeconds = Number(process.env.BENCH_DURATION_S ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const rotationsPerSignIn = 50;

type ServeRequest = { role: 'game'; env: Record<string, string> } | { role: 'ceiling'; responseBody: string };

async function serve(request: ServeRequest): Promise<void> {
  let app: Pick<FastifyInstance, 'listen' | 'server' | 'close'>;
  if (request.role === 'game') {
    app = await buildApp(
      loadGameConfig({ ...request.env, LOG_LEVEL: 'silent', GAME_DEV_AUTH: '1', GAME_AUTH_RATE_LIMIT_MAX: '1000000', GAME_PLAYER_RATE_LIMIT_MAX: '1000000' }),
    );
  } else {
    // The same framework, body parsing and response size, no work.
    const ceiling = Fastify({ logger: false });
    ceiling.post('/v1/games/:gameId/auth/:operation', async (_req, reply) => reply.type('application/json; charset=utf-8').send(request.responseBody));
    app = ceiling;
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send!({ port: (app.server.address() as { port: number }).port });
  process.on('message', () => void app.close().then(() => process.exit(0)));
}

if (process.argv[2] === 'serve') {
  process.once('message', (request: ServeRequest) => void serve(request));
} else {
  await main();
}

interface Server {
  baseUrl: string;
  stop(): Promise<void>;
}

async function startChild(request: ServeRequest): Promise<Server> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['serve'], {
    execArgv: ['--import', 'tsx', '--conditions=source'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
    child.send(request);
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

async function exchange(baseUrl: string, name: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${baseUrl}/v1/games/demo/auth/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ authorizationCode: `dev:${name}` }),
  });
  return { status: response.status, body: await response.text() };
}

interface Figures {
  name: string;
  ok: number;
  other: number;
  perSecond: number;
  p50: number;
  p99: number;
}

function figures(name: string, result: LoadResult): Figures {
  return {
    name,
    ok: result['2xx'],
    other: result.non2xx + result.errors + result.timeouts,
    perSecond: result['2xx'] / (result.duration || durationSeconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

/** Sign-ins, each with a new player name (so each inserts a player and a family). */
async function loadExchange(name: string, baseUrl: string): Promise<Figures> {
  let sequence = 0;
  const prefix = randomBytes(3).toString('hex');
  const result = await autocannon({
    url: baseUrl,
    connections,
    duration: durationSeconds,
    requests: [
      {
        method: 'POST',
        path: '/v1/games/demo/auth/exchange',
        setupRequest: (request) => {
          sequence += 1;
          return { ...request, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ authorizationCode: `dev:${prefix}-${sequence}` }) };
        },
      },
    ],
  });
  return figures(name, result);
}

/**
 * Rotations: each connection signs in, then presents the refresh token it last received
 * `rotationsPerSignIn` times. (autocannon resets a connection's context after its request list,
 * so the list is one sign-in followed by the rotations.)
 */
async function loadRefresh(name: string, baseUrl: string): Promise<Figures & { rotations: number }> {
  let sequence = 0;
  let rotations = 0;
  const prefix = randomBytes(3).toString('hex');
  const keepToken = (status: number, body: string, context: Context) => {
    context.refreshToken = status === 200 ? (JSON.parse(body) as { refreshToken: string }).refreshToken : undefined;
  };
  const signIn: LoadRequest = {
    method: 'POST',
    path: '/v1/games/demo/auth/exchange',
    setupRequest: (request) => {
      sequence += 1;
      return { ...request, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ authorizationCode: `dev:${prefix}-r${sequence}` }) };
    },
    onResponse: keepToken,
  };
  const rotate: LoadRequest = {
    method: 'POST',
    path: '/v1/games/demo/auth/refresh',
    setupRequest: (request, context) => ({
      ...request,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: context.refreshToken ?? 'missing-refresh-token' }),
    }),
    onResponse: (status, body, context) => {
      if (status === 200) rotations += 1;
      keepToken(status, body, context);
    },
  };
  const result = await autocannon({
    url: baseUrl,
    connections,
    duration: durationSeconds,
    requests: [signIn, ...Array.from({ length: rotationsPerSignIn }, () => rotate)],
  });
  return { ...figures(name, result), rotations: rotations / (result.duration || durationSeconds) };
}

async function benchGame(label: string, env: Record<string, string>): Promise<{ rows: Figures[]; sampleBody: string }> {
  const server = await startChild({ role: 'game', env });
  try {
    const sample = await exchange(server.baseUrl, 'sample');
    if (sample.status !== 200) throw new Error(`sign-in failed: ${sample.status} ${sample.body}`);
    const signIns = await loadExchange(`exchange (sign-in), ${label}`, server.baseUrl);
    const refresh = await loadRefresh(`sign-in + ${rotationsPerSignIn} refreshes (rotation), ${label}`, server.baseUrl);
    console.log(`${label}: ${Math.round(refresh.rotations)} successful rotations/s`);
    return { rows: [signIns, refresh], sampleBody: sample.body };
  } finally {
    await server.stop();
  }
}

async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sessions-'));
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function withPostgresSchema<T>(url: string, body: (schema: string) => Promise<T>): Promise<T> {
  const schema = `bench_sessions_${randomBytes(4).toString('hex')}`;
  try {
    return await body(schema);
  } finally {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
}

async function main(): Promise<void> {
  const rows: Figures[] = [];
  const sqlite = await withTempDir((dir) => benchGame('SQLite', { DATA_DIR: dir }));
  rows.push(...sqlite.rows);
  if (postgresUrl) {
    const postgres = await withTempDir((dir) =>
      withPostgresSchema(postgresUrl, (schema) => benchGame('PostgreSQL', { DATA_DIR: dir, DATABASE_URL: postgresUrl, DATABASE_SCHEMA: schema })),
    );
    rows.push(...postgres.rows);
  } else {
    console.log('(set BENCH_DATABASE_URL=postgres://... to include PostgreSQL)');
  }
  const ceilingServer = await startChild({ role: 'ceiling', responseBody: sqlite.sampleBody });
  let ceiling: Figures;
  try {
    ceiling = await loadExchange('ceiling: bare Fastify route, same body and response', ceilingServer.baseUrl);
  } finally {
    await ceilingServer.stop();
  }

  const pad = (text: string, width: number) => text.padEnd(width);
  const num = (value: number, width: number) => String(Math.round(value)).padStart(width);
  console.log(`\n${connections} connections, ${durationSeconds} s each\n`);
  console.log(`${pad('scenario', 56)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'non-2xx'.padStart(8)} ${'of ceiling'.padStart(11)}`);
  for (const row of [...rows, ceiling]) {
    const ratio = row === ceiling ? '' : `${((row.perSecond / ceiling.perSecond) * 100).toFixed(1)} %`;
    console.log(`${pad(row.name, 56)} ${num(row.perSecond, 8)} ${num(row.p50, 7)} ${num(row.p99, 7)} ${num(row.other, 8)} ${ratio.padStart(11)}`);
  }
}
