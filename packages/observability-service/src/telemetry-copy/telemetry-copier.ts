import { createHash } from 'node:crypto';
import { ApiError } from '@playstack/server-kit';
import { errorGroupOf } from '../errors/error-group-merge.js';
import '../errors/error-group-error-codes.js';
import type { ErrorGroupStatusChange } from '../errors/error-groups.js';
import { statementShapeOf } from '../ingest/occurrence-mapper.js';
import type { ExportedLogRecord } from '../logs/index.js';
import { parseAttributes } from '../query/occurrence-record.js';
import type { ExportedOccurrence, NewOccurrence } from '../storage/storage-tables.js';
import type { ExportBatches, ExportedRow, ExportRequest } from '../storage/telemetry-export.js';
import type { TelemetryStore } from '../telemetry/index.js';
import type { CopyState, CopyStateFile, StreamProgress } from './copy-state.js';

/** The rows a copy moves in order, each kind on its own. */
export type CopiedKind = 'occurrences' | 'logs';

/** What the copy reports as it goes. */
export type CopyEvent =
  | { type: 'kind-started'; kind: CopiedKind; copied: number }
  /** A batch is durable on the target and recorded: `copied` rows of the kind so far (every run). */
  | { type: 'copied'; kind: CopiedKind; copied: number }
  | { type: 'kind-done'; kind: CopiedKind; copied: number }
  /** The target's rollup tiers caught up with the copied rows (SQL stores keep tiers). */
  | { type: 'tiers-folded'; minutes: number; durationMs: number };

export interface TelemetryCopyOptions {
  /** The time range copied, epoch ms: [fromMs, toMs). */
  fromMs: number;
  toMs: number;
  /** Rows read, and written, together at most: what the copy holds in memory at once. */
  batchRows: number;
  /** True once the copy should stop at the next batch (Ctrl-C): what is done is recorded. */
  stopped: () => boolean;
  report: (event: CopyEvent) => void;
  /**
   * Called after each batch is durable on the target, before it is recorded: a test throws here
   * to stop the copy at its most awkward moment (the batch written, its progress not saved).
   */
  afterWrite?: (kind: CopiedKind) => void;
}

/** How one kind of row is read, keyed, timed and written. */
interface CopiedRows<Row> {
  kind: CopiedKind;
  progress: StreamProgress;
  read(store: TelemetryStore, request: ExportRequest): ExportBatches<Row>;
  /** The row's time in ms (what the export ranges select on). */
  timeOf(row: Row): number;
  /**
   * What makes a row itself, in any store: which rows of an unrecorded batch the target already
   * holds is counted by it (ids are each store's own). Identical rows (a sender's retry stored
   * twice) share a key and are counted, not merged.
   */
  keyOf(row: Row): string;
  write(store: TelemetryStore, rows: Row[]): Promise<void>;
}

/** An exported occurrence as the write path takes it: its statement's shape derived again, as ingestion and the rebuilds derive it. */
export function writtenOccurrence(row: ExportedOccurrence): NewOccurrence {
  const shape = row.db_system !== null && row.db_statement !== null ? statementShapeOf(row.db_system, row.db_statement, parseAttributes(row.attributes)) : undefined;
  return { ...row, db_statement_hash: shape?.hash ?? row.db_statement_hash, normalized_statement: shape?.normalized ?? null };
}

const occurrenceKey = (row: ExportedOccurrence) => JSON.stringify([row.trace_id, row.span_id, row.started_at, row.service, row.operation, row.kind, row.status]);

const logRecordKey = (row: ExportedLogRecord) =>
  createHash('sha1')
    .update(
      JSON.stringify([
        row.time_ms, row.time_ns, row.observed_ms, row.severity_number, row.service, row.environment, row.instance, row.scope_name,
        row.trace_id, row.span_id, row.tenant_id, row.event_name, row.body, row.attributes,
      ]),
    )
    .digest('base64');

