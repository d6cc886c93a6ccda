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
}
const rootPackage = readJson<PackageJson>('package.json');
const range = rootPackage.engines!.node!;
/** The oldest version of each supported major, and the newest the range allows of the last. */
const claimed = ['20.19.0', '22.13.0', '22.99.0'];

it('names the supported majors, 20.19+ and 22, in every workspace package', () => {
  expect(claimed.every((version) => semver.satisfies(version, range))).toBe(true);
  expect(['20.18.0', '21.7.0', '23.11.0', '24.0.0'].some((version) => semver.satisfies(version, range))).toBe(false);
  for (const workspace of rootPackage.workspaces!) expect(readJson<PackageJson>(`${workspace}/package.json`).engines?.node, workspace).toBe(range);
});

it('is true of every package the lockfile installs', () => {
  const lock = readJson<{ packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> }>('package-lock.json');
  const refusing: string[] = [];
  for (const [path, info] of Object.entries(lock.packages)) {
    const nodeRange = Array.isArray(info.engines) ? undefined : info.engines?.node;
    if (!path || !nodeRange) continue;
    for (const version of claimed.slice(0, 2)) {
      if (!semver.satisfies(version, nodeRange)) refusing.push(`${path.replace(/^.*node_modules\//, '')}@${info.version}: ${nodeRange} (not ${version})`);
    }
  }
  expect(refusing).toEqual([]);
});

it('the README says which versions are supported', () => {
  expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('**Node.js 20.19 or later, or 22**');
});
