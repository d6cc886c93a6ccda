import { createHash } from 'node:crypto';

/**
 * JSON with object members sorted by name at every depth, so two documents that differ only in
 * member order serialize identically. Input is parsed JSON (no undefined, functions or cycles).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(',')}}`;
}

/** SHA-256 (hex) of a text, e.g. a canonical JSON already serialized. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** SHA-256 (hex) of the canonical JSON of a value: the identity of a run's content. */
export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
