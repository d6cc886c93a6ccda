// The flags `npm start` (and the benchmarks) start a service with: its package.json's
// `nodeFlags`, plus `--experimental-async-context-frame` on Node.js 22 only (Node.js 20 has no
// such flag and 24 rejects it as unknown, having made it the default).
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { serviceNodeFlags, versionNodeFlags } from '../scripts/node-flags.mjs';

it('adds the async-context-frame flag on Node.js 22 and nothing on 20 and 24', () => {
  expect(versionNodeFlags('22.13.0')).toEqual(['--experimental-async-context-frame']);
  expect(versionNodeFlags('22.23.3')).toEqual(['--experimental-async-context-frame']);
  expect(versionNodeFlags('20.19.0')).toEqual([]);
  expect(versionNodeFlags('24.0.0')).toEqual([]);
  expect(versionNodeFlags('25.1.0')).toEqual([]);
});

it.each(['game-service', 'observability-service'])('starts %s with flags this Node.js accepts, AsyncLocalStorage carrying context across awaits', (service) => {
  const flags = serviceNodeFlags(service);
  expect(flags).toEqual(expect.arrayContaining(versionNodeFlags()));
  const script = `const { AsyncLocalStorage } = require('node:async_hooks');
const storage = new AsyncLocalStorage();
storage.run('request', async () => { await new Promise((resolve) => setTimeout(resolve, 1)); await null; process.stdout.write(String(storage.getStore())); });`;
  const child = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  expect(child.stdout).toBe('request');
});
