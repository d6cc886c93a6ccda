import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOpaqueToken, ManualClock, type App } from '@playstack/server-kit';
import { createTestDatabase, describeEachDatabase, redisVariants, type TestDatabase } from '@playstack/server-kit/testing';
import { openSuccessor } from '../src/auth/refresh-successor.js';
import { bearer, devSignIn } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

const concurrentRefreshes = 50;
const graceMs = 10_000;
const unthrottled = { GAME_AUTH_RATE_LIMIT_MAX: '100000', GAME_PLAYER_RATE_LIMIT_MAX: '100000' };

for (const variant of redisVariants()) {
  describeEachDatabase(`racing refreshes of one token, ${variant.name} state`, (database) => {
    const clock = new ManualClock('2026-11-25T10:00:00.000Z');
    let app: App;
    beforeAll(async () => {
      app = await buildTestApp(database(), { ...variant.env(), ...unthrottled }, { clock });
    });
    afterAll(async () => {
      await app.close();
    });

    const refresh = (refreshToken: string) => app.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken } });
    const myRank = (accessToken: string) => app.inject({ method: 'GET', url: '/v1/games/demo/leaderboards/high-score/me', headers: bearer(accessToken) });

    it(`${concurrentRefreshes} at once all get a usable session, the same successor, and the family lives on`, async () => {
      const session = await devSignIn(app, 'demo', 'many-tabs');
      const answers = await Promise.all(Array.from({ length: concurrentRefreshes }, () => refresh(session.refreshToken)));
      expect(answers.map((answer) => answer.statusCode)).toEqual(Array(concurrentRefreshes).fill(200));
      const successors = new Set(answers.map((answer) => answer.json().refreshToken as string));
      expect(successors.size).toBe(1);
      const checks = await Promise.all(answers.map((answer) => myRank(answer.json().accessToken)));
      expect(checks.map((check) => check.statusCode)).toEqual(Array(concurrentRefreshes).fill(200));

      // The family is alive: the successor rotates, and racing again works the same way.
      const [successor] = successors;
      const again = await Promise.all(Array.from({ length: concurrentRefreshes }, () => refresh(successor!)));
      expect(again.map((answer) => answer.statusCode)).toEqual(Array(concurrentRefreshes).fill(200));
      expect(new Set(again.map((answer) => answer.json().refreshToken)).size).toBe(1);
    });

    it('revokes the family when the token just spent comes back after the window', async () => {
      const session = await devSignIn(app, 'demo', 'late-tab');
      const next = (await refresh(session.refreshToken)).json();
      clock.advance(graceMs + 1);
      const late = await refresh(session.refreshToken);
      expect(late.statusCode).toBe(401);
      expect(late.json().error.code).toBe('invalid-grant');
      expect((await refresh(next.refreshToken)).statusCode).toBe(401);
      expect((await myRank(next.accessToken)).statusCode).toBe(401);
    });

    it('revokes the family when an older token comes back, even within the window', async () => {
      const session = await devSignIn(app, 'demo', 'old-tab');
      const second = (await refresh(session.refreshToken)).json();
      const third = (await refresh(second.refreshToken)).json();
      expect((await refresh(session.refreshToken)).statusCode).toBe(401);
      expect((await refresh(third.refreshToken)).statusCode).toBe(401);
    });

    it('keeps the successor sealed: the database holds nothing usable without the spent token', async () => {
      const session = await devSignIn(app, 'demo', 'sealed');
      const next = (await refresh(session.refreshToken)).json();
      const rows = await app.database.db.selectFrom('refresh_tokens').selectAll().where('token_hash', '=', hashOpaqueToken(session.refreshToken)).execute();
      const stored = JSON.stringify(rows);
      expect(stored).not.toContain(next.refreshToken);
      expect(stored).not.toContain(session.refreshToken);
      const sealed = rows[0]!.successor_sealed as string;
      expect(openSuccessor(session.refreshToken, sealed)).toBe(next.refreshToken);
      expect(openSuccessor(next.refreshToken, sealed)).toBeUndefined();
    });
  });
}

// Two processes of the service (SQLite is one instance per file): the same token raced at both.
if (process.env.TEST_DATABASE_URL) {
  for (const variant of redisVariants()) {
    describe(`racing refreshes of one token over two instances on one PostgreSQL, ${variant.name} state`, () => {
      let database: TestDatabase;
      const apps: App[] = [];
      beforeAll(async () => {
        database = await createTestDatabase('postgres');
        // The same Redis keys and token secret on both.
        const env = { ...variant.env(), GAME_TOKEN_SECRET: 'r'.repeat(32), ...unthrottled };
        for (let i = 0; i < 2; i++) apps.push(await buildTestApp(database, env));
      });
      afterAll(async () => {
        for (const app of apps) await app.close();
        await database?.dispose();
      });

      it(`${concurrentRefreshes} at once, half at each, all get the same usable successor`, async () => {
        const session = await devSignIn(apps[0]!, 'demo', 'two-processes');
        const at = (i: number) => apps[i % 2]!;
        const answers = await Promise.all(Array.from({ length: concurrentRefreshes }, (_, i) => at(i).inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken: session.refreshToken } })));
        expect(answers.map((answer) => answer.statusCode)).toEqual(Array(concurrentRefreshes).fill(200));
        expect(new Set(answers.map((answer) => answer.json().refreshToken)).size).toBe(1);
        // Each session is used at the other instance.
        const checks = await Promise.all(answers.map((answer, i) => at(i + 1).inject({ method: 'GET', url: '/v1/games/demo/leaderboards/high-score/me', headers: bearer(answer.json().accessToken) })));
        expect(checks.map((check) => check.statusCode)).toEqual(Array(concurrentRefreshes).fill(200));
      });
    });
  }
}
