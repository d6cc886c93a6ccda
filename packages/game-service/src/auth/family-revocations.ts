import type { Clock, RedisHealth } from '@playstack/server-kit';
import type { Awaitable } from '../awaitable.js';
import type { GameDb } from '../database.js';
import { PrecompiledQuery } from '../precompiled-query.js';

export interface FamilyRevocationsOptions {
  /** Revocations only matter while access tokens issued before them can still be valid. */
  accessTokenTtlMs: number;
  /**
   * How long a family the database showed active is trusted before asking it again: how late an
   * instance may learn of a revocation it did not hear of through Redis (or at all, without Redis).
   */
  activeCacheMs: number;
  /**
   * Whether a timer runs {@link FamilyRevocations.checkFamiliesInUse} every `activeCacheMs / 2`
   * (default); without it the owner calls it (tests, to choose the moments).
   */
  checkOnTimer?: boolean;
  /** Told of every failed Redis write (log and count it); the request carries on. */
  onRedisWriteFailure?: (error: unknown, what: 'family' | 'player') => void;
}

const familyKey = (familyId: string) => `auth:revoked-family:${familyId}`;
const playerKey = (playerId: string) => `auth:revoked-player:${playerId}`;

/**
 * How often expired entries are swept out. Sweeping only frees memory: an expired active mark
 * fails its `> now` test, and a revocation kept up to a second past its time still answers
 * "revoked" truthfully (revocations are final, and it outlives every token issued before it).
 */
const sweepIntervalMs = 1_000;

/** Families asked for at once when the ones in use are checked again together (bound parameters per statement). */
const familiesPerCheck = 500;

/** Each map is in insertion order with one lifetime for all its entries, so expired entries lead. */
function forgetExpired(until: Map<string, number>, now: number): void {
  for (const [key, expiresAt] of until) {
    if (expiresAt > now) break;
    until.delete(key);
  }
}

/**
 * Answers "is this access token's session still alive?" on every authenticated request.
 *
 * The database is the source of truth: a revocation is committed there before it is announced
 * here, and a revoked or deleted family is dead. Revocations made here are known locally at once.
 * With Redis they are also written there (for as long as an access token lives), so instances that
 * ask Redis see a logout immediately. A Redis write that fails (an outage) does not fail the
 * request, so Redis saying "not revoked" is not trusted alone: a family is also checked in the
 * database, at most once per `activeCacheMs` per instance, and that check is all there is while
 * Redis does not answer or without Redis. So every instance learns of every revocation within
 * `activeCacheMs`, and the common path costs no database read per request.
 *
 * Families in use are checked again together, ahead of time: every `activeCacheMs / 2` the
 * families asked about since their last read whose trust would lapse before the next check are
 * read in one statement per 500 and trusted for `activeCacheMs` from the moment that read began.
 * So a player who keeps making requests is answered from memory on every one of them instead of
 * one request per `activeCacheMs` waiting on a database read (a read per family and
 * `activeCacheMs` either way, at most, but off the requests' path and many per statement). The
 * bound is the same: a revocation committed before a read began is seen by it, so none is missed
 * longer than `activeCacheMs`.
 */
export class FamilyRevocations {
  readonly #db: GameDb;
  readonly #redis: RedisHealth | undefined;
  readonly #clock: Clock;
  readonly #options: FamilyRevocationsOptions;
  /**
   * Revoked families and players, each with when it may be forgotten. Keyed by the ids
   * themselves: the claims of a token hold the same strings on every request, so their hashes
   * are computed once.
   */
  readonly #revokedFamilies = new Map<string, number>();
  readonly #revokedPlayers = new Map<string, number>();
  readonly #activeUntil = new Map<string, number>();
  /** Families asked about since the database was last read for them: the ones in use. */
  #askedSinceRead = new Set<string>();
  readonly #checkEveryMs: number;
  #nextSweepAt = 0;
  readonly #checkTimer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;
  /** One family's revocation, compiled once: read on a request whose family's trust has lapsed. */
  readonly #revokedAt: PrecompiledQuery<{ id: string }, { revoked_at: number | null }>;

