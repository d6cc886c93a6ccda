import { describe, expect, it } from 'vitest';
import { defaultBackoff, isRetryableStatus, parseRetryAfterMs, retryDelayMs } from '../src/retry-policy.js';
import { createRunId } from '../src/run-id.js';
import { runIdPattern } from '../src/index.js';

describe('retry delay', () => {
  const options = { baseDelayMs: 1_000, maxDelayMs: 60_000, maxRetryAfterMs: 3_600_000 };

  it('doubles per attempt up to the cap, with jitter over the upper half of the window', () => {
    expect([1, 2, 3, 4, 10].map((attempt) => retryDelayMs(attempt, undefined, options, () => 0))).toEqual([500, 1_000, 2_000, 4_000, 30_000]);
    expect([1, 2, 3, 4, 10].map((attempt) => retryDelayMs(attempt, undefined, options, () => 1))).toEqual([1_000, 2_000, 4_000, 8_000, 60_000]);
  });

  it('never retries before Retry-After, and caps an absurd Retry-After', () => {
    expect(retryDelayMs(1, 30_000, options, () => 1)).toBe(30_000);
    expect(retryDelayMs(10, 5_000, options, () => 1)).toBe(60_000);
    expect(retryDelayMs(1, 30 * 86_400_000, options, () => 0)).toBe(3_600_000);
  });

  it('defaults to one second doubling to five minutes', () => {
    expect(defaultBackoff).toMatchObject({ baseDelayMs: 1_000, maxDelayMs: 300_000 });
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-21T10:00:00.000Z');

  it('reads delta seconds and HTTP dates', () => {
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('ignores a missing or unreadable header', () => {
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('-5', now)).toBeUndefined();
  });
});

it('retries 408, 429 and 5xx, and nothing else', () => {
  expect([408, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
  expect([400, 401, 403, 404, 409, 413, 415, 422].some(isRetryableStatus)).toBe(false);
});

it('creates run ids the service accepts, 128 random bits each', () => {
  const ids = new Set(Array.from({ length: 2_000 }, () => createRunId()));
  expect(ids.size).toBe(2_000);
  for (const id of ids) expect(id).toMatch(runIdPattern);
  expect([...ids][0]).toHaveLength(22);
});
