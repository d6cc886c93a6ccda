// Demo traffic for `npm start`: a few players of the bundled demo games, at a gentle pace, so a
// fresh observability dashboard has something to show. Each player signs in, plays runs on both
// adapters (the `demo` game's bounded score and the `tiles` game's replayed 2048), reads boards
// and now and then gets something wrong (a run the adapter refuses, a board that does not exist).
// Started by scripts/start-all.mjs (off with DEMO_TRAFFIC=0); it stops when the launcher goes.
//
// Each round is a span of this process (`demo-game`), exported where the standard OTEL_*
// variables say (the launcher points them at the observability service); the client library's
// calls carry its trace context, so a round and the game service's spans of it form one trace.
//
//   GAME_URL=http://127.0.0.1:8080 node examples/demo-game/traffic.mjs
import { context, propagation, trace, SpanStatusCode } from '@opentelemetry/api';
import { createGameClient, createMemoryStorage } from '@playstack/game-client';
import { startTracing } from '@playstack/server-kit';

const baseUrl = process.env.GAME_URL ?? 'http://127.0.0.1:8080';
const pauseMs = Number(process.env.DEMO_TRAFFIC_INTERVAL_MS ?? 2_000);
const players = ['ada', 'grace', 'linus', 'margaret', 'alan'];

process.on('disconnect', () => process.exit(0));
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => process.exit(0));

const tracing = await startTracing({ serviceName: 'demo-game', serviceVersion: '0.1.0' });
const tracer = tracing?.tracer ?? trace.getTracer('demo-game');

/** The active span's traceparent: the client library's calls join the round's trace. */
function currentTraceparent() {
  const carrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

function clientFor(gameId) {
  return createGameClient({ baseUrl, gameId, storage: createMemoryStorage(), traceContext: currentTraceparent, requestTimeoutMs: 5_000 });
}

const sessions = new Map(players.map((name) => [name, { demo: clientFor('demo'), tiles: clientFor('tiles') }]));
const pick = (items) => items[Math.floor(Math.random() * items.length)];

async function signedIn(client, name) {
  if (await client.player()) return true;
  const result = await client.signIn(async () => `dev:${name}`);
  return result.status === 'signed-in';
}

/** One thing a player does; some rounds fail on purpose, as real players' do. */
const rounds = {
  async 'play demo'(clients, name) {
    const durationMs = 2_000 + Math.floor(Math.random() * 30_000);
    // One in ten is refused by the adapter (a negative score).
    const score = Math.random() < 0.1 ? -1 : Math.floor((durationMs / 1000) * (20 + Math.random() * 500));
    if (!(await signedIn(clients.demo, name))) return;
    await clients.demo.submitRun('score', { score, durationMs });
    await clients.demo.flush();
  },
  async 'play tiles'(clients, name) {
    const moves = Array.from({ length: 40 + Math.floor(Math.random() * 400) }, () => pick(['U', 'D', 'L', 'R'])).join('');
    if (!(await signedIn(clients.tiles, name))) return;
    await clients.tiles.submitRun('score', { seed: Math.floor(Math.random() * 0xffffffff), moves });
    await clients.tiles.flush();
  },
  async 'read boards'(clients, name) {
    const client = pick([clients.demo, clients.tiles]);
    if (!(await signedIn(client, name))) return;
    await client.leaderboard('high-score', { limit: 10 });
    await client.myRank('total-score');
  },
  async 'read a missing board'(clients, name) {
    if (!(await signedIn(clients.demo, name))) return;
    await clients.demo.leaderboard('no-such-board');
  },
};
const weighted = ['play demo', 'play demo', 'play tiles', 'play tiles', 'read boards', 'read boards', 'read boards', 'read a missing board'];

for (;;) {
  const name = pick(players);
  const round = pick(weighted);
  await tracer.startActiveSpan(round, { attributes: { 'demo.player': name } }, async (span) => {
    try {
      await rounds[round](sessions.get(name), name);
    } catch (error) {
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(error?.message ?? error) });
    } finally {
      span.end();
    }
  });
  await new Promise((resolve) => setTimeout(resolve, pauseMs * (0.5 + Math.random())));
}
