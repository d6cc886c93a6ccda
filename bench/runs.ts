// Run submissions over HTTP: accepted runs per second and p50/p99 latency of
// POST /v1/games/demo/runs/score (bounded-score, six leaderboard writes per run), on SQLite
// (WAL, synchronous=normal and =full: durable commits) and on PostgreSQL, each beside the
// ceiling of a bare Fastify route taking the same body and answering the same response.
//
//   npx tsx --conditions=source bench/runs.ts
//
// The server under test runs in a child process, so it has a core of its own while autocannon
// drives it from this one. The server's own CPU time per accepted run is printed too: on a
// machine shared with other work it is the figure that does not depend on what else runs
// (runs per CPU-second is what one core gives when it is the server's alone).
// BENCH_DURATION_S (default 10) and BENCH_CONNECTIONS (default 64) set the load;
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) adds the PostgreSQL run, in a schema of its own that
// is dropped afterwards. BENCH_TRACING=1 measures instead the cost of the service tracing itself
// on SQLite (synchronous=normal): off, 10% and 100% sampled side by side with the ceiling, in
// BENCH_ROUNDS (default 5) alternating rounds of BENCH_DURATION_S (support/tracing-cost.ts).
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { buildApp, loadGameConfig } from '@playstack/game-service';
import {
  listenInChild,
  measureAlternating,
  serveOrRun,
  measureWithCpu,
  printTable,
  serviceNodeFlags,
  startChildServer,
  withChildServer,
  type ChildServer,
  type LoadFigures,
} from './support/http-load.js';
import { onPostgres, withTempDir } from './support/scratch.js';
import { applyTracingVariant, printTracingCost, tracingCostRequested, tracingVariants, withOtlpSink } from './support/tracing-cost.js';

const durationSeconds = Number(process.env.BENCH_DURATION_S ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const playerCount = 500;
const runPath = '/v1/games/demo/runs/score';
const unlimited = { GAME_AUTH_RATE_LIMIT_MAX: '1000000', GAME_PLAYER_RATE_LIMIT_MAX: '1000000', GAME_RUN_RATE_LIMIT_MAX: '1000000' };

/** What the parent asks a child to serve. */
type ServeRequest = { role: 'game'; env: Record<string, string>; otel?: Record<string, string> } | { role: 'ceiling'; responseBody: string };

// ---------------------------------------------------------------------------------------------
// Child process: the game service, or the bare ceiling route, on an ephemeral port.

async function serve(request: ServeRequest): Promise<void> {
  if (request.role === 'game') {
    applyTracingVariant(request.otel);
    await listenInChild(await buildApp(loadGameConfig({ ...request.env, ...unlimited, LOG_LEVEL: 'silent', GAME_DEV_AUTH: '1' })));
    return;
  }
  // The ceiling: the same framework, body parsing and response bytes, no work.
  const app = Fastify({ logger: false, bodyLimit: 256 * 1024 });
  app.post('/v1/games/:gameId/runs/:adapterId', async (_request, reply) => reply.type('application/json; charset=utf-8').send(request.responseBody));
  await listenInChild(app);
}

// ---------------------------------------------------------------------------------------------
// Parent: starts servers, signs players in, drives load, prints figures.

const script = fileURLToPath(import.meta.url);

async function signIn(baseUrl: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const response = await fetch(`${baseUrl}/v1/games/demo/auth/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ authorizationCode: `dev:bench-${i}` }),
    });
    if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
    tokens.push(((await response.json()) as { accessToken: string }).accessToken);
  }
  return tokens;
}

/** POST runPath with a fresh runId and a rotating player per request. */
function submissions(tokens: readonly string[]) {
  let sequence = 0;
  const prefix = randomBytes(4).toString('hex');
  return [
    {
      method: 'POST',
      path: runPath,
      setupRequest: (request: { method: string; path: string }) => {
        sequence += 1;
        return {
          ...request,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[sequence % tokens.length]}` },
          body: JSON.stringify({
            runId: `${prefix}-${sequence.toString(36).padStart(8, '0')}`,
            payload: { score: (sequence * 7919) % 1_000_000, durationMs: 60_000 + (sequence % 1000) },
          }),
        };
      },
    },
  ];
}

/** The game service's production Node flags, for it and for its ceiling alike. */
const gameNodeFlags = serviceNodeFlags('game-service');

async function load(name: string, server: ChildServer<unknown>, tokens: readonly string[]): Promise<LoadFigures> {
  return measureWithCpu(name, server, { connections, durationSeconds, requests: submissions(tokens) });
}

