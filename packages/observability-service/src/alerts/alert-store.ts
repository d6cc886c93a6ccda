import { randomBytes } from 'node:crypto';
import { withDefaults, type AlertRule, type AlertRuleSpec } from './alert-rule.js';
import type { AlertState } from './alert-state.js';
import type { ObservabilityDb } from '../database.js';

export const newRuleId = () => `alr_${randomBytes(8).toString('hex')}`;

function ruleOf(row: { id: string; source: string; definition: string }): AlertRule {
  return withDefaults(JSON.parse(row.definition) as AlertRuleSpec, row.id, row.source === 'file' ? 'file' : 'api');
}

/** Every rule, by name. */
export async function listRules(db: ObservabilityDb): Promise<AlertRule[]> {
  const rows = await db.selectFrom('alert_rules').select(['id', 'source', 'definition']).orderBy('name').orderBy('id').execute();
  return rows.map(ruleOf);
}

export async function findRule(db: ObservabilityDb, id: string): Promise<AlertRule | undefined> {
  const row = await db.selectFrom('alert_rules').select(['id', 'source', 'definition']).where('id', '=', id).executeTakeFirst();
  return row && ruleOf(row);
}

export async function insertRule(db: ObservabilityDb, rule: { id: string; source: 'api' | 'file'; spec: AlertRuleSpec }, now: number, by: string | null): Promise<void> {
  await db
    .insertInto('alert_rules')
    .values({ id: rule.id, name: rule.spec.name, source: rule.source, definition: JSON.stringify(rule.spec), created_at: now, updated_at: now, updated_by: by })
    .execute();
}

