import type { Kysely } from 'kysely';
import type { Clock, Redis } from '@playstack/server-kit';

interface FamilyTables {
  session_families: { id: string; revoked_at: number | null };
}

export interface FamilyRevocationsOptions {
  /** Revocations only matter while access tokens issued before them can still be valid. */
  accessTokenTtlMs: number;
  /** Without Redis: how long a family seen as active is trusted before asking the database again. */
  activeCacheMs: number;
}

const familyKey = (familyId: string) => `auth:revoked-family:${familyId}`;
const playerKey = (playerId: string) => `auth:revoked-player:${playerId}`;

/**
 * Answers "is this access token's session still alive?" on every authenticated request.
 *
 * Revocations made here are known locally at once. With Redis they are also written there (for
 * as long as an access token lives) and every request asks Redis, so all instances see a
 * logout immediately. Without Redis, or while Redis does not answer, the database is asked (a
 * revoked or deleted family is dead), with families seen active trusted for `activeCacheMs`.
 */
export class FamilyRevocations {
  readonly #db: Kysely<FamilyTables>;
  readonly #redis: Redis | undefined;
  readonly #clock: Clock;
  readonly #options: FamilyRevocationsOptions;
  /** Revoked families and players (keys `f:` / `p:`), with when the entry may be forgotten. */
  readonly #revoked = new Map<string, number>();
  readonly #activeUntil = new Map<string, number>();

  constructor(db: Kysely<any>, redis: Redis | undefined, clock: Clock, options: FamilyRevocationsOptions) {
    this.#db = db as Kysely<FamilyTables>;
    this.#redis = redis;
    this.#clock = clock;
    this.#options = options;
  }

  /** Call once the families' revocation is committed to the database. */
  async revokeFamilies(familyIds: readonly string[]): Promise<void> {
    for (const id of familyIds) this.#remember(`f:${id}`);
    if (this.#redis && familyIds.length > 0) {
      const multi = this.#redis.multi();
      for (const id of familyIds) multi.set(familyKey(id), '1', 'PX', this.#options.accessTokenTtlMs);
      await multi.exec();
    }
  }

  /** Every session of the player, present or not yet looked at, after its deletion. */
  async revokePlayer(playerId: string): Promise<void> {
    this.#remember(`p:${playerId}`);
    if (this.#redis) await this.#redis.set(playerKey(playerId), '1', 'PX', this.#options.accessTokenTtlMs);
  }

  async isRevoked(familyId: string, playerId: string): Promise<boolean> {
    const now = this.#clock.now();
    this.#forgetExpired(now);
    if (this.#revoked.has(`f:${familyId}`) || this.#revoked.has(`p:${playerId}`)) return true;
    if (this.#redis) {
      let found: number;
      try {
        found = await this.#redis.exists(familyKey(familyId), playerKey(playerId));
      } catch {
        // Redis is unreachable: the database holds every revocation too, so ask it instead.
        return this.#revokedInDatabase(familyId, now);
      }
      if (found > 0) this.#remember(`f:${familyId}`);
      return found > 0;
    }
    if ((this.#activeUntil.get(familyId) ?? 0) > now) return false;
    return this.#revokedInDatabase(familyId, now);
  }

  /** A revoked family, or one erased with its player, is dead; the database knows both. */
  async #revokedInDatabase(familyId: string, now: number): Promise<boolean> {
    const row = await this.#db.selectFrom('session_families').select('revoked_at').where('id', '=', familyId).executeTakeFirst();
    if (!row || row.revoked_at !== null) {
      this.#remember(`f:${familyId}`);
      return true;
    }
    if (this.#options.activeCacheMs > 0) {
      this.#activeUntil.delete(familyId);
      this.#activeUntil.set(familyId, now + this.#options.activeCacheMs);
    }
    return false;
  }

  #remember(key: string): void {
    this.#revoked.delete(key);
    this.#revoked.set(key, this.#clock.now() + this.#options.accessTokenTtlMs);
    if (key.startsWith('f:')) this.#activeUntil.delete(key.slice(2));
  }

  /** Both maps are in insertion order with the same lifetime per map, so expired entries lead. */
  #forgetExpired(now: number): void {
    for (const [key, until] of this.#revoked) {
      if (until > now) break;
      this.#revoked.delete(key);
    }
    for (const [key, until] of this.#activeUntil) {
      if (until > now) break;
      this.#activeUntil.delete(key);
    }
  }
}
