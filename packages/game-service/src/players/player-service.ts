import { LinkedPlayerUpsert, type PlatformLink, type Player } from './player-store.js';
import type { GameDb } from '../database.js';
import type { QueryRunner } from '../precompiled-query.js';

// The players feature's public functions: other features (sign-in) reach the players table only
// through these.

export type { PlatformLink, Player };

/**
 * The player linked to a platform identity in a game, created on first sign-in; the display
 * name follows the platform's. Made once for a database (its statement compiled once); run it
 * inside the sign-in's transaction: an erasure of the player locks the record first
 * (player-erasure.ts), so it completes wholly before or after the sign-in.
 */
export function playerForPlatformLink(db: GameDb): (trx: QueryRunner, link: PlatformLink, now: number) => Promise<Player> {
  const upsert = new LinkedPlayerUpsert(db);
  return (trx, link, now) => upsert.run(trx, link, now);
}

/** Operators' player search (by id, platform subject, or part of the display name), and one player. */
export { displayNamesOf, findPlayerRecord, searchPlayers, type PlayerRecord } from './player-store.js';
