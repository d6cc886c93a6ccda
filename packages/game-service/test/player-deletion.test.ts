import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase, redisVariants } from '@playstack/server-kit/testing';
import { bearer, devSignIn, type Session } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

/** Every row of every table of the service, as JSON text, to search for traces of a player. */
async function everyRow(app: App): Promise<string[]> {
  const { db } = app.database;
  const tables =
    app.database.dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db);
  const rows: string[] = [];
  for (const { name } of tables.rows) {
    const result = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
    for (const row of result.rows) rows.push(`${name}: ${JSON.stringify(row)}`);
  }
  return rows;
}

for (const variant of redisVariants()) {
  describeEachDatabase(`DELETE /player, ${variant.name}`, (database) => {
    let app: App;
    beforeAll(async () => {
      app = await buildTestApp(database(), { GAME_AUTH_RATE_LIMIT_MAX: '10000', GAME_PLAYER_RATE_LIMIT_MAX: '10000', ...variant.env() });
    });
    afterAll(async () => {
      await app.close();
    });

    const deletePlayer = (accessToken: string) => app.inject({ method: 'DELETE', url: '/v1/games/demo/player', headers: bearer(accessToken) });

    const submitRun = (session: Session, runId: string, score: number) =>
      app.inject({
        method: 'POST',
        url: '/v1/games/demo/runs/score',
        headers: bearer(session.accessToken),
        payload: { runId, payload: { score, durationMs: 60_000 } },
      });
    const highScores = async (session: Session) =>
      (await app.inject({ method: 'GET', url: '/v1/games/demo/leaderboards/high-score', headers: bearer(session.accessToken) })).json() as {
        entries: Array<{ playerId: string }>;
      };

    it('erases runs, entries in every period, sessions and the platform link, counting what went; nothing of the player remains', async () => {
      const bystander = await devSignIn(app, 'demo', 'bystander');
      const phone = await devSignIn(app, 'demo', 'erasable-zq7');
      const tablet = await devSignIn(app, 'demo', 'erasable-zq7');
      const rotated = (await app.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken: phone.refreshToken } })).json() as Session;
      expect((await submitRun(phone, 'erasable-run-1', 500)).statusCode).toBe(200);
      expect((await submitRun(tablet, 'erasable-run-2', 700)).statusCode).toBe(200);
      expect((await submitRun(bystander, 'bystander-run-1', 600)).statusCode).toBe(200);
      expect((await highScores(bystander)).entries.map((entry) => entry.playerId)).toContain(phone.player.id);
      expect((await everyRow(app)).some((row) => row.includes(phone.player.id))).toBe(true);

      const response = await deletePlayer(tablet.accessToken);
      expect(response.statusCode).toBe(200);
      // Demo boards: high-score keeps 4 periods, total-score and fastest 1 each.
      expect(response.json()).toEqual({ deleted: { runs: 2, entries: 6, sessions: 2 } });

      const traces = (await everyRow(app)).filter((row) => row.includes(phone.player.id) || row.includes('erasable-zq7'));
      expect(traces).toEqual([]);
      expect((await everyRow(app)).some((row) => row.includes(bystander.player.id))).toBe(true);
      expect((await highScores(bystander)).entries.map((entry) => entry.playerId)).toEqual([bystander.player.id]);

      for (const session of [phone, tablet, rotated]) {
        expect((await deletePlayer(session.accessToken)).statusCode).toBe(401);
        const refresh = await app.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken: session.refreshToken } });
        expect(refresh.statusCode).toBe(401);
        expect(refresh.json().error.code).toBe('invalid-grant');
      }
    });

    it('makes a new player of a later sign-in with the same platform identity, with nothing of the old one', async () => {
      const before = await devSignIn(app, 'demo', 'returning');
      await submitRun(before, 'returning-run-1', 900);
      await deletePlayer(before.accessToken);
      const after = await devSignIn(app, 'demo', 'returning');
      expect(after.player.id).not.toBe(before.player.id);
      expect((await highScores(after)).entries.map((entry) => entry.playerId)).not.toContain(before.player.id);
      expect((await deletePlayer(after.accessToken)).json()).toEqual({ deleted: { runs: 0, entries: 0, sessions: 1 } });
    });

    it('stays consistent when sign-ins of the same player race the deletion', async () => {
      for (let round = 0; round < 5; round++) {
        const name = `racing-${round}`;
        const first = await devSignIn(app, 'demo', name);
        const [deletion, ...signIns] = await Promise.all([
          deletePlayer(first.accessToken),
          ...Array.from({ length: 4 }, () =>
            app.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', payload: { authorizationCode: `dev:${name}` } }),
          ),
        ]);
        expect(deletion!.statusCode).toBe(200);
        for (const signIn of signIns) {
          expect(signIn.statusCode).toBe(200);
          const session = signIn.json() as Session;
          const refresh = await app.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken: session.refreshToken } });
          // A sign-in that found the old player committed before the deletion and was erased with it.
          expect(refresh.statusCode).toBe(session.player.id === first.player.id ? 401 : 200);
        }
      }
    });

    it('stays consistent when a refresh races the deletion: the deletion succeeds and the refresh is 200 or 401, never 500', async () => {
      const refresh = (refreshToken: string) => app.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken } });
      for (let round = 0; round < 40; round++) {
        const session = await devSignIn(app, 'demo', `refresh-racing-${round}`);
        const [refreshed, deletion] = await Promise.all([refresh(session.refreshToken), deletePlayer(session.accessToken)]);
        expect(deletion!.statusCode).toBe(200);
        expect(deletion!.json()).toEqual({ deleted: { runs: 0, entries: 0, sessions: 1 } });
        expect([200, 401]).toContain(refreshed!.statusCode);
        // A refresh that won the race rotated a session the deletion then erased.
        const rotated = refreshed!.statusCode === 200 ? (refreshed!.json() as Session) : session;
        expect((await deletePlayer(rotated.accessToken)).statusCode).toBe(401);
        for (const refreshToken of [rotated.refreshToken, session.refreshToken]) {
          const after = await refresh(refreshToken);
          expect(after.statusCode).toBe(401);
          expect(after.json().error.code).toBe('invalid-grant');
        }
      }
    });

    it('needs the access token', async () => {
      const response = await app.inject({ method: 'DELETE', url: '/v1/games/demo/player' });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe('unauthorized');
    });

    it('runs registered erasers in the one transaction: a failing part leaves everything in place', async () => {
      const failing = await buildTestApp(database(), variant.env());
      try {
        let seenInTransaction = 0;
        failing.playerErasure.register('doomed', {
          async erase(trx, player) {
            const rows = await sql<{ n: number }>`select count(*) as n from session_families where player_id = ${player.playerId}`.execute(trx);
            seenInTransaction = Number(rows.rows[0]?.n);
            throw new Error('disk on fire');
          },
        });
        const session = await devSignIn(failing, 'demo', 'survivor');
        const response = await failing.inject({ method: 'DELETE', url: '/v1/games/demo/player', headers: bearer(session.accessToken) });
        expect(response.statusCode).toBe(500);
        expect(response.json().error.code).toBe('internal-error');
        expect(seenInTransaction).toBe(0);
        const refresh = await failing.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken: session.refreshToken } });
        expect(refresh.statusCode).toBe(200);
      } finally {
        await failing.close();
      }
    });

    it('reports parts other features register, and calls their afterCommit once the deletion is durable', async () => {
      const extended = await buildTestApp(database(), variant.env());
      try {
        const committed: string[] = [];
        extended.playerErasure.register('trophies', {
          erase: async () => 3,
          async afterCommit(player) {
            const left = await sql<{ n: number }>`select count(*) as n from players where id = ${player.playerId}`.execute(extended.database.db);
            committed.push(`${player.gameId}:${Number(left.rows[0]?.n)}`);
          },
        });
        const session = await devSignIn(extended, 'demo', 'collector');
        const response = await extended.inject({ method: 'DELETE', url: '/v1/games/demo/player', headers: bearer(session.accessToken) });
        expect(response.json()).toEqual({ deleted: { runs: 0, entries: 0, sessions: 1, trophies: 3 } });
        expect(committed).toEqual(['demo:0']);
      } finally {
        await extended.close();
      }
    });
  });
}
