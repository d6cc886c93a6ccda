import fp from 'fastify-plugin';
import { countPlayersOfPart } from './player-counts.js';
import { PlayerErasure } from './player-erasure.js';
import type { GameApp } from '../database.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Features holding player data register their eraser here; `DELETE /player` runs them all. */
    playerErasure: PlayerErasure;
  }
}

/** The erasure seam, and the players count the manifest editor checks before a game is dropped. */
export const playerErasurePlugin = fp(
  async (app: GameApp) => {
    app.decorate('playerErasure', new PlayerErasure());
    app.games.registerDataCounter('players', (part) => countPlayersOfPart(app.database.db, part));
  },
  { name: 'game-player-erasure', dependencies: ['game-manifest'] },
);
