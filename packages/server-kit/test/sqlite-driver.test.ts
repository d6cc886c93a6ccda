import { describe, expect, it } from 'vitest';
import { SqliteDatabase, sqliteModuleFor } from '../src/db/sqlite-driver.js';
import { needsSqlite12 } from '../../../scripts/install-sqlite.mjs';

const both = { has13: true, has12Binary: true };

describe('the better-sqlite3 a Node.js runs', () => {
  it('13 where Node-API 10 is there, 12 elsewhere', () => {
    expect(sqliteModuleFor({ node: '24.21.0', napi: '10' }, both)).toBe('better-sqlite3-13');
    expect(sqliteModuleFor({ node: '22.14.0', napi: '10' }, both)).toBe('better-sqlite3-13');
    expect(sqliteModuleFor({ node: '22.13.1', napi: '9' }, both)).toBe('better-sqlite3');
    expect(sqliteModuleFor({ node: '20.20.2', napi: '9' }, both)).toBe('better-sqlite3');
  });

  it('the postinstall compiles 12 exactly where it runs', () => {
    for (const [node, napi] of [['20.20.2', '9'], ['22.13.1', '9'], ['22.14.0', '10'], ['24.21.0', '10']] as const) {
      expect(needsSqlite12(napi), node).toBe(sqliteModuleFor({ node, napi }, both) === 'better-sqlite3');
    }
  });

  it('installed with another Node.js: says to run npm ci with this one', () => {
    // Installed on Node.js 22 or 24 (no 12 compiled), run on 20.
    expect(() => sqliteModuleFor({ node: '20.20.2', napi: '9' }, { has13: true, has12Binary: false })).toThrow(
      'better-sqlite3 12, which Node.js 20.20.2 (Node-API 9) runs, is not compiled: the dependencies were installed with another Node.js; run npm ci with this one',
    );
    // Installed on Node.js 20 (npm skipped 13), run on 24.
    expect(() => sqliteModuleFor({ node: '24.21.0', napi: '10' }, { has13: false, has12Binary: true })).toThrow(
      'better-sqlite3 13 is not installed, and 12 cannot run on Node.js 24.21.0: the dependencies were installed with another Node.js; run npm ci with this one',
    );
    // On 22.14+, 12 still serves when 13 is missing and 12 was compiled.
    expect(sqliteModuleFor({ node: '22.14.0', napi: '10' }, { has13: false, has12Binary: true })).toBe('better-sqlite3');
  });

  it('the one this Node.js loaded opens a database', () => {
    const file = new SqliteDatabase(':memory:');
    expect(file.prepare('select 1 + 1 as two').get()).toEqual({ two: 2 });
    file.close();
  });
});
