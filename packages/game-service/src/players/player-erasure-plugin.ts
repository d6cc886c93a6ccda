import fp from 'fastify-plugin';
import { PlayerErasure } from './player-erasure.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Features holding player data register their eraser here; `DELETE /player` runs them all. */
    playerErasure: PlayerErasure;
  }
}

export const playerErasurePlugin = fp(
  async (app) => {
    app.decorate('playerErasure', new PlayerErasure());
  },
  { name: 'game-player-erasure' },
);
