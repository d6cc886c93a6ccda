import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

type SqliteConstructor = typeof import('better-sqlite3');

const require = createRequire(import.meta.url);

/**
 * better-sqlite3, in the version the running Node.js can use:
 * - 13 (the optional dependency `better-sqlite3-13`, which npm installs on Node.js 22 and later)
 *   is built on Node-API 10: one prebuilt binary serves every Node.js version, nothing to compile.
 * - 12 on Node.js 20, which has Node-API 9 only (13 crashes there at once; npm skips it, as its
 *   `engines` says). 12 is compiled against the running Node.js's own headers (by the root
 *   package's postinstall, scripts/install-sqlite.mjs, only where Node-API 10 is missing), and
 *   since Node.js 24.19 their `node::ObjectWrap` aborts the process when the garbage collector
 *   frees a prepared statement while no JavaScript runs (nodejs/node#65446): 12 must not run on
 *   Node.js 24.
 * The same API either way (the types are @types/better-sqlite3's).
 */
export const SqliteDatabase: SqliteConstructor = require(sqliteModuleFor(process.versions, installedSqlite())) as SqliteConstructor;

/** What of better-sqlite3 is installed: 13, and 12's compiled binary. */
export interface InstalledSqlite {
  readonly has13: boolean;
  readonly has12Binary: boolean;
}

function installedSqlite(): InstalledSqlite {
  const has = (file: string) => {
    try {
      return existsSync(join(dirname(require.resolve(`${file.split('/')[0]}/package.json`)), ...file.split('/').slice(1)));
    } catch {
      return false;
    }
  };
  return { has13: has('better-sqlite3-13'), has12Binary: has('better-sqlite3/build/Release/better_sqlite3.node') };
}

/**
 * The module to load on a Node.js of these versions, or an error saying what to run: the
 * dependencies were installed with another Node.js (npm skipped 13 on an older one, the
 * postinstall compiled no 12 on a newer one).
 */
export function sqliteModuleFor(versions: { readonly node: string; readonly napi?: string }, installed: InstalledSqlite): 'better-sqlite3-13' | 'better-sqlite3' {
  const rerun = 'the dependencies were installed with another Node.js; run npm ci with this one';
  if (Number(versions.napi) >= 10) {
    if (installed.has13) return 'better-sqlite3-13';
    if (Number(versions.node.split('.')[0]) >= 24) throw new Error(`better-sqlite3 13 is not installed, and 12 cannot run on Node.js ${versions.node}: ${rerun}`);
  }
  if (!installed.has12Binary) throw new Error(`better-sqlite3 12, which Node.js ${versions.node} (Node-API ${versions.napi}) runs, is not compiled: ${rerun}`);
  return 'better-sqlite3';
}
