import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { describeEachDatabase } from '@playstack/server-kit/testing';
import { boundedDisplayName, maxDisplayNameCodePoints } from '../src/auth/providers/display-name.js';
import { boundedDisplayNamesMigration } from '../src/migrations/2026-11-25-01-bounded-display-names.js';
import { devSignIn } from './support/identity-fixtures.js';
import { buildTestApp } from './support/test-app.js';

describe('boundedDisplayName', () => {
  it('keeps an ordinary name as it is', () => {
    expect(boundedDisplayName('Ada Lovelace')).toBe('Ada Lovelace');
    expect(boundedDisplayName('山田 太郎')).toBe('山田 太郎');
  });

  it('trims, collapses whitespace and removes control characters', () => {
    expect(boundedDisplayName('  Ada\t\n  Lovelace \u0000\u0007\u009B ')).toBe('Ada Lovelace');
  });

  it('removes bidirectional overrides, embeddings, isolates and marks', () => {
    expect(boundedDisplayName('\u202Eevil\u202C\u2066x\u2069\u200F\u200E\u061C')).toBe('evilx');
  });

  it(`cuts at ${maxDisplayNameCodePoints} code points without splitting a grapheme`, () => {
    expect(boundedDisplayName('a'.repeat(100))).toBe('a'.repeat(maxDisplayNameCodePoints));
    // A family emoji is 7 code points (4 people joined by 3 zero-width joiners).
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';
    const bounded = boundedDisplayName(`${'a'.repeat(60)}${family}`);
    expect(bounded).toBe('a'.repeat(60));
    expect(boundedDisplayName(`${'a'.repeat(57)}${family}`)).toBe(`${'a'.repeat(57)}${family}`);
    // A letter drowned in combining marks is dropped whole rather than cut.
    expect(boundedDisplayName(`ab${'e\u0301'.repeat(3)}z${'\u0301'.repeat(500)}`)).toBe(`ab${'e\u0301'.repeat(3)}`);
  });

  it('falls back to "Player" when nothing is left', () => {
    expect(boundedDisplayName(undefined)).toBe('Player');
    expect(boundedDisplayName(' \u202E\u0000 ')).toBe('Player');
  });
});

describeEachDatabase('display names stored before they were bounded', (database) => {
  it('are bounded by the migration, so the player’s tokens are small again', async () => {
    const app = await buildTestApp(database());
    try {
      const session = await devSignIn(app, 'demo', 'legacy');
      // What an unbounded provider name left behind (PostgreSQL's column holds 255).
      await sql`update players set display_name = ${'\u202E' + 'n'.repeat(250)} where id = ${session.player.id}`.execute(app.database.db);
      await boundedDisplayNamesMigration.up(app.database.db, app.database.dialect);
      const refreshed = await app.inject({ method: 'POST', url: '/v1/games/demo/auth/refresh', payload: { refreshToken: session.refreshToken } });
      expect(refreshed.json().player.displayName).toBe('n'.repeat(maxDisplayNameCodePoints));
    } finally {
      await app.close();
    }
  });
});
