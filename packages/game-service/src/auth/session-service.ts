import { randomUUID } from 'node:crypto';
import { ApiError, hashOpaqueToken, newOpaqueToken, type Clock } from '@playstack/server-kit';
import { andThen, type Awaitable } from '../awaitable.js';
import type { GameDefinition } from '../manifest/manifest-schema.js';
import { playerForPlatformLink, type Player } from '../players/player-service.js';
import type { AccessClaims, AccessTokenCodec } from './access-token.js';
import type { FamilyRevocations } from './family-revocations.js';
import type { ProviderRegistry } from './providers/provider-registry.js';
import { revokeSessionsOfPlayer } from './player-sessions.js';
import { openSuccessor, sealSuccessor } from './refresh-successor.js';
import { familyInserts, findPresentedToken, revokeFamily, rotate, type PresentedToken } from './session-store.js';
import type { GameDb } from '../database.js';
import type { CommitWriter } from '../group-commit.js';

export interface SessionLifetimes {
  accessTokenTtlMs: number;
  refreshTokenTtlMs: number;
  /** After a rotation, the spent token may be presented again within this window (and gets the same successor). */
  refreshGraceMs: number;
}

/** What exchange and refresh answer (lifetimes in seconds). */
export interface SessionGrant {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  refreshToken: string;
  refreshExpiresIn: number;
  player: { id: string; displayName: string };
}

export interface SessionServiceDeps {
  db: GameDb;
  /** Where sign-ins write (group commit); without it, a transaction each. */
  signIns?: CommitWriter | undefined;
  clock: Clock;
  providers: ProviderRegistry;
  codec: AccessTokenCodec;
  revocations: FamilyRevocations;
  lifetimes: SessionLifetimes;
}

const invalidRefreshToken = () => new ApiError('invalid-grant', 'The refresh token is unknown, expired or revoked; sign in again.');
const maxRotationAttempts = 3;

/**
 * Player sessions: a refresh family per sign-in, rotated on every refresh, revoked as a whole on
 * logout or on reuse of a spent token; short-lived access tokens bound to game and family.
 */
export class SessionService {
  readonly #deps: SessionServiceDeps;
  readonly #linkedPlayer: ReturnType<typeof playerForPlatformLink>;
  readonly #insertFamily: ReturnType<typeof familyInserts>;

  constructor(deps: SessionServiceDeps) {
    this.#deps = deps;
    this.#linkedPlayer = playerForPlatformLink(deps.db);
    this.#insertFamily = familyInserts(deps.db);
  }

