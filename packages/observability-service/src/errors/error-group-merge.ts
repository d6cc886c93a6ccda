import type { Kysely } from 'kysely';
import { errorFingerprint, groupMessageMaxChars, type ErrorFingerprint } from './error-fingerprint.js';
import type { ErrorGroupDatabase } from './error-group-tables.js';
import { dayMs } from '../time-units.js';
import type { ErrorGroupsTable } from './error-group-tables.js';

export const hourMs = 3_600_000;

/** Start of the UTC hour a timestamp falls in (the key of `error_group_hours`). */
export function hourOf(epochMs: number): number {
  return Math.floor(epochMs / hourMs) * hourMs;
}

/** Start of the UTC day a timestamp falls in (the key of `error_group_days`). */
export function dayOf(epochMs: number): number {
  return Math.floor(epochMs / dayMs) * dayMs;
}

/** The occurrence fields grouping reads. */
export interface GroupableOccurrence {
  trace_id: string;
  span_id: string;
  service: string;
  environment: string;
  started_at: number;
  status: string;
  tenant_id: string | null;
  error_type: string | null;
  error_message: string | null;
  error_stack: string | null;
}

/**
 * The group of an occurrence: only occurrences with status `error` that carry error details
 * (a type, message or stack) are grouped; an error status alone counts in the error rate but
 * has nothing to group by.
 */
export function errorGroupOf(row: Pick<GroupableOccurrence, 'service' | 'status' | 'error_type' | 'error_message' | 'error_stack'>): ErrorFingerprint | undefined {
  if (row.status !== 'error') return undefined;
  return errorFingerprint(row.service, { type: row.error_type, message: row.error_message, stack: row.error_stack });
}

interface BatchGroup {
  fingerprint: ErrorFingerprint;
  service: string;
  firstSeen: number;
  lastSeen: number;
  count: number;
  latest: GroupableOccurrence;
}

/** Rows per upsert statement: well under both dialects' bind parameter limits. */
const rowsPerStatement = 1_000;
/** Group ids per lookup. */
const idsPerLookup = 500;

function inChunks<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let offset = 0; offset < items.length; offset += size) chunks.push(items.slice(offset, offset + size));
  return chunks;
}

/**
 * Sums one batch's error occurrences per group, hour, day and tenant in memory, then merges them into
 * the stored groups. Callers serialize merges (the rollup lock), so read-then-upsert of the groups
 * cannot lose a concurrent update. A resolved group whose new occurrence started after it was
 * resolved becomes `regressed` (late arrivals from before the resolution do not reopen it).
 */
export class ErrorGroupAccumulator {
  readonly #groups = new Map<string, BatchGroup>();
  readonly #hours = new Map<string, { group_id: string; environment: string; hour: number; count: number }>();
  readonly #days = new Map<string, { group_id: string; environment: string; day: number; count: number }>();
  readonly #tenants = new Map<string, { group_id: string; tenant_id: string; count: number; last_seen: number }>();

  get size(): number {
    return this.#groups.size;
  }

  /** Adds one error occurrence to its group. */
  add(row: GroupableOccurrence, fingerprint: ErrorFingerprint): void {
    const id = fingerprint.groupId;
    const group = this.#groups.get(id);
    if (!group) {
      this.#groups.set(id, { fingerprint, service: row.service, firstSeen: row.started_at, lastSeen: row.started_at, count: 1, latest: row });
    } else {
      group.count += 1;
      if (row.started_at < group.firstSeen) group.firstSeen = row.started_at;
      if (row.started_at >= group.lastSeen) {
        group.lastSeen = row.started_at;
        group.latest = row;
      }
    }
    const hour = hourOf(row.started_at);
    const hourKey = `${id}|${hour}|${row.environment}`;
    const hourCell = this.#hours.get(hourKey);
    if (hourCell) hourCell.count += 1;
    else this.#hours.set(hourKey, { group_id: id, environment: row.environment, hour, count: 1 });
    const day = dayOf(row.started_at);
    const dayKey = `${id}|${day}|${row.environment}`;
    const dayCell = this.#days.get(dayKey);
    if (dayCell) dayCell.count += 1;
    else this.#days.set(dayKey, { group_id: id, environment: row.environment, day, count: 1 });
    if (row.tenant_id !== null) {
      const tenantKey = `${id}|${row.tenant_id}`;
      const tenant = this.#tenants.get(tenantKey);
      if (!tenant) this.#tenants.set(tenantKey, { group_id: id, tenant_id: row.tenant_id, count: 1, last_seen: row.started_at });
      else {
        tenant.count += 1;
        tenant.last_seen = Math.max(tenant.last_seen, row.started_at);
      }
    }
  }

