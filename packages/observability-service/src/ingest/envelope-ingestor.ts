import { ApiError } from '@playstack/server-kit';
import type { Clock } from '@playstack/server-kit';
import type { NewOccurrence } from '../storage/storage-tables.js';
import { dayMs } from '../time-units.js';
import { EnvelopeValidator, InvalidEnvelopeError } from './envelope-validator.js';
import { mapLogRecord } from './log-record-mapper.js';
import type { NewLogRecord } from '../logs/index.js';
import type { TelemetryWriter } from '../telemetry/index.js';
import { mapOccurrence, maxClockSkewMs, type AcceptanceWindow } from './occurrence-mapper.js';
import type { ProtocolLogRecord, ProtocolOccurrence, ProtocolResource } from './protocol-types.js';
import './ingest-error-codes.js';

/** A refused item: its index in `occurrences` (or, with `member: 'logs'`, in `logs`) and why. */
export interface RefusedItem {
  member?: 'logs';
  index: number;
  message: string;
}

/** What the 202 says about an envelope. */
export interface IngestResult {
  accepted: { occurrences: number; logs: number };
  rejected: { occurrences: number; logs: number };
  /** Strings longer than their bound, cut to it (the items were kept). */
  truncated: { strings: number };
  /** One entry per refused item, occurrences first, each in index order. */
  errors: RefusedItem[];
}

/** An empty result, to fill in. */
export function emptyIngestResult(truncatedStrings = 0): IngestResult {
  return { accepted: { occurrences: 0, logs: 0 }, rejected: { occurrences: 0, logs: 0 }, truncated: { strings: truncatedStrings }, errors: [] };
}

export interface EnvelopeIngestorOptions {
  writer: TelemetryWriter;
  clock: Clock;
  maxOccurrences: number;
  maxLogRecords: number;
  /** Current retention in days; starts older than it are refused. */
  retentionDays: () => number;
  validator?: EnvelopeValidator;
}

/** What OTLP keeps of a span beyond the protocol's fields: JSON text, already bounded by the mapper. */
export interface OccurrenceExtras {
  events: string | null;
  links: string | null;
}

/** A batch of already-validated occurrences and log records under one resource (the OTLP path builds these). */
export interface ResourceBatch {
  resource: ProtocolResource;
  /** JSON text of the resource's other attributes (OTLP), stored with each of its occurrences. */
  resourceAttributes?: string | null;
  occurrences: Array<{ index: number; occurrence: ProtocolOccurrence; extras?: OccurrenceExtras }>;
  logs?: Array<{ index: number; log: ProtocolLogRecord }>;
}

/**
 * Validates an envelope, keeps its valid occurrences and log records (reporting each refused one
 * by index), stores them and answers only once they are committed.
 */
export class EnvelopeIngestor {
  readonly #options: EnvelopeIngestorOptions;
  readonly #validator: EnvelopeValidator;

  constructor(options: EnvelopeIngestorOptions) {
    this.#options = options;
    this.#validator = options.validator ?? new EnvelopeValidator();
  }

  /** Ingests a parsed protocol v1 body. */
  async ingest(body: unknown): Promise<IngestResult> {
    let shell;
    try {
      shell = this.#validator.checkShell(body);
    } catch (error) {
      if (error instanceof InvalidEnvelopeError) throw new ApiError('invalid-envelope', `The body is not a protocol v1 envelope: ${error.message}.`);
      throw error;
    }
    this.checkCount(shell.occurrences.length);
    this.checkLogCount(shell.logs.length);
    const result = emptyIngestResult(shell.truncated);
    const valid: ResourceBatch = { resource: shell.resource, occurrences: [], logs: [] };
    shell.occurrences.forEach((item, index) => this.checkOccurrence(item, index, valid, result));
    shell.logs.forEach((item, index) => this.checkLog(item, index, valid, result));
    return this.store([valid], result);
  }

  /**
   * Validates the request's `index`-th occurrence: a valid one joins `batch` (its cut strings
   * counted in `result`), a refused one is reported in `result.errors`.
   */
  checkOccurrence(item: unknown, index: number, batch: ResourceBatch, result: IngestResult, extras?: OccurrenceExtras): void {
    const check = this.#validator.checkOccurrence(item);
    if (!check.ok) {
      result.errors.push({ index, message: check.message });
      return;
    }
    result.truncated.strings += check.truncated;
    batch.occurrences.push(extras ? { index, occurrence: check.occurrence, extras } : { index, occurrence: check.occurrence });
  }