  constructor(db: GameDb, redis: RedisHealth | undefined, clock: Clock, options: FamilyRevocationsOptions) {
    this.#db = db;
    this.#revokedAt = new PrecompiledQuery((arg) => db.selectFrom('session_families').select('revoked_at').where('id', '=', arg('id')));
    this.#redis = redis;
    this.#clock = clock;
    this.#options = options;
    this.#checkEveryMs = Math.max(1, Math.floor(options.activeCacheMs / 2));
    if (options.activeCacheMs > 0 && options.checkOnTimer !== false) {
      this.#checkTimer = setInterval(() => {
        if (!this.#checking) void this.checkFamiliesInUse();
      }, this.#checkEveryMs);
      this.#checkTimer.unref();
    }
  }

  /**
   * Reads again, together, the families asked about since their last read whose trust lapses
   * before the next check (the timer calls it every `activeCacheMs / 2`; one trusted for longer
   * waits for a later check): active ones are trusted for `activeCacheMs` from the start of the read,
   * revoked or deleted ones remembered as revoked. A failed read changes nothing (those families'
   * trust lapses and requests ask the database again one by one). A call while a check runs starts
   * its own after it (the timer skips its turn instead).
   */
  checkFamiliesInUse(): Promise<void> {
    const check: Promise<void> = (this.#checking ?? Promise.resolve()).then(() => this.#checkInUse()).finally(() => {
      if (this.#checking === check) this.#checking = undefined;
    });
    this.#checking = check;
    return check;
  }

