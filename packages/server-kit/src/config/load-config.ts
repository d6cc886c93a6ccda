import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** A configuration problem, with a one-line message naming the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads environment variables through a TypeBox schema whose property names are the variable
 * names. Values are converted (numbers, booleans), defaults applied, the result validated and
 * frozen. The first problem is reported as one line naming the variable.
 */
export function loadConfig<S extends TObject>(schema: S, env: Record<string, string | undefined>): Readonly<Static<S>> {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(schema.properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  // Default and Convert may mutate their input; keep the raw strings for the error message.
  const converted = Value.Convert(schema, Value.Default(schema, { ...raw }));
  const firstError = Value.Errors(schema, converted).First();
  if (firstError) {
    const variable = firstError.path.replace(/^\//, '').split('/')[0] || '(config)';
    const got = raw[variable] === undefined ? 'it is not set' : `got ${JSON.stringify(raw[variable])}`;
    const expected = (schema.properties[variable] as { description?: string } | undefined)?.description;
    const meaning = expected ? ` (${expected})` : '';
    throw new ConfigError(`${variable}${meaning}: ${firstError.message.toLowerCase()}, ${got}`);
  }
  return Object.freeze(converted) as Readonly<Static<S>>;
}

/** A TCP port number. */
export const Port = (defaultPort: number, description: string) =>
  Type.Integer({ minimum: 0, maximum: 65535, default: defaultPort, description });

/** A boolean flag written as 1/0 or true/false. */
export const Flag = (defaultValue: boolean, description: string) =>
  Type.Boolean({ default: defaultValue, description });

/** Builds a config schema from property groups. */
export function configSchema<P extends TProperties>(properties: P): TObject<P> {
  return Type.Object(properties);
}
