import fp from 'fastify-plugin';
import { Moderation } from './moderation-service.js';
import type { GameApp } from '../database.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Operators' actions on players, with the audit log (the admin pages call it). */
    moderation: Moderation;
  }
}

export interface ModerationPluginOptions {
  /** How often hidings whose end time has come are ended. */
  sweepIntervalMs: number;
}

/** Player moderation and its audit log; a timer ends hidings whose time has come. */
export const moderationPlugin = fp<ModerationPluginOptions>(
  async (app: GameApp, options) => {
    const moderation = new Moderation({
      database: app.database,
      clock: app.clock,
      games: app.games,
      leaderboards: app.leaderboards,
      sessions: app.sessions,
      erasure: app.playerErasure,
      log: app.log,
    });
    app.decorate('moderation', moderation);

    let sweeping: Promise<unknown> | undefined;
    const timer = setInterval(() => {
      sweeping ??= moderation
        .unhideExpired()
        .catch((error: unknown) => app.log.error({ err: error }, 'moderation: ending expired hidings failed; retrying at the next sweep'))
        .finally(() => {
          sweeping = undefined;
        });
    }, options.sweepIntervalMs);
    timer.unref();
    app.addHook('preClose', async () => {
      clearInterval(timer);
      await sweeping;
    });
  },
  { name: 'game-moderation', dependencies: ['game-leaderboards', 'game-auth', 'game-player-erasure', 'game-manifest'] },
);
