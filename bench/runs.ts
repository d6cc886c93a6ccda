// Run submissions over HTTP: accepted runs per second and p50/p99 latency of
// POST /v1/games/demo/runs/score (bounded-score, six leaderboard writes per run), on SQLite
// (WAL, synchronous=normal and =full: durable commits) and on PostgreSQL, each beside the
// ceiling of a bare Fastify route taking the same body and answering the same response.
//
//   npx tsx --conditions=source bench/runs.ts
//
// Each server under test runs in a child process, so it has a core of its own while autocannon
// drives it from this one. All are started at once (each with players of its own, UUID player
// ids, a random UUID runId per request) and measured in BENCH_ROUNDS (default 3) alternating
// rounds beside the ceiling: each round's ratio is the server's runs/s over the ceiling's of
// that round, and the median of the rounds is printed (PostgreSQL also over SQLite's
// synchronous=normal of the same round). The server's own CPU time per accepted run is printed
// too: on a machine shared with other work it is the figure that depends least on what else runs.
// BENCH_DURATION_S (default 10) and BENCH_CONNECTIONS (default 64) set the load;
// BENCH_DATABASE_URL (or TEST_DATABASE_URL) adds the PostgreSQL run, in a schema of its own that
// is dropped afterwards (BENCH_PG_UNPREPARED=1 adds it once more with DATABASE_PREPARED_STATEMENTS=off);
// BENCH_TARGET_NODE_ARGS adds Node flags to the servers (e.g.
// "--cpu-prof --cpu-prof-dir=/tmp/prof"). BENCH_TRACING=1 measures instead the cost of the service tracing itself
// on SQLite (synchronous=normal): off, 10% and 100% sampled side by side with the ceiling, in
// BENCH_ROUNDS (default 5) alternating rounds of BENCH_DURATION_S (support/tracing-cost.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { buildApp, loadGameConfig } from '@playstack/game-service';
import {
  listenInChild,
  combineRounds,
  measureAlternating,
  median,
  serveOrRun,
  printTable,
  serviceNodeFlags,
  startChildServer,
  type ChildServer,
  type LoadFigures,
} from './support/http-load.js';
import { onPostgres, withTempDir } from './support/scratch.js';
import { applyTracingVariant, printTracingCost, tracingCostRequested, tracingVariants, withOtlpSink } from './support/tracing-cost.js';

const durationSeconds = Number(process.env.BENCH_DURATION_S ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
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
      body: JSON.stringify({ authorizationCode: `dev:bench-${randomUUID()}` }),
    });
    if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
    tokens.push(((await response.json()) as { accessToken: string }).accessToken);
  }
  return tokens;
}

/** POST runPath with a random UUID runId and a rotating player per request. */
function submissions(tokens: readonly string[]) {
  let sequence = 0;
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
            runId: randomUUID(),
            payload: { score: (sequence * 7919) % 1_000_000, durationMs: 60_000 + (sequence % 1000) },
          }),
        };
      },
    },
  ];
}

/** The game service's production Node flags, for it and for its ceiling alike. */
const gameNodeFlags = [...serviceNodeFlags('game-service'), ...(process.env.BENCH_TARGET_NODE_ARGS ?? '').split(' ').filter(Boolean)];

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

interface Variant {
  name: string;
  env: Record<string, string>;
}

/** The variants, all up at once with the ceiling, measured in alternating rounds. */
async function benchAlternating(variants: readonly Variant[]): Promise<void> {
  const started: Array<ChildServer<unknown>> = [];
  try {
    const prepared: Array<{ tokens: string[]; sampleBody: string }> = [];
    for (const variant of variants) {
      const server = await startChildServer(script, { role: 'game', env: variant.env } satisfies ServeRequest, gameNodeFlags);
      started.push(server);
      prepared.push(await prepare(server));
    }
    const ceiling = await startChildServer(script, { role: 'ceiling', responseBody: prepared[0]!.sampleBody } satisfies ServeRequest, gameNodeFlags);
    started.push(ceiling);
    const servers = [
      ...variants.map((v, i) => ({ name: v.name, server: started[i]!, requests: submissions(prepared[i]!.tokens) })),
      { name: 'ceiling: bare Fastify route, same body and response', server: ceiling, requests: submissions(['no-token']) },
    ];
    const measured = await measureAlternating(servers, { connections, durationSeconds, rounds, requests: [] });
    const ceilingRounds = measured[variants.length]!;
    const ratiosTo = (of: readonly LoadFigures[], to: readonly LoadFigures[]) => of.map((r, round) => r.perSecond / to[round]!.perSecond);
    console.log(`\n${connections} connections, ${rounds} alternating rounds of ${durationSeconds} s per server, ${playerCount} players each (UUID ids), a ~90-byte body with a random UUID runId per request\n`);
    printTable([
      ...variants.map((_, i) => ({ figures: combineRounds(measured[i]!), ratios: ratiosTo(measured[i]!, ceilingRounds) })),
      { figures: combineRounds(ceilingRounds) },
    ]);
    const postgres = variants.findIndex((v) => v.env.DATABASE_URL !== undefined);
    if (postgres >= 0) {
      const ratios = ratiosTo(measured[postgres]!, measured[0]!);
      console.log(`\nPostgreSQL over ${variants[0]!.name}, per round: ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`);
    }
  } finally {
    for (const server of started) await server.stop();
  }
}

async function main(): Promise<void> {
  if (tracingCostRequested) {
    await benchTracingCost();
    return;
  }
  await withTempDir('bench-runs-', async (dir) => {
    const variants: Variant[] = (['normal', 'full'] as const).map((synchronous) => {
      const dataDir = join(dir, synchronous);
      mkdirSync(dataDir);
      return { name: `runs, SQLite (WAL, synchronous=${synchronous})`, env: { DATA_DIR: dataDir, SQLITE_SYNCHRONOUS: synchronous } };
    });
    const withPostgres = await onPostgres({ dirPrefix: 'bench-runs-', schemaPrefix: 'bench_runs_' }, async (env) => {
      // BENCH_PG_UNPREPARED=1: PostgreSQL also with every statement sent unnamed (parsed and planned each time).
      const unprepared = process.env.BENCH_PG_UNPREPARED === '1' ? [{ name: 'runs, PostgreSQL, no prepared statements', env: { ...env, DATABASE_PREPARED_STATEMENTS: 'off' } }] : [];
      await benchAlternating([...variants, { name: 'runs, PostgreSQL', env }, ...unprepared]);
      return true;
    });
    if (!withPostgres) await benchAlternating(variants);
  });
}

await serveOrRun(serve, main);
