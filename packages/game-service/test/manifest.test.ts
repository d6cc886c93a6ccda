import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { checkManifest } from '../src/manifest/manifest-check.js';
import { GameCatalog } from '../src/manifest/game-catalog.js';
import { adapterTypes } from '../src/runs/adapters/registry.js';
import { galaxyGame, manifestWith, otherGame } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

/** The `demo` game exactly as decisions.md shows it. */
const demoFromDecisions = {
  id: 'demo',
  name: 'Demo',
  auth: { provider: 'dev' },
  adapters: {
    score: { type: 'bounded-score', options: { minScore: 0, maxScore: 1000000000, maxScorePerSecond: 1000000 } },
  },
  boards: [
    {
      id: 'high-score',
      name: 'High score',
      order: 'desc',
      operator: 'best',
      periods: ['all', 'daily', 'weekly', 'monthly'],
      source: { adapter: 'score', value: 'score' },
    },
    { id: 'total-score', name: 'Total score', order: 'desc', operator: 'sum', periods: ['all'], source: { adapter: 'score', value: 'score' } },
    { id: 'fastest', name: 'Fastest run', order: 'asc', operator: 'best', periods: ['all'], source: { adapter: 'score', value: 'durationMs' } },
  ],
};

describe('manifest check', () => {
  it('accepts the decisions.md example with both games', () => {
    expect(checkManifest(manifestWith(galaxyGame), adapterTypes).ok).toBe(true);
  });

  it('lists every problem with its path and reason', () => {
    const document = {
      games: [
        {
          id: 'demo',
          name: '',
          auth: { provider: 'google-play-games', clientId: 'c' },
          adapters: {
            score: { type: 'bounded-score', options: { minScore: 'low' } },
            'bad id!': { type: 'bounded-score' },
            ghost: { type: 'no-such-type', options: {} },
          },
          boards: [
            { id: 'b', name: 'B', order: 'desc', operator: 'best', periods: ['all'], source: { adapter: 'score', value: 'lives' } },
            { id: 'b', name: 'B2', order: 'desc', operator: 'best', periods: ['all'], source: { adapter: 'nowhere', value: 'score' } },
          ],
        },
        { ...otherGame, id: 'demo' },
      ],
    };
    const result = checkManifest(document, adapterTypes);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual(
      expect.arrayContaining([
        { path: 'games[1].id', reason: 'duplicate game id "demo" (also games[0])' },
        { path: 'games[0].auth.clientSecretEnv', reason: 'is required' },
        { path: 'games[0].auth.applicationId', reason: 'is required' },
        { path: 'games[0].adapters.score.options.minScore', reason: expect.stringContaining('integer') },
        { path: 'games[0].adapters.bad id!', reason: expect.stringContaining('adapter ids') },
        { path: 'games[0].adapters.ghost.type', reason: expect.stringContaining('unknown adapter type "no-such-type"') },
        { path: 'games[0].boards[1].id', reason: 'duplicate board id "b" (also boards[0])' },
        { path: 'games[0].boards[0].source.value', reason: expect.stringContaining('no output "lives"') },
        { path: 'games[0].boards[1].source.adapter', reason: `"nowhere" is not one of this game's adapters` },
      ]),
    );
  });

  it('reports shape problems (bad values, unknown and missing members) all at once', () => {
    const result = checkManifest(
      {
        games: [
          {
            id: 'x',
            name: 'X',
            auth: { provider: 'steam' },
            adapters: {},
            boards: [{ id: 'b', name: 'B', order: 'up', operator: 'max', periods: ['yearly'], source: { adapter: 'a' }, colour: 'red', format: 'seconds', unit: '' }],
          },
        ],
      },
      adapterTypes,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const paths = result.problems.map((problem) => problem.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'games[0].id',
        'games[0].auth.provider',
        'games[0].boards[0].order',
        'games[0].boards[0].operator',
        'games[0].boards[0].periods[0]',
        'games[0].boards[0].source.value',
        'games[0].boards[0].colour',
        'games[0].boards[0].format',
        'games[0].boards[0].unit',
      ]),
    );
    expect(result.problems.find((problem) => problem.path === 'games[0].boards[0].format')?.reason).toBe('must be one of "integer", "decimal", "duration-ms", "duration-s"');
    expect(result.problems.find((problem) => problem.path === 'games[0].boards[0].order')?.reason).toBe('must be one of "asc", "desc"');
  });

  it('accepts adapters switched off with enabled: false, and only booleans there', () => {
    const switchedOff = { ...otherGame, adapters: { score: { ...otherGame.adapters.score!, enabled: false } } };
    expect(checkManifest({ games: [switchedOff] }, adapterTypes).ok).toBe(true);
    const wrong = { ...otherGame, adapters: { score: { ...otherGame.adapters.score!, enabled: 'no' } } };
    expect(checkManifest({ games: [wrong] }, adapterTypes)).toEqual({
      ok: false,
      problems: [{ path: 'games[0].adapters.score.enabled', reason: 'must be boolean' }],
    });
  });

  it('lets clientSecretEnv name only *_CLIENT_SECRET variables, never the server’s own secrets', () => {
    const naming = (clientSecretEnv: string) => ({ games: [{ ...galaxyGame, auth: { ...galaxyGame.auth, clientSecretEnv } }] });
    for (const name of ['GALAXY_GOOGLE_CLIENT_SECRET', 'A_CLIENT_SECRET', 'GAME2_PLAY_GAMES_CLIENT_SECRET']) {
      expect(checkManifest(naming(name), adapterTypes).ok, name).toBe(true);
    }
    for (const name of ['GAME_TOKEN_SECRET', 'DATABASE_URL', 'REDIS_URL', 'METRICS_TOKEN', 'galaxy_google_client_secret', '_CLIENT_SECRET', 'CLIENT_SECRET', 'X_CLIENT_SECRET_', '1_CLIENT_SECRET', `${'A'.repeat(120)}_CLIENT_SECRET`]) {
      const result = checkManifest(naming(name), adapterTypes);
      expect(result.ok, name).toBe(false);
      if (result.ok) continue;
      expect(result.problems, name).toEqual([{ path: 'games[0].auth.clientSecretEnv', reason: expect.any(String) }]);
      if (name.length <= 128) expect(result.problems[0]!.reason, name).toContain('ending in _CLIENT_SECRET');
    }
  });

  it('refuses documents that are not manifests', () => {
    for (const document of [null, [], 'games', { games: [] }, {}]) {
      const result = checkManifest(document, adapterTypes);
      expect(result.ok).toBe(false);
    }
  });
});