/** The source's status changes after the recorded one, a batch at a time. */
class StatusChanges {
  readonly #batches: AsyncIterator<Array<ExportedRow<ErrorGroupStatusChange>>>;
  #buffer: Array<ExportedRow<ErrorGroupStatusChange>> = [];
  #index = 0;

  constructor(batches: ExportBatches<ErrorGroupStatusChange>) {
    this.#batches = batches[Symbol.asyncIterator]();
  }

  /** The next change not handled yet, if any. */
  async peek(): Promise<ExportedRow<ErrorGroupStatusChange> | undefined> {
    while (this.#index >= this.#buffer.length) {
      const next = await this.#batches.next();
      if (next.done) return undefined;
      this.#buffer = next.value;
      this.#index = 0;
    }
    return this.#buffer[this.#index];
  }

  shift(): void {
    this.#index += 1;
  }
}

/**
 * Copies telemetry from one store to another through their own interfaces: the source's raw
 * rows read in order (TelemetryStore.exportOccurrences, LogStore.exportRecords), written through
 * the target's write path, which derives rollups, error groups and log counts as ingestion does;
 * users' error group statuses replayed at their moment among the occurrences, so a group resolved
 * and seen again reads as regressed on the target too.
 *
 * Resumable: a batch is recorded in the state file as begun before it is written and as done
 * once it is durable. A run that finds a batch begun and not done (the copy stopped between the
 * two, at any moment) reads it again and writes only the rows the target does not hold, counted
 * per row key over the batch's time window: each row is stored, and its rollups derived, once.
 */
export class TelemetryCopier {
  readonly #source: TelemetryStore;
  readonly #target: TelemetryStore;
  readonly #state: CopyState;
  readonly #file: CopyStateFile;
  readonly #options: TelemetryCopyOptions;
  readonly #statuses: StatusChanges;
  readonly #occurrences: CopiedRows<ExportedOccurrence>;
  readonly #logs: CopiedRows<ExportedLogRecord>;

