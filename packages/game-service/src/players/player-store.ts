import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Dialect } from '@playstack/server-kit';
import type { GameDb, PlayersTable } from '../database.js';
import { PrecompiledQuery, type QueryRunner } from '../precompiled-query.js';

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
 * updated if present. One upsert, so two first sign-ins racing end with one player. Compiled once
 * for the database it is made with; run on it or any of its transactions.
 */
export class LinkedPlayerUpsert {
  readonly #upsert: PrecompiledQuery<PlayersTable, Pick<PlayersTable, 'id' | 'game_id' | 'display_name'>>;

  constructor(db: GameDb) {
    this.#upsert = new PrecompiledQuery((arg) =>
      db
        .insertInto('players')
        .values({
          id: arg('id'),
          game_id: arg('game_id'),
          provider: arg('provider'),
          provider_subject: arg('provider_subject'),
          display_name: arg('display_name'),
          created_at: arg('created_at'),
          last_seen_at: arg('last_seen_at'),
        })
        .onConflict((oc) => oc.columns(['game_id', 'provider', 'provider_subject']).doUpdateSet({ display_name: arg('display_name'), last_seen_at: arg('last_seen_at') }))
        .returning(['id', 'game_id', 'display_name']),
    );
  }

  async run(db: QueryRunner, link: PlatformLink, now: number): Promise<Player> {
    const { rows } = await this.#upsert.execute(db, {
      id: randomUUID(),
      game_id: link.gameId,
      provider: link.provider,
      provider_subject: link.subject,
      display_name: link.displayName,
      created_at: now,
      last_seen_at: now,
    });
    const row = rows[0];
    if (!row) throw new Error('the player upsert returned no row');
    return { id: row.id, gameId: row.game_id, displayName: row.display_name };
  }
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

/** A player as operators find them: with their platform identity and activity. */
export interface PlayerRecord extends Player {
  readonly provider: string;
  readonly providerSubject: string;
  readonly createdAt: number;
  readonly lastSeenAt: number;
}

type PlayerRow = { id: string; game_id: string; display_name: string; provider: string; provider_subject: string; created_at: number; last_seen_at: number };

function toPlayerRecord(row: PlayerRow): PlayerRecord {
  return {
    id: row.id,
    gameId: row.game_id,
    displayName: row.display_name,
    provider: row.provider,
    providerSubject: row.provider_subject,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
  };
}

/**
 * Players of every game (or one) whose id or platform subject is `query` exactly, or whose
 * display name contains it (case-insensitive); most recently seen first.
 */
export async function searchPlayers(db: GameDb, query: string, options: { gameId?: string | undefined; limit: number }): Promise<PlayerRecord[]> {
  const pattern = `%${query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  let select = db
    .selectFrom('players')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('id', '=', query),
        eb('provider_subject', '=', query),
        eb(eb.fn('lower', ['display_name']), 'like', sql<string>`${pattern} escape '\\'`),
      ]),
    );
  if (options.gameId !== undefined) select = select.where('game_id', '=', options.gameId);
  const rows = await select.orderBy('last_seen_at', 'desc').orderBy('id').limit(options.limit).execute();
  return rows.map(toPlayerRecord);
}

/** One player of a game, or undefined. */
export async function findPlayerRecord(db: GameDb, gameId: string, playerId: string): Promise<PlayerRecord | undefined> {
  const row = await db.selectFrom('players').selectAll().where('game_id', '=', gameId).where('id', '=', playerId).executeTakeFirst();
  return row && toPlayerRecord(row);
}

/** Display names of the given players that still exist, by `gameId:playerId`. */
export async function displayNamesOf(db: GameDb, players: ReadonlyArray<{ gameId: string; playerId: string }>): Promise<Map<string, string>> {
  const ids = [...new Set(players.map((p) => p.playerId))];
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('players').select(['id', 'game_id', 'display_name']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [`${row.game_id}:${row.id}`, row.display_name]));
}
