/**
 * Reading a store's raw telemetry out in order, in bounded batches, for the copy command
 * (telemetry-copy/): each store walks its own rows by keyset and hands back, with each row, the
 * position to continue after it. Positions are the store's own (opaque text to the caller), so a
 * copy interrupted anywhere resumes from the last position it recorded.
 */

/** Which stored rows to read, and from where. */
export interface ExportRequest {
  /** Rows whose time (an occurrence's start, a log record's time) is at or after this, epoch ms. */
  fromMs: number;
  /** ... and before this. */
  toMs: number;
  /** Only rows after this position (one this store gave). */
  after?: string | undefined;
  /** Only rows up to and including this position. */
  through?: string | undefined;
  /** Rows per batch at most: what a reader holds at once. */
  batchRows: number;
}

/** A row and the position just after it (pass it as `after` to continue there). */
export interface ExportedRow<Row> {
  row: Row;
  position: string;
}

/** Batches of rows in the store's order, each of at most `batchRows`. */
export type ExportBatches<Row> = AsyncIterable<Array<ExportedRow<Row>>>;

/** A position of the form `<time>:<key>` (the two halves of a keyset). */
export function splitPosition(position: string): { time: number; key: string } {
  const separator = position.indexOf(':');
  const time = Number(position.slice(0, separator));
  if (separator < 1 || !Number.isFinite(time)) throw new Error(`not a position of this store: "${position}"`);
  return { time, key: position.slice(separator + 1) };
}
