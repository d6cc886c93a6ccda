// Leaderboard reads at 1,000,000 entries over HTTP (loopback, keep-alive): requests per second
// and p50/p99 latency of a page (keyset cursor at a random depth), /me and /around-me, each beside
// a bare Fastify route answering the same bytes, body and headers (the ceiling). Also the rank engine's
// rebuild time at boot and its memory per million entries.
//
//   npx tsx --conditions=source bench/leaderboards.ts
//
// BENCH_ENTRIES (default 1000000, a multiple of 500), BENCH_CONNECTIONS (default 16), BENCH_ROUNDS
// (default 3) and BENCH_DURATION_S (default 5, per round) set the size and load. Each scenario and
// its ceiling run in alternating rounds, both servers up, so drift in the shared machine's speed
// hits both alike. BENCH_REDIS_URL adds a run with the Redis rank engine.
// The servers run in child processes so they have a core of their own while autocannon drives them.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { SqliteDatabase } from '@playstack/server-kit';
import { buildApp, loadGameConfig } from '@playstack/game-service';
import { encodeCursor } from '../packages/game-service/src/leaderboards/leaderboard-cursor.js';
import {
  answerControlMessages,
  listenInChild,
  measureAlternating,
  measurePaired,
  printTable,
  serveOrRun,
  serviceNodeFlags,
  startChildServer,
  withChildServer,
  type ChildServer,
  type PairedFigures,
} from './support/http-load.js';
import { withTempDir } from './support/scratch.js';
import { applyTracingVariant, printTracingCost, tracingCostRequested, tracingVariants, withOtlpSink, type TracingCostRow } from './support/tracing-cost.js';