describeEachDatabase('manifest storage and the game catalog', (database) => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(database(), { GAME_AUTH_RATE_LIMIT_MAX: '10000' });
  });
  afterAll(async () => {
    await app.close();
  });

  it('serves the bundled demo manifest, with the demo game exactly as decisions.md shows it, when none is stored', async () => {
    expect(app.games.current.version).toBeNull();
    expect(app.games.get('demo')).toEqual(demoFromDecisions);
    expect(await app.games.listVersions()).toEqual([]);
    const response = await app.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', payload: { authorizationCode: 'dev:first' } });
    expect(response.statusCode).toBe(200);
  });

  it('refuses an invalid manifest with its problems and keeps serving the current one', async () => {
    const result = await app.games.storeManifest({ games: [{ ...otherGame, boards: [{ ...otherGame.boards[0], order: 'sideways' }] }] });
    expect(result).toEqual({ outcome: 'invalid', problems: [{ path: 'games[0].boards[0].order', reason: 'must be one of "asc", "desc"' }] });
    expect(app.games.current.version).toBeNull();
    expect(await app.games.listVersions()).toEqual([]);
  });

  it('stores versions in order, serves the newest at once and keeps the history', async () => {
    const first = await app.games.storeManifest(manifestWith(otherGame), { author: 'alice@example.com' });
    expect(first).toMatchObject({ outcome: 'stored', version: { version: 1, author: 'alice@example.com' } });
    expect(app.games.get('other')).toEqual(otherGame);
    // Drops the demo game, which has a player since the first test: confirmed.
    const second = await app.games.storeManifest({ games: [otherGame] }, { confirm: true });
    expect(second).toMatchObject({ outcome: 'stored', version: { version: 2, author: null } });
    expect(app.games.current.version).toBe(2);
    expect(app.games.get('demo')).toBeUndefined();
    expect((await app.games.listVersions()).map((v) => v.version)).toEqual([2, 1]);
    expect(JSON.parse((await app.games.getVersion(1))!.document)).toEqual(manifestWith(otherGame));
  });

  it('answers 404 game-not-found for a game the current version no longer has', async () => {
    const response = await app.inject({ method: 'POST', url: '/v1/games/demo/auth/exchange', payload: { authorizationCode: 'dev:late' } });
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('game-not-found');
    expect(() => app.games.require('demo')).toThrowError(expect.objectContaining({ code: 'game-not-found' }));
  });

  it('lets another instance pick up a version stored elsewhere', async () => {
    const other = await buildTestApp(database(), { GAME_MANIFEST_REFRESH_MS: '100' });
    try {
      expect(other.games.current.version).toBe(2);
      await app.games.storeManifest(manifestWith(galaxyGame, otherGame));
      await expect.poll(() => other.games.current.version, { timeout: 5_000 }).toBe(3);
      expect(other.games.get('galaxy')).toEqual(galaxyGame);
    } finally {
      await other.close();
    }
  });
});

