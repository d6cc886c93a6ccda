import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { createMemoryStorage, runIdPattern, type GameClient, type GameClientEvents } from '../src/index.js';
import { createFileStorage } from '../src/node/index.js';
import { drain, newPlayerCode, openClient, scorePayload } from './support/clients.js';
import { startGameService, type GameServiceHarness } from './support/game-service-harness.js';

describeEachDatabase('game client run queue against the game service', (database) => {
  let harness: GameServiceHarness;
  let directory: string;
  beforeAll(async () => {
    harness = await startGameService(database());
    directory = mkdtempSync(join(tmpdir(), 'game-client-runs-'));
  });
  afterAll(async () => {
    await harness.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const runRequests = () => harness.proxy.log.filter((entry) => entry.path.includes('/runs/'));

  it('stores a run before any network call and sends it once the player is online and signed in', async () => {
    const storage = createMemoryStorage();
    let online = false;
    const client = openClient(harness, { storage, isOnline: () => online });
    const before = harness.proxy.log.length;
    const { runId } = await client.submitRun('score', scorePayload(4242));
    expect(runId).toMatch(runIdPattern);
    expect(await storage.get('run-queue')).toContain(runId);
    expect(harness.proxy.log.length).toBe(before);

    expect(await client.flush()).toMatchObject({ accepted: 0, remaining: 1, stoppedBy: 'signed-out' });
    await client.signIn(newPlayerCode('offline'));
    expect(await client.flush()).toMatchObject({ accepted: 0, remaining: 1, stoppedBy: 'offline' });
    online = true;
    const accepted: GameClientEvents['run-accepted'][] = [];
    client.on('run-accepted', (event) => accepted.push(event));
    expect(await client.flush()).toMatchObject({ accepted: 1, remaining: 0 });
    expect(accepted).toEqual([{ runId, adapterId: 'score', response: expect.objectContaining({ runId, status: 'accepted' }) }]);

    const player = (await client.player())!;
    const board = await client.leaderboard('high-score');
    expect(board.entries).toContainEqual(expect.objectContaining({ playerId: player.id, score: 4242 }));
    expect(await client.myRank('high-score')).toMatchObject({ entry: { playerId: player.id, score: 4242 } });
  });

  it("reads a friends' board: the named players and the signed-in one, ranked among themselves", async () => {
    const friends = [];
    for (const [name, score] of [['friend-a', 30], ['friend-b', 90]] as const) {
      const friend = openClient(harness);
      await friend.signIn(newPlayerCode(name));
      await friend.submitRun('score', scorePayload(score));
      await drain(friend);
      friends.push((await friend.player())!.id);
    }
    const client = openClient(harness);
    await client.signIn(newPlayerCode('friends-reader'));
    await client.submitRun('score', scorePayload(60));
    await drain(client);
    const me = (await client.player())!.id;
    const board = await client.leaderboard('high-score', { players: friends, limit: 2 });
    expect(board.entries.map((e) => [e.rank, e.playerId])).toEqual([[1, friends[1]], [2, me]]);
    const next = await client.leaderboard('high-score', { players: friends, cursor: board.nextCursor! });
    expect(next.entries.map((e) => [e.rank, e.playerId])).toEqual([[3, friends[0]]]);
    expect(await client.myRank('high-score', { players: friends })).toMatchObject({ total: 3, entry: { playerId: me, rank: 2 } });
    expect((await client.aroundMe('high-score', { players: friends, radius: 1 })).entries.map((e) => e.rank)).toEqual([1, 2, 3]);
    await expect(client.myRank('high-score', { players: ['not-an-id'] })).rejects.toMatchObject({ code: 'invalid-players' });
  });

  it('sends a run whose response was lost again with the same runId, and the service counts it once', async () => {
    const client = openClient(harness);
    await client.signIn(newPlayerCode('lost-response'));
    const before = runRequests().length;
    harness.proxy.plan('/runs/score', [{ kind: 'lose-response' }]);
    const { runId } = await client.submitRun('score', scorePayload(700));
    expect(await client.flush()).toMatchObject({ accepted: 0, remaining: 1, stoppedBy: 'backoff' });
    await drain(client);
    expect(runRequests().slice(before).map((entry) => entry.action)).toEqual(['lose-response', 'forward']);
    // The sum board would show 1400 had the retry counted as a second run.
    expect(await client.myRank('total-score')).toMatchObject({ entry: { score: 700 } });
    expect(await client.pendingRuns()).toEqual([]);
    expect(runId).toMatch(runIdPattern);
  });

  it('leaves no trace of an accepted run in storage: queue entry, attempt counter and metadata are gone', async () => {
    const path = join(directory, 'no-trace.json');
    const storage = createFileStorage(path);
    const client = openClient(harness, { storage });
    await client.signIn(newPlayerCode('no-trace'));
    const withSessionOnly = readFileSync(path, 'utf8');
    harness.proxy.plan('/runs/score', [{ kind: 'status', status: 500 }]);
    const { runId } = await client.submitRun('score', scorePayload(12));
    await client.flush();
    expect(await client.pendingRuns()).toMatchObject([{ runId, attempts: 1 }]);
    await drain(client);
    const stored = readFileSync(path, 'utf8');
    expect(stored).not.toContain(runId);
    expect(stored).toBe(withSessionOnly);
    expect(await storage.get('run-queue')).toBeUndefined();
  });

  it('discards runs older than the maximum age unsent, with an event', async () => {
    let now = Date.now();
    const storage = createMemoryStorage();
    const client = openClient(harness, { storage, now: () => now, maxRunAgeMs: 60 * 60_000 });
    const expired: GameClientEvents['run-expired'][] = [];
    client.on('run-expired', (event) => expired.push(event));
    const queuedAt = now;
    const { runId: old } = await client.submitRun('score', scorePayload(999_999));
    now += 30 * 60_000;
    const { runId: recent } = await client.submitRun('score', scorePayload(1));
    now += 30 * 60_000;
    await client.signIn(newPlayerCode('expired'));
    const before = runRequests().length;
    expect(await client.flush()).toMatchObject({ accepted: 1, expired: 1, remaining: 0 });
    expect(expired).toEqual([{ runId: old, adapterId: 'score', queuedAt }]);
    expect(runRequests().length - before).toBe(1);
    expect(await client.myRank('high-score')).toMatchObject({ entry: { score: 1 } });
    expect(await storage.get('run-queue')).toBeUndefined();
    expect(recent).not.toBe(old);
  });

  it('drops runs the service refuses for good (422, 409, 404) with an event, and keeps sending the rest', async () => {
    const storage = createMemoryStorage();
    const client = openClient(harness, { storage });
    const rejected: GameClientEvents['run-rejected'][] = [];
    client.on('run-rejected', (event) => rejected.push(event));
    await client.signIn(newPlayerCode('rejected'));

    // Accepted once, then the stored payload is altered: the same runId with other content.
    harness.proxy.plan('/runs/score', [{ kind: 'lose-response' }]);
    const { runId: tampered } = await client.submitRun('score', scorePayload(50));
    await client.flush();
    const document = JSON.parse((await storage.get('run-queue'))!) as { runs: { payload: { score: number } }[] };
    document.runs[0]!.payload.score = 5_000;
    await storage.set('run-queue', JSON.stringify(document));
    await new Promise((resolve) => setTimeout(resolve, 250));

    const { runId: tooFast } = await client.submitRun('score', { score: 1_000_000_000, durationMs: 1 });
    const { runId: unknownAdapter } = await client.submitRun('no-such-adapter', scorePayload(1));
    const { runId: fine } = await client.submitRun('score', scorePayload(60));
    expect(await client.flush()).toMatchObject({ accepted: 1, rejected: 3, remaining: 0 });
    expect(rejected).toEqual([
      { runId: tampered, adapterId: 'score', status: 409, code: 'run-id-conflict', message: expect.any(String) },
      { runId: tooFast, adapterId: 'score', status: 422, code: 'evidence-rejected', message: expect.any(String) },
      { runId: unknownAdapter, adapterId: 'no-such-adapter', status: 404, code: 'adapter-not-found', message: expect.any(String) },
    ]);
    expect(await client.myRank('total-score')).toMatchObject({ entry: { score: 110 } });
    expect(fine).toMatch(runIdPattern);
  });

  it("does not send another player's queued runs, and sends them when that player signs in again", async () => {
    const storage = createMemoryStorage();
    const client = openClient(harness, { storage });
    const alice = newPlayerCode('alice');
    await client.signIn(alice);
    harness.proxy.down = true;
    await client.submitRun('score', scorePayload(111));
    await client.flush();
    harness.proxy.down = false;
    await client.logout();

    await client.signIn(newPlayerCode('bob'));
    expect(await client.flush()).toMatchObject({ accepted: 0, remaining: 1 });
    expect(await client.pendingRuns()).toMatchObject([{ ownedBySignedInPlayer: false }]);
    expect(await client.myRank('high-score')).toMatchObject({ entry: null });

    await client.signIn(alice);
    // The failed attempt while offline set a short jittered backoff; wait it out.
    await drain(client);
    expect(await client.pendingRuns()).toEqual([]);
    expect(await client.myRank('high-score')).toMatchObject({ entry: { score: 111 } });
  });

  it("does not send another game's queued runs sharing the same storage", async () => {
    const storage = createMemoryStorage();
    const tiles = openClient(harness, { storage, gameId: 'tiles' });
    await tiles.submitRun('replay', { moves: 'LR' });
    const demo = openClient(harness, { storage });
    await demo.signIn(newPlayerCode('two-games'));
    const before = runRequests().length;
    expect(await demo.flush()).toMatchObject({ accepted: 0, remaining: 0 });
    expect(runRequests().length).toBe(before);
    expect(await demo.pendingRuns()).toEqual([]);
    expect(await tiles.pendingRuns()).toHaveLength(1);
  });

  it('sends runs played before anyone signed in under the first player who signs in', async () => {
    const client = openClient(harness);
    await client.submitRun('score', scorePayload(77));
    await client.signIn(newPlayerCode('first'));
    expect(await client.flush()).toMatchObject({ accepted: 1 });
    expect(await client.myRank('high-score')).toMatchObject({ entry: { score: 77 } });
  });
  it('reads pages with cursors, the own rank with neighbours, and the entries around the player', async () => {
    const board = 'fastest';
    const players: { client: GameClient; id: string }[] = [];
    for (const durationMs of [61_000, 62_000, 63_000, 64_000]) {
      const client = openClient(harness);
      await client.signIn(newPlayerCode('reader'));
      await client.submitRun('score', { score: 1, durationMs });
      expect(await client.flush()).toMatchObject({ accepted: 1 });
      players.push({ client, id: (await client.player())!.id });
    }
    const third = players[2]!;
    const me = await third.client.myRank(board, { radius: 1 });
    expect(me.entry).toMatchObject({ playerId: third.id, score: 63_000 });
    expect(me.neighbors?.map((entry) => entry.playerId)).toEqual(expect.arrayContaining([players[1]!.id, players[3]!.id]));
    const around = await third.client.aroundMe(board, { radius: 1 });
    expect(around.entries.map((entry) => entry.playerId)).toEqual([players[1]!.id, third.id, players[3]!.id]);

    const seen: string[] = [];
    let page = await third.client.leaderboard(board, { limit: 2 });
    seen.push(...page.entries.map((entry) => entry.playerId));
    while (page.nextCursor) {
      page = await third.client.leaderboard(board, { limit: 2, cursor: page.nextCursor });
      seen.push(...page.entries.map((entry) => entry.playerId));
    }
    const ours = seen.filter((id) => players.some((player) => player.id === id));
    expect(ours).toEqual(players.map((player) => player.id));
    await expect(third.client.leaderboard(board, { cursor: 'not-a-cursor' })).rejects.toMatchObject({ status: 400, code: 'invalid-cursor' });
  });
});
