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

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** SHA-256 (hex) of the canonical JSON of a value: the identity of a run's content. */
export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** A run's payload as stored (canonical JSON) and the run's {@link contentHash}. */
export interface RunContent {
  canonicalPayload: string;
  hash: string;
}

/**
 * {@link RunContent} of a submission: the hash equals `contentHash({ adapterId, payload })`
 * (members sorted, `adapterId` before `payload`), built around the payload's canonical JSON
 * instead of serializing the payload a second time.
 */
export function runContent(adapterId: string, payload: unknown): RunContent {
  const canonicalPayload = canonicalJson(payload);
  return { canonicalPayload, hash: sha256Hex(`{"adapterId":${JSON.stringify(adapterId)},"payload":${canonicalPayload}}`) };
}
