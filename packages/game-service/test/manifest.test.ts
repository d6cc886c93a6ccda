import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '@playstack/server-kit';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { checkManifest } from '../src/manifest/manifest-check.js';
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
            boards: [{ id: 'b', name: 'B', order: 'up', operator: 'max', periods: ['yearly'], source: { adapter: 'a' }, colour: 'red' }],
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
      ]),
    );
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
    expect(result).toEqual({ ok: false, problems: [{ path: 'games[0].boards[0].order', reason: 'must be one of "asc", "desc"' }] });
    expect(app.games.current.version).toBeNull();
    expect(await app.games.listVersions()).toEqual([]);
  });

  it('stores versions in order, serves the newest at once and keeps the history', async () => {
    const first = await app.games.storeManifest(manifestWith(otherGame), 'alice@example.com');
    expect(first).toMatchObject({ ok: true, version: { version: 1, author: 'alice@example.com' } });
    expect(app.games.get('other')).toEqual(otherGame);
    const second = await app.games.storeManifest({ games: [otherGame] });
    expect(second).toMatchObject({ ok: true, version: { version: 2, author: null } });
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
        expect(await app.games.listVersions()).toEqual([{ version: 1, author: `GAME_MANIFEST_FILE ${path}`, createdAt: expect.any(Number) }]);
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

  it('stops the boot when the file is not JSON or missing', async () => {
    await expect(buildTestApp(database(), { GAME_MANIFEST_FILE: file('broken.json', '{"games": [') })).rejects.toThrow(/is not JSON/);
    await expect(buildTestApp(database(), { GAME_MANIFEST_FILE: join(dir, 'absent.json') })).rejects.toThrow(/cannot be read/);
  });
});