  async #checkInUse(): Promise<void> {
    const families: string[] = [];
    // Half a check's period of slack: the timer may run late.
    const lapsingBy = this.#clock.now() + this.#checkEveryMs * 1.5;
    const waiting = new Set<string>();
    for (const id of this.#askedSinceRead) {
      if (this.#revokedFamilies.has(id)) continue;
      if ((this.#activeUntil.get(id) ?? 0) <= lapsingBy) families.push(id);
      else waiting.add(id);
    }
    this.#askedSinceRead = waiting;
    for (let from = 0; from < families.length; from += familiesPerCheck) {
      const chunk = families.slice(from, from + familiesPerCheck);
      const readAt = this.#clock.now();
      let rows: Array<{ id: string; revoked_at: number | null }>;
      try {
        rows = await this.#db.selectFrom('session_families').select(['id', 'revoked_at']).where('id', 'in', chunk).execute();
      } catch {
        return;
      }
      const active = new Set<string>();
      for (const row of rows) if (row.revoked_at === null) active.add(row.id);
      for (const id of chunk) {
        if (active.has(id)) this.#trust(id, readAt);
        else this.#rememberFamily(id);
      }
    }
  }

  /** Stops the timer of {@link checkFamiliesInUse} (the app closes) and waits for a check under way. */
  async close(): Promise<void> {
    clearInterval(this.#checkTimer);
    await this.#checking;
  }

  /** Call once the families' revocation is committed to the database. Never throws for Redis. */
  async revokeFamilies(familyIds: readonly string[]): Promise<void> {
    for (const id of familyIds) this.#rememberFamily(id);
    if (this.#redis && familyIds.length > 0) {
      const multi = this.#redis.redis.multi();
      for (const id of familyIds) multi.set(familyKey(id), '1', 'PX', this.#options.accessTokenTtlMs);
      await this.#redisWrite('family', async () => {
        // exec resolves with per-command errors; a failed SET is a failed write too.
        const results = await multi.exec();
        if (!results) throw new Error('the Redis transaction was discarded');
        const failed = results.find(([error]) => error !== null);
        if (failed) throw failed[0];
      });
    }
  }

  /** Every session of the player, present or not yet looked at, after its deletion (committed). */
  async revokePlayer(playerId: string): Promise<void> {
    this.#remember(this.#revokedPlayers, playerId);
    const redis = this.#redis;
    if (redis) await this.#redisWrite('player', () => redis.redis.set(playerKey(playerId), '1', 'PX', this.#options.accessTokenTtlMs));
  }

  /**
   * Answered at once (no promise) from what this instance knows, when it can: a revocation it
   * has seen, or, without Redis, a family the database showed active within `activeCacheMs`.
   */
  isRevoked(familyId: string, playerId: string): Awaitable<boolean> {
    const now = this.#clock.now();
    this.#forgetExpired(now);
    if (this.#revokedFamilies.has(familyId) || this.#revokedPlayers.has(playerId)) return true;
    if (this.#redis?.usable) return this.#revokedInRedis(this.#redis, familyId, playerId, now);
    return this.#revokedInDatabaseUnlessFresh(familyId, now);
  }

  async #revokedInRedis(redis: RedisHealth, familyId: string, playerId: string, now: number): Promise<boolean> {
    try {
      if ((await redis.redis.exists(familyKey(familyId), playerKey(playerId))) > 0) {
        this.#rememberFamily(familyId);
        return true;
      }
    } catch (error) {
      // Redis is unreachable: the database holds every revocation, it decides below.
      redis.failed('session-revocations', error);
    }
    // Redis may have missed a revocation made during an outage; the database has it.
    return this.#revokedInDatabaseUnlessFresh(familyId, now);
  }

  #revokedInDatabaseUnlessFresh(familyId: string, now: number): Awaitable<boolean> {
    if (this.#options.activeCacheMs > 0) this.#askedSinceRead.add(familyId);
    if ((this.#activeUntil.get(familyId) ?? 0) > now) return false;
    return this.#revokedInDatabase(familyId, now);
  }

  /** The revocation is durable in the database already; Redis only spreads it faster. */
  async #redisWrite(what: 'family' | 'player', write: () => Promise<unknown>): Promise<void> {
    try {
      if (!this.#redis?.usable) throw new Error('Redis is out of use');
      await write();
    } catch (error) {
      this.#redis?.failed('session-revocations', error);
      this.#options.onRedisWriteFailure?.(error, what);
    }
  }

  /** A revoked family, or one erased with its player, is dead; the database knows both. */
  async #revokedInDatabase(familyId: string, now: number): Promise<boolean> {
    const [row] = (await this.#revokedAt.execute(this.#db, { id: familyId })).rows;
    if (!row || row.revoked_at !== null) {
      this.#rememberFamily(familyId);
      return true;
    }
    if (this.#options.activeCacheMs > 0) this.#trust(familyId, now);
    // Just read: in use again once asked again.
    this.#askedSinceRead.delete(familyId);
    return false;
  }

  /** The database showed the family active in a read that began at `readAt`. */
  #trust(familyId: string, readAt: number): void {
    // A revocation learned meanwhile (here or from Redis) stands.
    if (this.#revokedFamilies.has(familyId)) return;
    this.#activeUntil.delete(familyId);
    this.#activeUntil.set(familyId, readAt + this.#options.activeCacheMs);
  }

  #rememberFamily(familyId: string): void {
    this.#remember(this.#revokedFamilies, familyId);
    this.#activeUntil.delete(familyId);
  }

  #remember(revoked: Map<string, number>, id: string): void {
    revoked.delete(id);
    revoked.set(id, this.#clock.now() + this.#options.accessTokenTtlMs);
  }

  #forgetExpired(now: number): void {
    if (now < this.#nextSweepAt) return;
    this.#nextSweepAt = now + sweepIntervalMs;
    forgetExpired(this.#revokedFamilies, now);
    forgetExpired(this.#revokedPlayers, now);
    forgetExpired(this.#activeUntil, now);
  }
}
