import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { Counter } from 'prom-client';
import { ApiError } from '@playstack/server-kit';
import { AccessTokenCodec, type AccessClaims } from './access-token.js';
import { FamilyRevocations } from './family-revocations.js';
import { ProviderRegistry, type ProvidersOptions } from './providers/provider-registry.js';
import { SessionService, type SessionLifetimes } from './session-service.js';
import { deletePlayerSessions } from './session-store.js';
import { resolveTokenKeys } from './token-keys.js';
import type { GameApp } from '../database.js';
import { GroupCommitWriter } from '../group-commit.js';

/** The signed-in player of a game request, set by `app.requirePlayer`. */
export interface AuthenticatedPlayer {
  readonly id: string;
  readonly gameId: string;
  readonly displayName: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    sessions: SessionService;
    /**
     * preHandler for game endpoints: `Authorization: Bearer <accessToken>` of this game, unexpired
     * and unrevoked, else 401 `unauthorized`. Sets `request.player`.
     */
    requirePlayer: preHandlerHookHandler;
    /**
     * The service's secrets (GAME_TOKEN_SECRET or the generated one first, then the configured
     * previous ones): other features derive keys of their own from them (admin device cookies).
     */
    serviceSecrets: readonly Buffer[];
  }
  interface FastifyRequest {
    player: AuthenticatedPlayer;
  }
}

export interface AuthPluginOptions {
  tokenSecret: string | undefined;
  previousTokenSecrets: readonly string[];
  /** Where a generated token secret is kept. */
  dataDir: string;
  lifetimes: SessionLifetimes;
  revocationCacheMs: number;
  providers: ProvidersOptions;
}

const bearerPattern = /^Bearer ([A-Za-z0-9._~+/=-]+)$/;
/** Most sign-ins one SQLite transaction commits together. */
const signInsPerCommitMax = 64;

function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message, { headers: { 'www-authenticate': 'Bearer' } });
}

/** The end of `requirePlayer` once the token's claims are known (a function of its own: no closure per request). */
function signIn(request: FastifyRequest, claims: AccessClaims | undefined, done: HookHandlerDoneFunction): void {
  if (!claims) return done(unauthorized('The access token is invalid, expired, revoked or for another game; refresh the session.'));
  request.player = { id: claims.playerId, gameId: claims.gameId, displayName: claims.displayName };
  done();
}

/** Sessions, the player guard, and the `sessions` part of player erasure. */
export const authPlugin = fp<AuthPluginOptions>(
  async (app: GameApp, options) => {
    const database = app.database;
    const db = database.db;
    const keys = await resolveTokenKeys(db, {
      configured: options.tokenSecret,
      previousConfigured: options.previousTokenSecrets,
      dataDir: options.dataDir,
      sharedDatabase: database.dialect === 'postgres',
      now: app.clock.now(),
      accessTokenTtlMs: options.lifetimes.accessTokenTtlMs,
      log: app.log,
    });
    const codec = new AccessTokenCodec(keys.signing, keys.previous);
    const redisWriteFailures = new Counter({
      name: 'game_session_revocation_redis_write_failures_total',
      help: 'Session revocations committed to the database that could not be written to Redis (other instances learn of them within GAME_REVOCATION_CACHE_MS)',
      labelNames: ['kind'] as const,
      registers: [app.metrics],
    });
    const revocations = new FamilyRevocations(db, app.redisHealth, app.clock, {
      accessTokenTtlMs: options.lifetimes.accessTokenTtlMs,
      activeCacheMs: options.revocationCacheMs,
      onRedisWriteFailure: (error, kind) => {
        redisWriteFailures.inc({ kind });
        app.log.warn({ err: error, kind }, 'session revocation: Redis write failed; other instances learn of it from the database');
      },
    });
    app.addHook('onClose', () => revocations.close());
    // SQLite: sign-ins arriving together share a transaction (one writer; one commit for many).
    // PostgreSQL runs them side by side on its pool, a transaction each.
    const signIns = database.dialect === 'sqlite' ? new GroupCommitWriter(db, { dialect: database.dialect, maxBatch: signInsPerCommitMax, statements: database.sqliteStatements }) : undefined;
    if (signIns) app.addHook('onClose', () => signIns.drain());
    const sessions = new SessionService({
      db,
      signIns,
      clock: app.clock,
      providers: new ProviderRegistry(options.providers),
      codec,
      revocations,
      lifetimes: options.lifetimes,
    });
    app.decorate('sessions', sessions);
    app.decorate('serviceSecrets', [keys.signing, ...keys.previous.filter((key) => key.acceptedUntil === undefined).map((key) => key.secret)]);
    // Set by requirePlayer; declared here so every request has the property from the start.
    app.decorateRequest('player');

    // A callback hook: on every game request, and usually answered from memory (verified-token
    // cache, known revocations), so it goes on at once instead of through a promise.
    app.decorate('requirePlayer', function requirePlayer(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
      const header = request.headers.authorization;
      if (!header) return done(unauthorized('This endpoint needs Authorization: Bearer <accessToken>.'));
      const match = bearerPattern.exec(header);
      if (!match) return done(unauthorized('The Authorization header must be "Bearer <accessToken>".'));
      const claims = sessions.authenticate(request.game.id, match[1]!);
      if (claims instanceof Promise) claims.then((settled) => signIn(request, settled, done), done);
      else signIn(request, claims, done);
    });

    app.playerErasure.register('sessions', {
      erase: (trx, player) => deletePlayerSessions(trx, database.dialect, player.gameId, player.playerId),
      afterCommit: (player) => revocations.revokePlayer(player.playerId),
    });
  },
  { name: 'game-auth', dependencies: ['game-player-erasure', 'game-manifest'] },
);
