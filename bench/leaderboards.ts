// Leaderboard reads at 1,000,000 entries over HTTP (loopback, keep-alive): requests per second,
// p50/p99/p99.9 latency in µs (wrk) and the server's CPU per request of a page (keyset cursor of an
// entry drawn at random from the whole board), /me and /around-me (players drawn at random among
// 5,000 signed in at random places on the board), each beside a bare Fastify route answering the
// same bytes, body and headers (the ceiling), and a friends' board (a page of 100 player ids drawn at
// random from the whole board, plus the caller: `players=` in the query, ranked among themselves).
// Player ids are UUIDs, as the service makes them. Also
// the rank engine's rebuild time at boot and its memory per entry (heap and off-heap, after a GC).
// An event board (a live window, 100,000 entries) is read the same way: a page and /me.
//
//   npx tsx --conditions=source bench/leaderboards.ts
//
// BENCH_ENTRIES (default 1000000, a multiple of 500), BENCH_PLAYERS (signed in, default 5000),
// BENCH_EVENT_ENTRIES (entries of the event board's live window, default 100000, a multiple of 500
// and at least BENCH_PLAYERS), BENCH_CONNECTIONS (default 16), BENCH_ROUNDS (default 3) and BENCH_DURATION_S (default 5, per
// round) set the size and load. Each scenario and its ceiling run in alternating rounds, both
// servers up, so drift in the shared machine's speed hits both alike. BENCH_REDIS_URL adds a run
// with the Redis rank engine. The load comes from wrk (BENCH_WRK names another binary);
// BENCH_TRACING_COST runs autocannon as before (support/tracing-cost.ts).
// The servers run in child processes so they have a core of their own while the client drives them.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { SqliteDatabase } from '@playstack/server-kit';
import { buildApp, loadGameConfig } from '@playstack/game-service';
import { encodeCursor } from '../packages/game-service/src/leaderboards/leaderboard-cursor.js';
import { measureWrkPaired, printWrkTable, writeWrkRequests, type WrkPaired } from './support/wrk-load.js';
import {
  answerControlMessages,
  listenInChild,
  measureAlternating,
  printTable,
  serveOrRun,
  serviceNodeFlags,
  startChildServer,
  withChildServer,
  type ChildServer,
} from './support/http-load.js';
import { withTempDir } from './support/scratch.js';
import { applyTracingVariant, printTracingCost, tracingCostRequested, tracingVariants, withOtlpSink, type TracingCostRow } from './support/tracing-cost.js';

