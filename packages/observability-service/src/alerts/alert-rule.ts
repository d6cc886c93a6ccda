import { Type, type Static } from '@sinclair/typebox';

/** What a rule watches. Rates and latencies come from the per-minute rollups; error groups from the errors feature. */
export const alertMetrics = ['error-rate', 'request-rate', 'latency-p50', 'latency-p95', 'latency-p99', 'apdex', 'new-error-group'] as const;
export type AlertMetric = (typeof alertMetrics)[number];

export const alertComparisons = ['>', '>=', '<', '<='] as const;
export type AlertComparison = (typeof alertComparisons)[number];

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Shown in notifications and the dashboard.' });
const Key = (description: string) => Type.String({ minLength: 1, maxLength: 256, description });

/** A rule as the API and ALERT_RULES_FILE give it. */
export const AlertRuleSpec = Type.Object(
  {
    name: Name,
    metric: Type.Union(
      alertMetrics.map((metric) => Type.Literal(metric)),
      {
        description:
          'error-rate: percent of requests that failed (0-100); request-rate: requests per minute; latency-p50/p95/p99: milliseconds; apdex: 0-1 at the service\u2019s Apdex threshold; new-error-group: error groups first seen, or regressed, in the window.',
      },
    ),
    service: Key('The service watched (its entry spans; with `operation`, that operation\u2019s spans).'),
    operation: Type.Optional(Key('Only this operation of the service.')),
    environment: Type.Optional(Key('Only this environment; every environment when left out.')),
    tenant: Type.Optional(Key('Only occurrences of this tenant (error-rate, request-rate and latency; not with `operation`).')),
    comparison: Type.Union(
      alertComparisons.map((comparison) => Type.Literal(comparison)),
      { description: 'The rule is breached when `value <comparison> threshold`.' },
    ),
    threshold: Type.Number({ minimum: -1e12, maximum: 1e12 }),
    windowMinutes: Type.Integer({ minimum: 1, maximum: 1440, default: 5, description: 'Each minute the value is computed over the minutes ending with it.' }),
    forMinutes: Type.Integer({ minimum: 0, maximum: 1440, default: 0, description: 'Breached this many minutes in a row (pending) before it fires; 0 fires at once.' }),
    channels: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 20, default: [], description: 'Ids of the notification channels told when it fires and resolves.' }),
  },
  { additionalProperties: false },
);
export type AlertRuleSpec = Static<typeof AlertRuleSpec>;

/** A rule with its id and where it comes from. */
export interface AlertRule extends AlertRuleSpec {
  id: string;
  source: 'api' | 'file';
  windowMinutes: number;
  forMinutes: number;
  channels: string[];
}

/**
 * What the schema cannot say: combinations the rollups cannot answer. Each problem names the
 * member it is about (an empty list: the rule is valid).
 */
export function ruleProblems(spec: AlertRuleSpec): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  if (spec.tenant !== undefined && spec.operation !== undefined) problems.push({ path: '/tenant', message: 'a tenant filter cannot be combined with an operation (tenants are rolled up per service)' });
  if (spec.tenant !== undefined && (spec.metric === 'apdex' || spec.metric === 'new-error-group')) problems.push({ path: '/tenant', message: `a tenant filter is not available for ${spec.metric}` });
  if (spec.operation !== undefined && spec.metric === 'new-error-group') problems.push({ path: '/operation', message: 'new-error-group watches a whole service' });
  if (spec.metric === 'error-rate' && (spec.threshold < 0 || spec.threshold > 100)) problems.push({ path: '/threshold', message: 'an error rate is a percentage: 0 to 100' });
  if (spec.metric === 'apdex' && (spec.threshold < 0 || spec.threshold > 1)) problems.push({ path: '/threshold', message: 'an Apdex score lies between 0 and 1' });
  return problems;
}

/** Whether `value` breaches the rule (no value: never, but a request rate without data is 0). */
export function isBreached(rule: Pick<AlertRuleSpec, 'comparison' | 'threshold' | 'metric'>, value: number | null): boolean {
  const actual = value ?? (rule.metric === 'request-rate' || rule.metric === 'new-error-group' ? 0 : null);
  if (actual === null) return false;
  switch (rule.comparison) {
    case '>':
      return actual > rule.threshold;
    case '>=':
      return actual >= rule.threshold;
    case '<':
      return actual < rule.threshold;
    case '<=':
      return actual <= rule.threshold;
  }
}

/** The rule with its defaults filled in. */
export function withDefaults(spec: AlertRuleSpec, id: string, source: 'api' | 'file'): AlertRule {
  return { ...spec, id, source, windowMinutes: spec.windowMinutes ?? 5, forMinutes: spec.forMinutes ?? 0, channels: spec.channels ?? [] };
}
