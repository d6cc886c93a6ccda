import { describe, expect, it } from 'vitest';
import { ApiError } from '@playstack/server-kit';
import { defaultRangeMs, parseIsoTimestamp, resolveQueryRange } from '../src/query/query-range.js';

const now = Date.parse('2026-11-21T12:00:00.000Z');

function rejection(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('query range', () => {
  it('defaults to the 24 hours before now', () => {
    expect(resolveQueryRange({}, now)).toEqual({ fromMs: now - defaultRangeMs, toMs: now });
  });

  it('takes the 24 hours before `to` when only `to` is given', () => {
    expect(resolveQueryRange({ to: '2026-11-10T00:00:00Z' }, now)).toEqual({
      fromMs: Date.parse('2026-11-09T00:00:00Z'),
      toMs: Date.parse('2026-11-10T00:00:00Z'),
    });
  });

  it('runs from `from` up to now when only `from` is given', () => {
    expect(resolveQueryRange({ from: '2026-11-01T00:00:00Z' }, now)).toEqual({ fromMs: Date.parse('2026-11-01T00:00:00Z'), toMs: now });
  });

  it('accepts offsets, fractions and plain dates (midnight UTC)', () => {
    expect(parseIsoTimestamp('2026-11-21T13:30:00+01:30', 'from')).toBe(Date.parse('2026-11-21T12:00:00Z'));
    expect(parseIsoTimestamp('2026-11-21T12:00:00.250Z', 'from')).toBe(Date.parse('2026-11-21T12:00:00.250Z'));
    expect(parseIsoTimestamp('2026-11-21', 'from')).toBe(Date.parse('2026-11-21T00:00:00Z'));
  });

  it.each(['yesterday', '2026-11-21T12:00:00', '2026-02-30T00:00:00Z', '1700000000000', '2026-11-21 12:00:00Z', ''])(
    'refuses the malformed timestamp "%s" with a 400 naming the parameter',
    (value) => {
      const error = rejection(() => resolveQueryRange({ from: value }, now));
      expect(error.code).toBe('invalid-request');
      expect(error.statusCode).toBe(400);
      expect(error.message).toMatch(/^from must be an ISO 8601 timestamp/);
    },
  );

  it('refuses a reversed range with a 400', () => {
    const error = rejection(() => resolveQueryRange({ from: '2026-11-21T12:00:00Z', to: '2026-11-21T11:59:59Z' }, now));
    expect(error.code).toBe('invalid-request');
    expect(error.message).toMatch(/from .* must not be after to/);
  });

  it('accepts an empty range (from equal to to)', () => {
    const at = '2026-11-21T12:00:00Z';
    expect(resolveQueryRange({ from: at, to: at }, now)).toEqual({ fromMs: Date.parse(at), toMs: Date.parse(at) });
  });
});