const entryCount = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const durationSeconds = Number(process.env.BENCH_DURATION_S ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const redisUrl = process.env.BENCH_REDIS_URL;
// BENCH_ONLY (e.g. "me,aroundMe") measures only some of page, me and aroundMe.
const endpoints = ['page', 'me', 'aroundMe'] as const;
type Endpoint = (typeof endpoints)[number];
const titles: Record<Endpoint, string> = { page: 'page (limit 25, cursor at random depth)', me: '/me', aroundMe: '/around-me (radius 5)' };
const measured = endpoints.filter((e) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY.split(',').includes(e));
// Both servers run with the game service's production Node flags; BENCH_TARGET_NODE_ARGS adds
// more to both, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const nodeArgs = [...serviceNodeFlags('game-service'), ...(process.env.BENCH_TARGET_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const signedInPlayers = 1_000;
const rowsPerInsert = 500;
const rowsPerTransaction = 100_000;
const gameId = 'bench';
const boardId = 'high';
const board = { id: boardId, name: 'High score', order: 'desc', operator: 'best', periods: ['all'], source: { adapter: 'score', value: 'score' } } as const;
const benchEnv = { LOG_LEVEL: 'silent', GAME_DEV_AUTH: '1', GAME_AUTH_RATE_LIMIT_MAX: '1000000', GAME_PLAYER_RATE_LIMIT_MAX: '1000000' } as const;
const dayMs = 86_400_000;

/** A response as the service sent it: the body and the headers it added beyond HTTP's own. */
interface Sample {
  body: string;
  headers: Record<string, string>;
}
type ServeRequest = { role: 'game'; env: Record<string, string>; otel?: Record<string, string> } | { role: 'ceiling'; samples: Record<Endpoint, Sample> };
interface BootFigures {
  rebuildMs: number;
  heapBytesBefore: number;
  heapBytesAfter: number;
  rssBytesBefore: number;
  rssBytesAfter: number;
}

// ---------------------------------------------------------------------------------------------
// Child process: the game service (timing its rebuild), or the ceiling.

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function serve(request: ServeRequest): Promise<void> {
  if (request.role === 'game') {
    applyTracingVariant(request.otel);
    const app = await buildApp(loadGameConfig({ ...benchEnv, ...request.env }));
    collectGarbage();
    const before = process.memoryUsage();
    const started = performance.now();
    await app.listen({ port: 0, host: '127.0.0.1' });
    // Listening starts the load behind readiness; this joins it.
    await app.leaderboards.loadRankEngine();
    const rebuildMs = performance.now() - started;
    collectGarbage();
    const after = process.memoryUsage();
    const figures: BootFigures = { rebuildMs, heapBytesBefore: before.heapUsed, heapBytesAfter: after.heapUsed, rssBytesBefore: before.rss, rssBytesAfter: after.rss };
    process.send!({ port: (app.server.address() as { port: number }).port, ...figures });
    answerControlMessages(() => app.close());
    return;
  }
  // The ceiling: the same framework and paths answering the same bytes (body and headers), no
  // work. Same headers because the load generator parses every one: fewer would make the ceiling
  // cheaper for the client, not the service slower.
  const app = Fastify({ logger: false });
  const answer = (sample: Sample) => async (_request: unknown, reply: { headers(h: Record<string, string>): { send(b: string): unknown } }) => reply.headers(sample.headers).send(sample.body);
  app.get('/v1/games/:gameId/leaderboards/:boardId', answer(request.samples.page));
  app.get('/v1/games/:gameId/leaderboards/:boardId/me', answer(request.samples.me));
  app.get('/v1/games/:gameId/leaderboards/:boardId/around-me', answer(request.samples.aroundMe));
  await listenInChild(app);
}

// ---------------------------------------------------------------------------------------------
// Parent: seeds, starts servers, drives load, prints figures.

interface SeededPlayer {
  token: string;
  cursor: string;
}

/**
 * Seeds `entryCount` entries (signed-in players among them): batched multi-row inserts, one
 * prepared statement, in transactions of `rowsPerTransaction` rows, straight into the SQLite file.
 */
async function seed(env: Record<string, string>, dataDir: string): Promise<{ players: SeededPlayer[]; seedMs: number }> {
  const started = performance.now();
  const app = await buildApp(loadGameConfig({ ...benchEnv, ...env }));
  const now = app.clock.now();
  const signedIn: Array<{ id: string; token: string }> = [];
  try {
    for (let i = 0; i < signedInPlayers; i++) {
      const response = await app.inject({ method: 'POST', url: `/v1/games/${gameId}/auth/exchange`, payload: { authorizationCode: `dev:bench-${i}` } });
      const session = response.json() as { accessToken: string; player: { id: string } };
      signedIn.push({ id: session.player.id, token: session.accessToken });
    }
  } finally {
    await app.close();
  }
  const file = new SqliteDatabase(join(dataDir, 'game.sqlite'));
  try {
    const placeholders = Array.from({ length: rowsPerInsert }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
    const insert = file.prepare(`insert into leaderboard_entries (game_id, board_id, period, player_id, display_name, score, achieved_at, updated_at) values ${placeholders}`);
    const spacing = Math.floor(entryCount / signedInPlayers);
    const players: SeededPlayer[] = [];
    // Deterministic spread: scores with many ties, times over the last 30 days.
    const values = (i: number): unknown[] => {
      const player = i % spacing === 0 ? signedIn[i / spacing] : undefined;
      const row = { playerId: player?.id ?? `seed-${String(i).padStart(7, '0')}`, score: (i * 7_919) % 5_000_000, achievedAt: now - ((i * 104_729) % (30 * dayMs)) };
      if (player) {
        const cursor = encodeCursor({ gameId, boardId, order: 'desc', period: 'all' }, row);
        players.push({ token: player.token, cursor });
      }
      return [gameId, boardId, 'all', row.playerId, `Player ${i}`, row.score, row.achievedAt, now];
    };
    const insertRange = file.transaction((from: number, to: number) => {
      for (let chunk = from; chunk < to; chunk += rowsPerInsert) {
        const params: unknown[] = [];
        for (let i = chunk; i < chunk + rowsPerInsert; i++) params.push(...values(i));
        insert.run(params);
      }
    });
    for (let from = 0; from < entryCount; from += rowsPerTransaction) insertRange(from, Math.min(from + rowsPerTransaction, entryCount));
    return { players, seedMs: performance.now() - started };
  } finally {
    file.close();
  }
}

const script = fileURLToPath(import.meta.url);
const leaderboardPath = `/v1/games/${gameId}/leaderboards/${boardId}`;

function endpointRequests(players: readonly SeededPlayer[]) {
  let next = 0;
  const pick = () => players[next++ % players.length]!;
  const authorized = (path: (player: SeededPlayer) => string) => ({
    method: 'GET',
    path: leaderboardPath,
    setupRequest: (request: { method: string; path: string }) => {
      const player = pick();
      return { ...request, path: path(player), headers: { authorization: `Bearer ${player.token}` } };
    },
  });
  return {
    page: authorized((p) => `${leaderboardPath}?limit=25&cursor=${p.cursor}`),
    me: authorized(() => `${leaderboardPath}/me`),
    aroundMe: authorized(() => `${leaderboardPath}/around-me?radius=5`),
  };
}

/** Headers Node writes itself; every other header of a sample is replayed by the ceiling. */
const transportHeaders = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

async function sampleResponses(baseUrl: string, player: SeededPlayer): Promise<Record<Endpoint, Sample>> {
  const get = async (path: string): Promise<Sample> => {
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${player.token}` } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body}`);
    return { body, headers: Object.fromEntries([...response.headers].filter(([name]) => !transportHeaders.has(name))) };
  };
  return {
    page: await get(`${leaderboardPath}?limit=25&cursor=${player.cursor}`),
    me: await get(`${leaderboardPath}/me`),
    aroundMe: await get(`${leaderboardPath}/around-me?radius=5`),
  };
}

interface EngineRun {
  label: string;
  rows: Partial<Record<Endpoint, PairedFigures>>;
  samples: Record<Endpoint, Sample>;
  boot: BootFigures;
}

/**
 * Boots the game service with `env`, then measures each endpoint against the ceiling in
 * alternating rounds. The ceiling replays this run's responses; `ceiling` is started on the first
 * call and reused, so every engine is compared with the same bytes.
 */
function benchEngine(label: string, env: Record<string, string>, players: readonly SeededPlayer[], ceiling: { server?: ChildServer<unknown> }): Promise<EngineRun> {
  const request: ServeRequest = { role: 'game', env };
  const requests = endpointRequests(players);
  return withChildServer<BootFigures, EngineRun>(
    script,
    request,
    async (server) => {
      // A player in the middle of the board: a full page after it, neighbours on both sides.
      const samples = await sampleResponses(server.baseUrl, players[Math.floor(players.length / 2)]!);
      ceiling.server ??= await startChildServer(script, { role: 'ceiling', samples } satisfies ServeRequest, nodeArgs);
      const rows: EngineRun['rows'] = {};
      for (const e of measured) {
        rows[e] = await measurePaired(
          { figures: `${label}: ${titles[e]}`, ceiling: `ceiling: bare route, same ${e} response` },
          { figures: server, ceiling: ceiling.server },
          { connections, durationSeconds, rounds, requests: [requests[e]] },
        );
      }
      return { label, rows, samples, boot: server.info };
    },
    ['--expose-gc', '--max-old-space-size=4096', ...nodeArgs],
  );
}

/**
 * The cost of tracing: the service with tracing off, on at 10% and on at 100% (exporting to a
 * sink), all up at once with the ceiling, each endpoint measured on the four in alternating rounds.
 */
async function benchTracingCost(env: Record<string, string>, players: readonly SeededPlayer[]): Promise<void> {
  const requests = endpointRequests(players);
  const gameArgs = ['--expose-gc', '--max-old-space-size=4096', ...nodeArgs];
  await withOtlpSink(async (sink) => {
    const variants = tracingVariants(sink.url);
    const started: Array<ChildServer<BootFigures>> = [];
    try {
      for (const variant of variants) started.push(await startChildServer<BootFigures>(script, { role: 'game', env, otel: variant.otel } satisfies ServeRequest, gameArgs));
      const samples = await sampleResponses(started[0]!.baseUrl, players[Math.floor(players.length / 2)]!);
      const ceiling = await startChildServer(script, { role: 'ceiling', samples } satisfies ServeRequest, nodeArgs);
      started.push(ceiling as ChildServer<BootFigures>);
      const rows: TracingCostRow[] = [];
      for (const e of measured) {
        const servers = [...variants.map((v, i) => ({ name: v.label, server: started[i]! })), { name: 'ceiling', server: ceiling }];
        const measuredRounds = await measureAlternating(servers, { connections, durationSeconds, rounds, requests: [requests[e]] });
        rows.push({ scenario: e, variants: variants.map((v, i) => ({ label: v.label, rounds: measuredRounds[i]! })), ceiling: measuredRounds[variants.length]! });
      }
      console.log(`${rounds} rounds of ${durationSeconds} s per variant, alternating; ${sink.received.requests} OTLP exports (${(sink.received.bytes / 1024 / 1024).toFixed(1)} MiB) received by the sink\n`);
      printTracingCost(rows);
    } finally {
      for (const server of started) await server.stop();
    }
  });
}

function printBoot(label: string, boot: BootFigures): void {
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
  const perMillion = (bytes: number) => ((bytes / entryCount) * 1_000_000) / 1024 / 1024;
  console.log(
    `${label}: rebuild of ${entryCount.toLocaleString('en')} entries at boot ${(boot.rebuildMs / 1000).toFixed(2)} s; ` +
      `heap ${mb(boot.heapBytesBefore)} -> ${mb(boot.heapBytesAfter)} MiB (${perMillion(boot.heapBytesAfter - boot.heapBytesBefore).toFixed(0)} MiB per million), ` +
      `RSS ${mb(boot.rssBytesBefore)} -> ${mb(boot.rssBytesAfter)} MiB (${perMillion(boot.rssBytesAfter - boot.rssBytesBefore).toFixed(0)} MiB per million)`,
  );
}

async function main(): Promise<void> {
  await withTempDir('bench-leaderboards-', async (dir) => {
    const manifestFile = join(dir, 'manifest.json');
    const game = { id: gameId, name: 'Bench', auth: { provider: 'dev' }, adapters: { score: { type: 'bounded-score', options: {} } }, boards: [board] };
    writeFileSync(manifestFile, JSON.stringify({ games: [game] }));
    const env = { DATA_DIR: dir, GAME_MANIFEST_FILE: manifestFile };
    const { players, seedMs } = await seed(env, dir);
    console.log(`seeded ${entryCount.toLocaleString('en')} entries (SQLite) in ${(seedMs / 1000).toFixed(1)} s; ${connections} connections, ${durationSeconds} s per run\n`);

    if (tracingCostRequested) {
      await benchTracingCost(env, players);
      return;
    }
    const ceiling: { server?: ChildServer<unknown> } = {};
    const runs: EngineRun[] = [];
    try {
      runs.push(await benchEngine('in-process rank tree', env, players, ceiling));
      if (redisUrl) runs.push(await benchEngine('Redis sorted sets', { ...env, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `bench:${randomBytes(4).toString('hex')}:` }, players, ceiling));
      else console.log('(set BENCH_REDIS_URL=redis://... to include the Redis rank engine)\n');
    } finally {
      await ceiling.server?.stop();
    }

    for (const run of runs) printBoot(run.label, run.boot);
    const { page, me, aroundMe } = runs[0]!.samples;
    console.log(`body sizes: page ${page.body.length} B, /me ${me.body.length} B, /around-me ${aroundMe.body.length} B; headers replayed by the ceiling: ${Object.keys(me.headers).join(', ')}`);
    console.log(`${rounds} rounds of ${durationSeconds} s per scenario, each beside a ceiling run of the same length; "of ceiling" is the median of the rounds' ratios\n`);
    printTable([
      ...runs.flatMap((run) => measured.map((k) => ({ figures: run.rows[k]!.figures, ratios: run.rows[k]!.ratios }))),
      ...runs.flatMap((run) => measured.map((k) => ({ figures: { ...run.rows[k]!.ceiling, name: `${run.rows[k]!.ceiling.name}${runs.length > 1 ? ` (beside ${run.label.split(' ')[0]})` : ''}` } }))),
    ]);
  });
}

await serveOrRun(serve, main);
