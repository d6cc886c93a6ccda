import { appendFileSync } from 'node:fs';
import type { FuzzReport } from '@playstack/server-kit/testing';

/**
 * Notes what a fuzz run did: on stdout, and as a JSON line in FUZZ_FIGURES_FILE when set (`npm
 * run fuzz` adds the lines up).
 */
export function recordFuzzFigures(what: string, report: FuzzReport): void {
  const statuses = Object.fromEntries([...report.byStatus].sort(([a], [b]) => a - b));
  const figures = { what, cases: report.cases, serverErrors: report.serverErrors, durationMs: Math.round(report.durationMs), statuses };
  if (process.env.FUZZ_FIGURES_FILE) appendFileSync(process.env.FUZZ_FIGURES_FILE, `${JSON.stringify(figures)}\n`);
  if (process.env.FUZZ_RUNS) console.log(`fuzz ${what}: ${report.cases} cases, ${report.serverErrors} x 5xx, ${(report.durationMs / 1000).toFixed(1)} s, statuses ${JSON.stringify(statuses)}`);
}
