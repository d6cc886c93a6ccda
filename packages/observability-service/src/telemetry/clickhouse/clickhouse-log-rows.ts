import { randomInt } from 'node:crypto';
import type { NewLogRecord } from '../../logs/index.js';
import { dayMs } from '../../time-units.js';
import { RowBinaryWriter } from './row-binary-writer.js';

/** The columns `logRowsBinary` writes, in its order (the insert names them). */
export const logInsertColumns = [
  'day', 'time_ms', 'uid', 'time_ns', 'observed_ms', 'severity_number', 'severity_text', 'body', 'body_json', 'event_name',
  'service', 'environment', 'service_version', 'instance', 'scope_name', 'scope_version', 'trace_id', 'span_id', 'flags',
  'tenant_id', 'attributes', 'resource_attributes', 'received_at',
] as const;

const twoTo32 = 2 ** 32;
/** A process's uids start with this many random bits (above a 32-bit counter): 53 bits, a safe integer. */
const uidPrefixBits = 21;

/**
 * Record uids of one process: a random prefix above a counter, so uids increase in the order the
 * process stores records (a millisecond's records keep their order of arrival) and two processes
 * writing the same millisecond differ by their prefixes (equal ones: 1 in 2^21 per pair of
 * processes, and then only where their counters and a millisecond coincide too).
 */
export class LogUids {
  #prefix = randomInt(2 ** uidPrefixBits);
  #counter = 0;

  next(): number {
    if (this.#counter === twoTo32) {
      this.#prefix = randomInt(2 ** uidPrefixBits);
      this.#counter = 0;
    }
    return this.#prefix * twoTo32 + this.#counter++;
  }
}

/** The records as one RowBinary body in `logInsertColumns` order, each with the next uid, received at `receivedAt` unless a record says when. */
export function logRowsBinary(rows: readonly NewLogRecord[], receivedAt: number, uids: LogUids): Buffer {
  const out = new RowBinaryWriter();
  for (const row of rows) {
    out.date(Math.floor(row.time_ms / dayMs));
    out.uint64(row.time_ms);
    out.uint64(uids.next());
    out.uint32(row.time_ns);
    out.uint64(row.observed_ms);
    out.uint8(row.severity_number);
    out.nullableString(row.severity_text);
    out.nullableString(row.body);
    out.uint8(row.body_json);
    out.nullableString(row.event_name);
    out.string(row.service);
    out.string(row.environment);
    out.nullableString(row.service_version);
    out.nullableString(row.instance);
    out.nullableString(row.scope_name);
    out.nullableString(row.scope_version);
    out.string(row.trace_id ?? '');
    out.nullableString(row.span_id);
    out.uint8(row.flags);
    out.nullableString(row.tenant_id);
    out.nullableString(row.attributes);
    out.nullableString(row.resource_attributes);
    out.uint64(row.received_at ?? receivedAt);
  }
  return out.bytes();
}