  /** Signs a player in with a platform authorization code: a new family. */
  async exchange(game: GameDefinition, authorizationCode: string): Promise<SessionGrant> {
    const { db, clock, providers, lifetimes } = this.#deps;
    const identity = await providers.identify(authorizationCode, game.auth);
    const now = clock.now();
    const familyId = randomUUID();
    const refreshToken = newOpaqueToken();
    // One transaction (on SQLite shared with the sign-ins arriving with it, each under its own
    // savepoint when one fails), so a deletion of this player (which locks the player first)
    // either completes before (and this creates a new player) or after (and erases this session too).
    const write = async (trx: GameDb) => {
      const signedIn = await this.#linkedPlayer(
        trx,
        { gameId: game.id, provider: game.auth.provider, subject: identity.subject, displayName: identity.displayName },
        now,
      );
      await this.#insertFamily(trx, {
        familyId,
        gameId: game.id,
        playerId: signedIn.id,
        tokenHash: hashOpaqueToken(refreshToken),
        now,
        expiresAt: now + lifetimes.refreshTokenTtlMs,
      });
      return signedIn;
    };
    const player = await (this.#deps.signIns ? this.#deps.signIns.write(write, identity.subject) : db.transaction().execute(write));
    return this.#grant(player, familyId, refreshToken, now, now + lifetimes.refreshTokenTtlMs);
  }

  /**
   * Rotates: the presented token is spent and a new one returned. Within the grace window after
   * a rotation, the token just spent may be presented again, any number of times (refreshes
   * racing from two tabs, or a retry after a timeout): each gets the same successor, opened from
   * its sealed copy, and a fresh access token. Any other spent token, or that one after the
   * window, is reuse, which revokes the family.
   */
  async refresh(game: GameDefinition, presentedToken: string): Promise<SessionGrant> {
    const { db, clock, lifetimes } = this.#deps;
    const tokenHash = hashOpaqueToken(presentedToken);
    for (let attempt = 1; attempt <= maxRotationAttempts; attempt++) {
      const presented = await this.#findUsable(game, tokenHash);
      const now = clock.now();
      const player = { id: presented.playerId, gameId: presented.gameId, displayName: presented.displayName };

      if (presented.generation === presented.familyGeneration) {
        const refreshToken = newOpaqueToken();
        const expiresAt = now + lifetimes.refreshTokenTtlMs;
        const rotation = {
          familyId: presented.familyId,
          fromGeneration: presented.generation,
          spentTokenHash: tokenHash,
          successorSealed: sealSuccessor(presentedToken, refreshToken),
          tokenHash: hashOpaqueToken(refreshToken),
          now,
          expiresAt,
        };
        if (await rotate(db, rotation)) return this.#grant(player, presented.familyId, refreshToken, now, expiresAt);
        continue; // another refresh advanced the family first: judge the token again as the one just spent
      }
      const justSpent = presented.generation === presented.familyGeneration - 1;
      const withinGrace = now - presented.rotatedAt < lifetimes.refreshGraceMs;
      const successor = justSpent && withinGrace && presented.successorSealed ? openSuccessor(presentedToken, presented.successorSealed) : undefined;
      if (successor) return this.#grant(player, presented.familyId, successor, now, presented.rotatedAt + lifetimes.refreshTokenTtlMs);
      await this.#revoke(presented.familyId, 'reuse');
      throw new ApiError('invalid-grant', 'This refresh token was already used; the session is revoked for safety. Sign in again.');
    }
    throw invalidRefreshToken();
  }

  /** Revokes the family of the token (spent or current) and, at once, its access tokens. */
  async logout(game: GameDefinition, presentedToken: string): Promise<void> {
    const presented = await this.#findUsable(game, hashOpaqueToken(presentedToken));
    await this.#revoke(presented.familyId, 'logout');
  }

  /**
   * An operator ends every sign-in of a player: refresh tokens stop working, and access tokens
   * at once here (within the revocation cache elsewhere, at once with Redis). How many were live.
   */
  async revokePlayer(gameId: string, playerId: string): Promise<number> {
    // Family by family, not the player: a sign-in after this one must work at once.
    const revoked = await revokeSessionsOfPlayer(this.#deps.db, gameId, playerId, this.#deps.clock.now());
    if (revoked.length > 0) await this.#deps.revocations.revokeFamilies(revoked);
    return revoked.length;
  }

  /** The claims of a valid, unexpired, unrevoked access token for this game, else undefined. */
  authenticate(gameId: string, accessToken: string): Awaitable<AccessClaims | undefined> {
    const claims = this.#deps.codec.verify(accessToken);
    if (!claims || claims.gameId !== gameId || claims.expiresAt <= this.#deps.clock.now()) return undefined;
    return andThen(this.#deps.revocations.isRevoked(claims.familyId, claims.playerId), (revoked) => (revoked ? undefined : claims));
  }

  async #findUsable(game: GameDefinition, tokenHash: string): Promise<PresentedToken> {
    const presented = await findPresentedToken(this.#deps.db, tokenHash);
    if (!presented || presented.gameId !== game.id || presented.revoked || presented.expiresAt <= this.#deps.clock.now()) {
      throw invalidRefreshToken();
    }
    return presented;
  }

  async #revoke(familyId: string, reason: 'logout' | 'reuse'): Promise<void> {
    await revokeFamily(this.#deps.db, familyId, reason, this.#deps.clock.now());
    await this.#deps.revocations.revokeFamilies([familyId]);
  }

  #grant(player: Player, familyId: string, refreshToken: string, now: number, refreshExpiresAt: number): SessionGrant {
    const { codec, lifetimes } = this.#deps;
    const accessToken = codec.sign({
      playerId: player.id,
      gameId: player.gameId,
      displayName: player.displayName,
      familyId,
      expiresAt: now + lifetimes.accessTokenTtlMs,
    });
    return {
      accessToken,
      tokenType: 'Bearer',
      expiresIn: Math.floor(lifetimes.accessTokenTtlMs / 1000),
      refreshToken,
      refreshExpiresIn: Math.floor((refreshExpiresAt - now) / 1000),
      player: { id: player.id, displayName: player.displayName },
    };
  }
}
