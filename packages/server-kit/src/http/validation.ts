import { Ajv, type AnySchema, type Options } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import type { FastifyServerOptions } from 'fastify';

// ajv-formats is CommonJS: under ESM its module object arrives as the default export, and the
// plugin is that object's own `default` (it is also the object itself, which its types do not say).
const addFormats = ajvFormats.default.default;

const shared: Options = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false };

/** What Fastify hands a validator compiler: one part of one route's schema. */
interface RouteSchemaPart {
  schema: AnySchema;
  httpPart?: string;
}

/**
 * Two validators: bodies are checked strictly (no type coercion, unknown members refused where
 * the schema says so); query strings, params and headers are coerced from their string form.
 * `sharedSchemas` are the schemas added with `addSchema` in the context the validators serve.
 */
function validatorCompiler(sharedSchemas: Record<string, AnySchema | AnySchema[]>) {
  const make = (options: Options) => {
    const ajv = new Ajv({ ...shared, ...options });
    addFormats(ajv);
    for (const schema of Object.values(sharedSchemas)) ajv.addSchema(schema);
    return ajv;
  };
  const strict = make({ coerceTypes: false });
  const coercing = make({ coerceTypes: 'array' });
  return ({ schema, httpPart }: RouteSchemaPart) => (httpPart === 'body' ? strict : coercing).compile(schema);
}

/**
 * Fastify's `schemaController` option that makes every context validate with the validators
 * above. `setValidatorCompiler` on the root is not enough: a plugin that calls `addSchema` gets
 * a validator rebuilt for its own context from the server's compilers factory, by default
 * Fastify's own Ajv (unknown members silently dropped, body types coerced).
 */
export const strictSchemaController: FastifyServerOptions['schemaController'] = {
  compilersFactory: {
    buildValidator: (sharedSchemas: Record<string, AnySchema | AnySchema[]>) => {
      const compile = validatorCompiler(sharedSchemas);
      // Fastify's types give the compiler Ajv's `compile` signature; it calls it with the route's
      // schema part ({ schema, method, url, httpPart }), as it calls setValidatorCompiler's.
      return (routeSchemaPart: AnySchema) => compile(routeSchemaPart as RouteSchemaPart);
    },
  },
};