  /**
   * Validates the request's `index`-th log record: a valid one joins `batch` (its cut strings
   * counted in `result`), a refused one is reported in `result.errors`.
   */
  checkLog(item: unknown, index: number, batch: ResourceBatch, result: IngestResult): void {
    const check = this.#validator.checkLog(item);
    if (!check.ok) {
      result.errors.push({ member: 'logs', index, message: check.message });
      return;
    }
    result.truncated.strings += check.truncated;
    (batch.logs ??= []).push({ index, log: check.log });
  }

  /** Refuses requests with more occurrences than configured (counted as refused for the health view). */
  checkCount(count: number): void {
    this.#checkLimit(count, this.#options.maxOccurrences, 'occurrences');
  }

  /** Refuses requests with more log records than configured (counted as refused for the health view). */
  checkLogCount(count: number): void {
    this.#checkLimit(count, this.#options.maxLogRecords, 'log records');
  }

  #checkLimit(count: number, limit: number, noun: string): void {
    if (count > limit) {
      // Best effort, not awaited: the 413 does not wait for the health counter, and a storage
      // failure there is already answered by the envelopes that do wait.
      this.#options.writer.write([], count).catch(() => undefined);
      throw new ApiError('payload-too-large', `A request holds at most ${limit} ${noun}; this one has ${count}.`);
    }
  }

  /**
   * Maps validated occurrences to rows (refusing those outside the time window), stores them and
   * completes `result` with the counts. Not async: once mapped, the batches are not held while
   * the commit is awaited.
   */
  store(batches: readonly ResourceBatch[], result: IngestResult): Promise<IngestResult> {
    try {
      const { rows, logRows } = this.#rowsOf(batches, result);
      return this.#commit(rows, logRows, result);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Stores log records the OTLP path has already mapped and checked (otlp-log-rows.ts), and
   * completes `result` (which holds the refused ones) with the counts. Not async, as `store`.
   */
  storeLogRows(logRows: readonly NewLogRecord[], result: IngestResult): Promise<IngestResult> {
    return this.#commit([], logRows, result);
  }

  /** The record times accepted now: none older than the retention, none more than the allowed skew ahead. */
  acceptanceWindow(): AcceptanceWindow {
    const now = this.#options.clock.now();
    return { oldestMs: now - this.#options.retentionDays() * dayMs, newestMs: now + maxClockSkewMs };
  }

  #rowsOf(batches: readonly ResourceBatch[], result: IngestResult): { rows: NewOccurrence[]; logRows: NewLogRecord[] } {
    this.checkCount(batches.reduce((sum, batch) => sum + batch.occurrences.length, 0));
    this.checkLogCount(batches.reduce((sum, batch) => sum + (batch.logs?.length ?? 0), 0));
    const window = this.acceptanceWindow();
    const rows: NewOccurrence[] = [];
    const logRows: NewLogRecord[] = [];
    for (const batch of batches) {
      for (const { index, occurrence, extras } of batch.occurrences) {
        const mapped = mapOccurrence(batch.resource, occurrence, window, { resourceAttributes: batch.resourceAttributes ?? null, events: extras?.events ?? null, links: extras?.links ?? null });
        if (mapped.ok) rows.push(mapped.row);
        else result.errors.push({ index, message: mapped.message });
      }
      for (const { index, log } of batch.logs ?? []) {
        const mapped = mapLogRecord(batch.resource, log, window, batch.resourceAttributes ?? null);
        if (mapped.ok) {
          logRows.push(mapped.row);
          result.truncated.strings += mapped.truncated;
        } else {
          result.errors.push({ member: 'logs', index, message: mapped.message });
        }
      }
    }
    return { rows, logRows };
  }

  async #commit(rows: readonly NewOccurrence[], logRows: readonly NewLogRecord[], result: IngestResult): Promise<IngestResult> {
    await this.#options.writer.write(rows, result.errors.length, logRows);
    result.errors.sort((a, b) => (a.member === b.member ? a.index - b.index : a.member === 'logs' ? 1 : -1));
    result.accepted.occurrences = rows.length;
    result.accepted.logs = logRows.length;
    result.rejected.logs = result.errors.filter((error) => error.member === 'logs').length;
    result.rejected.occurrences = result.errors.length - result.rejected.logs;
    return result;
  }
}
