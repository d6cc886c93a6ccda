import fp from 'fastify-plugin';
import { Counter } from 'prom-client';
import { Leaderboards } from './leaderboard-service.js';
import { countEntriesOfPart } from './leaderboard-store.js';
import { MemoryRankEngine } from './memory-rank-engine.js';
import { RankIndex } from './rank-index.js';
import { RedisRankEngine } from './redis-rank-engine.js';
import type { GameApp } from '../database.js';

declare module 'fastify' {
  interface FastifyInstance {
    leaderboards: Leaderboards;
  }
}

const loadRetryDelayMs = 5_000;
/** The change feed topic of leaderboard writes and erasures: `[gameId, playerId]`. */
const changesTopic = 'leaderboards';

/**
 * Leaderboards: the rank engine (Redis sorted sets with REDIS_URL, else an in-process order-statistic tree),
 * its rebuild from SQL after boot (readiness check `rank-engine` fails until it is loaded) and
 * after Redis lost sets or missed writes (said under `degraded` in /readyz meanwhile), the
 * `recordScores` write path runs call, and the `entries` part of player erasure.
 */
export const leaderboardsPlugin = fp(
  async (app: GameApp) => {
    const health = app.redisHealth;
    const engine = health ? new RedisRankEngine(health) : new MemoryRankEngine();
    const rebuilds = new Counter({
      name: 'game_rank_set_rebuilds_total',
      help: 'Leaderboard sets rebuilt in the rank engine from SQL, by reason: boot, lost (Redis lost it), resync (writes were missed) or reorder (the manifest changed the order of its board)',
      labelNames: ['reason'],
      registers: [app.metrics],
    });
    const database = app.database;
    const ranks = new RankIndex({ db: database.db, engine, clock: app.clock, log: app.log, onRebuilt: (reason) => rebuilds.inc({ reason }) });
    // Redis back after an outage (or restarted): rebuild the sets it lost, replay the writes it missed.
    health?.onRecovered(() => ranks.resynchronise());
    app.readiness.registerDegradation('leaderboards', () => ranks.status());
    // Instances sharing PostgreSQL without Redis each keep an engine of their own: every write
    // and erasure is announced in its transaction (LISTEN/NOTIFY), and each instance applies the
    // others' from SQL; after a disconnection it answers from SQL until it has caught up.
    const publishOnCommit = engine.kind === 'in-process' ? app.changes.publishOnCommit : undefined;
    const leaderboards = new Leaderboards({
      db: database.db,
      dialect: database.dialect,
      clock: app.clock,
      ranks,
      games: () => app.games.list(),
      announce: publishOnCommit && ((trx, gameId, playerId) => publishOnCommit(trx, changesTopic, JSON.stringify([gameId, playerId]))),
    });
    app.decorate('leaderboards', leaderboards);
    if (publishOnCommit) {
      await app.changes.subscribe(changesTopic, {
        onMessage: (message) => {
          const [gameId, playerId] = JSON.parse(message) as [string, string];
          return ranks.syncChangedPlayer(gameId, playerId);
        },
        onLost: () => ranks.suspend('the other instances\' leaderboard changes cannot be heard (PostgreSQL LISTEN connection down): every leaderboard is answered from SQL until it is back'),
        onMissed: () => ranks.catchUp(),
      });
    }

    app.playerErasure.register('entries', {
      erase: (trx, player) => leaderboards.eraseEntries(trx, player.gameId, player.playerId),
      afterCommit: (player) => leaderboards.afterErase(player.gameId, player.playerId),
    });
    app.games.registerDataCounter('entries', (part) => countEntriesOfPart(database.db, part));

    let closing = false;
    let lastError: unknown;
    let retryTimer: NodeJS.Timeout | undefined;
    let wakeRetry: (() => void) | undefined;
    const loadUntilDone = async (): Promise<void> => {
      for (;;) {
        try {
          await leaderboards.loadRankEngine();
          lastError = undefined;
          return;
        } catch (error) {
          lastError = error;
          if (closing) return;
          app.log.error({ err: error }, 'rank engine: loading from SQL failed; retrying');
          await new Promise<void>((resolve) => {
            wakeRetry = resolve;
            retryTimer = setTimeout(resolve, loadRetryDelayMs);
          });
          if (closing) return;
        }
      }
    };
    let loaded = false;
    let loading: Promise<void> | undefined;

    app.readiness.register('rank-engine', async () => {
      if (loaded) return;
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`loading leaderboards from SQL${reason}`);
    });
    // Loading starts once the app is ready and runs behind readiness, so the process answers
    // /healthz and /readyz (503) while a large board loads.
    app.addHook('onReady', async () => {
      loading = loadUntilDone().then(() => {
        loaded = !closing;
      });
    });
    app.addHook('preClose', async () => {
      closing = true;
      clearTimeout(retryTimer);
      wakeRetry?.();
      await loading;
    });
  },
  { name: 'game-leaderboards', dependencies: ['game-manifest', 'game-player-erasure'] },
);
