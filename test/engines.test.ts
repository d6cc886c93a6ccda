// `engines` says which Node.js versions the project runs on (the README says the same, CI tests
// each): it must be true of every installed package too, or npm warns a user of a supported
// version that some package does not support it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const readJson = <T>(file: string) => JSON.parse(readFileSync(join(root, file), 'utf8')) as T;

interface PackageJson {
  engines?: { node?: string };
  workspaces?: string[];
  scripts?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}
const rootPackage = readJson<PackageJson>('package.json');
const range = rootPackage.engines!.node!;
/** The oldest version of each supported major. */
const claimed = ['20.19.0', '22.13.0', '24.0.0'];

it('names the supported majors, 20.19+, 22 and 24 (and later), in every workspace package', () => {
  expect(claimed.every((version) => semver.satisfies(version, range))).toBe(true);
  expect(['20.18.0', '21.7.0', '22.12.0', '23.11.0'].some((version) => semver.satisfies(version, range))).toBe(false);
  for (const workspace of rootPackage.workspaces!) expect(readJson<PackageJson>(`${workspace}/package.json`).engines?.node, workspace).toBe(range);
});

type LockedPackage = { name?: string; version?: string; optional?: boolean; hasInstallScript?: boolean; engines?: { node?: string } | string[] };
const lock = readJson<{ packages: Record<string, LockedPackage> }>('package-lock.json');
const nodeRangeOf = (info: LockedPackage) => (Array.isArray(info.engines) ? undefined : info.engines?.node);

it('is true of every package the lockfile installs', () => {
  const refusing: string[] = [];
  for (const [path, info] of Object.entries(lock.packages)) {
    const nodeRange = nodeRangeOf(info);
    // npm leaves an optional package out, without a word, on a Node.js its engines exclude.
    if (!path || !nodeRange || info.optional) continue;
    for (const version of claimed) {
      if (!semver.satisfies(version, nodeRange)) refusing.push(`${path.replace(/^.*node_modules\//, '')}@${info.version}: ${nodeRange} (not ${version})`);
    }
  }
  expect(refusing).toEqual([]);
});

it('installs better-sqlite3 13 where it runs (Node.js 22 and later) and 12 everywhere, for Node.js 20', () => {
  // packages/server-kit/src/db/sqlite-driver.ts loads 13 on Node-API 10 (Node.js 22.14+), else 12.
  const modern = lock.packages['node_modules/better-sqlite3-13']!;
  expect(modern).toMatchObject({ optional: true, version: expect.stringMatching(/^13\./) });
  expect(['22.13.0', '24.0.0'].every((version) => semver.satisfies(version, nodeRangeOf(modern)!))).toBe(true);
  expect(semver.satisfies('20.19.0', nodeRangeOf(modern)!)).toBe(false);
  const legacy = lock.packages['node_modules/better-sqlite3']!;
  expect(legacy.optional).toBeUndefined();
  expect(semver.satisfies('20.19.0', nodeRangeOf(legacy)!)).toBe(true);
});

it('npm ci runs no install script it was not told about, and compiles better-sqlite3 12 only through the postinstall (where Node-API 10 is missing)', () => {
  // A package with install scripts that allowScripts does not name makes npm ci end with a warning.
  const uncovered = Object.entries(lock.packages)
    .filter(([path, info]) => path && info.hasInstallScript)
    .map(([path, info]) => info.name ?? path.replace(/^.*node_modules\//, ''))
    .filter((name) => rootPackage.allowScripts?.[name] === undefined);
  expect(uncovered).toEqual([]);
  // better-sqlite3 12's own script would compile SQLite on every Node.js; scripts/install-sqlite.mjs
  // runs it where 12 is the one loaded (packages/server-kit/test/sqlite-driver.test.ts).
  expect(rootPackage.allowScripts?.['better-sqlite3']).toBe(false);
  expect(rootPackage.scripts?.postinstall).toBe('node scripts/install-sqlite.mjs');
});

it('the README says which versions are supported', () => {
  expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('**Node.js 20.19 or later, 22.13 or later, or 24 and later**');
});
