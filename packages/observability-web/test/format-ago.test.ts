import { describe, expect, it } from 'vitest';
import { formatAgo } from '../src/format.js';

describe('formatAgo', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  it('names how long ago a moment was in its largest whole unit', () => {
    expect(formatAgo('2026-11-25T11:59:30Z', now)).toBe('just now');
    expect(formatAgo('2026-11-25T11:55:00Z', now)).toBe('5 min ago');
    expect(formatAgo('2026-11-25T09:00:00Z', now)).toBe('3 h ago');
    expect(formatAgo('2026-11-23T11:00:00Z', now)).toBe('2 d ago');
  });
  it('shows a dash for nothing, the text for an unreadable date, and a future moment as just now', () => {
    expect(formatAgo(null, now)).toBe('–');
    expect(formatAgo('soon', now)).toBe('soon');
    expect(formatAgo('2026-11-25T12:05:00Z', now)).toBe('just now');
  });
});
