import { createHmac } from 'node:crypto';
import type { AlertEvidence } from './alert-evidence.js';
import type { AlertRule } from './alert-rule.js';

/** The version of the webhook body; a change that is not an addition gets a new one. */
export const notificationVersion = 1;

/**
 * The JSON body a generic webhook receives (docs/alerts.md, "Webhook body"): version 1. Every
 * member is always present (null when it has no value).
 */
export interface AlertNotification {
  version: 1;
  /** `alert` for a rule's transition, `test` for "send test". */
  type: 'alert' | 'test';
  /** `firing` or `resolved`. */
  status: 'firing' | 'resolved';
  /** The stored event (`/api/v1/alerts/events`); null for a test. */
  eventId: number | null;
  rule: {
    id: string;
    name: string;
    metric: AlertRule['metric'];
    service: string;
    operation: string | null;
    environment: string | null;
    tenant: string | null;
    comparison: AlertRule['comparison'];
    threshold: number;
    windowMinutes: number;
    forMinutes: number;
  };
  /** The evaluated minute (its start), ISO 8601. */
  minute: string;
  evidence: AlertEvidence;
}

export function notificationOf(rule: AlertRule, status: 'firing' | 'resolved', eventId: number | null, minute: number, evidence: AlertEvidence): AlertNotification {
  return {
    version: notificationVersion,
    type: eventId === null ? 'test' : 'alert',
    status,
    eventId,
    rule: {
      id: rule.id,
      name: rule.name,
      metric: rule.metric,
      service: rule.service,
      operation: rule.operation ?? null,
      environment: rule.environment ?? null,
      tenant: rule.tenant ?? null,
      comparison: rule.comparison,
      threshold: rule.threshold,
      windowMinutes: rule.windowMinutes,
      forMinutes: rule.forMinutes,
    },
    minute: new Date(minute).toISOString(),
    evidence,
  };
}

export const signatureHeader = 'x-alert-signature';

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<body>" under the channel secret>`: a receiver
 * recomputes it over the raw body and rejects old timestamps (replays).
 */
export function signatureOf(secret: string, body: string, nowMs: number): string {
  const timestamp = Math.floor(nowMs / 1000);
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

const units: Record<AlertRule['metric'], string> = {
  'error-rate': '%',
  'request-rate': ' requests/min',
  'latency-p50': ' ms',
  'latency-p95': ' ms',
  'latency-p99': ' ms',
  apdex: '',
  'new-error-group': ' groups',
};

/** One line: "FIRING checkout failing: error-rate 50% > 20% (checkout, production)". */
export function headline(notification: AlertNotification): string {
  const { rule, evidence } = notification;
  const unit = units[rule.metric];
  const value = evidence.value === null ? 'no data' : `${evidence.value}${unit}`;
  const scope = [rule.service, rule.operation, rule.environment, rule.tenant && `tenant ${rule.tenant}`].filter(Boolean).join(', ');
  const prefix = notification.type === 'test' ? 'TEST ' : '';
  return `${prefix}${notification.status.toUpperCase()} ${rule.name}: ${rule.metric} ${value} ${rule.comparison} ${rule.threshold}${unit} (${scope})`;
}

/** The evidence as plain-text lines (email body, Slack message). */
export function evidenceLines(notification: AlertNotification): string[] {
  const { evidence } = notification;
  const lines = [`Window: ${evidence.window.from} to ${evidence.window.to} (${notification.rule.windowMinutes} min)`, `Dashboard: ${evidence.dashboardUrl}`];
  if (evidence.traces.length > 0) {
    lines.push('Example traces:');
    for (const trace of evidence.traces) lines.push(`  ${trace.traceId} (${trace.durationMs} ms, ${trace.status}) ${trace.url}`);
  }
  for (const group of evidence.errorGroups) {
    lines.push(`Error group ${group.type}: ${group.message} ${group.url}`);
    for (const frame of group.topFrames) lines.push(`    ${frame}`);
  }
  return lines;
}

/** The Slack incoming-webhook body: text with the headline in bold and the evidence below. */
export function slackBody(notification: AlertNotification): { text: string } {
  return { text: [`*${headline(notification)}*`, ...evidenceLines(notification)].join('\n') };
}

export function emailOf(notification: AlertNotification): { subject: string; text: string } {
  return { subject: `[alert] ${headline(notification)}`, text: [headline(notification), '', ...evidenceLines(notification)].join('\n') };
}
