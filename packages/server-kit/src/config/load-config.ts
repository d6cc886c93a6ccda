import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { redactUrl } from './redact-url.js';

/** Variables whose values are never echoed: an invalid secret may still be a real one. */
const secretVariable = /(SECRET|TOKEN|PASSWORD|KEY)$/;

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
    const value = raw[variable];
    const got = typeof value !== 'string' ? 'it is not set' : secretVariable.test(variable) ? `got ${value.length} character${value.length === 1 ? '' : 's'}` : `got ${JSON.stringify(redactUrl(value))}`;
    const property = schema.properties[variable] as TSchema | undefined;
    const expected = property ? expectationOf(property) : firstError.message.toLowerCase();
    throw new ConfigError(`${variable} must be ${expected}; ${got}`);
  }
  return Object.freeze(converted) as Readonly<Static<S>>;
}

/**
 * What a variable's schema accepts, in words a person setting it understands ("one of normal,
 * full", "a whole number from 1 to 200"), not the validator's. A string schema may say it itself
 * with `expected`; otherwise its description stands in for a pattern.
 */
export function expectationOf(schema: TSchema): string {
  const options = (schema.anyOf as TSchema[] | undefined)?.map((member) => member.const as unknown);
  if (options && options.every((option) => typeof option === 'string')) return `one of ${options.join(', ')}`;
  if (typeof schema.expected === 'string') return schema.expected;
  if (schema.type === 'boolean') return 'true or false (or 1 or 0)';
  if (schema.type === 'integer' || schema.type === 'number') {
    const kind = schema.type === 'integer' ? 'a whole number' : 'a number';
    const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
    if (minimum !== undefined && maximum !== undefined) return `${kind} from ${minimum} to ${maximum}`;
    if (minimum !== undefined) return `${kind} of at least ${minimum}`;
    if (maximum !== undefined) return `${kind} of at most ${maximum}`;
    return kind;
  }
  const { minLength, maxLength, pattern, description } = schema as { minLength?: number; maxLength?: number; pattern?: string; description?: string };
  const length = [minLength !== undefined && minLength > 1 ? `at least ${minLength} characters` : '', maxLength !== undefined ? `at most ${maxLength} characters` : '']
    .filter(Boolean)
    .join(' and ');
  const scheme = pattern === undefined ? null : /^\^([a-z]+?)(s\?|\(ql\)\?)?:\/\//.exec(pattern);
  if (scheme) {
    const [, base, optional] = scheme;
    return `a URL starting with ${base}://${optional ? ` or ${base}${optional === 's?' ? 's' : 'ql'}://` : ''}`;
  }
  if (pattern !== undefined) return `valid: ${description ?? `matching ${pattern}`}${length ? `, ${length}` : ''}`;
  return length || (description ?? 'valid');
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
