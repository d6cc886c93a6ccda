import type { Kysely } from 'kysely';
import { autoIncrementPrimaryKey, portable, type Dialect, type ServiceMigration } from '@playstack/server-kit';

// Column meanings are documented on the table types in src/alerts/alert-tables.ts.

/**
 * Alerts: rules (from the API or ALERT_RULES_FILE), each rule's current state, the transitions
 * it went through (events), silences, the evaluator's lease and progress, notification channels
 * (their URLs and signing secrets sealed, never in plain text) and the delivery log.
 */
export const alerts: ServiceMigration = {
  async up(db: Kysely<any>, dialect: Dialect) {
    await db.schema
      .createTable('alert_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('definition', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_by', 'text')
      .execute();

    await db.schema
      .createTable('alert_states')
      .addColumn('rule_id', 'text', (c) => c.primaryKey())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('since_minute', 'bigint', (c) => c.notNull())
      .addColumn('value', 'double precision')
      .addColumn('evaluated_minute', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('alert_events')
      .addColumn('id', portable.autoId(dialect), autoIncrementPrimaryKey(dialect))
      .addColumn('rule_id', 'text', (c) => c.notNull())
      .addColumn('rule_name', 'text', (c) => c.notNull())
      .addColumn('from_state', 'text', (c) => c.notNull())
      .addColumn('to_state', 'text', (c) => c.notNull())
      .addColumn('minute', 'bigint', (c) => c.notNull())
      .addColumn('value', 'double precision')
      .addColumn('threshold', 'double precision', (c) => c.notNull())
      .addColumn('silenced', 'integer', (c) => c.notNull())
      .addColumn('evidence', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('alert_events_rule_minute').on('alert_events').columns(['rule_id', 'minute']).execute();
    await db.schema.createIndex('alert_events_minute').on('alert_events').columns(['minute']).execute();

    await db.schema
      .createTable('alert_silences')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('rule_id', 'text', (c) => c.notNull())
      .addColumn('until', 'bigint', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('alert_silences_rule_until').on('alert_silences').columns(['rule_id', 'until']).execute();

    await db.schema
      .createTable('alert_evaluator')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text')
      .addColumn('lease_expires_at', 'bigint', (c) => c.notNull())
      .addColumn('evaluated_minute', 'bigint')
      .execute();
    await db.insertInto('alert_evaluator').values({ name: 'alerts', holder: null, lease_expires_at: 0, evaluated_minute: null }).execute();

    await db.schema
      .createTable('alert_channels')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('target_hint', 'text', (c) => c.notNull())
      .addColumn('sealed_config', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('created_by', 'text')
      .execute();

    await db.schema
      .createTable('alert_deliveries')
      .addColumn('id', portable.autoId(dialect), autoIncrementPrimaryKey(dialect))
      .addColumn('event_id', 'bigint')
      .addColumn('channel_id', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('claimed_until', 'bigint', (c) => c.notNull())
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .execute();
    await db.schema.createIndex('alert_deliveries_due').on('alert_deliveries').columns(['status', 'next_attempt_at']).execute();
    await db.schema.createIndex('alert_deliveries_channel').on('alert_deliveries').columns(['channel_id', 'id']).execute();
  },
};
