import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase, seededRandom, TestRedisServer } from '@playstack/server-kit/testing';
import type { GameDefinition } from '../src/manifest/manifest-schema.js';
import { arenaGame, signedIn, unthrottled } from './leaderboards/leaderboard-fixtures.js';
import { currentSets, differencesFromSql } from './leaderboards/sql-view.js';
import { manifestWith, storeManifest } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

/** The longest any call may take while Redis is down (the bound). */
const callBoundMs = 2_000;
/** How soon after Redis answers again every read must equal SQL. */
const recoveryBoundMs = 10_000;
/** Runs the load must have had accepted while Redis is down. */
const minOutageRuns = 10;

type Player = { id: string; displayName: string; headers: Record<string, string> };
interface Call {
  what: string;
  status: number;
  ms: number;
  at: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Workers that submit runs and read pages, /me and /around-me on random instances until stopped.
 * Four: the instances share this process's event loop with the workers, so each call's time
 * includes the queue of the others' calls; more workers measure that queue on a loaded CI machine
 * rather than whether a call waited on Redis.
 */
function startLoad(instances: App[], game: GameDefinition, players: Player[], workers = 4) {
  const random = seededRandom(17);
  const calls: Call[] = [];
  let stopped = false;
  let runs = 0;
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const worker = async () => {
    while (!stopped) {
      const app = pick(instances);
      const player = pick(players);
      const board = pick(game.boards);
      const op = pick(['run', 'run', 'page', 'me', 'around-me'] as const);
      const base = `/v1/games/${game.id}`;
      const started = performance.now();
      const response =
        op === 'run'
          ? await app.inject({
              method: 'POST',
              url: `${base}/runs/score`,
              headers: player.headers,
              payload: { runId: `load-${(runs += 1)}-${randomBytes(4).toString('hex')}`, payload: { score: Math.floor(random() * 100_000), durationMs: 1_000 + Math.floor(random() * 100_000) } },
            })
          : await app.inject({
              method: 'GET',
              url: `${base}/leaderboards/${board.id}${op === 'page' ? '?limit=10' : op === 'me' ? '/me?radius=2' : '/around-me'}`,
              headers: player.headers,
            });
      calls.push({ what: `${op} ${response.statusCode} ${response.statusCode >= 500 ? response.body : ''}`, status: response.statusCode, ms: performance.now() - started, at: started });
    }
  };
  const running = Promise.all(Array.from({ length: workers }, worker));
  return {
    calls,
    async stop(): Promise<Call[]> {
      stopped = true;
      await running;
      return calls;
    },
  };
}

async function readyz(app: App): Promise<{ status: number; body: any }> {
  const response = await app.inject({ method: 'GET', url: '/readyz' });
  return { status: response.statusCode, body: response.json() };
}

async function metric(app: App, line: RegExp): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  return text
    .split('\n')
    .filter((l) => line.test(l))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

describeEachDatabase('game service through a Redis outage and an empty Redis restart', (database) => {
  let redis: TestRedisServer;
  beforeAll(async () => {
    redis = await TestRedisServer.start();
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  /** One instance on this suite's Redis (keys of its own), serving a game of its own, ready. */
  async function startInstance(name: string, env: Record<string, string> = {}): Promise<{ app: App; game: GameDefinition }> {
    const app = await buildTestApp(database(), { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `${name}-${randomBytes(4).toString('hex')}:`, ...unthrottled, ...env }, { clock: new ManualClock('2026-11-21T10:00:00.000Z') });
    const game = arenaGame(`${name}-${database().dialect}`);
    await storeManifest(app, manifestWith(game));
    await app.ready();
    await vi.waitFor(async () => expect((await readyz(app)).status).toBe(200), { timeout: 10_000, interval: 50 });
    return { app, game };
  }

  it('never answers 5xx and answers each call within 2 s while Redis is down; once Redis is back empty, every read equals SQL within 10 s, without a restart', async () => {
    const env = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `chaos-${randomBytes(4).toString('hex')}:`, ...unthrottled };
    const clock = new ManualClock('2026-11-21T10:00:00.000Z');
    // On PostgreSQL two instances share the database and the Redis: they must not rebuild a set twice.
    const instances: App[] = [];
    let load: ReturnType<typeof startLoad> | undefined;
    for (let i = 0; i < (database().dialect === 'postgres' ? 2 : 1); i++) instances.push(await buildTestApp(database(), env, { clock }));
    try {
      const game = arenaGame(`chaos-${database().dialect}`);
      await storeManifest(instances[0]!, manifestWith(game));
      for (const app of instances.slice(1)) await app.games.refresh();
      for (const app of instances) await app.ready();
      await vi.waitFor(
        async () => {
          for (const app of instances) expect((await readyz(app)).status).toBe(200);
        },
        { timeout: 10_000, interval: 50 },
      );
      const players: Player[] = [];
      for (let i = 0; i < 16; i++) players.push(await signedIn(instances[i % instances.length]!, game.id, `chaos-player-${i}`));
      for (const [i, player] of players.entries()) {
        const seeded = await instances[0]!.inject({ method: 'POST', url: `/v1/games/${game.id}/runs/score`, headers: player.headers, payload: { runId: `seed-run-${i}`, payload: { score: 1_000 * i, durationMs: 60_000 } } });
        expect(seeded.statusCode).toBe(200);
      }
      const warn = instances.map((app) => vi.spyOn(app.log, 'warn'));
      const info = instances.map((app) => vi.spyOn(app.log, 'info'));

      load = startLoad(instances, game, players);
      await sleep(300);
      await redis.stop();
      const outageStarted = performance.now();
      // Down for 2.5 s at least, and until the load has made its runs and reads meanwhile (a loaded
      // machine makes fewer calls a second; each must still answer within the bound).
      const outageCalls = (what: string) => load!.calls.filter((c) => c.at >= outageStarted && c.what.startsWith(what)).length;
      await sleep(2_500);
      await vi.waitFor(() => expect(outageCalls('run 200') > minOutageRuns && outageCalls('page 200') > 0).toBe(true), { timeout: 20_000, interval: 100 });
      const duringOutageReadiness = await Promise.all(instances.map(readyz));
      const duringOutageDegraded = await Promise.all(instances.map((app) => metric(app, /^game_redis_degraded /)));
      await redis.start();
      const redisBack = performance.now();
      // The load goes on while the instances notice that Redis lost its sets and rebuild them.
      await sleep(1_000);
      const calls = await load.stop();

      const duringOutage = calls.filter((c) => c.at >= outageStarted && c.at < redisBack);
      expect(duringOutage.filter((c) => c.what.startsWith('run 200')).length).toBeGreaterThan(minOutageRuns);
      expect(duringOutage.filter((c) => c.what.startsWith('page 200')).length).toBeGreaterThan(0);
      expect(calls.filter((c) => c.status >= 500).map((c) => c.what)).toEqual([]);
      const sinceOutage = (c: Call) => (c.at < outageStarted ? 'before the outage' : c.at < redisBack ? `${Math.round(c.at - outageStarted)} ms into the outage` : `${Math.round(c.at - redisBack)} ms after Redis was back`);
      expect(calls.filter((c) => c.ms > callBoundMs).map((c) => `${c.what} ${Math.round(c.ms)} ms, started ${sinceOutage(c)}`)).toEqual([]);
      for (const ready of duringOutageReadiness) {
        // Degraded, not down: every instance still serves, so a load balancer must keep it.
        expect(ready.status).toBe(200);
        expect(ready.body.degraded.map((d: { check: string }) => d.check)).toContain('redis');
      }
      expect(duringOutageDegraded).toEqual(instances.map(() => 1));
      // The outage was said in the log.
      for (const spy of warn) expect(spy.mock.calls.some(([first, second]) => /Redis/.test(String(typeof first === 'string' ? first : second)))).toBe(true);

      // Passes over every read of every instance, until one finds them all equal to SQL: that pass
      // must have started within the bound. (A pass makes some 300 calls; on a loaded machine it
      // can itself take seconds, which say nothing of how soon the instances were in step.)
      let inStepPass: { startedAfterMs: number; differences: unknown[] } | undefined;
      const lastPassMayStart = redisBack + recoveryBoundMs;
      while (!inStepPass || (inStepPass.differences.length > 0 && performance.now() < lastPassMayStart)) {
        const startedAfterMs = performance.now() - redisBack;
        const differences: unknown[] = [];
        for (const app of instances) {
          differences.push(...(await differencesFromSql(app, game, players)));
          const ready = (await readyz(app)).body;
          if (ready.degraded.length > 0 || ready.failing.length > 0) differences.push(ready);
        }
        inStepPass = { startedAfterMs, differences };
        if (differences.length > 0) await sleep(100);
      }
      expect(inStepPass.differences).toEqual([]);
      expect(inStepPass.startedAfterMs).toBeLessThan(recoveryBoundMs);
      // The recovery was said in the log.
      for (const spy of info) expect(spy.mock.calls.some(([first, second]) => /Redis answers again/.test(String(typeof first === 'string' ? first : second)))).toBe(true);
      // Served by Redis again, not by the SQL fallback: the sets are there and agree with SQL.
      for (const app of instances) {
        expect((await app.leaderboards.ranks.checkConsistency()).filter((c) => c.firstDifferenceAt !== undefined)).toEqual([]);
        for (const set of currentSets(app, game)) expect(await app.redis!.exists(`lb:{${game.id}:${set.boardId}:${set.period}}:m`)).toBe(1);
        expect(await metric(app, /^game_redis_degraded /)).toBe(0);
      }
      // Each lost set was rebuilt once, by one instance.
      let rebuilds = 0;
      for (const app of instances) rebuilds += await metric(app, new RegExp(`^game_rank_set_rebuilds_total\\{reason="lost"\\}`));
      const held = instances[0]!.games.list().flatMap((g) => currentSets(instances[0]!, g));
      expect(rebuilds).toBe(held.length);
    } finally {
      await load?.stop();
      for (const app of instances) await app.close();
    }
  }, 60_000);

  it('answers within 2 s from its fallbacks while Redis hangs without closing connections, and the per-player limit counts per instance meanwhile', async () => {
    const limit = 8;
    const { app, game } = await startInstance('hang', { GAME_PLAYER_RATE_LIMIT_MAX: String(limit) });
    try {
      const player = await signedIn(app, game.id, 'hanging');
      redis.pause();
      const statuses: number[] = [];
      const slow: number[] = [];
      for (let i = 0; i < limit + 3; i++) {
        const started = performance.now();
        const response = await app.inject({ method: 'GET', url: `/v1/games/${game.id}/leaderboards/high/me`, headers: player.headers });
        const ms = performance.now() - started;
        if (ms > callBoundMs) slow.push(ms);
        statuses.push(response.statusCode);
      }
      redis.resume();
      expect(slow).toEqual([]);
      // The first call waited for the command timeout; the limit then counted here.
      expect(statuses).toEqual([...Array(limit).fill(200), 429, 429, 429]);
      await vi.waitFor(async () => expect((await readyz(app)).body.degraded).toEqual([]), { timeout: 5_000, interval: 50 });
    } finally {
      redis.resume();
      await app.close();
    }
  });

  it('replays the runs and erasures Redis missed while it hung once it answers again with its sets intact, after an earlier outage with nothing to replay too', async () => {
    const { app, game } = await startInstance('missed');
    try {
      const players: Player[] = [];
      for (let i = 0; i < 6; i++) players.push(await signedIn(app, game.id, `missed-${i}`));
      const run = (player: Player, runId: string, score: number) =>
        app.inject({ method: 'POST', url: `/v1/games/${game.id}/runs/score`, headers: player.headers, payload: { runId, payload: { score, durationMs: 50_000 } } });
      for (const [i, player] of players.entries()) expect((await run(player, `before-${i}`, 100 * i)).statusCode).toBe(200);
      await app.leaderboards.ranks.checkConsistency();

      // An outage in which nothing was written: its recovery has no missed write to replay (and
      // must not leave the replay looking busy to the next recovery).
      redis.pause();
      expect((await app.inject({ method: 'GET', url: `/v1/games/${game.id}/leaderboards/high/me`, headers: players[0]!.headers })).statusCode).toBe(200);
      expect((await readyz(app)).body.degraded.map((d: { check: string }) => d.check)).toContain('redis');
      redis.resume();
      await vi.waitFor(async () => expect((await readyz(app)).body.degraded).toEqual([]), { timeout: 5_000, interval: 50 });

      redis.pause();
      // The last player overtakes everyone, the first is erased: Redis hears of neither.
      const overtaking = await run(players[5]!, 'while-paused', 10_000);
      expect(overtaking.statusCode).toBe(200);
      expect(overtaking.json().leaderboards.find((l: { boardId: string; period: string }) => l.boardId === 'high' && l.period === 'all').rank).toBe(1);
      expect((await app.inject({ method: 'DELETE', url: `/v1/games/${game.id}/player`, headers: players[0]!.headers })).statusCode).toBe(200);
      const remaining = players.slice(1);
      expect(await differencesFromSql(app, game, remaining)).toEqual([]);
      redis.resume();

      await vi.waitFor(async () => expect((await readyz(app)).body.degraded).toEqual([]), { timeout: 5_000, interval: 50 });
      expect(await differencesFromSql(app, game, remaining)).toEqual([]);
      // Redis itself was brought in step, without rebuilding the sets it kept.
      expect((await app.leaderboards.ranks.checkConsistency()).filter((c) => c.firstDifferenceAt !== undefined)).toEqual([]);
      expect(await metric(app, /^game_rank_set_rebuilds_total\{reason="(lost|resync)"\}/)).toBe(0);
    } finally {
      redis.resume();
      await app.close();
    }
  });

  it('answers a set another instance is rebuilding from SQL, says so in /readyz, and rebuilds it itself once that lease lapses', async () => {
    const { app, game } = await startInstance('lease');
    try {
      const players: Player[] = [];
      for (let i = 0; i < 4; i++) {
        players.push(await signedIn(app, game.id, `lease-${i}`));
        const response = await app.inject({ method: 'POST', url: `/v1/games/${game.id}/runs/score`, headers: players[i]!.headers, payload: { runId: `lease-run-${i}`, payload: { score: i, durationMs: 50_000 } } });
        expect(response.statusCode).toBe(200);
      }
      await app.leaderboards.ranks.checkConsistency();
      // The set is lost (its marker gone, as after a restart) while "another instance" holds its lease.
      const set = `${game.id}:high:all`;
      await app.redis!.del(`lb:{${set}}:m`);
      await app.redis!.set(`lb:{${set}}:b`, 'another-instance', 'PX', 5_000);
      // A read finds the set lost and looks at its lease (again once a second at most); /readyz
      // names the set for a second after a look found it busy.
      const busy = { status: 'ready', failing: [], degraded: [{ check: 'leaderboards', reason: '1 leaderboard set is being rebuilt by another instance (answered from SQL meanwhile)' }] };
      await vi.waitFor(
        async () => {
          expect((await app.inject({ method: 'GET', url: `/v1/games/${game.id}/leaderboards/high?limit=10`, headers: players[0]!.headers })).statusCode).toBe(200);
          expect((await readyz(app)).body).toEqual(busy);
        },
        { timeout: 3_000, interval: 50 },
      );
      expect(await metric(app, /^game_rank_set_rebuilds_total\{reason="lost"\}/)).toBe(0);
      expect(await differencesFromSql(app, game, players)).toEqual([]);
      // The other instance died: its lease lapses and this one rebuilds the set.
      await vi.waitFor(
        async () => {
          expect(await differencesFromSql(app, game, players)).toEqual([]);
          expect(await metric(app, /^game_rank_set_rebuilds_total\{reason="lost"\}/)).toBe(1);
          expect((await readyz(app)).body.degraded).toEqual([]);
        },
        { timeout: 10_000, interval: 100 },
      );
      expect(await app.redis!.exists(`lb:{${set}}:m`)).toBe(1);
    } finally {
      await app.close();
    }
  });
});
