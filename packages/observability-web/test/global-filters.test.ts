import { describe, expect, it } from 'vitest';
import { apiQueryFor, describeRange, globalOnly, readGlobalFilters, resolveRange, writeGlobalFilters } from '../src/state/global-filters.js';

const now = Date.parse('2026-11-21T12:00:00.000Z');

describe('global filters in the URL', () => {
  it('defaults to the last 24 hours with no filters', () => {
    const filters = readGlobalFilters(new URLSearchParams(''));
    expect(filters).toEqual({ range: { kind: 'preset', preset: '24h' }, service: undefined, environment: undefined });
    expect(apiQueryFor(filters, now)).toEqual({ from: '2026-11-20T12:00:00.000Z', to: '2026-11-21T12:00:00.000Z' });
  });

  it('reads a preset and the service and environment filters', () => {
    const filters = readGlobalFilters(new URLSearchParams('range=1h&service=checkout&environment=production'));
    expect(filters).toEqual({ range: { kind: 'preset', preset: '1h' }, service: 'checkout', environment: 'production' });
    expect(apiQueryFor(filters, now)).toEqual({ from: '2026-11-21T11:00:00.000Z', to: '2026-11-21T12:00:00.000Z', service: 'checkout', environment: 'production' });
  });

  it('reads a custom range, which wins over a preset', () => {
    const filters = readGlobalFilters(new URLSearchParams('range=1h&from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z'));
    expect(filters.range).toEqual({ kind: 'custom', fromMs: Date.parse('2026-11-01T00:00:00Z'), toMs: Date.parse('2026-11-02T00:00:00Z') });
    expect(resolveRange(filters.range, now)).toEqual({ fromMs: Date.parse('2026-11-01T00:00:00Z'), toMs: Date.parse('2026-11-02T00:00:00Z') });
  });

  it('falls back to the default for an unknown preset, an unreadable or reversed custom range', () => {
    for (const search of ['range=13y', 'from=yesterday&to=today', 'from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 'from=2026-11-02T00:00:00Z']) {
      expect(readGlobalFilters(new URLSearchParams(search)).range, search).toEqual({ kind: 'preset', preset: '24h' });
    }
  });

  it('ignores blank filters', () => {
    const filters = readGlobalFilters(new URLSearchParams('service=%20&environment='));
    expect(filters.service).toBeUndefined();
    expect(filters.environment).toBeUndefined();
  });

  it('writes the filters back without touching the page parameters, leaving the default out', () => {
    const search = new URLSearchParams('status=error&offset=50&range=7d&service=old');
    const written = writeGlobalFilters(search, { range: { kind: 'preset', preset: '24h' }, service: 'checkout', environment: undefined });
    expect(written.toString()).toBe('status=error&offset=50&service=checkout');
  });

  it('round-trips a custom range through the URL', () => {
    const range = { kind: 'custom' as const, fromMs: Date.parse('2026-11-01T08:30:00Z'), toMs: Date.parse('2026-11-01T09:30:00Z') };
    const written = writeGlobalFilters(new URLSearchParams(), { range, service: undefined, environment: 'staging' });
    expect(written.get('from')).toBe('2026-11-01T08:30:00.000Z');
    expect(readGlobalFilters(written)).toEqual({ range, service: undefined, environment: 'staging' });
  });

  it('keeps only the global parameters for links that carry the view along', () => {
    expect(globalOnly(new URLSearchParams('range=6h&status=error&service=a&offset=10')).toString()).toBe('range=6h&service=a');
  });

  it('describes presets by name and custom ranges in UTC', () => {
    expect(describeRange({ kind: 'preset', preset: '7d' })).toBe('Last 7 days');
    expect(describeRange({ kind: 'custom', fromMs: Date.parse('2026-11-01T08:30:00Z'), toMs: Date.parse('2026-11-01T09:30:00Z') })).toBe('2026-11-01 08:30 – 2026-11-01 09:30 UTC');
  });
});
