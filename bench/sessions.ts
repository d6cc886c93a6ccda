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
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { buildApp, loadGameConfig } from '@playstack/game-service';
import { listenInChild, serveOrRun, measure, printTable, serviceNodeFlags, withChildServer, type LoadFigures, type LoadRequest } from './support/http-load.js';
import { onPostgres, withTempDir } from './support/scratch.js';

/** autocannon's per-connection context: the refresh token the connection last received. */
type Context = { refreshToken?: string };

const durationSeconds = Number(process.env.BENCH_DURATION_S ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const rotationsPerSignIn = 50;
const script = fileURLToPath(import.meta.url);

type ServeRequest = { role: 'game'; env: Record<string, string> } | { role: 'ceiling'; responseBody: string };

async function serve(request: ServeRequest): Promise<void> {
  if (request.role === 'game') {
    await listenInChild(
      await buildApp(
        loadGameConfig({ ...request.env, LOG_LEVEL: 'silent', GAME_DEV_AUTH: '1', GAME_AUTH_RATE_LIMIT_MAX: '1000000', GAME_PLAYER_RATE_LIMIT_MAX: '1000000' }),
      ),
    );
    return;
  }
  // The same framework, body parsing and response size, no work.
  const ceiling = Fastify({ logger: false });
  ceiling.post('/v1/games/:gameId/auth/:operation', async (_req, reply) => reply.type('application/json; charset=utf-8').send(request.responseBody));
  await listenInChild(ceiling);
}

async function exchange(baseUrl: string, name: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${baseUrl}/v1/games/demo/auth/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ authorizationCode: `dev:${name}` }),
  });
  return { status: response.status, body: await response.text() };
}

/** Sign-ins, each with a new player name (so each inserts a player and a family). */
async function loadExchange(name: string, baseUrl: string): Promise<LoadFigures> {
  let sequence = 0;
  const prefix = randomBytes(3).toString('hex');
  return measure(name, baseUrl, {
    connections,
    durationSeconds,
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
}

/**
 * Rotations: each connection signs in, then presents the refresh token it last received
 * `rotationsPerSignIn` times. (autocannon resets a connection's context after its request list,
 * so the list is one sign-in followed by the rotations.)
 */
async function loadRefresh(name: string, baseUrl: string): Promise<LoadFigures & { rotations: number }> {
  let sequence = 0;
  let rotations = 0;
  const prefix = randomBytes(3).toString('hex');
  const keepToken = (status: number, body: string, context: Context) => {
    context.refreshToken = status === 200 ? (JSON.parse(body) as { refreshToken: string }).refreshToken : undefined;
  };
  const signIn: LoadRequest<Context> = {
    method: 'POST',
    path: '/v1/games/demo/auth/exchange',
    setupRequest: (request) => {
      sequence += 1;
      return { ...request, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ authorizationCode: `dev:${prefix}-r${sequence}` }) };
    },
    onResponse: keepToken,
  };
  const rotate: LoadRequest<Context> = {
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
  const figures = await measure(name, baseUrl, {
    connections,
    durationSeconds,
    requests: [signIn, ...Array.from({ length: rotationsPerSignIn }, () => rotate)],
  });
  return { ...figures, rotations: rotations / figures.seconds };
}

/** The game service's production Node flags, for it and for its ceiling alike. */
const gameNodeFlags = serviceNodeFlags('game-service');

async function benchGame(label: string, env: Record<string, string>): Promise<{ rows: LoadFigures[]; sampleBody: string }> {
  return withChildServer<unknown, { rows: LoadFigures[]; sampleBody: string }>(script, { role: 'game', env } satisfies ServeRequest, async (server) => {
    const sample = await exchange(server.baseUrl, 'sample');
    if (sample.status !== 200) throw new Error(`sign-in failed: ${sample.status} ${sample.body}`);
    const signIns = await loadExchange(`exchange (sign-in), ${label}`, server.baseUrl);
    const refresh = await loadRefresh(`sign-in + ${rotationsPerSignIn} refreshes (rotation), ${label}`, server.baseUrl);
    console.log(`${label}: ${Math.round(refresh.rotations)} successful rotations/s`);
    return { rows: [signIns, refresh], sampleBody: sample.body };
  }, gameNodeFlags);
}

async function main(): Promise<void> {
  const rows: LoadFigures[] = [];
  const sqlite = await withTempDir('bench-sessions-', (dir) => benchGame('SQLite', { DATA_DIR: dir }));
  rows.push(...sqlite.rows);
  const postgres = await onPostgres({ dirPrefix: 'bench-sessions-', schemaPrefix: 'bench_sessions_' }, (env) => benchGame('PostgreSQL', env));
  if (postgres) rows.push(...postgres.rows);
  const ceiling = await withChildServer<unknown, LoadFigures>(
    script,
    { role: 'ceiling', responseBody: sqlite.sampleBody } satisfies ServeRequest,
    (server) => loadExchange('ceiling: bare Fastify route, same body and response', server.baseUrl),
    gameNodeFlags,
  );

  console.log(`\n${connections} connections, ${durationSeconds} s each\n`);
  printTable([...rows.map((figures) => ({ figures, ceiling })), { figures: ceiling }]);
}

await serveOrRun(serve, main);
