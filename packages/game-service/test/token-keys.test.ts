import { chmodSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { AccessTokenCodec } from '../src/auth/access-token.js';
import { generatedSecretFileName } from '../src/auth/token-keys.js';
import { loadGameConfig } from '../src/config.js';
import { bearer, devSignIn } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

const start = '2026-11-25T10:00:00.000Z';
const accessTokenTtlMs = 900_000;

/** A call that needs a valid access token of the demo game (a read of one's own rank). */
const authed = (app: App, accessToken: string) =>
  app.inject({ method: 'GET', url: '/v1/games/demo/leaderboards/high-score/me', headers: bearer(accessToken) });

const storedSecretRows = (app: App) => app.database.db.selectFrom('service_settings').select('name').where('name', '=', 'access-token-secret').execute();

describeEachDatabase('the access-token secret', (database) => {
  const secretFile = () => join(database().env.DATA_DIR!, generatedSecretFileName);

  it('is generated into DATA_DIR with mode 0600, never into the database, and survives a restart', async () => {
    const first = await buildTestApp(database());
    const session = await devSignIn(first, 'demo', 'restart');
    expect(await storedSecretRows(first)).toEqual([]);
    await first.close();
    expect(statSync(secretFile()).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(secretFile(), 'utf8').trim(), 'base64url').length).toBeGreaterThanOrEqual(32);
    const second = await buildTestApp(database());
    try {
      expect((await authed(second, session.accessToken)).statusCode).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('makes its file owner-only again when it was loosened', async () => {
    chmodSync(secretFile(), 0o644);
    const app = await buildTestApp(database());
    await app.close();
    expect(statSync(secretFile()).mode & 0o777).toBe(0o600);
  });

  it('moves a secret an older version kept in the database into the file, and deletes it there', async () => {
    const clock = new ManualClock(start);
    const legacySecret = Buffer.alloc(32, 7);
    const issued = await legacyToken(legacySecret, clock.now() + accessTokenTtlMs);
    await seedLegacySecret(legacySecret);
    rmSync(secretFile());

    const app = await buildTestApp(database(), {}, { clock });
    try {
      expect(await storedSecretRows(app)).toEqual([]);
      expect(readFileSync(secretFile(), 'utf8').trim()).toBe(legacySecret.toString('base64url'));
      expect((await authed(app, issued)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('with GAME_TOKEN_SECRET set, accepts tokens of the database secret until they expire, and deletes it', async () => {
    const clock = new ManualClock(start);
    const legacySecret = Buffer.alloc(32, 9);
    const issued = await legacyToken(legacySecret, clock.now() + accessTokenTtlMs);
    // Whoever read the database secret could sign tokens of any lifetime: those are refused.
    const forged = await legacyToken(legacySecret, clock.now() + 10 * accessTokenTtlMs);
    await seedLegacySecret(legacySecret);

    const app = await buildTestApp(database(), { GAME_TOKEN_SECRET: 'c'.repeat(32) }, { clock });
    try {
      expect(await storedSecretRows(app)).toEqual([]);
      expect((await authed(app, issued)).statusCode).toBe(200);
      expect((await authed(app, forged)).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('rotates: a former secret in GAME_TOKEN_PREVIOUS_SECRETS still verifies, and only verifies', async () => {
    const before = await buildTestApp(database(), { GAME_TOKEN_SECRET: 'a'.repeat(32) });
    const session = await devSignIn(before, 'demo', 'rotation');
    await before.close();

    const rotated = await buildTestApp(database(), { GAME_TOKEN_SECRET: 'b'.repeat(32), GAME_TOKEN_PREVIOUS_SECRETS: `${'z'.repeat(40)},${'a'.repeat(32)}` });
    let fresh: string;
    try {
      expect((await authed(rotated, session.accessToken)).statusCode).toBe(200);
      fresh = (await devSignIn(rotated, 'demo', 'rotation')).accessToken;
    } finally {
      await rotated.close();
    }
    const done = await buildTestApp(database(), { GAME_TOKEN_SECRET: 'b'.repeat(32) });
    try {
      expect((await authed(done, session.accessToken)).statusCode).toBe(401);
      expect((await authed(done, fresh)).statusCode).toBe(200);
    } finally {
      await done.close();
    }
  });

  /** Puts a secret where versions before this one kept it. */
  async function seedLegacySecret(secret: Buffer): Promise<void> {
    const app = await buildTestApp(database(), { GAME_TOKEN_SECRET: 's'.repeat(32) });
    try {
      await app.database.db.insertInto('service_settings').values({ name: 'access-token-secret', value: secret.toString('base64url') }).execute();
    } finally {
      await app.close();
    }
  }

  /** An access token for a demo player, signed as an older version would have signed it. */
  async function legacyToken(secret: Buffer, expiresAt: number): Promise<string> {
    const app = await buildTestApp(database());
    try {
      const session = await devSignIn(app, 'demo', `legacy-${expiresAt}`);
      const [, payload] = session.accessToken.split('.') as [string, string];
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { sub: string; gid: string; fam: string; name: string };
      return new AccessTokenCodec(secret).sign({ playerId: decoded.sub, gameId: decoded.gid, familyId: decoded.fam, displayName: decoded.name, expiresAt });
    } finally {
      await app.close();
    }
  }
});

describe('GAME_TOKEN_SECRET in production', () => {
  it('is required when NODE_ENV=production, in one line naming it', () => {
    expect(() => loadGameConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadGameConfig({ NODE_ENV: 'production' })).toThrow(/^GAME_TOKEN_SECRET: is required when NODE_ENV=production/);
    expect(loadGameConfig({ NODE_ENV: 'production', GAME_TOKEN_SECRET: 'p'.repeat(32) }).GAME_TOKEN_SECRET).toBe('p'.repeat(32));
    expect(loadGameConfig({}).GAME_TOKEN_SECRET).toBeUndefined();
  });
});
