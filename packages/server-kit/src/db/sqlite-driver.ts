import { createRequire } from 'node:module';

type SqliteConstructor = typeof import('better-sqlite3');

const require = createRequire(import.meta.url);

/**
 * better-sqlite3, in the version the running Node.js can use:
 * - 13 (the optional dependency `better-sqlite3-13`, which npm installs on Node.js 22 and later)
 *   is built on Node-API 10: one prebuilt binary serves every Node.js version, nothing to compile.
 * - 12 on Node.js 20, which has Node-API 9 only (13 crashes there at once; npm skips it, as its
 *   `engines` says). 12 is compiled against the running Node.js's own headers, and since Node.js
 *   24.19 their `node::ObjectWrap` aborts the process when the garbage collector frees a prepared
 *   statement while no JavaScript runs (nodejs/node#65446): 12 must not run on Node.js 24.
 * The same API either way (the types are @types/better-sqlite3's).
 */
export const SqliteDatabase: SqliteConstructor = loadSqlite();

function loadSqlite(): SqliteConstructor {
  if (Number(process.versions.napi) >= 10) {
    try {
      return require('better-sqlite3-13') as SqliteConstructor;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
      if (Number(process.versions.node.split('.')[0]) >= 24) {
        throw new Error(`better-sqlite3 13 is not installed, and 12 cannot run on Node.js ${process.versions.node}: npm skipped it, the dependencies were installed with an older Node.js; run npm ci with this one`);
      }
    }
  }
  return require('better-sqlite3') as SqliteConstructor;
}
