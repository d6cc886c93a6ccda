import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import type { ProtocolLogRecord, ProtocolOccurrence, ProtocolResource } from './protocol-types.js';

// ajv-formats is CommonJS: under ESM its module object arrives as the default export, and the
// plugin is that object's own `default` (it is also the object itself, which its types do not say).
const addFormats = ajvFormats.default.default;

/** The published envelope schema (docs/protocol-v1.schema.json) is the one the server validates with. */
export const envelopeSchemaFile = new URL('../../../../docs/protocol-v1.schema.json', import.meta.url);

type JsonSchema = Record<string, unknown>;

/** Why a body is not an envelope at all. */
export class InvalidEnvelopeError extends Error {
  override name = 'InvalidEnvelopeError';
}

/** The envelope's header, checked; its occurrences and log records not yet. */
export interface EnvelopeShell {
  resource: ProtocolResource;
  occurrences: unknown[];
  logs: unknown[];
  /** Strings of the resource cut to their bound. */
  truncated: number;
}

export type OccurrenceCheck = { ok: true; occurrence: ProtocolOccurrence; truncated: number } | { ok: false; message: string };
export type LogRecordCheck = { ok: true; log: ProtocolLogRecord; truncated: number } | { ok: false; message: string };

/** A validation error as a sentence naming the offending field. */
function describeError(error: ErrorObject | undefined, root: string): string {
  if (!error) return `${root} is invalid`;
  const path = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const where = path ? `${root}.${path}` : root;
  if (error.keyword === 'required') return `${where}.${String(error.params.missingProperty)} is required`;
  if (error.keyword === 'enum') return `${where} must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
  if (error.keyword === 'const') return `${where} must be ${JSON.stringify(error.params.allowedValue)}`;
  if (error.keyword === 'pattern') {
    const description = (error.parentSchema as { description?: string } | undefined)?.description;
    return `${where} is malformed${description ? ` (expected ${description.replace(/\.$/, '')})` : ''}`;
  }
  return `${where} ${error.message ?? 'is invalid'}`;
}

/** Which strings of a schema node are cut to which length. */
interface TruncationPlan {
  maxLength?: number;
  properties: ReadonlyMap<string, TruncationPlan>;
  additional?: TruncationPlan;
}

function resolve(schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  return typeof schema.$ref === 'string' ? (defs[schema.$ref.replace('#/$defs/', '')] ?? {}) : schema;
}

/**
 * Plans truncation for every string the schema bounds with `maxLength` alone. Strings with a
 * pattern, format or enum are identifiers or timestamps: refused when too long, never cut.
 */
function planTruncation(schema: JsonSchema, defs: Record<string, JsonSchema>): TruncationPlan {
  const node = resolve(schema, defs);
  const properties = new Map<string, TruncationPlan>();
  for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
    properties.set(name, planTruncation(child, defs));
  }
  const plan: TruncationPlan = { properties };
  if (typeof node.maxLength === 'number' && !('pattern' in node) && !('format' in node) && !('enum' in node)) {
    plan.maxLength = node.maxLength;
  }
  if (typeof node.additionalProperties === 'object') plan.additional = planTruncation(node.additionalProperties as JsonSchema, defs);
  return plan;
}

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

/** Applies a plan to an object's members, in place; returns how many strings it cut. */
function truncateMembers(plan: TruncationPlan, value: unknown): number {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 0;
  const record = value as Record<string, unknown>;
  let cut = 0;
  for (const name of Object.keys(record)) {
    const child = plan.properties.get(name) ?? plan.additional;
    if (!child) continue;
    const member = record[name];
    if (typeof member === 'string') {
      // JSON Schema lengths count code points; UTF-16 length is an upper bound that is cheap to check.
      if (child.maxLength !== undefined && member.length > child.maxLength && codePointLength(member) > child.maxLength) {
        record[name] = Array.from(member).slice(0, child.maxLength).join('');
        cut += 1;
      }
    } else {
      cut += truncateMembers(child, member);
    }
  }
  return cut;
}

/**
 * Checks envelopes against the published schema. The header (protocol, sentAt, resource) must be
 * valid or the body is not an envelope; each occurrence is then checked on its own so valid
 * ones are kept when others are refused. Over-long strings are cut, not refused.
 */
export class EnvelopeValidator {
  readonly #validateShell: ValidateFunction;
  readonly #validateOccurrence: ValidateFunction;
  readonly #validateLog: ValidateFunction;
  readonly #resourcePlan: TruncationPlan;
  readonly #occurrencePlan: TruncationPlan;
  readonly #logPlan: TruncationPlan;

  constructor(schema: JsonSchema = JSON.parse(readFileSync(envelopeSchemaFile, 'utf8')) as JsonSchema) {
    const ajv = new Ajv2020({ allErrors: false, strict: false, verbose: true });
    addFormats(ajv);
    const defs = schema.$defs as Record<string, JsonSchema>;
    const properties = schema.properties as Record<string, JsonSchema>;
    // The item count limits are configurable and answered with 413, so the shell checks only
    // that occurrences and logs are arrays.
    const shell = { ...schema, properties: { ...properties, occurrences: { type: 'array' }, logs: { type: 'array' } } };
    this.#validateShell = ajv.compile(shell);
    this.#validateOccurrence = ajv.compile({ ...defs.occurrence, $defs: defs });
    this.#validateLog = ajv.compile({ ...defs.logRecord, $defs: defs });
    this.#resourcePlan = planTruncation(properties.resource ?? {}, defs);
    this.#occurrencePlan = planTruncation(defs.occurrence ?? {}, defs);
    this.#logPlan = planTruncation(defs.logRecord ?? {}, defs);
  }

  /** The envelope's header; throws InvalidEnvelopeError when the body is not an envelope. */
  checkShell(body: unknown): EnvelopeShell {
    const record = body as { protocol?: unknown; resource?: unknown; occurrences?: unknown; logs?: unknown };
    // The version comes first: a later protocol's envelope may lack what protocol 1 requires.
    if (record !== null && typeof record === 'object' && 'protocol' in record && record.protocol !== 1) {
      throw new InvalidEnvelopeError(`unsupported protocol version ${JSON.stringify(record.protocol)?.slice(0, 40)}: this server accepts protocol 1`);
    }
    const truncated = body !== null && typeof body === 'object' ? truncateMembers(this.#resourcePlan, record.resource) : 0;
    if (!this.#validateShell(body)) throw new InvalidEnvelopeError(describeError(this.#validateShell.errors?.[0], 'envelope'));
    return { resource: record.resource as ProtocolResource, occurrences: record.occurrences as unknown[], logs: (record.logs as unknown[] | undefined) ?? [], truncated };
  }

  /** One occurrence: valid (strings cut to their bounds, counted) or refused with a reason. */
  checkOccurrence(item: unknown): OccurrenceCheck {
    const truncated = truncateMembers(this.#occurrencePlan, item);
    if (!this.#validateOccurrence(item)) return { ok: false, message: describeError(this.#validateOccurrence.errors?.[0], 'occurrence') };
    return { ok: true, occurrence: item as ProtocolOccurrence, truncated };
  }

  /** One log record: valid (strings cut to their bounds, counted) or refused with a reason. */
  checkLog(item: unknown): LogRecordCheck {
    const truncated = truncateMembers(this.#logPlan, item);
    if (!this.#validateLog(item)) return { ok: false, message: describeError(this.#validateLog.errors?.[0], 'log') };
    return { ok: true, log: item as ProtocolLogRecord, truncated };
  }
}
