import { gzipSync } from 'node:zlib';
import fc from 'fast-check';

/** A JSON schema as an OpenAPI document holds it (only what the fuzzer reads). */
export interface FuzzSchema {
  type?: string | string[];
  properties?: Record<string, FuzzSchema>;
  required?: string[];
  additionalProperties?: boolean | FuzzSchema;
  items?: FuzzSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: FuzzSchema[];
  oneOf?: FuzzSchema[];
  allOf?: FuzzSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  $ref?: string;
}

/** One operation to drive: an OpenAPI operation, or a form described the same way. */
export interface FuzzOperation {
  method: string;
  /** With `{name}` placeholders for path parameters. */
  path: string;
  parameters: Array<{ name: string; in: 'path' | 'query' | 'header' | 'cookie'; required?: boolean; schema?: FuzzSchema }>;
  /** Media type -> schema of the request body, when it has one. */
  bodies: Record<string, FuzzSchema>;
  /** Names of the security schemes that admit the operation (none: public). */
  security: string[];
}

/** Who sends a request: nobody, or a signed-in party (its cookie, CSRF token, bearer token). */
export interface FuzzIdentity {
  name: string;
  /** Whether this identity is worth using on the operation (its part of the API). */
  appliesTo(operation: FuzzOperation): boolean;
  headers(): Record<string, string>;
  /** Fields every form of this identity carries (a CSRF token). */
  formFields?(): Record<string, string>;
  /** Makes sure the identity is still signed in (a case may have signed it out), signing in again if not. */
  renew?(): Promise<void>;
}

/** A request a case sends. */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  identity: string;
}

export interface FuzzOptions {
  baseUrl: string;
  operations: readonly FuzzOperation[];
  identities: readonly FuzzIdentity[];
  runsPerOperation: number;
  /** Values of path and query parameters that lead somewhere (a game's id), by parameter name. */
  knownValues?: Record<string, readonly string[]>;
  seed?: number;
  /** Called after each case with its request and status (for the figures of a run). */
  onCase?(request: FuzzRequest, status: number): void;
}

/** What a run did. */
export interface FuzzReport {
  cases: number;
  byStatus: Map<number, number>;
  serverErrors: number;
  durationMs: number;
}

const rawMark = '\u0001RAW:';
/** A value written into the JSON text (or the URL) as is: 1e400, deep nesting, bytes no string encodes. */
const raw = (text: string) => `${rawMark}${text}\u0001`;

/** Every operation of an OpenAPI 3 document, its `$ref`s resolved. */
export function operationsOf(document: { paths?: Record<string, Record<string, unknown>>; components?: { schemas?: Record<string, FuzzSchema> } }): FuzzOperation[] {
  const schemas = document.components?.schemas ?? {};
  const resolve = (schema: FuzzSchema | undefined, seen = 0): FuzzSchema | undefined => {
    if (!schema || seen > 20) return schema;
    if (schema.$ref) return resolve(schemas[schema.$ref.replace(/^#\/components\/schemas\//, '')], seen + 1);
    const out: FuzzSchema = { ...schema };
    if (schema.properties) out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, resolve(v, seen + 1)!]));
    if (schema.items) out.items = resolve(schema.items, seen + 1);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (schema[key]) out[key] = schema[key]!.map((s) => resolve(s, seen + 1)!);
    return out;
  };
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, value] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const operation = value as { parameters?: FuzzOperation['parameters']; requestBody?: { content?: Record<string, { schema?: FuzzSchema }> }; security?: Array<Record<string, unknown>> };
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: (operation.parameters ?? []).map((p) => ({ ...p, schema: resolve(p.schema) })),
        bodies: Object.fromEntries(Object.entries(operation.requestBody?.content ?? {}).map(([type, content]) => [type, resolve(content.schema) ?? {}])),
        security: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
      });
    }
  }
  return operations;
}

// Strings a careless handler or a database trips over.
const hostileStrings = [
  '\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\u202eevil', '\ufeff', '\u200b', '𝕏𝕐', 'ß', 'İ', '🏳️‍🌈', '\r\n', '\\', '"', "'; DROP TABLE users; --",
  '<script>alert(1)</script>', '../../etc/passwd', '%00', '%2e%2e/', '${x}', '{{x}}', ' ', '', 'null', 'undefined', 'NaN', '-1', '0x10', '1e400',
];
const hostileNumbers = [raw('1e400'), raw('-1e400'), raw('123456789012345678901234567890'), raw('-0'), raw('1e-400'), 2 ** 53 + 2, -(2 ** 63), 2 ** 64, Number.MAX_VALUE, -Number.MAX_VALUE, -1, 0, 0.5, 2 ** 31, -(2 ** 31) - 1];
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

