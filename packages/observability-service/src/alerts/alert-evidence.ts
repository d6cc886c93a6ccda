import { minuteMs } from '../time-units.js';
import type { AlertReads } from '../telemetry/alert-reads.js';
import type { AlertRule } from './alert-rule.js';
import { windowStart, type RuleInputs } from './alert-values.js';

/** An error group as a notification shows it. */
export interface EvidenceErrorGroup {
  groupId: string;
  type: string;
  message: string;
  /** Up to five frames of the example occurrence's stack, the innermost first (the fingerprint's top frame when no stack is stored). */
  topFrames: string[];
  url: string;
}

/** What a notification carries to show why the rule fired (or resolved). */
export interface AlertEvidence {
  metric: AlertRule['metric'];
  value: number | null;
  comparison: AlertRule['comparison'];
  threshold: number;
  /** The evaluated window: from its first minute to the end of its last. */
  window: { from: string; to: string };
  /** The service's page over the window (absolute when PUBLIC_URL is set, else a path). */
  dashboardUrl: string;
  /** Up to three occurrences of the window: the slowest, or for error rules the slowest failing ones (the slowest when none failed: a resolution). */
  traces: Array<{ traceId: string; spanId: string; durationMs: number; status: string; url: string }>;
  /** Error rules: the group with the most occurrences in the window; new-error-group rules: the groups counted. A resolution names those of the stretch it ends. */
  errorGroups: EvidenceErrorGroup[];
}

const framesShown = 5;

function framesOf(stack: string | null, topFrame: string): string[] {
  const frames = (stack ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at ') || /^\S+\s*\(.*:\d+:\d+\)$/.test(line) || /^File ".*", line \d+/.test(line))
    .slice(0, framesShown);
  return frames.length > 0 ? frames : [topFrame].filter((frame) => frame !== '');
}

/**
 * Gathers the evidence of `rule` at `minute`; with `examples`, also the window's example traces
 * and error groups (the queries on raw occurrences: only for what is notified, firing and resolved).
 * `firingSince`, for a resolution, is the minute the rule fired: the error groups are those of the
 * stretch it ends (its own window no longer has them).
 */
export async function gatherEvidence(
  reads: AlertReads,
  rule: AlertRule,
  minute: number,
  value: number | null,
  inputs: RuleInputs,
  publicUrl: string | undefined,
  examples = true,
  firingSince?: number,
): Promise<AlertEvidence> {
  const fromMs = windowStart(rule, minute);
  const toMs = minute + minuteMs;
  const base = publicUrl?.replace(/\/+$/, '') ?? '';
  const view = new URLSearchParams({ from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() });
  if (rule.environment !== undefined) view.set('environment', rule.environment);
  const isErrorRule = rule.metric === 'error-rate' || rule.metric === 'new-error-group';
  const filter = { service: rule.service, operation: rule.operation, environment: rule.environment, tenant: rule.tenant };
  let traces = examples ? await reads.exampleTraces(filter, fromMs, toMs, isErrorRule) : [];
  if (examples && isErrorRule && traces.length === 0) traces = await reads.exampleTraces(filter, fromMs, toMs, false);
  const groupIds = examples ? await evidenceGroupIds(reads, rule, minute, inputs, firingSince) : [];
  const errorGroups: EvidenceErrorGroup[] = [];
  for (const groupId of groupIds) {
    const details = await reads.errorGroupDetails(groupId);
    if (!details) continue;
    errorGroups.push({ groupId, type: details.type, message: details.message, topFrames: framesOf(details.stack, details.topFrame), url: `${base}/errors/${groupId}` });
  }

  return {
    metric: rule.metric,
    value,
    comparison: rule.comparison,
    threshold: rule.threshold,
    window: { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString() },
    dashboardUrl: `${base}/services/${encodeURIComponent(rule.service)}?${view.toString()}`,
    traces: traces.map((trace) => ({ traceId: trace.traceId, spanId: trace.spanId, durationMs: trace.durationMs, status: trace.status, url: `${base}/traces/${trace.traceId}` })),
    errorGroups,
  };
}

/** The error groups an error rule's evidence names: up to three counted groups, or the most frequent group. */
async function evidenceGroupIds(reads: AlertReads, rule: AlertRule, minute: number, inputs: RuleInputs, firingSince: number | undefined): Promise<string[]> {
  const filter = { service: rule.service, operation: rule.operation, environment: rule.environment, tenant: rule.tenant };
  const stretchFrom = windowStart(rule, firingSince ?? minute);
  if (rule.metric === 'new-error-group') {
    let groups = inputs.newOrRegressedGroups(rule, minute);
    if (groups.length === 0 && firingSince !== undefined) {
      groups = (await reads.errorGroupChanges([rule.service], stretchFrom, minute + minuteMs)).filter((group) => rule.environment === undefined || group.environments.includes(rule.environment));
    }
    return [...new Set(groups.map((group) => group.groupId))].slice(0, 3);
  }
  if (rule.metric !== 'error-rate') return [];
  const top = (await reads.topErrorGroupId(filter, windowStart(rule, minute), minute + minuteMs)) ?? (firingSince === undefined ? undefined : await reads.topErrorGroupId(filter, stretchFrom, minute + minuteMs));
  return top === undefined ? [] : [top];
}