/** Query builders of `target` whose `executeTakeFirst` awaits `hold(result)` before answering. */
function withHeldReads<T extends object>(target: T, hold: (result: unknown) => Promise<void>): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      if (property === 'executeTakeFirst') {
        return async (...args: unknown[]) => {
          const result: unknown = await value.apply(object, args);
          await hold(result);
          return result;
        };
      }
      return (...args: unknown[]) => {
        const out: unknown = value.apply(object, args);
        return out !== null && typeof out === 'object' && 'executeTakeFirst' in out ? withHeldReads(out, hold) : out;
      };
    },
  });
}

describeEachDatabase('manifest refresh', (database) => {
  it('never goes back to an older version when a refresh races a store on the same instance', async () => {
    const app = await buildTestApp(database());
    try {
      // The real database, with the result of the next read of a stored document held back until
      // released. (A Kysely plugin cannot: it runs while holding SQLite's one connection.)
      let armed = false;
      let release!: () => void;
      let reachedGate!: () => void;
      const atGate = new Promise<void>((resolve) => (reachedGate = resolve));
      const holdDocumentRead = async (result: unknown) => {
        if (!armed || (result as { document?: unknown } | undefined)?.document === undefined) return;
        armed = false;
        reachedGate();
        await new Promise<void>((resolve) => (release = resolve));
      };
      const catalog = new GameCatalog(withHeldReads(app.database.db, holdDocumentRead), app.clock, adapterTypes, manifestWith());
      const older = await app.games.storeManifest(manifestWith(otherGame));
      if (older.outcome !== 'stored') throw new Error('refused');

      armed = true;
      const refreshing = catalog.refresh();
      await atGate; // the refresh has read the older version
      const newer = await catalog.storeManifest(manifestWith(otherGame, galaxyGame));
      if (newer.outcome !== 'stored') throw new Error('refused');
      expect(newer.version.version).toBe(older.version.version + 1);
      expect(catalog.current.version).toBe(newer.version.version);
      release();
      await refreshing;
      expect(catalog.current.version).toBe(newer.version.version);
      expect(catalog.get('galaxy')).toEqual(galaxyGame);
      // And a refresh that finds nothing newer leaves it so.
      await catalog.refresh();
      expect(catalog.current.version).toBe(newer.version.version);
    } finally {
      await app.close();
    }
  });
});

