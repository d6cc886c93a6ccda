import type { AttributeValue } from '../ingest/protocol-types.js';

/**
 * The shapes protobufjs decodes OTLP messages into (from protobuf, or from OTLP/JSON through
 * `fromObject`), as far as the mapping reads them. 64-bit fields arrive as `Long` objects.
 */
export interface Long {
  low: number;
  high: number;
  toNumber(): number;
}
export type Int64 = Long | number | string;

/** `opentelemetry.proto.common.v1.AnyValue`; `value` names the member of its `oneof` that is set. */
export interface OtlpAnyValue {
  value?: string;
  stringValue?: string;
  boolValue?: boolean;
  intValue?: Int64;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] } | null;
  kvlistValue?: { values?: OtlpKeyValue[] } | null;
  bytesValue?: Uint8Array;
}
export interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue | null;
}

/** Attribute bounds, the protocol v1 schema's: count, key length, string value length (longer ones are cut). */
export const attributeLimits = { maxCount: 64, maxKeyLength: 128, maxValueLength: 1024 } as const;
/** How deep array and map values are kept (their JSON text is the attribute's value). */
const maxValueDepth = 8;

/** 2^32 = 4294 * 10^6 + 967296: splits a 64-bit nanosecond count into milliseconds without losing digits. */
const twoTo32 = 4_294_967_296;
const millisPerHigh = 4294;
const nanosPerHighRemainder = 967_296;

/** The high and low 32 bits of an unsigned 64-bit value (Long, number or decimal string). */
function words(value: Int64 | undefined | null): { high: number; low: number } {
  if (value === undefined || value === null) return { high: 0, low: 0 };
  if (typeof value === 'object') return { high: value.high >>> 0, low: value.low >>> 0 };
  if (typeof value === 'string') {
    if (!/^\d{1,20}$/.test(value)) return { high: 0, low: 0 };
    const big = BigInt.asUintN(64, BigInt(value));
    return { high: Number(big >> 32n), low: Number(big & 0xffffffffn) };
  }
  if (!Number.isFinite(value) || value < 0) return { high: 0, low: 0 };
  const high = Math.floor(value / twoTo32);
  return { high, low: Math.floor(value - high * twoTo32) };
}

/**
 * Epoch milliseconds of a 64-bit nanosecond time: the whole milliseconds exact, the fraction to
 * the double's precision. Plain arithmetic, no BigInt: this runs for every span and event.
 */
export function nanosToMs(value: Int64 | undefined | null): number {
  const { high, low } = words(value);
  const rest = high * nanosPerHighRemainder + low;
  return high * millisPerHigh + Math.floor(rest / 1e6) + (rest % 1e6) / 1e6;
}

/** Whole epoch milliseconds of a 64-bit nanosecond time, rounded down (exact, unlike `Math.floor(nanosToMs(...))`). */
export function nanosToWholeMs(value: Int64 | undefined | null): number {
  const { high, low } = words(value);
  return high * millisPerHigh + Math.floor((high * nanosPerHighRemainder + low) / 1e6);
}

/** The nanoseconds of a 64-bit nanosecond time beyond its whole milliseconds (0-999,999). */
export function nanosWithinMs(value: Int64 | undefined | null): number {
  const { high, low } = words(value);
  return (high * nanosPerHighRemainder + low) % 1e6;
}

/** Milliseconds from `start` to `end` (64-bit nanosecond times), exact to the nanosecond; 0 when `end` is earlier. */
export function elapsedMs(start: Int64 | undefined | null, end: Int64 | undefined | null): number {
  const a = words(start);
  const b = words(end);
  const nanos = (b.high - a.high) * twoTo32 + (b.low - a.low);
  return nanos > 0 ? nanos / 1e6 : 0;
}

function int64ToNumber(value: Int64 | undefined): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return Number(value);
  return value.toNumber();
}

/** A plain JSON value of an AnyValue (arrays and maps kept as such, bytes as base64). */
function plainValue(value: OtlpAnyValue | null | undefined, depth: number): unknown {
  if (!value || depth > maxValueDepth) return null;
  switch (value.value) {
    case 'stringValue':
      return value.stringValue;
    case 'boolValue':
      return value.boolValue;
    case 'intValue':
      return int64ToNumber(value.intValue);
    case 'doubleValue':
      return value.doubleValue;
    case 'bytesValue':
      return Buffer.from(value.bytesValue ?? []).toString('base64');
    case 'arrayValue':
      return (value.arrayValue?.values ?? []).map((item) => plainValue(item, depth + 1));
    case 'kvlistValue': {
      const map: Record<string, unknown> = {};
      for (const entry of value.kvlistValue?.values ?? []) map[entry.key] = plainValue(entry.value, depth + 1);
      return map;
    }
    default:
      return null;
  }
}

/** An AnyValue as plain JSON (a log body): strings, numbers, booleans, arrays and maps as such, bytes as base64. */
export function jsonValue(value: OtlpAnyValue | null | undefined): unknown {
  return value?.value === undefined ? undefined : plainValue(value, 0);
}

/** An attribute value as a scalar: arrays and maps become their JSON text, bytes base64; unset is undefined. */
export function scalarValue(value: OtlpAnyValue | null | undefined): AttributeValue | undefined {
  if (!value || value.value === undefined) return undefined;
  const plain = plainValue(value, 0);
  if (typeof plain === 'string' || typeof plain === 'number' || typeof plain === 'boolean') return plain;
  return plain === null ? undefined : JSON.stringify(plain);
}

/** The attributes as a map (later duplicates win, as the specification leaves it to the receiver). */
export function attributeMap(list: readonly OtlpKeyValue[] | null | undefined): Map<string, AttributeValue> {
  const map = new Map<string, AttributeValue>();
  for (const entry of list ?? []) {
    const value = scalarValue(entry.value);
    if (value !== undefined) map.set(entry.key, value);
  }
  return map;
}

/** Cuts a string to `max` characters (code points). */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : Array.from(text).slice(0, max).join('');
}

/**
 * Attributes within the limits, except the `skipped` keys: the first `maxCount` with a key of
 * acceptable length, long string values cut. Undefined when none is left.
 */
export function boundedAttributes(attributes: ReadonlyMap<string, AttributeValue>, skipped?: ReadonlySet<string>): Record<string, AttributeValue> | undefined {
  const kept: Record<string, AttributeValue> = {};
  let count = 0;
  for (const [key, value] of attributes) {
    if (count >= attributeLimits.maxCount) break;
    if (skipped?.has(key) || key.length === 0 || key.length > attributeLimits.maxKeyLength) continue;
    kept[key] = typeof value === 'string' ? cut(value, attributeLimits.maxValueLength) : value;
    count += 1;
  }
  return count > 0 ? kept : undefined;
}
