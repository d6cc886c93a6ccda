import { MergedHistogram, apdexScore, roundMs } from '../query/latency-percentiles.js';
import { minuteMs } from '../time-units.js';
import type { ApdexThresholds } from '../service-settings/service-settings.js';
import { errorGroupChanges, operationMinutes, tenantMinutes, type AlertErrorGroup, type OperationMinute, type TenantMinute } from './alert-metrics.js';
import type { AlertRule } from './alert-rule.js';
import type { ObservabilityDb } from '../database.js';

const percentileOf: Record<string, number> = { 'latency-p50': 0.5, 'latency-p95': 0.95, 'latency-p99': 0.99 };

/** The first minute of the window that ends with `minute`. */
export function windowStart(rule: Pick<AlertRule, 'windowMinutes'>, minute: number): number {
  return minute - (rule.windowMinutes - 1) * minuteMs;
}

interface Figures {
  count: number;
  errorCount: number;
  histogram: MergedHistogram;
  errorHistogram: MergedHistogram;
}

const emptyFigures = (): Figures => ({ count: 0, errorCount: 0, histogram: new MergedHistogram(), errorHistogram: new MergedHistogram() });

function add(figures: Figures, row: { count: number; errorCount: number; histogram: string; errorHistogram: string }): void {
  figures.count += row.count;
  figures.errorCount += row.errorCount;
  figures.histogram.add(row.histogram);
  figures.errorHistogram.add(row.errorHistogram);
}

/** Rows grouped by a key, then by minute. */
function index<T extends { minute: number }>(rows: readonly T[], keyOf: (row: T) => string): Map<string, Map<number, T[]>> {
  const byKey = new Map<string, Map<number, T[]>>();
  for (const row of rows) {
    const key = keyOf(row);
    let byMinute = byKey.get(key);
    if (!byMinute) byKey.set(key, (byMinute = new Map()));
    const list = byMinute.get(row.minute);
    if (list) list.push(row);
    else byMinute.set(row.minute, [row]);
  }
  return byKey;
}

/**
 * What rules are evaluated on for a stretch of minutes, read once for all rules: the rollup rows,
 * the recent error groups and the Apdex thresholds. `valueAt` is the watched value of a rule at a
 * minute (over the window ending with it); null when there was no data.
 */
export class RuleInputs {
  readonly #operations: Map<string, Map<number, OperationMinute[]>>;
  readonly #tenants: Map<string, Map<number, TenantMinute[]>>;
  readonly #groups: readonly AlertErrorGroup[];
  readonly #apdexThresholdMs: (service: string) => number;

  constructor(data: { operations: readonly OperationMinute[]; tenants: readonly TenantMinute[]; groups: readonly AlertErrorGroup[]; apdexThresholdMs: (service: string) => number }) {
    this.#operations = index(data.operations, (row) => row.service);
    this.#tenants = index(data.tenants, (row) => `${row.tenant}\u0000${row.service}`);
    this.#groups = data.groups;
    this.#apdexThresholdMs = data.apdexThresholdMs;
  }

  valueAt(rule: AlertRule, minute: number): number | null {
    if (rule.metric === 'new-error-group') return this.#newOrRegressedGroups(rule, minute).length;
    const figures = rule.tenant === undefined ? this.#operationFigures(rule, minute) : this.#tenantFigures(rule, minute);
    return valueOf(rule, figures, this.#apdexThresholdMs(rule.service));
  }

  /** The groups a new-error-group rule counts at `minute`. */
  newOrRegressedGroups(rule: AlertRule, minute: number): AlertErrorGroup[] {
    return this.#newOrRegressedGroups(rule, minute);
  }

  #newOrRegressedGroups(rule: AlertRule, minute: number): AlertErrorGroup[] {
    const from = windowStart(rule, minute);
    const to = minute + minuteMs;
    return this.#groups.filter(
      (group) => group.service === rule.service && group.at >= from && group.at < to && (rule.environment === undefined || group.environments.includes(rule.environment)),
    );
  }

  #operationFigures(rule: AlertRule, minute: number): Figures {
    return requestFigures(this.#operations.get(rule.service), rule, minute);
  }

  #tenantFigures(rule: AlertRule, minute: number): Figures {
    return requestFigures(this.#tenants.get(`${rule.tenant}\u0000${rule.service}`), rule, minute);
  }
}

/**
 * A rule's request figures over its window: its operation's spans, or the service's entry spans
 * (a service without entry spans, a worker, counts its root spans, as its dashboard figures do),
 * in the rule's environment.
 */
function requestFigures(byMinute: Map<number, Array<OperationMinute | TenantMinute>> | undefined, rule: AlertRule, minute: number): Figures {
  const entry = emptyFigures();
  const root = emptyFigures();
  if (!byMinute) return entry;
  for (let at = windowStart(rule, minute); at <= minute; at += minuteMs) {
    for (const row of byMinute.get(at) ?? []) {
      if (rule.environment !== undefined && row.environment !== rule.environment) continue;
      if (rule.operation !== undefined) {
        if ('operation' in row && row.operation === rule.operation) add(entry, row);
      } else if (row.spanRole === 'entry') add(entry, row);
      else if (row.spanRole === 'root') add(root, row);
    }
  }
  return rule.operation === undefined && entry.count === 0 ? root : entry;
}

function valueOf(rule: AlertRule, figures: Figures, apdexThresholdMs: number): number | null {
  switch (rule.metric) {
    case 'request-rate':
      return Math.round((figures.count / rule.windowMinutes) * 1000) / 1000;
    case 'error-rate':
      return figures.count === 0 ? null : Math.round((figures.errorCount / figures.count) * 100_000) / 1000;
    case 'apdex':
      return apdexScore(figures.histogram.apdexCounts(figures.errorHistogram, apdexThresholdMs));
    default:
      return roundMs(figures.histogram.quantile(percentileOf[rule.metric]!));
  }
}

/** Reads what `rules` need to be evaluated at the minutes `first` to `last`, in one query per table. */
export async function readRuleInputs(db: ObservabilityDb, rules: readonly AlertRule[], first: number, last: number, apdexThresholds: ApdexThresholds): Promise<RuleInputs> {
  const longest = Math.max(1, ...rules.map((rule) => rule.windowMinutes));
  const from = first - (longest - 1) * minuteMs;
  const end = last + minuteMs;
  const services = [...new Set(rules.map((rule) => rule.service))];
  const tenants = rules.flatMap((rule) => (rule.tenant === undefined ? [] : [{ tenant: rule.tenant, service: rule.service }]));
  const groupServices = rules.filter((rule) => rule.metric === 'new-error-group').map((rule) => rule.service);
  const thresholds = await apdexThresholds([...new Set(rules.filter((rule) => rule.metric === 'apdex').map((rule) => rule.service))]);
  return new RuleInputs({
    operations: rules.some((rule) => rule.tenant === undefined && rule.metric !== 'new-error-group') ? await operationMinutes(db, services, from, end) : [],
    tenants: await tenantMinutes(db, tenants, from, end),
    groups: groupServices.length > 0 ? await errorGroupChanges(db, groupServices, from, end) : [],
    apdexThresholdMs: (service) => thresholds.get(service) ?? 0,
  });
}
