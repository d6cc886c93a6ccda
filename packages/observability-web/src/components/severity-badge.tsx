import type { SeverityName } from '../api/api-types.js';

/** Colours of the severity ranges, shared by the badges and the histogram. */
export const severityColors: Readonly<Record<SeverityName, string>> = {
  unspecified: '#b9c3cf',
  trace: '#8a94a3',
  debug: '#5f9ea0',
  info: '#2f6fdf',
  warn: '#e9a23b',
  error: '#d64545',
  fatal: '#8a1f1f',
};

/** Most severe first: the order of the histogram's legend and of its stacks (from the top). */
export const severityOrder: readonly SeverityName[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'unspecified'];

/** A record's severity as a small coloured label: its own text when it has one. */
export function SeverityBadge({ severity, text }: { severity: SeverityName; text?: string | null }) {
  return (
    <span class={`badge severity severity-${severity}`} title={`severity: ${severity}`}>
      {text || severity}
    </span>
  );
}
