// A run for test/left-out-reporter.test.ts: one test that runs, one marked skip, one todo.
import { expect, it } from 'vitest';

it('runs', () => {
  expect(1 + 1).toBe(2);
});
it.skip('is marked skip', () => {
  expect(true).toBe(false);
});
it.todo('is still to write');
