import type protobuf from 'protobufjs';
import { ApiError } from '@playstack/server-kit';

/** The two OTLP/HTTP encodings; OTLP/gRPC is always protobuf. */
export type OtlpEncoding = 'protobuf' | 'json';

export const contentTypes: Readonly<Record<OtlpEncoding, string>> = { protobuf: 'application/x-protobuf', json: 'application/json' };

/** The encoding a request's Content-Type names; JSON for anything else (error bodies need one). */
export function encodingOf(contentType: string | undefined): OtlpEncoding {
  return contentType?.split(';', 1)[0]!.trim().toLowerCase() === contentTypes.protobuf ? 'protobuf' : 'json';
}

/** Fields holding trace and span ids: hex strings in OTLP/JSON, in every message (not base64). */
const idFields = new Set(['traceId', 'spanId', 'parentSpanId']);
const hexPattern = /^[0-9a-fA-F]*$/;

/**
 * The bytes of a hex id. A string that is not hex becomes a 1-byte id, which the mapping refuses
 * as an id of the wrong length: the span is refused, not the request.
 */
function hexIdBytes(hex: string): Buffer {
  return hexPattern.test(hex) && hex.length % 2 === 0 ? Buffer.from(hex, 'hex') : Buffer.alloc(1);
}

/** Turns the hex ids of a parsed OTLP/JSON document into bytes, in place, for protobufjs's `fromObject`. */
function hexIdsToBytes(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) hexIdsToBytes(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (typeof value === 'string' && idFields.has(key)) record[key] = hexIdBytes(value);
    else if (value !== null && typeof value === 'object') hexIdsToBytes(value);
  }
}

/**
 * Decodes an OTLP message in either encoding with protobufjs (JSON: the proto3 JSON mapping with
 * OTLP's deviations: hex ids, integer enums; unknown fields are ignored). Undecodable: 400.
 */
export function decodeOtlp<T>(type: protobuf.Type, body: Buffer, encoding: OtlpEncoding): T {
  try {
    // protobufjs builds the message the definitions describe, which `T` declares in TypeScript.
    let message: unknown;
    if (encoding === 'protobuf') message = type.decode(body);
    else {
      const parsed: unknown = JSON.parse(body.toString('utf8'));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new TypeError('the body is not a JSON object');
      hexIdsToBytes(parsed);
      message = type.fromObject(parsed as Record<string, unknown>);
    }
    return message as T;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const name = type.name;
    throw new ApiError('invalid-request', encoding === 'protobuf' ? `The body is not a protobuf ${name}: ${reason}.` : `The body is not an OTLP/JSON ${name}: ${reason}.`);
  }
}

/** Encodes an OTLP message (given as a plain object) in the encoding; JSON per the proto3 mapping (int64 as strings). */
export function encodeOtlp(type: protobuf.Type, value: Record<string, unknown>, encoding: OtlpEncoding): Buffer | string {
  const message = type.fromObject(value);
  if (encoding === 'protobuf') {
    const bytes = type.encode(message).finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  }
  return JSON.stringify(type.toObject(message, { longs: String, enums: Number, json: true }));
}
