import fp from 'fastify-plugin';
import { Counter } from 'prom-client';
import type { Limit, LimitHook } from '../rate-limit/rate-limits.js';
import { adapterTypes } from './adapters/registry.js';
import { RunSubmissions } from './run-submission.js';
import { countRunsOfPart } from './run-counts.js';
import { eraseRunsOfPlayer, listRuns, type RunListFilter, type RunPage } from './run-store.js';
import { GroupCommitWriter, type CommitWriter } from '../group-commit.js';
import type { GameApp } from '../database.js';

declare module 'fastify' {
  interface FastifyInstance {
    runs: {
      submissions: RunSubmissions;
      /** Per-player limit of run submissions, after `app.requirePlayer`. */
      rateLimit: LimitHook;
      /** A page of a game's runs, newest first, for operators (the admin pages). */
      list(filter: RunListFilter): Promise<RunPage>;
    };
  }
}

export interface RunsPluginOptions {
  rateLimit: Limit;
  /** Most submissions one transaction carries (group commit). */
  maxRunsPerCommit: number;
  /** PostgreSQL: group commits in flight side by side (SQLite's single writer has one). */
  commitLanes: number;
}

/**
 * Run submission: the writer (group commit: concurrent submissions share a transaction, on
 * SQLite in one lane, on PostgreSQL in several side by side on its pool),
 * the submission logic, the runs listing operators read, and the `runs` part of player erasure.
 */
export const runsPlugin = fp<RunsPluginOptions>(
  async (app: GameApp, options) => {
    const { db, dialect, sqliteStatements } = app.database;
    const writer: CommitWriter = new GroupCommitWriter(db, { dialect, maxBatch: options.maxRunsPerCommit, lanes: dialect === 'sqlite' ? 1 : options.commitLanes, statements: sqliteStatements });
    const recorded = new Counter({
      name: 'game_runs_total',
      help: 'Runs recorded, by game, adapter and status (accepted, flagged, rejected)',
      labelNames: ['game', 'adapter', 'status'] as const,
      registers: [app.metrics],
    });
    const submissions = new RunSubmissions({
      db,
      dialect,
      writer,
      clock: app.clock,
      scores: app.leaderboards,
      adapterTypes,
      onRecorded: (run) => recorded.inc({ game: run.gameId, adapter: run.adapterId, status: run.status }),
    });
    app.decorate('runs', {
      submissions,
      rateLimit: app.createPlayerRateLimit('runs', options.rateLimit),
      list: (filter: RunListFilter) => listRuns(db, filter),
    });
    app.playerErasure.register('runs', { erase: (trx, player) => eraseRunsOfPlayer(trx, player.gameId, player.playerId) });
    app.games.registerDataCounter('runs', (part) => countRunsOfPart(db, part));
    // After the last request has been answered, writes still queued (the stored responses that
    // follow an answer) commit before the database closes: onClose hooks run in reverse order of
    // registration, so this one runs before the platform's.
    app.addHook('onClose', async () => writer.drain());
  },
  { name: 'game-runs', dependencies: ['game-player-erasure', 'game-rate-limits', 'game-leaderboards', 'game-auth'] },
);