/** Signs the players in and submits a first run: the tokens, and the body the ceiling answers with. */
async function prepare(server: ChildServer<unknown>): Promise<{ tokens: string[]; sampleBody: string }> {
  const tokens = await signIn(server.baseUrl, playerCount);
  const sample = await fetch(`${server.baseUrl}${runPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[0]}` },
    body: JSON.stringify({ runId: `warmup-${randomBytes(6).toString('hex')}`, payload: { score: 1234, durationMs: 60_000 } }),
  });
  const sampleBody = await sample.text();
  if (sample.status !== 200) throw new Error(`warm-up run failed: ${sample.status} ${sampleBody}`);
  return { tokens, sampleBody };
}

async function benchGame(name: string, env: Record<string, string>): Promise<{ figures: LoadFigures; sampleBody: string }> {
  return withChildServer<unknown, { figures: LoadFigures; sampleBody: string }>(
    script,
    { role: 'game', env } satisfies ServeRequest,
    async (server) => {
      const { tokens, sampleBody } = await prepare(server);
      return { figures: await load(name, server, tokens), sampleBody };
    },
    gameNodeFlags,
  );
}

/**
 * The cost of tracing: the service with tracing off, on at 10% and on at 100% (exporting to a
 * sink), each with a SQLite file of its own, all up at once with the ceiling, measured in
 * alternating rounds (each signs in its own players; the same load generator drives all).
 */
async function benchTracingCost(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
  await withOtlpSink(async (sink) => {
    const variants = tracingVariants(sink.url);
    await withTempDir('bench-runs-tracing-', async (dir) => {
      const started: Array<ChildServer<unknown>> = [];
      try {
        const prepared: Array<{ tokens: string[]; sampleBody: string }> = [];
        for (const [i, variant] of variants.entries()) {
          const dataDir = join(dir, String(i));
          mkdirSync(dataDir);
          const server = await startChildServer(script, { role: 'game', env: { DATA_DIR: dataDir, SQLITE_SYNCHRONOUS: 'normal' }, otel: variant.otel } satisfies ServeRequest, gameNodeFlags);
          started.push(server);
          prepared.push(await prepare(server));
        }
        const ceiling = await startChildServer(script, { role: 'ceiling', responseBody: prepared[0]!.sampleBody } satisfies ServeRequest, gameNodeFlags);
        started.push(ceiling);
        // Each server is driven with its own players' tokens.
        const servers = [...variants.map((v, i) => ({ name: v.label, server: started[i]!, requests: submissions(prepared[i]!.tokens) })), { name: 'ceiling', server: ceiling, requests: submissions(['no-token']) }];
        const measuredRounds = await measureAlternating(servers, { connections, durationSeconds, rounds, requests: [] });
        console.log(`\n${connections} connections, ${rounds} rounds of ${durationSeconds} s per variant, alternating; SQLite (WAL, synchronous=normal); ${sink.received.requests} OTLP exports (${(sink.received.bytes / 1024 / 1024).toFixed(1)} MiB) received by the sink\n`);
        printTracingCost([{ scenario: 'runs', variants: variants.map((v, i) => ({ label: v.label, rounds: measuredRounds[i]! })), ceiling: measuredRounds[variants.length]! }]);
      } finally {
        for (const server of started) await server.stop();
      }
    });
  });
}

async function benchCeiling(responseBody: string): Promise<LoadFigures> {
  return withChildServer<unknown, LoadFigures>(
    script,
    { role: 'ceiling', responseBody } satisfies ServeRequest,
    (server) => load('ceiling: bare Fastify route, same body and response', server, ['no-token']),
    gameNodeFlags,
  );
}

async function main(): Promise<void> {
  if (tracingCostRequested) {
    await benchTracingCost();
    return;
  }
  const rows: LoadFigures[] = [];
  let sampleBody = '';
  for (const synchronous of ['normal', 'full'] as const) {
    const outcome = await withTempDir('bench-runs-', (dir) => benchGame(`runs, SQLite (WAL, synchronous=${synchronous})`, { DATA_DIR: dir, SQLITE_SYNCHRONOUS: synchronous }));
    rows.push(outcome.figures);
    sampleBody = outcome.sampleBody;
  }
  const postgres = await onPostgres({ dirPrefix: 'bench-runs-', schemaPrefix: 'bench_runs_' }, (env) => benchGame('runs, PostgreSQL', env));
  if (postgres) rows.push(postgres.figures);
  const ceiling = await benchCeiling(sampleBody);
  console.log(`\n${connections} connections, ${durationSeconds} s each, ${playerCount} players, a ~80-byte body with a new runId per request\n`);
  printTable([...rows.map((figures) => ({ figures, ceiling })), { figures: ceiling }]);
}

await serveOrRun(serve, main);