  /** Merges the batch into the stored groups, hours, days and tenants. */
  async mergeInto(db: Kysely<ErrorGroupDatabase>): Promise<void> {
    if (this.#groups.size === 0) return;
    const stored = new Map<string, ErrorGroupsTable>();
    for (const ids of inChunks([...this.#groups.keys()], idsPerLookup)) {
      const rows = await db.selectFrom('error_groups').selectAll().where('group_id', 'in', ids).execute();
      for (const row of rows) stored.set(row.group_id, row);
    }
    const merged = [...this.#groups.values()].map((group): ErrorGroupsTable => mergedGroup(group, stored.get(group.fingerprint.groupId)));
    for (const chunk of inChunks(merged, rowsPerStatement)) {
      await db
        .insertInto('error_groups')
        .values(chunk)
        .onConflict((conflict) =>
          conflict.column('group_id').doUpdateSet((eb) => ({
            first_seen: eb.ref('excluded.first_seen'),
            last_seen: eb.ref('excluded.last_seen'),
            count: eb.ref('excluded.count'),
            example_trace_id: eb.ref('excluded.example_trace_id'),
            example_span_id: eb.ref('excluded.example_span_id'),
            example_message: eb.ref('excluded.example_message'),
            status: eb.ref('excluded.status'),
          })),
        )
        .execute();
    }
    for (const chunk of inChunks([...this.#hours.values()], rowsPerStatement)) {
      await db
        .insertInto('error_group_hours')
        .values(chunk)
        .onConflict((conflict) =>
          conflict.columns(['group_id', 'environment', 'hour']).doUpdateSet((eb) => ({ count: eb('error_group_hours.count', '+', eb.ref('excluded.count')) })),
        )
        .execute();
    }
    for (const chunk of inChunks([...this.#days.values()], rowsPerStatement)) {
      await db
        .insertInto('error_group_days')
        .values(chunk)
        .onConflict((conflict) => conflict.columns(['group_id', 'environment', 'day']).doUpdateSet((eb) => ({ count: eb('error_group_days.count', '+', eb.ref('excluded.count')) })))
        .execute();
    }
    for (const chunk of inChunks([...this.#tenants.values()], rowsPerStatement)) {
      await db
        .insertInto('error_group_tenants')
        .values(chunk)
        .onConflict((conflict) =>
          conflict.columns(['group_id', 'tenant_id']).doUpdateSet((eb) => ({
            count: eb('error_group_tenants.count', '+', eb.ref('excluded.count')),
            last_seen: eb.case().when('excluded.last_seen', '>', eb.ref('error_group_tenants.last_seen')).then(eb.ref('excluded.last_seen')).else(eb.ref('error_group_tenants.last_seen')).end(),
          })),
        )
        .execute();
    }
  }
}

/** A stored group (or none) plus this batch's occurrences of it. */
function mergedGroup(group: BatchGroup, before: ErrorGroupsTable | undefined): ErrorGroupsTable {
  const latestIsNew = !before || group.lastSeen >= Number(before.last_seen);
  const regressed = before?.status === 'resolved' && before.resolved_at !== null && group.lastSeen > Number(before.resolved_at);
  return {
    group_id: group.fingerprint.groupId,
    service: group.service,
    error_type: group.fingerprint.type,
    message: group.fingerprint.message,
    top_frame: group.fingerprint.topFrame,
    example_message: latestIsNew ? (group.latest.error_message?.slice(0, groupMessageMaxChars) ?? null) : before.example_message,
    first_seen: before ? Math.min(group.firstSeen, Number(before.first_seen)) : group.firstSeen,
    last_seen: latestIsNew ? group.lastSeen : Number(before.last_seen),
    count: group.count + Number(before?.count ?? 0),
    example_trace_id: latestIsNew ? group.latest.trace_id : before.example_trace_id,
    example_span_id: latestIsNew ? group.latest.span_id : before.example_span_id,
    status: regressed ? 'regressed' : (before?.status ?? 'open'),
    status_changed_at: before?.status_changed_at ?? null,
    status_changed_by: before?.status_changed_by ?? null,
    resolved_at: before?.resolved_at ?? null,
  };
}
