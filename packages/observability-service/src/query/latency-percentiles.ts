import { bucketValueMs, maxBucketIndex } from '../storage/latency-histogram.js';

/** p50/p95/p99 in milliseconds; null when nothing was recorded. */
export interface LatencyPercentiles {
  p50Ms: number | null;
  p95Ms: number | null;
  p99Ms: number | null;
}

/**
 * Bucket counts merged from any number of encoded histograms (`index:count,...`, see
 * storage/latency-histogram.ts), including several joined with commas as SQL's
 * `group_concat`/`string_agg` return them. A hand-rolled scan: this runs over every rollup row
 * a dashboard reads, and `split` plus a Map per row costs several times more.
 */
export class MergedHistogram {
  readonly #counts = new Float64Array(maxBucketIndex + 1);
  #total = 0;

  /** Adds every pair of `encoded`; empty text and empty items are skipped. */
  add(encoded: string | null | undefined): this {
    if (!encoded) return this;
    let index = 0;
    let value = 0;
    let readingCount = false;
    for (let i = 0; i <= encoded.length; i += 1) {
      const code = i < encoded.length ? encoded.charCodeAt(i) : 44;
      if (code >= 48 && code <= 57) {
        value = value * 10 + (code - 48);
      } else if (code === 58) {
        index = value;
        value = 0;
        readingCount = true;
      } else if (code === 44) {
        if (readingCount) this.#addToBucket(index, value);
        value = 0;
        readingCount = false;
      } else {
        throw new Error(`malformed latency histogram near offset ${i}`);
      }
    }
    return this;
  }

  /** Adds every count of another merged histogram. */
  merge(other: MergedHistogram): this {
    for (let index = 0; index <= maxBucketIndex; index += 1) {
      const count = other.#counts[index]!;
      if (count > 0) this.#addToBucket(index, count);
    }
    return this;
  }

  #addToBucket(index: number, count: number): void {
    const clamped = Math.min(index, maxBucketIndex);
    this.#counts[clamped] = this.#counts[clamped]! + count;
    this.#total += count;
  }

  get count(): number {
    return this.#total;
  }

  /** Nearest-rank quantile, the same definition as `LatencyHistogram.quantile`. */
  quantile(q: number): number | null {
    if (this.#total === 0) return null;
    const rank = Math.max(1, Math.ceil(Math.min(1, Math.max(0, q)) * this.#total));
    let seen = 0;
    for (let index = 0; index <= maxBucketIndex; index += 1) {
      seen += this.#counts[index]!;
      if (seen >= rank) return bucketValueMs(index);
    }
    return bucketValueMs(maxBucketIndex);
  }

  /** The stored form: `index:count` pairs in ascending index order (see LatencyHistogram). */
  encode(): string {
    const pairs: string[] = [];
    for (let index = 0; index <= maxBucketIndex; index += 1) {
      const count = this.#counts[index]!;
      if (count > 0) pairs.push(`${index}:${count}`);
    }
    return pairs.join(',');
  }

  /**
   * Apdex counts at `thresholdMs` (T) of these durations, the durations in `errors` (a subset of
   * them) frustrated whatever their latency: satisfied at or below T, tolerating above T up to 4T.
   * A duration is compared through its bucket's value, so one within 2% of T or 4T may count on
   * either side.
   */
  apdexCounts(errors: MergedHistogram, thresholdMs: number): ApdexCounts {
    let satisfied = 0;
    let tolerating = 0;
    for (let index = 0; index <= maxBucketIndex; index += 1) {
      const ok = this.#counts[index]! - errors.#counts[index]!;
      if (ok <= 0) continue;
      const value = bucketValueMs(index);
      if (value > 4 * thresholdMs) break;
      if (value <= thresholdMs) satisfied += ok;
      else tolerating += ok;
    }
    return { satisfied, tolerating, total: this.#total };
  }

  percentiles(): LatencyPercentiles {
    return { p50Ms: roundMs(this.quantile(0.5)), p95Ms: roundMs(this.quantile(0.95)), p99Ms: roundMs(this.quantile(0.99)) };
  }
}

/** What an Apdex score is made of; counts of several services (each at its own threshold) add up. */
export interface ApdexCounts {
  satisfied: number;
  tolerating: number;
  total: number;
}

export const noApdexCounts: ApdexCounts = { satisfied: 0, tolerating: 0, total: 0 };

export function addApdexCounts(a: ApdexCounts, b: ApdexCounts): ApdexCounts {
  return { satisfied: a.satisfied + b.satisfied, tolerating: a.tolerating + b.tolerating, total: a.total + b.total };
}

/** (satisfied + tolerating / 2) / total, rounded to 4 decimals; null without data. */
export function apdexScore(counts: ApdexCounts): number | null {
  if (counts.total === 0) return null;
  return Math.round(((counts.satisfied + counts.tolerating / 2) / counts.total) * 10_000) / 10_000;
}

/** Figures are estimates within 2%; microseconds are plenty of digits to print. */
export function roundMs(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1000) / 1000;
}
