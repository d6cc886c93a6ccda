/**
 * Latency histograms with fixed log-scale buckets, stored sparsely on every rollup row.
 *
 * Bucket `i >= 1` holds durations in `(minTrackedMs * γ^(i-1), minTrackedMs * γ^i]` with
 * `γ = (1 + α) / (1 - α)`; its representative value `2 * upper / (γ + 1)` is within a relative
 * error `α` of every value in the bucket (the DDSketch construction). Bucket 0 holds durations
 * at or below `minTrackedMs` (1 µs) and reports 0. Because the buckets are the same everywhere,
 * histograms of any two rollup rows merge by adding counts, and a quantile of the merged
 * histogram is within `α` of the exact nearest-rank quantile of the underlying durations.
 */

/** Bound on the relative error of every quantile estimate. */
export const histogramRelativeError = 0.02;
/** Durations at or below this (milliseconds) land in bucket 0 and are reported as 0. */
export const minTrackedMs = 0.001;
/** The largest duration the buckets cover (one day); longer durations land in the last bucket. */
export const maxTrackedMs = 86_400_000;

const gamma = (1 + histogramRelativeError) / (1 - histogramRelativeError);
const logGamma = Math.log(gamma);

/** Index of the bucket for a duration in milliseconds. */
export function bucketIndexOf(durationMs: number): number {
  if (!(durationMs > minTrackedMs)) return 0;
  const clamped = Math.min(durationMs, maxTrackedMs);
  return Math.max(1, Math.ceil(Math.log(clamped / minTrackedMs) / logGamma - 1e-9));
}

/** The last bucket index, the one `maxTrackedMs` falls in. */
export const maxBucketIndex = bucketIndexOf(maxTrackedMs);

function computedBucketValueMs(index: number): number {
  return (2 * minTrackedMs * gamma ** index) / (gamma + 1);
}

/**
 * Every bucket's value, computed once: percentiles and Apdex walk the buckets of every merged
 * histogram a view reads, and a power per bucket was a fifth of a 7-day trend's merging.
 */
const bucketValues = Float64Array.from({ length: maxBucketIndex + 1 }, (_, index) => (index <= 0 ? 0 : computedBucketValueMs(index)));

/** The value a bucket reports: within `histogramRelativeError` of everything in it. */
export function bucketValueMs(index: number): number {
  if (index <= 0) return 0;
  return Number.isInteger(index) && index <= maxBucketIndex ? bucketValues[index]! : computedBucketValueMs(index);
}

/**
 * A mutable accumulator of bucket counts. Encoded form (the `histogram` text column):
 * `index:count` pairs in ascending index order joined by commas, e.g. `412:3,415:1`; the empty
 * string is the empty histogram.
 */
export class LatencyHistogram {
  readonly #counts = new Map<number, number>();
  #total = 0;

  /** Parses the stored form; throws on anything malformed. */
  static decode(encoded: string): LatencyHistogram {
    const histogram = new LatencyHistogram();
    if (encoded === '') return histogram;
    for (const pair of encoded.split(',')) {
      const colon = pair.indexOf(':');
      const index = Number(pair.slice(0, colon));
      const count = Number(pair.slice(colon + 1));
      if (colon < 1 || !Number.isInteger(index) || index < 0 || index > maxBucketIndex || !Number.isInteger(count) || count < 1) {
        throw new Error(`malformed latency histogram pair "${pair}"`);
      }
      histogram.addToBucket(index, count);
    }
    return histogram;
  }

  /** Records `count` durations of `durationMs`. */
  record(durationMs: number, count = 1): this {
    return this.addToBucket(bucketIndexOf(durationMs), count);
  }

  /** Adds a count to a bucket by index. */
  addToBucket(index: number, count: number): this {
    this.#counts.set(index, (this.#counts.get(index) ?? 0) + count);
    this.#total += count;
    return this;
  }

  /** Adds every count of another histogram to this one. */
  merge(other: LatencyHistogram): this {
    for (const [index, count] of other.#counts) this.addToBucket(index, count);
    return this;
  }

  /** How many durations were recorded. */
  get count(): number {
    return this.#total;
  }

  /** Non-empty buckets in ascending index order. */
  buckets(): Array<{ index: number; count: number }> {
    return [...this.#counts.entries()].sort((a, b) => a[0] - b[0]).map(([index, count]) => ({ index, count }));
  }

  /**
   * The nearest-rank quantile (`q` in [0, 1]): the value of the `ceil(q * n)`-th smallest
   * duration (the smallest for q = 0), estimated within `histogramRelativeError`. Undefined
   * when the histogram is empty.
   */
  quantile(q: number): number | undefined {
    if (this.#total === 0) return undefined;
    const rank = Math.max(1, Math.ceil(Math.min(1, Math.max(0, q)) * this.#total));
    let seen = 0;
    for (const { index, count } of this.buckets()) {
      seen += count;
      if (seen >= rank) return bucketValueMs(index);
    }
    return bucketValueMs(maxBucketIndex);
  }

  /** The stored form (see the class comment). */
  encode(): string {
    return this.buckets()
      .map(({ index, count }) => `${index}:${count}`)
      .join(',');
  }
}
