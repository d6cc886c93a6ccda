import { expect, it } from 'vitest';
import { createGameClient, createMemoryStorage } from '../src/index.js';
import { ServiceModel } from './support/service-model.js';

it('refreshes halfway through a short-lived access token rather than before every call', async () => {
  let now = Date.parse('2026-11-21T10:00:00.000Z');
  const service = new ServiceModel(() => now, 30);
  const client = createGameClient({ baseUrl: 'http://game.test', gameId: 'demo', storage: createMemoryStorage(), fetch: service.fetch, now: () => now });
  await client.signIn('dev:short-lived');
  const sendOne = async () => {
    await client.submitRun('score', { score: 1, durationMs: 1000 });
    expect(await client.flush()).toMatchObject({ accepted: 1 });
  };
  await sendOne();
  now += 14_000;
  await sendOne();
  expect(service.refreshes).toBe(0);
  now += 1_000;
  await sendOne();
  expect(service.refreshes).toBe(1);
  now += 14_000;
  await sendOne();
  expect(service.refreshes).toBe(1);
});

it('adopts the session another process stored when the service refuses the token that process already spent, leaving it stored', async () => {
  let now = Date.parse('2026-11-21T10:00:00.000Z');
  const service = new ServiceModel(() => now, 60);
  const storage = createMemoryStorage();
  // Another process on the same storage file refreshes first, between our read and our request.
  let otherProcess: (() => Promise<void>) | undefined;
  const fetch = async (input: string, init: RequestInit) => {
    if (input.endsWith('/auth/refresh') && otherProcess) {
      const run = otherProcess;
      otherProcess = undefined;
      await run();
    }
    return service.fetch(input, init);
  };
  const client = createGameClient({ baseUrl: 'http://game.test', gameId: 'demo', storage, fetch, now: () => now });
  const signedOut: unknown[] = [];
  client.on('signed-out', (event) => signedOut.push(event));
  await client.signIn('dev:alice');
  otherProcess = async () => {
    const stored = JSON.parse((await storage.get('session:demo'))!) as Record<string, unknown>;
    const response = await service.fetch('http://game.test/v1/games/demo/auth/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: stored.refreshToken }),
    });
    const body = (await response.json()) as { accessToken: string; refreshToken: string };
    const renewed = { ...stored, accessToken: body.accessToken, refreshToken: body.refreshToken, accessTokenExpiresAt: now + 60_000, accessTokenRefreshAt: now + 30_000 };
    await storage.set('session:demo', JSON.stringify(renewed));
  };
  now += 31_000;
  await client.submitRun('score', { score: 3, durationMs: 1000 });
  expect(await client.flush()).toMatchObject({ accepted: 1, remaining: 0 });
  expect(signedOut).toEqual([]);
  const stored = JSON.parse((await storage.get('session:demo'))!) as { accessToken: string };
  expect(stored.accessToken).toMatch(/^access-2-/);
  // Its tokens are ours now: the next refresh presents the other process's, valid, refresh token.
  now += 31_000;
  await client.submitRun('score', { score: 4, durationMs: 1000 });
  expect(await client.flush()).toMatchObject({ accepted: 1 });
  expect(service.refreshes).toBe(2);
  expect(signedOut).toEqual([]);
});

it.each([
  ['not JSON', '{"format":1,"gameId":"demo","accessTok'],
  ['not a session', '{"format":1,"gameId":"demo","player":null}'],
  ['not an object', '[]'],
])('treats a stored session that is %s as signed out, keeps the queued runs, and lets the player sign in again', async (_name, damaged) => {
  const now = Date.parse('2026-11-21T10:00:00.000Z');
  const service = new ServiceModel(() => now);
  const storage = createMemoryStorage();
  const options = { baseUrl: 'http://game.test', gameId: 'demo', storage, fetch: service.fetch, now: () => now };
  await createGameClient(options).submitRun('score', { score: 8, durationMs: 1000 });
  const queue = await storage.get('run-queue');
  await storage.set('session:demo', damaged);

  const client = createGameClient(options);
  const signedOut: unknown[] = [];
  client.on('signed-out', (event) => signedOut.push(event));
  expect(await client.player()).toBeUndefined();
  expect(await client.flush()).toMatchObject({ accepted: 0, remaining: 1, stoppedBy: 'signed-out' });
  await expect(client.myRank('high-score')).rejects.toMatchObject({ name: 'SignedOutError' });
  expect(signedOut).toEqual([{ reason: 'session-unreadable' }]);
  expect(await storage.get('run-queue')).toBe(queue);
  expect(await client.logout()).toEqual({ revoked: false });

  expect(await client.signIn('dev:alice')).toMatchObject({ status: 'signed-in' });
  expect(await client.flush()).toMatchObject({ accepted: 1, remaining: 0 });
  expect(await storage.get('run-queue')).toBeUndefined();
});