const entryCount = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const durationSeconds = Number(process.env.BENCH_DURATION_S ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const redisUrl = process.env.BENCH_REDIS_URL;
// BENCH_ONLY (e.g. "me,friends") measures only some of page, me, aroundMe, friends, eventPage and eventMe.
const endpoints = ['page', 'me', 'aroundMe', 'friends', 'eventPage', 'eventMe'] as const;
type Endpoint = (typeof endpoints)[number];
const titles: Record<Endpoint, string> = {
  page: 'page (limit 25, cursor at random depth)',
  me: '/me',
  aroundMe: '/around-me (radius 5)',
  friends: "friends' page (100 random ids, limit 25)",
  eventPage: 'event board, live window: page (limit 25, cursor at random depth)',
  eventMe: 'event board, live window: /me',
};
const measured = endpoints.filter((e) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY.split(',').includes(e));
// Both servers run with the game service's production Node flags; BENCH_TARGET_NODE_ARGS adds
// more to both, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const nodeArgs = [...serviceNodeFlags('game-service'), ...(process.env.BENCH_TARGET_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const signedInPlayers = Number(process.env.BENCH_PLAYERS ?? 5_000);
/** Entries whose cursors pages start from, drawn at random from the whole board. */
const cursorCount = 20_000;
/** Player ids of entries drawn at random from the whole board, from which each friends' request draws its 100. */
const friendPoolSize = 20_000;
const friendsPerRequest = 100;
/** Friends' requests written out (each its own 100 ids and a signed-in caller). */
const friendRequestCount = 2_000;
const rowsPerInsert = 500;
const rowsPerTransaction = 100_000;
const gameId = 'bench';
const boardId = 'high';
const board = { id: boardId, name: 'High score', order: 'desc', operator: 'best', periods: ['all'], source: { adapter: 'score', value: 'score' } } as const;
const eventEntryCount = Number(process.env.BENCH_EVENT_ENTRIES ?? 100_000);
const eventBoardId = 'cup';
const minuteMs = 60_000;
/** The event board's one window: opened a day before the bench, open for 60 days (whole minutes, as the manifest requires). */
const eventStartMs = Math.floor((Date.now() - 86_400_000) / minuteMs) * minuteMs;
const eventKey = `${new Date(eventStartMs).toISOString().slice(0, 16)}Z`;
const eventBoard = {
  ...board,
  id: eventBoardId,
  name: 'Cup',
  periods: ['event'],
  event: { startsAt: new Date(eventStartMs).toISOString(), endsAt: new Date(eventStartMs + 60 * 86_400_000).toISOString() },
} as const;
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
  /** Memory V8 tracks outside its heap (typed arrays' contents among it). */
  externalBytesBefore: number;
  externalBytesAfter: number;
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
    const figures: BootFigures = {
      rebuildMs,
      heapBytesBefore: before.heapUsed,
      heapBytesAfter: after.heapUsed,
      externalBytesBefore: before.external,
      externalBytesAfter: after.external,
      rssBytesBefore: before.rss,
      rssBytesAfter: after.rss,
    };
    process.send!({ port: (app.server.address() as { port: number }).port, ...figures });
    answerControlMessages(() => app.close());
    return;
  }
  // The ceiling: the same framework and paths answering the same bytes (body and headers), no
  // work. Same headers because the load generator parses every one: fewer would make the ceiling
  // cheaper for the client, not the service slower.
  const app = Fastify({ logger: false });
  const answer = (sample: Sample) => async (_request: unknown, reply: { headers(h: Record<string, string>): { send(b: string): unknown } }) => reply.headers(sample.headers).send(sample.body);
  // The page, the friends' page and the event board's page share a path: the board and the query
  // tell them apart (both parsed for every request anyway).
  const page = answer(request.samples.page);
  const friends = answer(request.samples.friends);
  const eventPage = answer(request.samples.eventPage);
  const me = answer(request.samples.me);
  const eventMe = answer(request.samples.eventMe);
  const isEvent = (req: { params: unknown }) => (req.params as { boardId: string }).boardId === eventBoardId;
  app.get('/v1/games/:gameId/leaderboards/:boardId', (req: { query: unknown; params: unknown }, reply: Parameters<typeof page>[1]) =>
    isEvent(req) ? eventPage(req, reply) : (req.query as { players?: string }).players === undefined ? page(req, reply) : friends(req, reply),
  );
  app.get('/v1/games/:gameId/leaderboards/:boardId/me', (req: { params: unknown }, reply: Parameters<typeof page>[1]) => (isEvent(req) ? eventMe(req, reply) : me(req, reply)));
  app.get('/v1/games/:gameId/leaderboards/:boardId/around-me', answer(request.samples.aroundMe));
  await listenInChild(app);
}

// ---------------------------------------------------------------------------------------------
// Parent: seeds, starts servers, drives load, prints figures.

interface SeededPlayer {
  token: string;
}

/** The board's seeded positions: a random page cursor per `cursorCount` entries drawn from the whole board. */
interface Seeded {
  players: SeededPlayer[];
  cursors: string[];
  /** Player ids of entries at random places. */
  friendPool: string[];
  /** Page cursors of the event board's live window. */
  eventCursors: string[];
  seedMs: number;
}

