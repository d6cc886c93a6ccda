// Player sessions over HTTP: sign-ins (POST /auth/exchange, dev provider) and refresh-token
// rotations (POST /auth/refresh, each connection presenting the token it last received, 50 per
// sign-in) per second with p50/p99 latency, on SQLite and (with BENCH_DATABASE_URL or TEST_DATABASE_URL) on
// PostgreSQL, next to the ceiling of a bare Fastify route taking the same body and answering a
// session-sized response.
//
//   npx tsx --conditions=source bench/sessions.ts
//
// Each server runs in a child process, so it has a core of its own while autocannon drives it
// from this one. All are started at once and measured in BENCH_ROUNDS (default 3) alternating
// rounds beside the ceiling (each round's ratio is over the ceiling's of that round; the median is
// printed). Every sign-in is a new player with a random UUID name. BENCH_DURATION_S (default 5)
// and BENCH_CONNECTIONS (default 32) set the load; BENCH_TARGET_NODE_ARGS adds Node flags to the
// servers (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { buildApp, loadGameConfig } from '@playstack/game-service';
import {
  combineRounds,
  listenInChild,
  measureAlternating,
  printTable,
  serveOrRun,
  serviceNodeFlags,
  startChildServer,
  type ChildServer,
  type LoadFigures,
  type LoadRequest,
} from './support/http-load.js';
import { onPostgres, withTempDir } from './support/scratch.js';

/** autocannon's per-connection context: the refresh token the connection last received. */
type Context = { refreshToken?: string };

const durationSeconds = Number(process.env.BENCH_DURATION_S ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
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

/** Sign-ins, each with a new player (a random UUID name), so each inserts a player and a family. */
function exchangeRequests(): Array<LoadRequest<Context>> {
  return [
    {
      method: 'POST',
      path: '/v1/games/demo/auth/exchange',
      setupRequest: (request) => ({ ...request, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ authorizationCode: `dev:${randomUUID()}` }) }),
    },
  ];
}

/**
 * Rotations: each connection signs in, then presents the refresh token it last received
 * `rotationsPerSignIn` times. (autocannon resets a connection's context after its request list,
 * so the list is one sign-in followed by the rotations.)
 */
function refreshRequests(): Array<LoadRequest<Context>> {
  const keepToken = (status: number, body: string, context: Context) => {
    context.refreshToken = status === 200 ? (JSON.parse(body) as { refreshToken?: string }).refreshToken : undefined;
  };
  const signIn: LoadRequest<Context> = { ...exchangeRequests()[0]!, onResponse: keepToken };
  const rotate: LoadRequest<Context> = {
    method: 'POST',
    path: '/v1/games/demo/auth/refresh',
    setupRequest: (request, context) => ({
      ...request,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: context.refreshToken ?? 'missing-refresh-token' }),
    }),
    onResponse: keepToken,
  };
  return [signIn, ...Array.from({ length: rotationsPerSignIn }, () => rotate)];
}

/** The game service's production Node flags, for it and for its ceiling alike. */
const gameNodeFlags = [...serviceNodeFlags('game-service'), ...(process.env.BENCH_TARGET_NODE_ARGS ?? '').split(' ').filter(Boolean)];

/** The servers, all up at once with the ceiling, measured in alternating rounds for each scenario. */
async function benchAlternating(variants: ReadonlyArray<{ label: string; env: Record<string, string> }>): Promise<void> {
  const started: Array<ChildServer<unknown>> = [];
  try {
    let sampleBody = '';
    for (const variant of variants) {
      const server = await startChildServer(script, { role: 'game', env: variant.env } satisfies ServeRequest, gameNodeFlags);
      started.push(server);
      const sample = await exchange(server.baseUrl, 'sample');
      if (sample.status !== 200) throw new Error(`sign-in failed: ${sample.status} ${sample.body}`);
      sampleBody = sample.body;
    }
    const ceiling = await startChildServer(script, { role: 'ceiling', responseBody: sampleBody } satisfies ServeRequest, gameNodeFlags);
    started.push(ceiling);
    const rows: Array<{ figures: LoadFigures; ratios?: number[] }> = [];
    const scenarios = [
      { title: 'exchange (sign-in)', requests: exchangeRequests },
      { title: `sign-in + ${rotationsPerSignIn} refreshes (rotation)`, requests: refreshRequests },
    ];
    for (const scenario of scenarios) {
      const servers = [
        ...variants.map((v, i) => ({ name: `${scenario.title}, ${v.label}`, server: started[i]!, requests: scenario.requests() })),
        { name: `ceiling of ${scenario.title}: bare Fastify route, same body and response`, server: ceiling, requests: scenario.requests() },
      ];
      const measured = await measureAlternating(servers, { connections, durationSeconds, rounds, requests: [] });
      const ceilingRounds = measured[variants.length]!;
      for (const [i] of variants.entries()) rows.push({ figures: combineRounds(measured[i]!), ratios: measured[i]!.map((r, round) => r.perSecond / ceilingRounds[round]!.perSecond) });
      rows.push({ figures: combineRounds(ceilingRounds) });
    }
    console.log(`\n${connections} connections, ${rounds} alternating rounds of ${durationSeconds} s per server\n`);
    printTable(rows);
  } finally {
    for (const server of started) await server.stop();
  }
}

async function main(): Promise<void> {
  await withTempDir('bench-sessions-', async (dir) => {
    const sqlite = { label: 'SQLite', env: { DATA_DIR: dir } };
    const withPostgres = await onPostgres({ dirPrefix: 'bench-sessions-', schemaPrefix: 'bench_sessions_' }, async (env) => {
      await benchAlternating([sqlite, { label: 'PostgreSQL', env }]);
      return true;
    });
    if (!withPostgres) await benchAlternating([sqlite]);
  });
}

await serveOrRun(serve, main);