function hostileString(maxLength = 100_000): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...hostileStrings) },
    { weight: 2, arbitrary: fc.string({ unit: anyUnit, maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom(Math.min(maxLength + 1, 1_000_001), 100_000).map((n) => 'x'.repeat(n)) },
  );
}

function firstType(schema: FuzzSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  return undefined;
}

/** Values the schema accepts, mostly: the way past validation into the handler and the database. */
function fitting(schema: FuzzSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 5) return fc.anything({ maxDepth: 1 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => fitting(s, depth + 1)));
  if (schema.allOf?.length) return fitting(Object.assign({}, ...schema.allOf) as FuzzSchema, depth + 1);
  switch (firstType(schema)) {
    case 'string':
      return fittingString(schema);
    case 'integer': {
      const min = Math.max(schema.minimum ?? -1_000_000, Number.MIN_SAFE_INTEGER);
      const max = Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER);
      return fc.oneof(fc.integer({ min: Math.ceil(Math.max(min, -(2 ** 31))), max: Math.floor(Math.min(max, 2 ** 31 - 1)) }), fc.constantFrom(min, max));
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fitting(schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)) });
    case 'object': {
      const properties = schema.properties ?? {};
      const record = fc.record(Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, fitting(value, depth + 1)])), { requiredKeys: (schema.required ?? []).filter((k) => k in properties) });
      if (!schema.additionalProperties || Object.keys(properties).length > 0) return record;
      const values = typeof schema.additionalProperties === 'object' ? fitting(schema.additionalProperties, depth + 1) : fc.anything({ maxDepth: 1 });
      return fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...hostileStrings)), values, { maxKeys: 4 });
    }
    default:
      return fc.anything({ maxDepth: 2 });
  }
}

function fittingString(schema: FuzzSchema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40));
  const plain: fc.Arbitrary<string>[] = [];
  if (schema.format === 'uuid') plain.push(fc.uuid());
  else if (schema.format === 'date-time') plain.push(fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()));
  else if (schema.format === 'email') plain.push(fc.emailAddress());
  else if (schema.pattern) {
    try {
      plain.push(fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity)));
    } catch {
      // A pattern JavaScript cannot read: plain strings will do.
    }
  }
  plain.push(fc.string({ minLength, maxLength }));
  // Strings within the length bounds that no store keeps as sent: they pass the schema.
  const fittingHostile = fc.constantFrom(...hostileStrings).map((s) => (s + 'x'.repeat(minLength)).slice(0, Math.max(minLength, s.length)));
  return fc.oneof({ weight: 3, arbitrary: fc.oneof(...plain) }, { weight: 1, arbitrary: fittingHostile });
}

/** Values the schema refuses, or that break what comes after it. */
function misfitting(schema: FuzzSchema | undefined): fc.Arbitrary<unknown> {
  const boundaries: unknown[] = [];
  if (schema?.maxLength !== undefined) boundaries.push('a'.repeat(Math.min(schema.maxLength + 1, 1_000_001)));
  if (schema?.minLength) boundaries.push('a'.repeat(schema.minLength - 1));
  if (schema?.minimum !== undefined) boundaries.push(schema.minimum - 1, schema.minimum - 0.5);
  if (schema?.maximum !== undefined) boundaries.push(schema.maximum + 1, schema.maximum + 0.5);
  if (schema?.maxItems !== undefined) boundaries.push(Array.from({ length: schema.maxItems + 1 }, () => 1));
  return fc.oneof(
    { weight: 3, arbitrary: hostileString(schema?.maxLength) },
    { weight: 2, arbitrary: fc.constantFrom(...hostileNumbers) },
    { weight: 2, arbitrary: fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 4 }), fc.object({ maxDepth: 2 })) },
    { weight: 1, arbitrary: fc.integer({ min: 20, max: 20_000 }).map((n) => raw('['.repeat(n) + ']'.repeat(n))) },
    { weight: 1, arbitrary: fc.integer({ min: 20, max: 3_000 }).map((n) => raw('{"a":'.repeat(n) + '1' + '}'.repeat(n))) },
    { weight: boundaries.length ? 2 : 0, arbitrary: boundaries.length ? fc.constantFrom(...boundaries) : fc.constant(null) },
  );
}

/** A body: fitting, fitting but for one member, or wrong altogether. */
function bodyValue(schema: FuzzSchema): fc.Arbitrary<unknown> {
  const fit = fitting(schema);
  const oneMemberWrong = fc
    .tuple(fit, fc.oneof(fc.constantFrom('extra', ...Object.keys(schema.properties ?? {})), fc.string({ maxLength: 8 })), misfitting(undefined))
    .map(([value, key, bad]) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
      return { ...(value as object), [key]: bad };
    });
  return fc.oneof({ weight: 3, arbitrary: fit }, { weight: 3, arbitrary: oneMemberWrong }, { weight: 2, arbitrary: misfitting(schema) });
}

