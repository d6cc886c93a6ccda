import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { ManualClock, type App } from '@playstack/server-kit';
import { redisVariants, type TestDatabase } from '@playstack/server-kit/testing';
import type { GameDefinition } from '../../src/manifest/manifest-schema.js';
import type { SetConsistency } from '../../src/leaderboards/rank-index.js';
import { manifestWith, storeManifest } from './identity-fixtures.js';
import { buildTestApp } from './test-app.js';
import { unthrottled } from '../leaderboards/leaderboard-fixtures.js';

/** Where every random sequence starts, a few hours before midnight so that daily periods roll over. */
export const sequenceStart = '2026-11-21T20:00:00.000Z';

/** Scores of a random sequence: a narrow range makes ties common. */
export const tieProneScore = fc.integer({ min: 0, max: 20 });

/** One Redis variant's app, started on the suite's games with a manual clock. */
export interface ConsistencySuite {
  app: App;
  clock: ManualClock;
  games: GameDefinition[];
  /** The next unused game, with the clock set back to the start of a sequence. */
  freshGame(): GameDefinition;
}

/**
 * A describe block per Redis variant (none, a shared engine...), each with its own app unthrottled on
 * a manual clock and a manifest of the games `gamesFor(variantName)` returns.
 */
export function describeEachRedisVariant(database: () => TestDatabase, gamesFor: (variantName: string) => GameDefinition[], body: (suite: ConsistencySuite) => void): void {
  for (const variant of redisVariants()) {
    describe(variant.name, () => {
      let nextGame = 0;
      const suite = {
        clock: new ManualClock(sequenceStart),
        games: gamesFor(variant.name),
        freshGame() {
          suite.clock.set(sequenceStart);
          return suite.games[nextGame++]!;
        },
      } as ConsistencySuite;
      beforeAll(async () => {
        suite.app = await buildTestApp(database(), { ...variant.env(), ...unthrottled }, { clock: suite.clock });
        await storeManifest(suite.app, manifestWith(...suite.games));
      });
      afterAll(async () => {
        await suite.app.close();
      });
      body(suite);
    });
  }
}

/**
 * Applies the operations `concurrency` at a time, so writers of the same player race each other.
 * Each batch settles in full before its first failure is thrown, so no write outlives the suite's database.
 */
export async function applyInRacingBatches<T>(operations: readonly T[], concurrency: number, apply: (operation: T) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < operations.length; start += concurrency) {
    const settled = await Promise.allSettled(operations.slice(start, start + concurrency).map(apply));
    const failure = settled.find((outcome) => outcome.status === 'rejected');
    if (failure) throw failure.reason;
  }
}

/** Expects the rank engine to hold the game's sets and to agree with SQL on every one; returns their report. */
export async function expectEngineAgreesWithSql(app: App, gameId: string): Promise<SetConsistency[]> {
  const report = (await app.leaderboards.ranks.checkConsistency()).filter((set) => set.setId.startsWith(`${gameId}:`));
  expect(report.length).toBeGreaterThan(0);
  expect(report.filter((set) => set.firstDifferenceAt !== undefined || set.engineTotal !== set.sqlTotal)).toEqual([]);
  return report;
}
