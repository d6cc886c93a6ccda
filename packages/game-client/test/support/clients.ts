import { randomBytes } from 'node:crypto';
import { createGameClient, createMemoryStorage, type GameClient, type GameClientOptions } from '../../src/index.js';
import type { GameServiceHarness } from './game-service-harness.js';

/** A dev-provider code for a player no other test uses. */
export function newPlayerCode(label: string): string {
  return `dev:${label}-${randomBytes(4).toString('hex')}`;
}

/** A client of the `demo` game talking to the service through the fault proxy. */
export function openClient(harness: GameServiceHarness, options: Partial<GameClientOptions> = {}): GameClient {
  return createGameClient({
    baseUrl: harness.proxy.baseUrl,
    gameId: 'demo',
    storage: createMemoryStorage(),
    requestTimeoutMs: 10_000,
    backoff: { baseDelayMs: 20, maxDelayMs: 200 },
    ...options,
  });
}

/** Flushes until the signed-in player's runs are settled, waiting out backoff for real. */
export async function drain(client: GameClient, maxRounds = 50): Promise<void> {
  for (let round = 0; round < maxRounds; round += 1) {
    const report = await client.flush();
    if (report.nextAttemptInMs === undefined) return;
    await new Promise((resolve) => setTimeout(resolve, report.nextAttemptInMs! + 5));
  }
  throw new Error(`the queue did not drain in ${maxRounds} flushes`);
}

/** A bounded-score payload the demo game's `score` adapter accepts. */
export function scorePayload(score: number): { score: number; durationMs: number } {
  return { score, durationMs: 5_000 };
}
