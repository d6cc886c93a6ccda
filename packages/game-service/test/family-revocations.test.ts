import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, systemClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { FamilyRevocations } from '../src/auth/family-revocations.js';
import { bearer, devSignIn, type Session } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

const activeCacheMs = 1_000;
const accessTokenTtlMs = 15 * 60_000;

/** The refresh family an access token was issued from (its payload's `fam`). */
function familyOf(session: Session): string {
  return (JSON.parse(Buffer.from(session.accessToken.split('.')[1]!, 'base64url').toString('utf8')) as { fam: string }).fam;
}

describeEachDatabase('session revocations: families in use checked again together', (database) => {
  const clock = new ManualClock('2026-11-27T10:00:00.000Z');
  let app: App;
  // Another instance's view of the same database: it hears of no revocation but from the database.
  let revocations: FamilyRevocations;
  beforeAll(async () => {
    app = await buildTestApp(database(), { GAME_PLAYER_RATE_LIMIT_MAX: '1000' }, { clock });
    // The checks run when the test says (the timer would run them at moments of its own).
    revocations = new FamilyRevocations(app.database.db, undefined, clock, { accessTokenTtlMs, activeCacheMs, checkOnTimer: false });
  });
  afterAll(async () => {
    await revocations.close();
    await app.close();
  });

  it('keeps a family in use trusted from memory, and still learns of its revocation within the cache time', async () => {
    const session = await devSignIn(app, 'demo', 'in-use');
    const family = familyOf(session);
    const first = revocations.isRevoked(family, session.player.id);
    expect(first).toBeInstanceOf(Promise); // unknown yet: the database is asked
    expect(await first).toBe(false);

    clock.advance(activeCacheMs - 1);
    expect(revocations.isRevoked(family, session.player.id)).toBe(false); // from memory
    // Asked about since its read, its trust lapsing before the next check: the check reads it again and trusts it from now on.
    await revocations.checkFamiliesInUse();
    clock.advance(activeCacheMs - 1);
    expect(revocations.isRevoked(family, session.player.id)).toBe(false); // still from memory, past the first read's trust

    // Another instance logs the session out: this one answers from memory until the next check
    // of the families in use, which sees it.
    await app.inject({ method: 'POST', url: '/v1/games/demo/auth/logout', payload: { refreshToken: session.refreshToken } });
    expect(revocations.isRevoked(family, session.player.id)).toBe(false); // from memory
    await revocations.checkFamiliesInUse();
    expect(revocations.isRevoked(family, session.player.id)).toBe(true);
  });

  it('learns of a revocation within the cache time', async () => {
    const session = await devSignIn(app, 'demo', 'lapsed');
    const family = familyOf(session);
    expect(await revocations.isRevoked(family, session.player.id)).toBe(false);
    await app.inject({ method: 'POST', url: '/v1/games/demo/auth/logout', payload: { refreshToken: session.refreshToken } });
    clock.advance(activeCacheMs);
    const answer = revocations.isRevoked(family, session.player.id);
    expect(answer).toBeInstanceOf(Promise); // the trust lapsed: the database is asked
    expect(await answer).toBe(true);
  });

  it('takes a family deleted with its player for revoked, and reads only families asked about since their last read', async () => {
    const kept = await devSignIn(app, 'demo', 'kept');
    const erased = await devSignIn(app, 'demo', 'erased');
    expect(await revocations.isRevoked(familyOf(kept), kept.player.id)).toBe(false);
    expect(await revocations.isRevoked(familyOf(erased), erased.player.id)).toBe(false);
    const deletion = await app.inject({ method: 'DELETE', url: '/v1/games/demo/player', headers: bearer(erased.accessToken) });
    expect(deletion.statusCode).toBe(200);
    // Both asked about again, their trust lapsing before the next check: the check trusts the
    // one again and takes the other for revoked.
    clock.advance(activeCacheMs / 2);
    expect(revocations.isRevoked(familyOf(kept), kept.player.id)).toBe(false);
    expect(revocations.isRevoked(familyOf(erased), erased.player.id)).toBe(false);
    await revocations.checkFamiliesInUse();
    expect(revocations.isRevoked(familyOf(kept), kept.player.id)).toBe(false);
    expect(revocations.isRevoked(familyOf(erased), erased.player.id)).toBe(true);

    // Asked about once more just now: the next check reads it again. Then, not asked about, the
    // check after leaves it, its trust lapses, and the request after that asks the database.
    clock.advance(activeCacheMs / 2);
    await revocations.checkFamiliesInUse();
    clock.advance(activeCacheMs / 2);
    await revocations.checkFamiliesInUse();
    clock.advance(activeCacheMs / 2);
    const lapsed = revocations.isRevoked(familyOf(kept), kept.player.id);
    expect(lapsed).toBeInstanceOf(Promise);
    expect(await lapsed).toBe(false);
  });

  it('on its timer, keeps a family asked about every 20 ms trusted from memory past its first trust', async () => {
    const timed = new FamilyRevocations(app.database.db, undefined, systemClock, { accessTokenTtlMs, activeCacheMs });
    try {
      const session = await devSignIn(app, 'demo', 'timed');
      const family = familyOf(session);
      expect(await timed.isRevoked(family, session.player.id)).toBe(false);
      const until = Date.now() + 2.5 * activeCacheMs;
      const answers: unknown[] = [];
      while (Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        answers.push(timed.isRevoked(family, session.player.id));
      }
      // Never a lapse (which would ask the database, a promise): the timer's checks renewed the trust.
      expect(answers.filter((answer) => answer !== false)).toEqual([]);
    } finally {
      await timed.close();
    }
  });
});
