import { expect, it } from 'vitest';
import { formatScore } from '../src/manifest/score-format.js';

it('shows integers grouped, decimals up to three places, and the unit after them', () => {
  expect(formatScore(1234567)).toBe('1,234,567');
  expect(formatScore(-42, 'integer', 'pts')).toBe('-42 pts');
  expect(formatScore(12.5, 'integer')).toBe('13');
  expect(formatScore(1234.56789, 'decimal')).toBe('1,234.568');
  expect(formatScore(0.1 + 0.2, 'decimal', 'm')).toBe('0.3 m');
});

it('shows milliseconds as m:ss.SSS, with hours from an hour, rounded to the millisecond', () => {
  expect(formatScore(0, 'duration-ms')).toBe('0:00.000');
  expect(formatScore(62_345, 'duration-ms')).toBe('1:02.345');
  expect(formatScore(59_999.6, 'duration-ms')).toBe('1:00.000');
  expect(formatScore(3_723_004, 'duration-ms')).toBe('1:02:03.004');
  expect(formatScore(-1_500, 'duration-ms')).toBe('-0:01.500');
  expect(formatScore(-0.2, 'duration-ms')).toBe('0:00.000');
});

it('shows seconds as m:ss, with hours from an hour', () => {
  expect(formatScore(75, 'duration-s')).toBe('1:15');
  expect(formatScore(3_600, 'duration-s')).toBe('1:00:00');
  expect(formatScore(59.5, 'duration-s')).toBe('1:00');
  expect(formatScore(-5, 'duration-s', 'left')).toBe('-0:05 left');
});