function jsonText(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return text.replace(/"\\u0001RAW:(.*?)\\u0001"/g, (_, inner: string) => JSON.parse(`"${inner}"`) as string);
}

/** Text of a value in a URL or a form: raw parts as they are, strings percent-encoded (lone surrogates as their bytes). */
function urlText(value: unknown): string {
  if (typeof value === 'string' && value.startsWith(rawMark)) {
    const text = value.slice(rawMark.length, -1);
    return /^[%\w.~-]*$/.test(text) ? text : encodeURIComponent(text);
  }
  const text = typeof value === 'string' ? value : jsonText(value);
  return text.replace(/[^A-Za-z0-9_.~-]/gu, (char) =>
    /\p{Cs}/u.test(char)
      ? // A lone surrogate's three bytes (CESU-8): what a careless client sends.
        [...Buffer.from([0xe0 | (char.charCodeAt(0) >> 12), 0x80 | ((char.charCodeAt(0) >> 6) & 0x3f), 0x80 | (char.charCodeAt(0) & 0x3f)])].map((b) => `%${b.toString(16).toUpperCase()}`).join('')
      : encodeURIComponent(char),
  );
}

const rawUrlParts = ['%00', '%ED%A0%80', '%FF', '%', '%zz', '..', '%2e%2e', '%2F', '1e400', '99999999999999999999999', '-0', 'NaN', 'Infinity', '%E2%80%AE'].map(raw);

function paramValue(schema: FuzzSchema | undefined, known: readonly string[] = []): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: known.length ? 6 : 0, arbitrary: known.length ? fc.constantFrom(...known) : fc.constant('') },
    { weight: 3, arbitrary: fitting(schema) },
    { weight: 2, arbitrary: misfitting(schema) },
    { weight: 1, arbitrary: fc.constantFrom(...rawUrlParts) },
  );
}

let gzipBomb: Buffer | undefined;
/** 64 MiB of zeros in about 64 KiB of gzip: bigger than any body limit once inflated. */
function bomb(): Buffer {
  gzipBomb ??= gzipSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  return gzipBomb;
}

const otherTypes = ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/x-protobuf', 'application/octet-stream', 'application/x-www-form-urlencoded', 'application/json', ''];

interface CaseShape {
  identity: number;
  pathValues: unknown[];
  query: Array<[string, unknown]>;
  body: { type: string; value: unknown; encoding: 'identity' | 'gzip' | 'bomb' | 'garbage' | 'deflate' } | undefined;
  accept: string;
  authorization: string | undefined;
}

function caseArbitrary(operation: FuzzOperation, identities: readonly FuzzIdentity[], knownValues: Record<string, readonly string[]>): fc.Arbitrary<CaseShape> {
  const pathParams = operation.parameters.filter((p) => p.in === 'path');
  const queryParams = operation.parameters.filter((p) => p.in === 'query');
  const applicable = identities.map((identity, i) => ({ i, applies: identity.appliesTo(operation) }));
  const identity = fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...applicable.map((a) => a.i)) },
    { weight: 4, arbitrary: fc.constantFrom(...(applicable.some((a) => a.applies) ? applicable.filter((a) => a.applies) : applicable).map((a) => a.i)) },
  );
  const query = fc
    .tuple(
      fc.tuple(...queryParams.map((p) => fc.option(paramValue(p.schema, knownValues[p.name]), { freq: 2 }))),
      fc.array(fc.tuple(fc.oneof(fc.constantFrom(...queryParams.map((p) => p.name), 'x'), fc.string({ maxLength: 6 })), paramValue(undefined)), { maxLength: 2 }),
    )
    .map(([known, extra]) => [...queryParams.flatMap((p, i) => (known[i] === null ? [] : [[p.name, known[i]] as [string, unknown]])), ...extra]);
  const bodyTypes = Object.keys(operation.bodies);
  const body = bodyTypes.length
    ? fc.oneof(
        {
          weight: 6,
          arbitrary: fc.constantFrom(...bodyTypes).chain((type) =>
            fc.record({ type: fc.constant(type), value: bodyValue(operation.bodies[type]!), encoding: fc.constantFrom('identity', 'identity', 'identity', 'identity', 'gzip', 'bomb', 'garbage', 'deflate') as fc.Arbitrary<'identity'> }),
          ),
        },
        { weight: 1, arbitrary: fc.record({ type: fc.constantFrom(...otherTypes), value: misfitting(undefined), encoding: fc.constantFrom('identity', 'gzip', 'bomb') as fc.Arbitrary<'identity'> }) },
      )
    : fc.option(fc.record({ type: fc.constantFrom(...otherTypes), value: misfitting(undefined), encoding: fc.constant('identity' as const) }), { freq: 8 }).map((b) => b ?? undefined);
  return fc.record({
    identity,
    pathValues: fc.tuple(...pathParams.map((p) => paramValue(p.schema, knownValues[p.name]))),
    query,
    body,
    accept: fc.constantFrom('application/json', 'application/json', 'text/html', '*/*', 'application/x-protobuf'),
    authorization: fc.option(fc.oneof(fc.constantFrom('Bearer ', 'Bearer x.y.z', 'Basic Zm9vOmJhcg==', 'Bearer \u00ff'), hostileString(200).map((s) => `Bearer ${s.replace(/[^\x20-\x7e]/g, '')}`)), { freq: 10 }).map((a) => a ?? undefined),
  }) as fc.Arbitrary<CaseShape>;
}

