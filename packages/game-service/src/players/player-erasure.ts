import type { FastifyBaseLogger } from 'fastify';
import type { Transaction } from 'kysely';
import type { Database } from '@playstack/server-kit';
import { deletePlayerRecord, lockPlayerRecord } from './player-store.js';
import type { GameDatabase, GameTransaction } from '../database.js';

/** The player whose data is being erased. */
export interface ErasedPlayer {
  readonly gameId: string;
  readonly playerId: string;
}

/**
 * One feature's part of a player's data. `erase` runs inside the shared transaction and returns
 * how many items went; `afterCommit` drops what lives outside the database (caches, Redis sets)
 * once the deletion is durable.
 */
export interface PlayerEraser {
  erase(trx: GameTransaction, player: ErasedPlayer): Promise<number>;
  afterCommit?(player: ErasedPlayer): Promise<void>;
}

/** What went, per part; the response always reports these three, 0 when nobody registered them. */
export type ErasureCounts = { runs: number; entries: number; sessions: number } & Record<string, number>;

/**
 * The seam every feature holding player data hooks into: `DELETE /player` erases all registered
 * parts and then the player record (the platform link) in ONE transaction, so a failure leaves
 * everything in place.
 */
export class PlayerErasure {
  readonly #erasers = new Map<string, PlayerEraser>();

  /** Registers a feature's eraser under the part name the response counts it as. */
  register(part: string, eraser: PlayerEraser): void {
    if (this.#erasers.has(part)) throw new Error(`a player eraser for "${part}" is already registered`);
    this.#erasers.set(part, eraser);
  }

  /**
   * Erases everything of the player; the counts per part (every reported part present). A failing
   * `afterCommit` is logged, not thrown: the data is gone, and the caller must hear so.
   */
  async erase(database: Database<GameDatabase>, player: ErasedPlayer, log: FastifyBaseLogger): Promise<ErasureCounts> {
    const deleted: ErasureCounts = { runs: 0, entries: 0, sessions: 0 };
    await database.db.transaction().execute(async (trx) => {
      await lockPlayerRecord(trx, database.dialect, player.gameId, player.playerId);
      for (const [part, eraser] of this.#erasers) deleted[part] = await eraser.erase(trx, player);
      // Last: other parts' rows may refer to the player record.
      await deletePlayerRecord(trx, player.gameId, player.playerId);
    });
    for (const [part, eraser] of this.#erasers) {
      await eraser.afterCommit?.(player).catch((error: unknown) => log.error({ err: error, part }, 'player erasure: afterCommit failed'));
    }
    return deleted;
  }
}