  constructor(source: TelemetryStore, target: TelemetryStore, state: CopyState, file: CopyStateFile, options: TelemetryCopyOptions) {
    this.#source = source;
    this.#target = target;
    this.#state = state;
    this.#file = file;
    this.#options = options;
    this.#statuses = new StatusChanges(source.exportErrorGroupStatusChanges({ after: state.statuses.after ?? undefined, batchRows: options.batchRows }));
    this.#occurrences = {
      kind: 'occurrences',
      progress: state.occurrences,
      read: (store, request) => store.exportOccurrences(request),
      timeOf: (row) => row.started_at,
      keyOf: occurrenceKey,
      write: (store, rows) => store.write(rows.map(writtenOccurrence)),
    };
    this.#logs = {
      kind: 'logs',
      progress: state.logs,
      read: (store, request) => store.logs.exportRecords(request),
      timeOf: (row) => row.time_ms,
      keyOf: logRecordKey,
      write: (store, rows) => store.write([], 0, rows),
    };
  }

  /** Copies what is left; 'interrupted' when `stopped()` turned true (the progress is saved). */
  async run(): Promise<'complete' | 'interrupted'> {
    if (!(await this.#copy(this.#occurrences, (batch, dedup, through) => this.#writeOccurrences(batch, dedup, through)))) return 'interrupted';
    if (!(await this.#applyRemainingStatuses())) return 'interrupted';
    if (!(await this.#copy(this.#logs, (batch, dedup, through) => this.#writeSegment(this.#logs, batch, dedup, through)))) return 'interrupted';
    const foldStarted = performance.now();
    const folded = await this.#target.maintain();
    this.#options.report({ type: 'tiers-folded', minutes: folded.minutes, durationMs: performance.now() - foldStarted });
    this.#state.complete = true;
    this.#save();
    return 'complete';
  }

  #save(): void {
    this.#file.save(this.#state);
  }

  #range(): ExportRequest {
    return { fromMs: this.#options.fromMs, toMs: this.#options.toMs, batchRows: this.#options.batchRows };
  }

  /** One kind of row: the unrecorded batch of an earlier run first (checked against the target), then the rest. False when stopped. */
  async #copy<Row>(rows: CopiedRows<Row>, writeBatch: (batch: Array<ExportedRow<Row>>, dedup: boolean, pendingThrough: string | undefined) => Promise<void>): Promise<boolean> {
    const { progress } = rows;
    if (progress.done) return true;
    this.#options.report({ type: 'kind-started', kind: rows.kind, copied: progress.copied });
    const unrecorded = progress.pending;
    if (unrecorded) {
      for await (const batch of rows.read(this.#source, { ...this.#range(), after: unrecorded.after ?? undefined, through: unrecorded.through })) {
        await writeBatch(batch, true, unrecorded.through);
        if (this.#options.stopped()) return false;
      }
      progress.after = unrecorded.through;
      progress.pending = null;
      this.#save();
    }
    for await (const batch of rows.read(this.#source, { ...this.#range(), after: progress.after ?? undefined })) {
      await writeBatch(batch, false, undefined);
      if (this.#options.stopped()) return false;
    }
    progress.done = true;
    this.#save();
    this.#options.report({ type: 'kind-done', kind: rows.kind, copied: progress.copied });
    return true;
  }

  /**
   * Writes contiguous rows of one kind: recorded as begun (through `pendingThrough` while an
   * earlier run's unrecorded batch is read again, else through its last row), written (only what
   * the target lacks, with `dedup`), then recorded as done.
   */
  async #writeSegment<Row>(rows: CopiedRows<Row>, segment: Array<ExportedRow<Row>>, dedup: boolean, pendingThrough: string | undefined): Promise<void> {
    if (segment.length === 0) return;
    const { progress } = rows;
    const last = segment[segment.length - 1]!.position;
    progress.pending = { after: progress.after, through: pendingThrough ?? last };
    this.#save();
    const fresh = dedup ? await this.#absentFromTarget(rows, segment, progress.after) : segment;
    await rows.write(this.#target, fresh.map((entry) => entry.row));
    this.#options.afterWrite?.(rows.kind);
    progress.after = last;
    progress.pending = pendingThrough === undefined || pendingThrough === last ? null : { after: last, through: pendingThrough };
    progress.copied += fresh.length;
    this.#save();
    this.#options.report({ type: 'copied', kind: rows.kind, copied: progress.copied });
  }

  /**
   * The rows of `segment` the target does not hold yet. Per key: the target's rows in the
   * segment's time window, less the source's rows of that window before the segment (copied
   * earlier), are the segment's rows already there.
   */
  async #absentFromTarget<Row>(rows: CopiedRows<Row>, segment: Array<ExportedRow<Row>>, before: string | null): Promise<Array<ExportedRow<Row>>> {
    const wanted = new Set(segment.map((entry) => rows.keyOf(entry.row)));
    let lo = Infinity;
    let hi = -Infinity;
    for (const { row } of segment) {
      lo = Math.min(lo, rows.timeOf(row));
      hi = Math.max(hi, rows.timeOf(row));
    }
    const window = { fromMs: Math.floor(lo), toMs: Math.floor(hi) + 1, batchRows: this.#options.batchRows };
    const countKeys = async (batches: ExportBatches<Row>) => {
      const counts = new Map<string, number>();
      for await (const batch of batches) {
        for (const { row } of batch) {
          const key = rows.keyOf(row);
          if (wanted.has(key)) counts.set(key, (counts.get(key) ?? 0) + 1);
        }
      }
      return counts;
    };
    const held = await countKeys(rows.read(this.#target, window));
    const earlier = before === null ? new Map<string, number>() : await countKeys(rows.read(this.#source, { ...window, through: before }));
    const skip = new Map([...held].map(([key, count]) => [key, count - (earlier.get(key) ?? 0)]));
    return segment.filter(({ row }) => {
      const key = rows.keyOf(row);
      const left = skip.get(key) ?? 0;
      if (left <= 0) return true;
      skip.set(key, left - 1);
      return false;
    });
  }

  /** A batch of occurrences, cut where a status change falls due: it is applied after every occurrence that started by its time, before any later one. */
  async #writeOccurrences(batch: Array<ExportedRow<ExportedOccurrence>>, dedup: boolean, pendingThrough: string | undefined): Promise<void> {
    let start = 0;
    while (start < batch.length) {
      const due = await this.#statuses.peek();
      const later = due === undefined ? -1 : batch.findIndex((entry, index) => index >= start && entry.row.started_at > due.row.changedAt);
      const cut = later === -1 ? batch.length : later;
      const segment = batch.slice(start, cut);
      await this.#writeSegment(this.#occurrences, segment, dedup, pendingThrough);
      await this.#applyDeferred(segment.map((entry) => entry.row));
      start = cut;
      if (start < batch.length) await this.#applyNextStatus();
    }
  }

  /** After the last occurrence: the changes made since, then those still waiting for their group. */
  async #applyRemainingStatuses(): Promise<boolean> {
    while (await this.#statuses.peek()) {
      await this.#applyNextStatus();
      if (this.#options.stopped()) return false;
    }
    const { statuses } = this.#state;
    if (statuses.deferred.length > 0) {
      for (const change of statuses.deferred) if ((await this.#applyStatus(change)) === 'deferred') statuses.leftOut += 1;
      statuses.deferred = [];
      this.#save();
    }
    return true;
  }

  async #applyNextStatus(): Promise<void> {
    const next = (await this.#statuses.peek())!;
    const { statuses } = this.#state;
    if ((await this.#applyStatus(next.row)) === 'deferred') statuses.deferred.push(next.row);
    statuses.after = next.position;
    this.#statuses.shift();
    this.#save();
  }

  /** Changes waiting for a group that these occurrences (just written) make. */
  async #applyDeferred(written: readonly ExportedOccurrence[]): Promise<void> {
    const { statuses } = this.#state;
    if (statuses.deferred.length === 0) return;
    const groups = new Set(written.map((row) => errorGroupOf(row)?.groupId));
    if (!statuses.deferred.some((change) => groups.has(change.groupId))) return;
    const waiting: ErrorGroupStatusChange[] = [];
    for (const change of statuses.deferred) {
      if (!groups.has(change.groupId) || (await this.#applyStatus(change)) === 'deferred') waiting.push(change);
    }
    statuses.deferred = waiting;
    this.#save();
  }

  /**
   * Gives the target's group the status as the user did, at the user's time, unless the target
   * has it already (a run that stopped just after applying it) or a later one: its own status
   * set after the change (with --append), never replaced by an older one. A group's changes in
   * one millisecond follow each other. 'deferred' when the target holds no such group yet.
   */
  async #applyStatus(change: ErrorGroupStatusChange): Promise<'applied' | 'held' | 'deferred'> {
    let group;
    try {
      group = await this.#target.errorGroup(Date.now(), change.groupId, {});
    } catch (error) {
      if (error instanceof ApiError && error.code === 'error-group-not-found') return 'deferred';
      throw error;
    }
    const { statuses } = this.#state;
    const changedAt = group.statusChangedAt === null ? null : Date.parse(group.statusChangedAt);
    const followsLast = statuses.lastApplied?.groupId === change.groupId && statuses.lastApplied.changedAt === change.changedAt;
    const held = changedAt !== null && changedAt >= change.changedAt && !(followsLast && group.status !== change.status);
    statuses.lastApplied = { groupId: change.groupId, changedAt: change.changedAt };
    if (held) return 'held';
    await this.#target.setErrorGroupStatus(change.groupId, change.status, change.changedBy ?? '', change.changedAt);
    statuses.applied += 1;
    return 'applied';
  }
}
