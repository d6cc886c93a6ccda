import { Ajv, type Options } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS: under ESM its function arrives as the default export.
const addFormats = ajvFormats.default as unknown as (ajv: Ajv) => Ajv;

const shared: Options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false };

/**
 * Two validators: bodies are checked strictly (no type coercion, unknown members refused where
 * the schema says so); query strings, params and headers are coerced from their string form.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = addFormats(new Ajv({ ...shared, coerceTypes: false }));
  const coercing = addFormats(new Ajv({ ...shared, coerceTypes: 'array' }));
  return ({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema as object);
}