function buildRequest(operation: FuzzOperation, shape: CaseShape, identity: FuzzIdentity): FuzzRequest {
  let index = 0;
  const path = operation.path.replace(/\{[^}]+\}/g, () => urlText(shape.pathValues[index++]) || 'x');
  const search = shape.query.map(([name, value]) => `${urlText(name)}=${urlText(value)}`).join('&');
  const headers: Record<string, string> = { accept: shape.accept, ...identity.headers() };
  if (shape.authorization) headers.authorization = shape.authorization;
  let body: Buffer | undefined;
  if (shape.body && operation.method !== 'GET') {
    let text: string;
    if (shape.body.type.startsWith('application/x-www-form-urlencoded')) {
      const fields = shape.body.value !== null && typeof shape.body.value === 'object' && !Array.isArray(shape.body.value) ? (shape.body.value as Record<string, unknown>) : { value: shape.body.value };
      const all = { ...identity.formFields?.(), ...fields };
      text = Object.entries(all).map(([k, v]) => `${urlText(k)}=${urlText(v)}`).join('&');
    } else text = jsonText(shape.body.value);
    body = Buffer.from(text, 'utf8');
    if (shape.body.type) headers['content-type'] = shape.body.type;
    if (shape.body.encoding === 'gzip') {
      body = gzipSync(body);
      headers['content-encoding'] = 'gzip';
    } else if (shape.body.encoding === 'bomb') {
      body = bomb();
      headers['content-encoding'] = 'gzip';
    } else if (shape.body.encoding === 'garbage') {
      body = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), body]);
      headers['content-encoding'] = 'gzip';
    } else if (shape.body.encoding === 'deflate') headers['content-encoding'] = 'deflate';
  }
  return { method: operation.method, url: `${path}${search ? `?${search}` : ''}`, headers, body, identity: identity.name };
}

/**
 * Drives every operation with generated bad input (fast-check), `runsPerOperation` cases each,
 * over real HTTP, and fails at the first answer of 500 or more, or a request the server does not
 * answer (a crash or a reset), with the shrunk request that did it.
 */
export async function fuzzOperations(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const byStatus = new Map<number, number>();
  let cases = 0;
  for (const operation of options.operations) {
    await fc.assert(
      fc.asyncProperty(caseArbitrary(operation, options.identities, options.knownValues ?? {}), async (shape) => {
        const identity = options.identities[shape.identity]!;
        const request = buildRequest(operation, shape, identity);
        const response = await fetch(`${options.baseUrl}${request.url}`, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(30_000),
        }).catch((error: unknown) => {
          const cause = (error as { cause?: { message?: string; code?: string } }).cause;
          throw new Error(`${request.method} ${request.url.slice(0, 300)} (as ${request.identity}) got no answer: ${(error as Error).message} ${cause?.code ?? ''} ${cause?.message ?? ''}`);
        });
        const text = await response.text();
        cases += 1;
        byStatus.set(response.status, (byStatus.get(response.status) ?? 0) + 1);
        options.onCase?.(request, response.status);
        if (response.status >= 500) {
          throw new Error(`${request.method} ${request.url.slice(0, 300)} (as ${request.identity}, ${request.headers['content-type'] ?? 'no body'}) answered ${response.status}: ${text.slice(0, 300)}`);
        }
        if ((response.status === 401 || response.status === 403) && identity.renew) await identity.renew();
      }),
      { numRuns: options.runsPerOperation, seed: options.seed },
    );
  }
  const serverErrors = [...byStatus].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  return { cases, byStatus, serverErrors, durationMs: performance.now() - started };
}

/** Cases per operation: FUZZ_RUNS (a total, default `defaultTotal`) spread over `operations` of `shares` equal parts. */
export function fuzzRunsPerOperation(operations: number, options: { defaultTotal: number; shares?: number }): number {
  const total = Number(process.env.FUZZ_RUNS ?? options.defaultTotal);
  return Math.max(1, Math.ceil(total / (options.shares ?? 1) / Math.max(1, operations)));
}