export async function updateRule(db: ObservabilityDb, id: string, spec: AlertRuleSpec, now: number, by: string | null): Promise<boolean> {
  const result = await db
    .updateTable('alert_rules')
    .set({ name: spec.name, definition: JSON.stringify(spec), updated_at: now, updated_by: by })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes a rule, its state and silences; its events stay (history names the rule). */
export async function deleteRule(db: ObservabilityDb, id: string): Promise<boolean> {
  return db
    .transaction()
    .execute(async (trx) => {
      const result = await trx.deleteFrom('alert_rules').where('id', '=', id).executeTakeFirst();
      await trx.deleteFrom('alert_states').where('rule_id', '=', id).execute();
      await trx.deleteFrom('alert_silences').where('rule_id', '=', id).execute();
      return Number(result.numDeletedRows) > 0;
    });
}

/** Makes the file's rules the stored `file` rules: new ones added, changed ones updated, the rest removed. */
export async function replaceFileRules(db: ObservabilityDb, rules: ReadonlyArray<{ id: string; spec: AlertRuleSpec }>, now: number): Promise<void> {
  const existing = new Set((await db.selectFrom('alert_rules').select('id').where('source', '=', 'file').execute()).map((row) => row.id));
  for (const rule of rules) {
    if (existing.has(rule.id)) await updateRule(db, rule.id, rule.spec, now, null);
    else await insertRule(db, { id: rule.id, source: 'file', spec: rule.spec }, now, null);
    existing.delete(rule.id);
  }
  for (const id of existing) await deleteRule(db, id);
}

export interface StoredRuleState {
  state: AlertState;
  sinceMinute: number;
  value: number | null;
  evaluatedMinute: number;
}

export async function ruleStates(db: ObservabilityDb): Promise<Map<string, StoredRuleState>> {
  const rows = await db.selectFrom('alert_states').selectAll().execute();
  return new Map(
    rows.map((row) => [row.rule_id, { state: row.state as AlertState, sinceMinute: Number(row.since_minute), value: row.value === null ? null : Number(row.value), evaluatedMinute: Number(row.evaluated_minute) }]),
  );
}

/** Upserts rules' states, several rows per statement. */
export async function saveRuleStates(db: ObservabilityDb, states: ReadonlyArray<{ ruleId: string; state: StoredRuleState }>): Promise<void> {
  for (let start = 0; start < states.length; start += 500) {
    const rows = states.slice(start, start + 500).map(({ ruleId, state }) => ({
      rule_id: ruleId,
      state: state.state,
      since_minute: state.sinceMinute,
      value: state.value,
      evaluated_minute: state.evaluatedMinute,
    }));
    await db
      .insertInto('alert_states')
      .values(rows)
      .onConflict((oc) =>
        oc.column('rule_id').doUpdateSet((eb) => ({
          state: eb.ref('excluded.state'),
          since_minute: eb.ref('excluded.since_minute'),
          value: eb.ref('excluded.value'),
          evaluated_minute: eb.ref('excluded.evaluated_minute'),
        })),
      )
      .execute();
  }
}

export interface AlertEventRecord {
  id: number;
  ruleId: string;
  ruleName: string;
  from: AlertState;
  to: AlertState;
  minute: number;
  value: number | null;
  threshold: number;
  silenced: boolean;
  evidence: unknown;
  createdAt: number;
}

export async function insertEvent(db: ObservabilityDb, event: Omit<AlertEventRecord, 'id'>): Promise<number> {
  const row = await db
    .insertInto('alert_events')
    .values({
      rule_id: event.ruleId,
      rule_name: event.ruleName,
      from_state: event.from,
      to_state: event.to,
      minute: event.minute,
      value: event.value,
      threshold: event.threshold,
      silenced: event.silenced ? 1 : 0,
      evidence: JSON.stringify(event.evidence),
      created_at: event.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Events newest first; `beforeId` pages on. */
export async function listEvents(
  db: ObservabilityDb,
  filter: { ruleId?: string | undefined; state?: AlertState | undefined; fromMinute?: number | undefined; toMinute?: number | undefined; beforeId?: number | undefined; limit: number },
): Promise<AlertEventRecord[]> {
  let query = db.selectFrom('alert_events').selectAll();
  if (filter.ruleId !== undefined) query = query.where('rule_id', '=', filter.ruleId);
  if (filter.state !== undefined) query = query.where('to_state', '=', filter.state);
  if (filter.fromMinute !== undefined) query = query.where('minute', '>=', filter.fromMinute);
  if (filter.toMinute !== undefined) query = query.where('minute', '<', filter.toMinute);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  const rows = await query.orderBy('id', 'desc').limit(filter.limit).execute();
  return rows.map((row) => ({
    id: Number(row.id),
    ruleId: row.rule_id,
    ruleName: row.rule_name,
    from: row.from_state as AlertState,
    to: row.to_state as AlertState,
    minute: Number(row.minute),
    value: row.value === null ? null : Number(row.value),
    threshold: Number(row.threshold),
    silenced: Number(row.silenced) === 1,
    evidence: JSON.parse(row.evidence) as unknown,
    createdAt: Number(row.created_at),
  }));
}

export interface Silence {
  id: string;
  ruleId: string;
  until: number;
  reason: string;
  createdBy: string | null;
  createdAt: number;
}

export async function addSilence(db: ObservabilityDb, silence: Omit<Silence, 'id'>): Promise<Silence> {
  const id = `sil_${randomBytes(8).toString('hex')}`;
  await db
    .insertInto('alert_silences')
    .values({ id, rule_id: silence.ruleId, until: silence.until, reason: silence.reason, created_by: silence.createdBy, created_at: silence.createdAt })
    .execute();
  return { id, ...silence };
}

/** Silences that end after `afterMs`, per rule, latest end first. */
export async function silencesAfter(db: ObservabilityDb, afterMs: number): Promise<Map<string, Silence[]>> {
  const rows = await db.selectFrom('alert_silences').selectAll().where('until', '>', afterMs).orderBy('until', 'desc').execute();
  const byRule = new Map<string, Silence[]>();
  for (const row of rows) {
    const silence = { id: row.id, ruleId: row.rule_id, until: Number(row.until), reason: row.reason, createdBy: row.created_by, createdAt: Number(row.created_at) };
    byRule.set(row.rule_id, [...(byRule.get(row.rule_id) ?? []), silence]);
  }
  return byRule;
}

/** Ends a rule's silences now. */
export async function endSilences(db: ObservabilityDb, ruleId: string, now: number): Promise<number> {
  const result = await db.updateTable('alert_silences').set({ until: now }).where('rule_id', '=', ruleId).where('until', '>', now).executeTakeFirst();
  return Number(result.numUpdatedRows);
}
