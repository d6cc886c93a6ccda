import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { FamilyRevocations } from '../src/auth/family-revocations.js';
import { gameDatabase } from '../src/database.js';
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
    revocations = new FamilyRevocations(gameDatabase(app).db, undefined, clock, { accessTokenTtlMs, activeCacheMs });
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
    // The family was asked about within the minute: the check reads it again and trusts it from now on.
    await revocations.checkFamiliesInUse();
    clock.advance(activeCacheMs - 1);
    expect(revocations.isRevoked(family, session.player.id)).toBe(false); // still from memory, past the first read's trust

    // Another instance logs the session out: this one answers from memory until the next check
    // of the families in use, which sees it.
    await app.inject({ method: 'POST', url: '/v1/games/demo/auth/logout', payload: { refreshToken: session.refreshToken } });
    const beforeCheck = revocations.isRevoked(family, session.player.id);
    expect(beforeCheck === false || beforeCheck === true).toBe(true); // from memory (true when the timer's own check ran in between)
    await revocations.checkFamiliesInUse();
    expect(revocations.isRevoked(family, session.player.id)).toBe(true);
  });

  it('learns of a revocation within the cache time', async () => {
    const session = await devSignIn(app, 'demo', 'lapsed');
    const family = familyOf(session);
    expect(await revocations.isRevoked(family, session.player.id)).toBe(false);
    await app.inject({ method: 'POST', url: '/v1/games/demo/auth/logout', payload: { refreshToken: session.refreshToken } });
    clock.advance(activeCacheMs);
    // From the database (or from memory, when the timer's own check ran since the logout).
    expect(await revocations.isRevoked(family, session.player.id)).toBe(true);
  });

  it('takes a family deleted with its player for revoked, and leaves a family idle for a minute to lapse', async () => {
    const kept = await devSignIn(app, 'demo', 'kept');
    const erased = await devSignIn(app, 'demo', 'erased');
    expect(await revocations.isRevoked(familyOf(kept), kept.player.id)).toBe(false);
    expect(await revocations.isRevoked(familyOf(erased), erased.player.id)).toBe(false);
    const deletion = await app.inject({ method: 'DELETE', url: '/v1/games/demo/player', headers: bearer(erased.accessToken) });
    expect(deletion.statusCode).toBe(200);
    // Both were asked about within the minute: the check trusts the one, takes the other for revoked.
    await revocations.checkFamiliesInUse();
    expect(revocations.isRevoked(familyOf(kept), kept.player.id)).toBe(false);
    expect(revocations.isRevoked(familyOf(erased), erased.player.id)).toBe(true);

    // Not asked about for a minute: no longer checked, its trust lapses, the database is asked again.
    clock.advance(60_001);
    await revocations.checkFamiliesInUse();
    const lapsed = revocations.isRevoked(familyOf(kept), kept.player.id);
    expect(lapsed).toBeInstanceOf(Promise);
    expect(await lapsed).toBe(false);
  });
});
