import { randomUUID } from 'node:crypto';
import type { Dialect } from '@playstack/server-kit';
import type { GameDb } from '../database.js';

/** A player of one game, linked to one platform identity. */
export interface Player {
  readonly id: string;
  readonly gameId: string;
  readonly displayName: string;
}

export interface PlatformLink {
  readonly gameId: string;
  readonly provider: string;
  readonly subject: string;
  readonly displayName: string;
}

/**
 * The player linked to this platform identity in this game, created if absent, its display name
 * updated if present. One upsert, so two first sign-ins racing end with one player.
 */
export async function upsertLinkedPlayer(db: GameDb, link: PlatformLink, now: number): Promise<Player> {
  const row = await db
    .insertInto('players')
    .values({
      id: randomUUID(),
      game_id: link.gameId,
      provider: link.provider,
      provider_subject: link.subject,
      display_name: link.displayName,
      created_at: now,
      last_seen_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['game_id', 'provider', 'provider_subject']).doUpdateSet({ display_name: link.displayName, last_seen_at: now }),
    )
    .returning(['id', 'game_id', 'display_name'])
    .executeTakeFirstOrThrow();
  return { id: row.id, gameId: row.game_id, displayName: row.display_name };
}

/**
 * Inside the erasure transaction, first: holds off sign-ins of this player until the erasure
 * commits. SQLite needs nothing: its write transactions already run one at a time.
 */
export async function lockPlayerRecord(db: GameDb, dialect: Dialect, gameId: string, playerId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom('players').select('id').where('id', '=', playerId).where('game_id', '=', gameId).forUpdate().execute();
}

/** Removes the player record and with it the platform link. */
export async function deletePlayerRecord(db: GameDb, gameId: string, playerId: string): Promise<number> {
  const result = await db.deleteFrom('players').where('id', '=', playerId).where('game_id', '=', gameId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
