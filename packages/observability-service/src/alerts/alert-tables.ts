import type { Generated } from 'kysely';

/**
 * The alerts feature's tables (src/migrations/20261127110000-alerts.ts). Times are epoch
 * milliseconds; a `minute` is the start of the UTC minute a rule was evaluated for.
 */

export interface AlertRulesTable {
  /** `alr_` + hex for rules made in the API; `file_` + hex of the name for ALERT_RULES_FILE's. */
  id: string;
  name: string;
  /** `api` (editable) or `file` (ALERT_RULES_FILE, read-only in the API). */
  source: string;
  /** JSON of the rule (`AlertRuleSpec`, alert-rule.ts) as given. */
  definition: string;
  created_at: number;
  updated_at: number;
  /** The account that last changed it, when known. */
  updated_by: string | null;
}

/** A rule's current state; a rule without a row is `ok`. */
export interface AlertStatesTable {
  rule_id: string;
  /** `ok` | `pending` | `firing` | `resolved`. */
  state: string;
  /** The minute the state was entered. */
  since_minute: number;
  /** The watched value at the last evaluation (null: no data). */
  value: number | null;
  evaluated_minute: number;
}

/** One transition of one rule. */
export interface AlertEventsTable {
  id: Generated<number>;
  rule_id: string;
  /** The rule's name then (rules can be renamed or deleted; their history stays readable). */
  rule_name: string;
  from_state: string;
  to_state: string;
  /** The evaluated minute the transition happened at. */
  minute: number;
  value: number | null;
  threshold: number;
  /** 1 when a silence covered the minute: stored, not notified. */
  silenced: number;
  /** JSON of `AlertEvidence` (alert-evidence.ts). */
  evidence: string;
  created_at: number;
}

export interface AlertSilencesTable {
  id: string;
  rule_id: string;
  /** The silence covers evaluated minutes before this time. */
  until: number;
  reason: string;
  created_by: string | null;
  created_at: number;
}

/** One row (`alerts`): who evaluates (the lease) and how far evaluation got. */
export interface AlertEvaluatorTable {
  name: string;
  /** The instance holding the lease, until `lease_expires_at`. */
  holder: string | null;
  lease_expires_at: number;
  /** The last minute evaluated; null before the first evaluation. */
  evaluated_minute: number | null;
}

export interface AlertChannelsTable {
  id: string;
  name: string;
  /** `webhook` | `slack` | `email`. */
  kind: string;
  /** What the dashboard shows of the target: a URL's host, or the email address. */
  target_hint: string;
  /** The channel's configuration (URLs, signing secret, address) sealed with the channel key (channel-secrets.ts). */
  sealed_config: string;
  created_at: number;
  created_by: string | null;
}

/** One notification to one channel: the outbox and the delivery log. */
export interface AlertDeliveriesTable {
  id: Generated<number>;
  /** The alert event notified; null for a "send test". */
  event_id: number | null;
  channel_id: string;
  /** JSON of the notification (`AlertNotification`, alert-notification.ts). */
  payload: string;
  /** `pending` (to be tried at `next_attempt_at`) | `delivered` | `failed` (gave up). */
  status: string;
  attempts: number;
  next_attempt_at: number;
  /** An instance sending it holds it until then. */
  claimed_until: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface AlertTables {
  alert_rules: AlertRulesTable;
  alert_states: AlertStatesTable;
  alert_events: AlertEventsTable;
  alert_silences: AlertSilencesTable;
  alert_evaluator: AlertEvaluatorTable;
  alert_channels: AlertChannelsTable;
  alert_deliveries: AlertDeliveriesTable;
}
