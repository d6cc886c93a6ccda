import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { configReference, withConfigReference } from '../scripts/config-reference.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

it('opens with how to run (npm ci && npm start) and how to test (npm test)', () => {
  const run = readme.indexOf('npm ci && npm start');
  const test = readme.indexOf('\nnpm test\n');
  expect(run).toBeGreaterThan(0);
  expect(test).toBeGreaterThan(run);
  expect(readme.slice(0, test)).not.toContain('## Configuration');
});

it('documents every configuration variable (run `npm run docs:config` after changing a config schema)', () => {
  expect(withConfigReference(readme)).toBe(readme);
  expect(configReference()).toContain('`DATABASE_URL`');
});
