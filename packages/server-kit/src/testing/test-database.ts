import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import type { Dialect } from '../db/database.js';
import type { App } from '../http/create-server.js';

/** A database for one suite: the environment variables that point a service at it. */
export interface TestDatabase {
  readonly dialect: Dialect;
  /** Variables to merge into the service's environment (DATA_DIR or DATABASE_URL + schema). */
  readonly env: Readonly<Record<string, string>>;
  /** Drops the schema / deletes the files. */
  dispose(): Promise<void>;
}

/** The dialects this run covers: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export function testDialects(): Dialect[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** A fresh, empty database of the given dialect: a temp directory, or a new PostgreSQL schema. */
export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'playstack-test-'));
    return {
      dialect,
      env: { DATA_DIR: dir },
      async dispose() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'playstack-test-'));
  return {
    dialect,
    env: { DATABASE_URL: url, DATABASE_SCHEMA: schema, DATA_DIR: dir },
    async dispose() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        // A service just stopped may still hold a lock in the schema until PostgreSQL notices its
        // connection closed: a drop racing it can be chosen as a deadlock's victim. Try again.
        for (let attempt = 1; ; attempt++) {
          try {
            await client.query(`drop schema if exists ${schema} cascade`);
            break;
          } catch (error) {
            if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
            await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
          }
        }
      } finally {
        await client.end();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs a suite once per dialect, each with its own fresh database, created before and removed
 * after the suite. `body` receives a getter for the suite's database.
 */
export function describeEachDatabase(title: string, body: (database: () => TestDatabase) => void): void {
  for (const dialect of testDialects()) {
    describe(`${title} [${dialect}]`, () => {
      let database: TestDatabase | undefined;
      beforeAll(async () => {
        database = await createTestDatabase(dialect);
      });
      afterAll(async () => {
        await database?.dispose();
      });
      body(() => {
        if (!database) throw new Error('the suite database is created in beforeAll; use it inside tests or hooks');
        return database;
      });
    });
  }
}

/**
 * `describeEachDatabase` for a suite about one app: builds it on each dialect's database before
 * the tests and closes it after. `body` receives a getter for the suite's app.
 */
export function describeAppOnEachDatabase(title: string, build: (database: TestDatabase) => Promise<App>, body: (app: () => App) => void): void {
  describeEachDatabase(title, (database) => {
    let app: App | undefined;
    beforeAll(async () => {
      app = await build(database());
    });
    afterAll(async () => {
      await app?.close();
    });
    body(() => {
      if (!app) throw new Error('the suite app is built in beforeAll; use it inside tests or hooks');
      return app;
    });
  });
}
