import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { createMemoryStorage, type GameClientEvents } from '../src/index.js';
import { createFileStorage } from '../src/node/index.js';
import { newPlayerCode, openClient, scorePayload } from './support/clients.js';
import { startGameService, type GameServiceHarness } from './support/game-service-harness.js';

describeEachDatabase('game client sessions against the game service', (database) => {
  let harness: GameServiceHarness;
  let directory: string;
  beforeAll(async () => {
    harness = await startGameService(database());
    directory = mkdtempSync(join(tmpdir(), 'game-client-sessions-'));
  });
  afterAll(async () => {
    await harness.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const refreshCalls = () => harness.proxy.log.filter((entry) => entry.path.endsWith('/auth/refresh')).length;

  it('signs in with a platform auth code and keeps the player across a restart on the same storage', async () => {
    const storage = createMemoryStorage();
    const code = newPlayerCode('sign-in');
    const result = await openClient(harness, { storage }).signIn(async () => code);
    expect(result).toMatchObject({ status: 'signed-in', player: { displayName: code.slice(4) } });
    const restarted = openClient(harness, { storage });
    expect(await restarted.player()).toEqual(result.status === 'signed-in' ? result.player : undefined);
    await expect(restarted.myRank('high-score')).resolves.toMatchObject({ boardId: 'high-score', entry: null });
  });

  it('answers N parallel calls rejected with 401 with one refresh, retrying each call once', async () => {
    const client = openClient(harness);
    await client.signIn(newPlayerCode('parallel'));
    // The service's clock passes the access token's lifetime; the client still thinks it valid.
    harness.clock.advance(16 * 60_000);
    const before = refreshCalls();
    const logStart = harness.proxy.log.length;
    const pages = await Promise.all(Array.from({ length: 8 }, () => client.leaderboard('high-score', { limit: 5 })));
    expect(pages.map((page) => page.boardId)).toEqual(Array(8).fill('high-score'));
    expect(refreshCalls() - before).toBe(1);
    // Eight rejected, eight retried with the new token.
    expect(harness.proxy.log.slice(logStart).filter((entry) => entry.path.includes('/leaderboards/high-score')).length).toBe(16);
  });

  it('refreshes before the access token expires instead of waiting for a 401', async () => {
    let now = Date.now();
    const client = openClient(harness, { now: () => now });
    await client.signIn(newPlayerCode('early'));
    now += 15 * 60_000 - 30_000;
    const before = harness.proxy.log.length;
    await client.aroundMe('high-score');
    expect(harness.proxy.log.slice(before).map((entry) => entry.path.replace(/\?.*/, '').split('/').slice(-2).join('/'))).toEqual([
      'auth/refresh',
      'high-score/around-me',
    ]);
  });

  it('leaves the stored queue and session byte-for-byte unchanged when sign-in is cancelled or fails', async () => {
    const path = join(directory, 'unchanged.json');
    const storage = createFileStorage(path);
    const client = openClient(harness, { storage });
    await client.signIn(newPlayerCode('kept'));
    harness.proxy.down = true;
    await client.submitRun('score', scorePayload(10));
    await client.submitRun('score', scorePayload(20));
    await client.flush();
    harness.proxy.down = false;
    const stored = readFileSync(path);
    const queued = await client.pendingRuns();

    expect(await client.signIn(() => Promise.reject(new Error('the player closed the sign-in dialog')))).toMatchObject({ status: 'cancelled' });
    expect(await client.signIn(async () => null)).toMatchObject({ status: 'cancelled' });
    harness.proxy.down = true;
    expect(await client.signIn(newPlayerCode('offline'))).toMatchObject({ status: 'unavailable' });
    harness.proxy.down = false;
    harness.proxy.plan('/auth/exchange', [{ kind: 'status', status: 503 }, { kind: 'rate-limit', retryAfterSeconds: 30 }]);
    expect(await client.signIn(newPlayerCode('outage'))).toMatchObject({ status: 'unavailable', error: { status: 503 } });
    expect(await client.signIn(newPlayerCode('limited'))).toMatchObject({ status: 'unavailable', error: { status: 429 } });
    expect(await client.signIn('not-a-dev-code')).toMatchObject({ status: 'rejected', error: { status: 401, code: 'invalid-grant' } });

    expect(readFileSync(path).equals(stored)).toBe(true);
    expect(await openClient(harness, { storage }).pendingRuns()).toEqual(queued);
  });

  it('keeps the session when a refresh fails without a refusal (service error), so the next call can retry', async () => {
    const client = openClient(harness);
    await client.signIn(newPlayerCode('refresh-500'));
    harness.clock.advance(16 * 60_000);
    harness.proxy.plan('/auth/refresh', [{ kind: 'status', status: 500 }]);
    await expect(client.myRank('high-score')).rejects.toMatchObject({ name: 'GameServiceError', status: 500 });
    expect(await client.player()).toBeDefined();
    await expect(client.myRank('high-score')).resolves.toMatchObject({ boardId: 'high-score' });
  });

  it('ends the session when the service refuses the refresh token, keeping queued runs', async () => {
    const storage = createMemoryStorage();
    const client = openClient(harness, { storage });
    const signedOut: GameClientEvents['signed-out'][] = [];
    client.on('signed-out', (event) => signedOut.push(event));
    await client.signIn(newPlayerCode('revoked'));
    harness.proxy.down = true;
    await client.submitRun('score', scorePayload(5));
    await client.flush();
    harness.proxy.down = false;
    // Another device logs this session family out: its access tokens stop working at once.
    const { refreshToken } = JSON.parse((await storage.get('session:demo'))!) as { refreshToken: string };
    const revoked = await fetch(`${harness.serviceUrl}/v1/games/demo/auth/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken }),
    });
    expect(revoked.status).toBe(200);

    await expect(client.myRank('high-score')).rejects.toMatchObject({ name: 'SignedOutError' });
    expect(signedOut).toEqual([{ reason: 'session-ended' }]);
    expect(await client.player()).toBeUndefined();
    expect(await client.pendingRuns()).toHaveLength(1);
  });

  it('shares one session between two clients over one storage: the second adopts the tokens the first refreshed', async () => {
    const storage = createMemoryStorage();
    const first = openClient(harness, { storage });
    const second = openClient(harness, { storage });
    const signedOut: string[] = [];
    first.on('signed-out', ({ reason }) => signedOut.push(`first ${reason}`));
    second.on('signed-out', ({ reason }) => signedOut.push(`second ${reason}`));
    await first.signIn(newPlayerCode('two-tabs'));
    expect(await second.player()).toEqual(await first.player());
    // Both hold the same access token; the service lets it expire and the first client rotates.
    harness.clock.advance(16 * 60_000);
    const before = refreshCalls();
    await expect(first.myRank('high-score')).resolves.toMatchObject({ boardId: 'high-score' });
    // Past the service's grace window, a second presentation of the spent token would be reuse.
    harness.clock.advance(11_000);
    await expect(second.myRank('high-score')).resolves.toMatchObject({ boardId: 'high-score' });
    await expect(first.leaderboard('high-score')).resolves.toMatchObject({ boardId: 'high-score' });
    expect(refreshCalls() - before).toBe(1);
    expect(signedOut).toEqual([]);
    expect(await storage.get('session:demo')).toBeDefined();
  });

  it('refreshes once when two clients over one storage find the token expiring at the same moment', async () => {
    const path = join(directory, 'shared-session.json');
    let now = Date.now();
    const first = openClient(harness, { storage: createFileStorage(path), now: () => now });
    const second = openClient(harness, { storage: createFileStorage(path), now: () => now });
    await first.signIn(newPlayerCode('same-moment'));
    expect(await second.player()).toBeDefined();
    now += 15 * 60_000 - 30_000;
    harness.clock.advance(15 * 60_000 - 30_000);
    const before = refreshCalls();
    const pages = await Promise.all([first.aroundMe('high-score'), second.aroundMe('high-score'), first.myRank('high-score'), second.myRank('high-score')]);
    expect(pages.map((page) => page.boardId)).toEqual(Array(4).fill('high-score'));
    expect(refreshCalls() - before).toBe(1);
    // Much later, each again uses what the other stored rather than a token already spent.
    now += 15 * 60_000;
    harness.clock.advance(15 * 60_000);
    await expect(second.myRank('high-score')).resolves.toMatchObject({ boardId: 'high-score' });
    harness.clock.advance(11_000);
    now += 11_000;
    await expect(first.myRank('high-score')).resolves.toMatchObject({ boardId: 'high-score' });
    expect(refreshCalls() - before).toBe(2);
    expect(await first.logout()).toEqual({ revoked: true });
  });

  it('logs out: the service revokes the tokens, the client forgets them, queued runs stay for the next sign-in', async () => {
    const client = openClient(harness);
    const signIn = await client.signIn(newPlayerCode('logout'));
    const before = harness.proxy.log.length;
    harness.proxy.down = true;
    await client.submitRun('score', scorePayload(7));
    await client.flush();
    harness.proxy.down = false;
    expect(await client.logout()).toEqual({ revoked: true });
    expect(harness.proxy.log.slice(before).at(-1)?.path).toMatch(/\/auth\/logout$/);
    expect(await client.player()).toBeUndefined();
    await expect(client.leaderboard('high-score')).rejects.toMatchObject({ name: 'SignedOutError' });
    expect(await client.pendingRuns()).toMatchObject([{ ownedBySignedInPlayer: false }]);
    expect(signIn.status).toBe('signed-in');
  });

  it('deletes the player on the service and clears the local queue and tokens', async () => {
    const storage = createMemoryStorage();
    const client = openClient(harness, { storage });
    await client.signIn(newPlayerCode('delete'));
    await client.submitRun('score', scorePayload(300));
    await client.flush();
    harness.proxy.down = true;
    await client.submitRun('score', scorePayload(400));
    await client.flush();
    harness.proxy.down = false;
    expect(await client.deletePlayer()).toEqual({ deleted: { runs: 1, entries: expect.any(Number), sessions: 1 } });
    expect(await client.player()).toBeUndefined();
    expect(await client.pendingRuns()).toEqual([]);
    expect(await storage.get('run-queue')).toBeUndefined();
    expect(await storage.get('session:demo')).toBeUndefined();
  });
});
