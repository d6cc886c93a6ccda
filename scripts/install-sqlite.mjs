// The root package's `postinstall` (npm ci, npm install): compiles better-sqlite3 12 only where
// the running Node.js needs it.
//
// packages/server-kit/src/db/sqlite-driver.ts loads better-sqlite3 13 (the optional dependency
// `better-sqlite3-13`, prebuilt on Node-API 10, nothing to compile) where Node-API 10 is there
// (Node.js 22.14 and later), and 12 elsewhere (Node.js 20). npm installs 12 everywhere, and its
// own install script compiles SQLite from source (about 2 CPU-minutes, most of `npm ci`'s time):
// wasted where 13 serves. So package.json's `allowScripts` keeps npm from running that script,
// and this one runs it, unchanged, only where Node-API 10 is missing.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether a Node.js with this Node-API version runs better-sqlite3 12 (and so needs it compiled). */
export function needsSqlite12(napiVersion) {
  return Number(napiVersion) < 10;
}

/**
 * Runs better-sqlite3 12's own install script in its directory, its output (a compiler's, some
 * hundred lines) shown only if it fails; returns the exit status.
 */
export function buildSqlite12() {
  const require = createRequire(import.meta.url);
  const directory = dirname(require.resolve('better-sqlite3/package.json'));
  const { scripts } = JSON.parse(readFileSync(`${directory}/package.json`, 'utf8'));
  // npm runs install scripts through sh with node_modules/.bin and its node-gyp on PATH: this
  // script runs inside npm's postinstall, so its PATH has them too.
  const result = spawnSync('sh', ['-c', `(${scripts.install}) 2>&1`], { cwd: directory, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  const status = result.status ?? 1;
  if (status !== 0) process.stderr.write(`${result.stdout}\nbuilding better-sqlite3 12 failed (exit ${status}): it needs python3, make and a C++ compiler; or use Node.js 22.14 or later, which builds nothing\n`);
  return status;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (needsSqlite12(process.versions.napi)) {
    const startedAt = Date.now();
    console.log(`building better-sqlite3 12 for Node.js ${process.versions.node} (a few minutes; on Node.js 22.14 and later npm ci builds nothing)`);
    process.exitCode = buildSqlite12();
    if (process.exitCode === 0) console.log(`built better-sqlite3 12 in ${Math.round((Date.now() - startedAt) / 1000)} s`);
  }
}