describeEachDatabase('GAME_MANIFEST_FILE', (database) => {
  const dir = mkdtempSync(join(tmpdir(), 'manifest-file-'));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('is stored as a new version at boot, and not again while it is unchanged', async () => {
    const path = file('games.json', JSON.stringify(manifestWith(galaxyGame)));
    for (let boot = 0; boot < 2; boot++) {
      const app = await buildTestApp(database(), { GAME_MANIFEST_FILE: path });
      try {
        expect(app.games.get('galaxy')).toEqual(galaxyGame);
        expect(await app.games.listVersions()).toEqual([
          { version: 1, author: `GAME_MANIFEST_FILE ${path}`, createdAt: expect.any(Number), changes: ['first stored version: game "demo", game "tiles", game "galaxy"'] },
        ]);
      } finally {
        await app.close();
      }
    }
  });

  it('stops the boot with every problem listed when the file is invalid', async () => {
    const path = file('bad.json', JSON.stringify({ games: [{ ...galaxyGame, name: '', boards: [{ ...galaxyGame.boards[0], operator: 'max' }] }] }));
    const boot = buildTestApp(database(), { GAME_MANIFEST_FILE: path });
    await expect(boot).rejects.toThrow(/games\[0\]\.name: .*games\[0\]\.boards\[0\]\.operator: must be one of "best", "latest", "sum"/);
  });

  it('replaces a stored version that no longer passes the check, which alone would stop the boot', async () => {
    const seeded = await buildTestApp(database());
    const stale = { games: [{ ...otherGame, adapters: { score: { type: 'retired-type', options: {} } } }] };
    await seeded.database.db
      .insertInto('manifest_versions')
      .values({ version: 100, document: JSON.stringify(stale), author: 'an older release', created_at: 0 })
      .execute();
    await seeded.close();

    await expect(buildTestApp(database())).rejects.toThrow(/stored manifest version 100 .*unknown adapter type "retired-type"/);
    const path = file('fixed.json', JSON.stringify(manifestWith(otherGame)));
    const app = await buildTestApp(database(), { GAME_MANIFEST_FILE: path });
    try {
      expect(app.games.current.version).toBe(101);
      expect(app.games.get('other')).toEqual(otherGame);
    } finally {
      await app.close();
    }
  });

  it('closes the database it opened when the boot stops', async () => {
    // Observable ends of the connections: SQLite removes its WAL file when the last connection
    // closes; PostgreSQL lists open connections by application_name.
    const applicationName = `boot-${Math.random().toString(36).slice(2, 10)}`;
    const env: Record<string, string> = { GAME_MANIFEST_FILE: file('invalid-at-boot.json', JSON.stringify({ games: [] })) };
    if (database().dialect === 'postgres') env.DATABASE_URL = `${database().env.DATABASE_URL}?application_name=${applicationName}`;
    const connections = async () => {
      const { DATABASE_URL, DATABASE_SCHEMA, DATA_DIR } = database().env;
      const observer = await openDatabase({ url: DATABASE_URL, schema: DATABASE_SCHEMA!, poolSize: 1, dataDir: DATA_DIR!, fileName: 'observer', sqliteSynchronous: 'normal' });
      try {
        const result = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where application_name = ${applicationName}`.execute(observer.db);
        return Number(result.rows[0]!.n);
      } finally {
        await observer.close();
      }
    };
    await expect(buildTestApp(database(), env)).rejects.toThrow(/GAME_MANIFEST_FILE/);
    if (database().dialect === 'sqlite') {
      expect(existsSync(join(database().env.DATA_DIR!, 'game.sqlite'))).toBe(true);
      expect(existsSync(join(database().env.DATA_DIR!, 'game.sqlite-wal'))).toBe(false);
    } else {
      await expect.poll(connections, { timeout: 2_000 }).toBe(0);
    }
  });

  it('stops the boot when the file is not JSON or missing', async () => {
    await expect(buildTestApp(database(), { GAME_MANIFEST_FILE: file('broken.json', '{"games": [') })).rejects.toThrow(/is not JSON/);
    await expect(buildTestApp(database(), { GAME_MANIFEST_FILE: join(dir, 'absent.json') })).rejects.toThrow(/cannot be read/);
  });
});
