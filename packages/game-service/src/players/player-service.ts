import { upsertLinkedPlayer, type PlatformLink, type Player } from './player-store.js';
import type { GameDb } from '../database.js';

// The players feature's public functions: other features (sign-in) reach the players table only
// through these.

export type { PlatformLink, Player };

/**
 * The player linked to this platform identity in this game, created on first sign-in; the display
 * name follows the platform's. Run it inside the sign-in's transaction: an erasure of the player
 * locks the record first (player-erasure.ts), so it completes wholly before or after the sign-in.
 */
export function playerForPlatformLink(db: GameDb, link: PlatformLink, now: number): Promise<Player> {
  return upsertLinkedPlayer(db, link, now);
}

/** Operators' player search (by id, platform subject, or part of the display name), and one player. */
export { displayNamesOf, findPlayerRecord, searchPlayers, type PlayerRecord } from './player-store.js';
