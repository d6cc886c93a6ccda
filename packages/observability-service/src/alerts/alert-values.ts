import { MergedHistogram, apdexScore, roundMs } from '../query/latency-percentiles.js';
import { minuteMs } from '../time-units.js';
import type { ApdexThresholds } from '../service-settings/service-settings.js';
import type { AlertErrorGroup, AlertReads, OperationMinute, TenantMinute } from '../telemetry/alert-reads.js';
import type { AlertRule } from './alert-rule.js';

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

interface FigureRow {
  minute: number;
  environment: string;
  count: number;
  errorCount: number;
  histogram: string;
  errorHistogram: string;
}

function addRow(figures: Figures, row: FigureRow): void {
  figures.count += row.count;
  figures.errorCount += row.errorCount;
  figures.histogram.add(row.histogram);
  figures.errorHistogram.add(row.errorHistogram);
}

function addFigures(figures: Figures, other: Figures): void {
  figures.count += other.count;
  figures.errorCount += other.errorCount;
  figures.histogram.merge(other.histogram);
  figures.errorHistogram.merge(other.errorHistogram);
}

/** Stands for "every environment" in a scope (no environment is named so: names are trimmed text). */
const anyEnvironment = '\u0001';

/** A rule's scope: its service (and tenant), environment, and its operation or the service's entry or root spans. */
function scopeOf(parts: { tenant?: string | undefined; service: string; environment: string | undefined; spans: string }): string {
  return `${parts.tenant ?? ''}\u0000${parts.service}\u0000${parts.environment ?? anyEnvironment}\u0000${parts.spans}`;
}

/**
 * Figures per scope: each rollup row is listed under the scopes rules ask about (its
 * environment's and every environment's); a scope's figures of a minute are summed on first use
 * (scopes no rule watches cost a list entry, not a histogram), and of a window from those: rules
 * that watch the same scope over the same window (different metrics, thresholds, "for"
 * durations) share one sum.
 */
class ScopedFigures {
  readonly #rows = new Map<string, Map<number, FigureRow[]>>();
  readonly #minutes = new Map<string, Figures | null>();
  readonly #windows = new Map<string, Figures>();

  add(scope: string, row: FigureRow): void {
    let byMinute = this.#rows.get(scope);
    if (!byMinute) this.#rows.set(scope, (byMinute = new Map()));
    const rows = byMinute.get(row.minute);
    if (rows) rows.push(row);
    else byMinute.set(row.minute, [row]);
  }

  /** A scope's figures of one minute; null without rows. */
  #minute(scope: string, minute: number): Figures | null {
    const id = `${scope}\u0000${minute}`;
    let figures = this.#minutes.get(id);
    if (figures !== undefined) return figures;
    const rows = this.#rows.get(scope)?.get(minute);
    figures = rows ? emptyFigures() : null;
    for (const row of rows ?? []) addRow(figures!, row);
    this.#minutes.set(id, figures);
    return figures;
  }

  /** The figures of a scope over the minutes `from` to `last`. */
  window(scope: string, from: number, last: number): Figures {
    const id = `${scope}\u0000${from}\u0000${last}`;
    let figures = this.#windows.get(id);
    if (figures) return figures;
    figures = emptyFigures();
    for (let at = from; at <= last; at += minuteMs) {
      const minute = this.#minute(scope, at);
      if (minute) addFigures(figures, minute);
    }
    this.#windows.set(id, figures);
    return figures;
  }
}

/** The span sets rows count in: an operation's spans (when a rule names it), the service's entry or root spans. */
function spanSets(row: { operation?: string; spanRole: string }, operations: ReadonlySet<string> | undefined): string[] {
  const sets: string[] = [];
  if (row.spanRole === 'entry' || row.spanRole === 'root') sets.push(row.spanRole);
  if (row.operation !== undefined && operations?.has(row.operation)) sets.push(`operation:${row.operation}`);
  return sets;
}