/** A small deterministic generator (mulberry32), so every run seeds the same board. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

const hex = (value: number, digits: number) => value.toString(16).padStart(8, '0').slice(8 - digits);

/** A version 4 UUID made from `next` (what `randomUUID()` makes, but reproducible). */
function uuidFrom(next: () => number): string {
  const [a, b, c, d] = [next(), next(), next(), next()];
  return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b & 0xfff, 3)}-${hex(0x8000 | (c >>> 16 & 0x3fff), 4)}-${hex(c & 0xffff, 4)}${hex(d, 8)}`;
}

/**
 * Seeds `entryCount` entries with UUID player ids, `signedInPlayers` of them signed-in players at
 * random places: batched multi-row inserts, one prepared statement, in transactions of
 * `rowsPerTransaction` rows, straight into the SQLite file. Also draws `cursorCount` entries at
 * random for page cursors.
 */
async function seed(env: Record<string, string>, dataDir: string): Promise<Seeded> {
  const started = performance.now();
  const { now, signedIn } = await signIn(env);
  const random = generator(25);
  // Which entries are signed-in players' and which start a page.
  const playerAt = new Map<number, { id: string; token: string }>();
  while (playerAt.size < signedIn.length) {
    const at = random() % entryCount;
    if (!playerAt.has(at)) playerAt.set(at, signedIn[playerAt.size]!);
  }
  const cursorAt = new Set<number>();
  while (cursorAt.size < Math.min(cursorCount, entryCount)) cursorAt.add(random() % entryCount);
  const friendAt = new Set<number>();
  while (friendAt.size < Math.min(friendPoolSize, entryCount)) friendAt.add(random() % entryCount);
  const friendPool: string[] = [];
  const ids = generator(2026);
  const file = new SqliteDatabase(join(dataDir, 'game.sqlite'));
  const cursors: string[] = [];
  const eventCursors: string[] = [];
  // The event window's entries: every signed-in player at a random place, the rest generated.
  const eventPlayerAt = new Map<number, string>();
  while (eventPlayerAt.size < signedIn.length) {
    const at = random() % eventEntryCount;
    if (!eventPlayerAt.has(at)) eventPlayerAt.set(at, signedIn[eventPlayerAt.size]!.id);
  }
  const eventIds = generator(1127);
  try {
    const placeholders = Array.from({ length: rowsPerInsert }, () => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
    const insert = file.prepare(`insert into leaderboard_entries (game_id, board_id, period, player_id, display_name, score, achieved_at, updated_at) values ${placeholders}`);
    // Deterministic spread: scores with many ties, times over the last 30 days.
    const values = (i: number): unknown[] => {
      const generated = uuidFrom(ids);
      const row = { playerId: playerAt.get(i)?.id ?? generated, score: (i * 7_919) % 5_000_000, subscore: 0, achievedAt: now - ((i * 104_729) % (30 * dayMs)) };
      if (cursorAt.has(i)) cursors.push(encodeCursor({ gameId, boardId, order: 'desc', period: 'all' }, row));
      if (friendAt.has(i)) friendPool.push(row.playerId);
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
    const eventSet = { gameId, boardId: eventBoardId, order: 'desc', period: eventKey } as const;
    const insertEvent = file.transaction(() => {
      for (let chunk = 0; chunk < eventEntryCount; chunk += rowsPerInsert) {
        const params: unknown[] = [];
        for (let j = chunk; j < chunk + rowsPerInsert; j++) {
          const row = { playerId: eventPlayerAt.get(j) ?? uuidFrom(eventIds), score: (j * 7_919) % 50_000, subscore: 0, achievedAt: eventStartMs + ((j * 104_729) % dayMs) };
          if (j % Math.max(1, Math.floor(eventEntryCount / cursorCount)) === 0) eventCursors.push(encodeCursor(eventSet, row));
          params.push(gameId, eventBoardId, eventKey, row.playerId, `Racer ${j}`, row.score, row.achievedAt, now);
        }
        insert.run(params);
      }
    });
    insertEvent();
  } finally {
    file.close();
  }
  // Signed in again: on a loaded machine the seeding can outlast the first access tokens.
  const fresh = await signIn(env);
  return { players: fresh.signedIn.map((p) => ({ token: p.token })), cursors, friendPool, eventCursors, seedMs: performance.now() - started };
}

/** Signs in `signedInPlayers` players (the dev provider: the same player each time for a code). */
async function signIn(env: Record<string, string>): Promise<{ now: number; signedIn: Array<{ id: string; token: string }> }> {
  const app = await buildApp(loadGameConfig({ ...benchEnv, ...env }));
  const signedIn: Array<{ id: string; token: string }> = [];
  try {
    for (let i = 0; i < signedInPlayers; i++) {
      const response = await app.inject({ method: 'POST', url: `/v1/games/${gameId}/auth/exchange`, payload: { authorizationCode: `dev:bench-${i}` } });
      const session = response.json() as { accessToken: string; player: { id: string } };
      signedIn.push({ id: session.player.id, token: session.accessToken });
    }
    return { now: app.clock.now(), signedIn };
  } finally {
    await app.close();
  }
}

const script = fileURLToPath(import.meta.url);
const leaderboardPath = `/v1/games/${gameId}/leaderboards/${boardId}`;
const eventPath = `/v1/games/${gameId}/leaderboards/${eventBoardId}`;

/** Every request a scenario draws from (at random): each signed-in player's, and each cursor's with a player's token. */
function requestLines(seeded: Seeded): Record<Endpoint, Array<{ path: string; authorization: string }>> {
  const auth = (player: SeededPlayer) => `Bearer ${player.token}`;
  const players = seeded.players;
  return {
    page: seeded.cursors.map((cursor, i) => ({ path: `${leaderboardPath}?limit=25&cursor=${cursor}`, authorization: auth(players[i % players.length]!) })),
    me: players.map((player) => ({ path: `${leaderboardPath}/me`, authorization: auth(player) })),
    aroundMe: players.map((player) => ({ path: `${leaderboardPath}/around-me?radius=5`, authorization: auth(player) })),
    friends: friendLists(seeded).map((ids, i) => ({ path: friendsPath(ids), authorization: auth(players[i % players.length]!) })),
    eventPage: seeded.eventCursors.map((cursor, i) => ({ path: `${eventPath}?period=event&limit=25&cursor=${cursor}`, authorization: auth(players[i % players.length]!) })),
    eventMe: players.map((player) => ({ path: `${eventPath}/me?period=event`, authorization: auth(player) })),
  };
}

/** `friendRequestCount` lists of `friendsPerRequest` distinct ids drawn (deterministically) from the pool. */
function friendLists(seeded: Seeded): string[][] {
  const random = generator(77);
  const pool = seeded.friendPool;
  return Array.from({ length: friendRequestCount }, () => {
    const ids = new Set<string>();
    while (ids.size < Math.min(friendsPerRequest, pool.length)) ids.add(pool[random() % pool.length]!);
    return [...ids];
  });
}

function friendsPath(ids: readonly string[]): string {
  return `${leaderboardPath}?limit=25&players=${ids.join(',')}`;
}

/** The same requests for autocannon (the tracing-cost runs), drawn at random. */
function endpointRequests(seeded: Seeded) {
  const lines = requestLines(seeded);
  const drawn = (e: Endpoint) => ({
    method: 'GET',
    path: leaderboardPath,
    setupRequest: (request: { method: string; path: string }) => {
      const line = lines[e][Math.floor(Math.random() * lines[e].length)]!;
      return { ...request, path: line.path, headers: { authorization: line.authorization } };
    },
  });
  return { page: drawn('page'), me: drawn('me'), aroundMe: drawn('aroundMe'), friends: drawn('friends'), eventPage: drawn('eventPage'), eventMe: drawn('eventMe') };
}

/** Headers Node writes itself; every other header of a sample is replayed by the ceiling. */
const transportHeaders = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

async function sampleResponses(baseUrl: string, player: SeededPlayer, cursor: string, friends: readonly string[], eventCursor: string): Promise<Record<Endpoint, Sample>> {
  const get = async (path: string): Promise<Sample> => {
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${player.token}` } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body}`);
    return { body, headers: Object.fromEntries([...response.headers].filter(([name]) => !transportHeaders.has(name))) };
  };
  return {
    page: await get(`${leaderboardPath}?limit=25&cursor=${cursor}`),
    me: await get(`${leaderboardPath}/me`),
    aroundMe: await get(`${leaderboardPath}/around-me?radius=5`),
    friends: await get(friendsPath(friends)),
    eventPage: await get(`${eventPath}?period=event&limit=25&cursor=${eventCursor}`),
    eventMe: await get(`${eventPath}/me?period=event`),
  };
}

/**
 * The player, cursor and friends whose responses the ceiling replays: a signed-in player, a cursor
 * of the entry ranked in the middle of those drawn (a full page after it), the first friend list,
 * and the event window's middle cursor.
 */
function sampled(seeded: Seeded): [SeededPlayer, string, string[], string] {
  const middle = (cursors: string[]) => [...cursors].sort((a, b) => scoreOf(a) - scoreOf(b))[cursors.length >> 1]!;
  return [seeded.players[0]!, middle(seeded.cursors), friendLists(seeded)[0]!, middle(seeded.eventCursors)];
}

function scoreOf(cursor: string): number {
  return (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[])[4] as number;
}

interface EngineRun {
  label: string;
  rows: Partial<Record<Endpoint, WrkPaired>>;
  samples: Record<Endpoint, Sample>;
  boot: BootFigures;
}

/**
 * Boots the game service with `env`, then measures each endpoint against the ceiling in
 * alternating rounds. The ceiling replays this run's responses; `ceiling` is started on the first
 * call and reused, so every engine is compared with the same bytes.
 */
function benchEngine(label: string, env: Record<string, string>, seeded: Seeded, requestFiles: Record<Endpoint, string>, ceiling: { server?: ChildServer<unknown> }): Promise<EngineRun> {
  const request: ServeRequest = { role: 'game', env };
  return withChildServer<BootFigures, EngineRun>(
    script,
    request,
    async (server) => {
      const samples = await sampleResponses(server.baseUrl, ...sampled(seeded));
      ceiling.server ??= await startChildServer(script, { role: 'ceiling', samples } satisfies ServeRequest, nodeArgs);
      const rows: EngineRun['rows'] = {};
      for (const e of measured) {
        rows[e] = await measureWrkPaired(
          { figures: `${label}: ${titles[e]}`, ceiling: `ceiling: bare route, same ${e} response` },
          { figures: server, ceiling: ceiling.server },
          { connections, durationSeconds, rounds, requestFile: requestFiles[e] },
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
async function benchTracingCost(env: Record<string, string>, seeded: Seeded): Promise<void> {
  const requests = endpointRequests(seeded);
  const gameArgs = ['--expose-gc', '--max-old-space-size=4096', ...nodeArgs];
  await withOtlpSink(async (sink) => {
    const variants = tracingVariants(sink.url);
    const started: Array<ChildServer<BootFigures>> = [];
    try {
      for (const variant of variants) started.push(await startChildServer<BootFigures>(script, { role: 'game', env, otel: variant.otel } satisfies ServeRequest, gameArgs));
      const samples = await sampleResponses(started[0]!.baseUrl, ...sampled(seeded));
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
  // Both boards' entries are in the engine: the board's and the event window's.
  const perEntry = (bytes: number) => (bytes / (entryCount + eventEntryCount)).toFixed(1);
  const heap = boot.heapBytesAfter - boot.heapBytesBefore;
  const external = boot.externalBytesAfter - boot.externalBytesBefore;
  console.log(
    `${label}: rebuild of ${(entryCount + eventEntryCount).toLocaleString('en')} entries (both boards) at boot ${(boot.rebuildMs / 1000).toFixed(2)} s; ` +
      `memory after a GC ${perEntry(heap + external)} B/entry (heap ${mb(boot.heapBytesBefore)} -> ${mb(boot.heapBytesAfter)} MiB, ${perEntry(heap)} B/entry; ` +
      `off-heap ${mb(boot.externalBytesBefore)} -> ${mb(boot.externalBytesAfter)} MiB, ${perEntry(external)} B/entry); ` +
      `RSS ${mb(boot.rssBytesBefore)} -> ${mb(boot.rssBytesAfter)} MiB`,
  );
}

async function main(): Promise<void> {
  await withTempDir('bench-leaderboards-', async (dir) => {
    const manifestFile = join(dir, 'manifest.json');
    const game = { id: gameId, name: 'Bench', auth: { provider: 'dev' }, adapters: { score: { type: 'bounded-score', options: {} } }, boards: [board, eventBoard] };
    writeFileSync(manifestFile, JSON.stringify({ games: [game] }));
    const env = { DATA_DIR: dir, GAME_MANIFEST_FILE: manifestFile };
    const seeded = await seed(env, dir);
    console.log(
      `seeded ${entryCount.toLocaleString('en')} entries and ${eventEntryCount.toLocaleString('en')} in an event window (SQLite) in ${(seeded.seedMs / 1000).toFixed(1)} s: UUID player ids, ${seeded.players.length.toLocaleString('en')} signed-in players ` +
        `and ${seeded.cursors.length.toLocaleString('en')} page cursors at random places; ${connections} connections, ${durationSeconds} s per run\n`,
    );

    if (tracingCostRequested) {
      await benchTracingCost(env, seeded);
      return;
    }
    const lines = requestLines(seeded);
    const requestFiles = {
      page: writeWrkRequests(dir, 'page', lines.page),
      me: writeWrkRequests(dir, 'me', lines.me),
      aroundMe: writeWrkRequests(dir, 'aroundMe', lines.aroundMe),
      friends: writeWrkRequests(dir, 'friends', lines.friends),
      eventPage: writeWrkRequests(dir, 'eventPage', lines.eventPage),
      eventMe: writeWrkRequests(dir, 'eventMe', lines.eventMe),
    };
    const ceiling: { server?: ChildServer<unknown> } = {};
    const runs: EngineRun[] = [];
    try {
      runs.push(await benchEngine('in-process rank tree', env, seeded, requestFiles, ceiling));
      if (redisUrl) runs.push(await benchEngine('Redis sorted sets', { ...env, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `bench:${randomBytes(4).toString('hex')}:` }, seeded, requestFiles, ceiling));
      else console.log('(set BENCH_REDIS_URL=redis://... to include the Redis rank engine)\n');
    } finally {
      await ceiling.server?.stop();
    }

    for (const run of runs) printBoot(run.label, run.boot);
    const { page, me, aroundMe, friends, eventPage, eventMe } = runs[0]!.samples;
    console.log(`body sizes: page ${page.body.length} B, /me ${me.body.length} B, /around-me ${aroundMe.body.length} B, friends' page ${friends.body.length} B, event page ${eventPage.body.length} B, event /me ${eventMe.body.length} B; headers replayed by the ceiling: ${Object.keys(me.headers).join(', ')}`);
    console.log(`${rounds} rounds of ${durationSeconds} s per scenario, each beside a ceiling run of the same length (wrk, 2 threads); "of ceiling" is the median of the rounds' ratios\n`);
    printWrkTable(runs.flatMap((run) => measured.map((e) => ({ name: run.rows[e]!.rounds[0]!.name, paired: run.rows[e]! }))));
  });
}

await serveOrRun(serve, main);
