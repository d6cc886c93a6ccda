import { ApiError } from '@playstack/server-kit';
import type { Clock } from '@playstack/server-kit';
import type { NewOccurrence, OccurrenceWriter } from '../storage/occurrence-writer.js';
import { dayMs } from '../time-units.js';
import { EnvelopeValidator, InvalidEnvelopeError } from './envelope-validator.js';
import { mapOccurrence, maxClockSkewMs } from './occurrence-mapper.js';
import type { ProtocolOccurrence, ProtocolResource } from './protocol-types.js';

/** What the 202 says about an envelope. */
export interface IngestResult {
  accepted: { occurrences: number };
  rejected: { occurrences: number };
  /** Strings longer than their bound, cut to it (the occurrences were kept). */
  truncated: { strings: number };
  /** One entry per refused occurrence: its index in the envelope and why. */
  errors: Array<{ index: number; message: string }>;
}

export interface EnvelopeIngestorOptions {
  writer: OccurrenceWriter;
  clock: Clock;
  maxOccurrences: number;
  /** Current retention in days; starts older than it are refused. */
  retentionDays: () => number;
  validator?: EnvelopeValidator;
}

/** What OTLP keeps of a span beyond the protocol's fields: JSON text, already bounded by the mapper. */
export interface OccurrenceExtras {
  events: string | null;
  links: string | null;
}

/** A batch of already-validated occurrences under one resource (the OTLP path builds these). */
export interface ResourceBatch {
  resource: ProtocolResource;
  /** JSON text of the resource's other attributes (OTLP), stored with each of its occurrences. */
  resourceAttributes?: string | null;
  occurrences: Array<{ index: number; occurrence: ProtocolOccurrence; extras?: OccurrenceExtras }>;
}

/**
 * Validates an envelope, keeps its valid occurrences (reporting each refused one by index), stores
 * them and answers only once they are committed.
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
    const result: IngestResult = { accepted: { occurrences: 0 }, rejected: { occurrences: 0 }, truncated: { strings: shell.truncated }, errors: [] };
    const valid: ResourceBatch = { resource: shell.resource, occurrences: [] };
    shell.occurrences.forEach((item, index) => this.checkOccurrence(item, index, valid, result));
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

  /** Refuses requests with more occurrences than configured (counted as refused for the health view). */
  checkCount(count: number): void {
    if (count > this.#options.maxOccurrences) {
      // Best effort, not awaited: the 413 does not wait for the health counter, and a storage
      // failure there is already answered by the envelopes that do wait.
      this.#options.writer.write([], count).catch(() => undefined);
      throw new ApiError('payload-too-large', `An envelope holds at most ${this.#options.maxOccurrences} occurrences; this one has ${count}.`);
    }
  }

  /**
   * Maps validated occurrences to rows (refusing those outside the time window), stores them and
   * completes `result` with the counts.
   */
  async store(batches: readonly ResourceBatch[], result: IngestResult): Promise<IngestResult> {
    this.checkCount(batches.reduce((sum, batch) => sum + batch.occurrences.length, 0));
    const now = this.#options.clock.now();
    const window = { oldestMs: now - this.#options.retentionDays() * dayMs, newestMs: now + maxClockSkewMs };
    const rows: NewOccurrence[] = [];
    for (const batch of batches) {
      for (const { index, occurrence, extras } of batch.occurrences) {
        const mapped = mapOccurrence(batch.resource, occurrence, window, { resourceAttributes: batch.resourceAttributes ?? null, events: extras?.events ?? null, links: extras?.links ?? null });
        if (mapped.ok) rows.push(mapped.row);
        else result.errors.push({ index, message: mapped.message });
      }
    }
    const refused = result.errors.length;
    await this.#options.writer.write(rows, refused);
    result.errors.sort((a, b) => a.index - b.index);
    result.accepted.occurrences = rows.length;
    result.rejected.occurrences = result.errors.length;
    return result;
  }
}