/**
 * What rules are evaluated on for a stretch of minutes, read once for all rules: the rollup rows,
 * the recent error groups and the Apdex thresholds. `valueAt` is the watched value of a rule at a
 * minute (over the window ending with it); null when there was no data.
 */
export class RuleInputs {
  readonly #figures = new ScopedFigures();
  readonly #groups: readonly AlertErrorGroup[];
  readonly #apdexThresholdMs: (service: string) => number;

  constructor(data: {
    rules: readonly AlertRule[];
    operations: readonly OperationMinute[];
    tenants: readonly TenantMinute[];
    groups: readonly AlertErrorGroup[];
    apdexThresholdMs: (service: string) => number;
  }) {
    // The operations rules name, per service: only their rows are summed per operation.
    const named = new Map<string, Set<string>>();
    for (const rule of data.rules) {
      if (rule.operation === undefined) continue;
      let operations = named.get(rule.service);
      if (!operations) named.set(rule.service, (operations = new Set()));
      operations.add(rule.operation);
    }
    const add = (row: FigureRow, service: string, spans: string, tenant?: string) => {
      this.#figures.add(scopeOf({ tenant, service, environment: row.environment, spans }), row);
      this.#figures.add(scopeOf({ tenant, service, environment: undefined, spans }), row);
    };
    for (const row of data.operations) for (const spans of spanSets(row, named.get(row.service))) add(row, row.service, spans);
    for (const row of data.tenants) for (const spans of spanSets(row, undefined)) add(row, row.service, spans, row.tenant);
    this.#groups = data.groups;
    this.#apdexThresholdMs = data.apdexThresholdMs;
  }

  valueAt(rule: AlertRule, minute: number): number | null {
    if (rule.metric === 'new-error-group') return this.#newOrRegressedGroups(rule, minute).length;
    return valueOf(rule, this.#requestFigures(rule, minute), this.#apdexThresholdMs(rule.service));
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

  /**
   * A rule's request figures over its window: its operation's spans, or the service's entry spans
   * (a service without entry spans, a worker, counts its root spans, as its dashboard figures do),
   * in the rule's environment (of the rule's tenant, when it names one).
   */
  #requestFigures(rule: AlertRule, minute: number): Figures {
    const from = windowStart(rule, minute);
    const scope = (spans: string) => scopeOf({ tenant: rule.tenant, service: rule.service, environment: rule.environment, spans });
    if (rule.operation !== undefined) return this.#figures.window(scope(`operation:${rule.operation}`), from, minute);
    const entry = this.#figures.window(scope('entry'), from, minute);
    return entry.count === 0 ? this.#figures.window(scope('root'), from, minute) : entry;
  }
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
export async function readRuleInputs(reads: AlertReads, rules: readonly AlertRule[], first: number, last: number, apdexThresholds: ApdexThresholds): Promise<RuleInputs> {
  const longest = Math.max(1, ...rules.map((rule) => rule.windowMinutes));
  const from = first - (longest - 1) * minuteMs;
  const end = last + minuteMs;
  const services = [...new Set(rules.map((rule) => rule.service))];
  const tenants = rules.flatMap((rule) => (rule.tenant === undefined ? [] : [{ tenant: rule.tenant, service: rule.service }]));
  const groupServices = rules.filter((rule) => rule.metric === 'new-error-group').map((rule) => rule.service);
  const thresholds = await apdexThresholds([...new Set(rules.filter((rule) => rule.metric === 'apdex').map((rule) => rule.service))]);
  return new RuleInputs({
    rules,
    operations: rules.some((rule) => rule.tenant === undefined && rule.metric !== 'new-error-group') ? await reads.operationMinutes(services, from, end) : [],
    tenants: await reads.tenantMinutes(tenants, from, end),
    groups: groupServices.length > 0 ? await reads.errorGroupChanges(groupServices, from, end) : [],
    apdexThresholdMs: (service) => thresholds.get(service) ?? 0,
  });
}
