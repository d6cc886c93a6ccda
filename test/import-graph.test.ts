import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// The import graph of every package's src/, read by dependency-cruiser with the rules of
// .dependency-cruiser.cjs: no cycle between modules or between folders, and no feature importing
// another feature's store.

const root = fileURLToPath(new URL('..', import.meta.url));

interface CruiseResult {
  modules: Array<{ source: string }>;
  summary: { violations: Array<{ from: string; to: string; rule: { name: string }; cycle?: Array<{ name: string }> }> };
}

function cruise(): CruiseResult {
  const cli = join(root, 'node_modules/.bin/depcruise');
  if (!existsSync(cli)) throw new Error('dependency-cruiser is not installed: run `npm install` (it is a dev dependency of the repository)');
  // The command exits non-zero when it finds violations; its JSON report is on stdout either way.
  const run = spawnSync(process.execPath, [cli, 'packages', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (!run.stdout) throw new Error(`dependency-cruiser failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as CruiseResult;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [relative(root, path)] : [];
  });
}

it('has no import cycle (of modules or folders) and no feature importing another feature’s store', { timeout: 120_000 }, () => {
  const result = cruise();
  const sources = readdirSync(join(root, 'packages')).flatMap((name) => sourceFiles(join(root, 'packages', name, 'src')));
  const cruised = new Set(result.modules.map((module) => module.source));
  expect(sources.filter((file) => !cruised.has(file)), 'source files the import graph left out').toEqual([]);

  const found = result.summary.violations.map((violation) =>
    violation.cycle
      ? `${violation.rule.name}: ${[violation.from, ...violation.cycle.map((step) => step.name)].join(' → ')}`
      : `${violation.rule.name}: ${violation.from} → ${violation.to}`,
  );
  expect(found, 'violations: fix them (see .dependency-cruiser.cjs)').toEqual([]);
});
