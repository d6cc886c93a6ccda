import type { Dialect } from '@playstack/server-kit';
import type { Insertable } from 'kysely';
import type { GameDb, RefreshTokensTable, SessionFamiliesTable } from '../database.js';
import { PrecompiledQuery, type QueryRunner } from '../precompiled-query.js';

/** A refresh token as found by its hash, with its family's state. */
export interface PresentedToken {
  readonly familyId: string;
  readonly gameId: string;
  readonly playerId: string;
  readonly displayName: string;
  /** The generation of the presented token. */
  readonly generation: number;
  readonly expiresAt: number;
  /** The family's current generation and when it last rotated. */
  readonly familyGeneration: number;
  readonly rotatedAt: number;
  /** Once spent: the successor it was rotated into, sealed with a key derived from this token. */
  readonly successorSealed: string | null;
  readonly revoked: boolean;
}

export type RevokeReason = 'logout' | 'reuse';

export async function findPresentedToken(db: GameDb, tokenHash: string): Promise<PresentedToken | undefined> {
  const row = await db
    .selectFrom('refresh_tokens as t')
    .innerJoin('session_families as f', 'f.id', 't.family_id')
    .innerJoin('players as p', 'p.id', 'f.player_id')
    .select([
      't.family_id',
      't.generation',
      't.expires_at',
      't.successor_sealed',
      'f.game_id',
      'f.player_id',
      'f.generation as family_generation',
      'f.rotated_at',
      'f.revoked_at',
      'p.display_name',
    ])
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    familyId: row.family_id,
    gameId: row.game_id,
    playerId: row.player_id,
    displayName: row.display_name,
    generation: row.generation,
    expiresAt: row.expires_at,
    familyGeneration: row.family_generation,
    rotatedAt: row.rotated_at,
    successorSealed: row.successor_sealed,
    revoked: row.revoked_at !== null,
  };
}

export interface NewFamily {
  readonly familyId: string;
  readonly gameId: string;
  readonly playerId: string;
  readonly tokenHash: string;
  readonly now: number;
  readonly expiresAt: number;
}

/**
 * A new session: family at generation 1 with its first refresh token. Call inside a transaction.
 * Made once for a database (the two inserts compiled once).
 */
export function familyInserts(db: GameDb): (trx: QueryRunner, family: NewFamily) => Promise<void> {
  const family = new PrecompiledQuery<Insertable<SessionFamiliesTable>, unknown>((arg) =>
    db.insertInto('session_families').values({
      id: arg('id'),
      game_id: arg('game_id'),
      player_id: arg('player_id'),
      generation: arg('generation'),
      rotated_at: arg('rotated_at'),
      grace_used: arg('grace_used'),
      created_at: arg('created_at'),
      revoked_at: arg('revoked_at'),
      revoked_reason: arg('revoked_reason'),
    }),
  );
  const token = new PrecompiledQuery<Insertable<RefreshTokensTable>, unknown>((arg) =>
    db.insertInto('refresh_tokens').values({
      token_hash: arg('token_hash'),
      family_id: arg('family_id'),
      generation: arg('generation'),
      issued_at: arg('issued_at'),
      expires_at: arg('expires_at'),
      successor_sealed: arg('successor_sealed'),
    }),
  );
  return async (trx, created) => {
    await family.execute(trx, {
      id: created.familyId,
      game_id: created.gameId,
      player_id: created.playerId,
      generation: 1,
      rotated_at: created.now,
      // No longer read: kept filled while the column exists (see migration 2026-11-25-02).
      grace_used: 0,
      created_at: created.now,
      revoked_at: null,
      revoked_reason: null,
    });
    await token.execute(trx, { token_hash: created.tokenHash, family_id: created.familyId, generation: 1, issued_at: created.now, expires_at: created.expiresAt, successor_sealed: null });
  };
}

export interface Rotation {
  readonly familyId: string;
  /** The generation the presented token must still be current at. */
  readonly fromGeneration: number;
  /** The presented token, spent by this rotation, and its successor sealed for it. */
  readonly spentTokenHash: string;
  readonly successorSealed: string;
  readonly tokenHash: string;
  readonly now: number;
  readonly expiresAt: number;
}

/**
 * Advances the family from `fromGeneration`, stores the new token and seals it beside the spent
 * one, only if nobody advanced or revoked the family meanwhile (the conditional update is the
 * lock). False when someone did. One transaction: whoever sees the new generation sees the
 * sealed successor too.
 */
export async function rotate(db: GameDb, rotation: Rotation): Promise<boolean> {
  return db
    .transaction()
    .execute(async (trx) => {
      const updated = await trx
        .updateTable('session_families')
        .set({ generation: rotation.fromGeneration + 1, rotated_at: rotation.now })
        .where('id', '=', rotation.familyId)
        .where('generation', '=', rotation.fromGeneration)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return false;
      await trx
        .insertInto('refresh_tokens')
        .values({
          token_hash: rotation.tokenHash,
          family_id: rotation.familyId,
          generation: rotation.fromGeneration + 1,
          issued_at: rotation.now,
          expires_at: rotation.expiresAt,
          successor_sealed: null,
        })
        .execute();
      await trx.updateTable('refresh_tokens').set({ successor_sealed: rotation.successorSealed }).where('token_hash', '=', rotation.spentTokenHash).execute();
      // Spent tokens are kept so their reuse is recognised, but not past their own expiry.
      await trx.deleteFrom('refresh_tokens').where('family_id', '=', rotation.familyId).where('expires_at', '<=', rotation.now).execute();
      return true;
    });
}

export async function revokeFamily(db: GameDb, familyId: string, reason: RevokeReason, now: number): Promise<void> {
  await db
    .updateTable('session_families')
    .set({ revoked_at: now, revoked_reason: reason })
    .where('id', '=', familyId)
    .where('revoked_at', 'is', null)
    .execute();
}

/**
 * Deletes every session of the player (inside the erasure transaction); how many families went.
 *
 * On PostgreSQL the families are locked first: a rotation that already advanced
 * one holds its row until it commits its new token, and the token delete below must see that
 * token, or the family delete would fail on the token's foreign key. Rotations that come after
 * the lock find the family gone and answer 401. SQLite serializes writers, so it needs no lock.
 */
export async function deletePlayerSessions(db: GameDb, dialect: Dialect, gameId: string, playerId: string): Promise<number> {
  const families = db.selectFrom('session_families').select('id').where('player_id', '=', playerId).where('game_id', '=', gameId);
  if (dialect === 'postgres') await families.orderBy('id').forUpdate().execute();
  await db.deleteFrom('refresh_tokens').where('family_id', 'in', families).execute();
  const result = await db.deleteFrom('session_families').where('player_id', '=', playerId).where('game_id', '=', gameId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
