// Turns a service's OpenAPI document into TypeScript types for one of its clients (the game
// client library, the observability dashboard), so a client's request and response types are
// derived from the schemas the service validates with rather than copied by hand. Covers the
// JSON Schema subset TypeBox emits; anything else becomes `unknown`, which the type checker then
// forces the client to handle.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

type JsonSchema = {
  $ref?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  type?: string | string[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  description?: string;
  default?: unknown;
};

type Operation = {
  parameters?: { in: string; name: string; required?: boolean; schema?: JsonSchema; description?: string }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
};

export interface OpenApiDocument {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Which document a client's types come from, and which of its endpoints the client calls. */
export interface ApiTypesTarget {
  /** The committed OpenAPI document, relative to the repository root. */
  openApiFile: string;
  /** The generated file, relative to the repository root. */
  typesFile: string;
  /** The npm command that rewrites `typesFile`, named in its header. */
  command: string;
  /** Only paths starting with this prefix are typed (the client's endpoints). */
  pathPrefix: string;
}

const httpMethods = ['get', 'post', 'put', 'patch', 'delete'];
const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

/** What `target.typesFile` should hold, generated from the committed OpenAPI document. */
export function expectedApiTypes(target: ApiTypesTarget): string {
  const document = JSON.parse(readFileSync(join(repositoryRoot, target.openApiFile), 'utf8')) as OpenApiDocument;
  return generateApiTypes(document, target);
}

/** What `target.typesFile` holds now; the drift tests compare it with `expectedApiTypes`. */
export function committedApiTypes(target: ApiTypesTarget): string {
  return readFileSync(join(repositoryRoot, target.typesFile), 'utf8');
}

/** Rewrites `target.typesFile` from the committed OpenAPI document. */
export function writeApiTypes(target: ApiTypesTarget): void {
  writeFileSync(join(repositoryRoot, target.typesFile), expectedApiTypes(target));
  console.log(`wrote ${target.typesFile}`);
}

/** The generated file's two header lines: where it came from and that a test guards it. */
export function generatedHeader(target: ApiTypesTarget): string {
  return (
    `// Generated from ${target.openApiFile} by \`${target.command}\`.\n` +
    '// Do not edit: a test fails when this file and the OpenAPI document disagree.\n'
  );
}

/** The source of `target.typesFile` for `document`: a `paths` and a `components` interface. */
export function generateApiTypes(document: OpenApiDocument, target: ApiTypesTarget): string {
  const lines: string[] = [generatedHeader(target), 'export interface paths {'];
  const paths = Object.entries(document.paths ?? {})
    .filter(([path]) => path.startsWith(target.pathPrefix))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [path, item] of paths) {
    lines.push(`  ${JSON.stringify(path)}: {`);
    for (const method of httpMethods) {
      const operation = item[method];
      if (operation) lines.push(`    ${method}: ${operationType(operation, '    ')};`);
    }
    lines.push('  };');
  }
  lines.push('}', '', 'export interface components {', '  schemas: {');
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(`    ${JSON.stringify(name)}: ${schemaType(schema, '    ')};`);
  }
  lines.push('  };', '}', '');
  return lines.join('\n');
}

function operationType(operation: Operation, indent: string): string {
  const inner = `${indent}  `;
  const members: string[] = [];
  for (const location of ['path', 'query']) {
    const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === location);
    // A parameter with a default is one the client may leave out, whatever `required` says.
    const entries = parameters.map((parameter) =>
      `${inner}  ${propertyName(parameter.name)}${parameter.required && parameter.schema?.default === undefined ? '' : '?'}: ${schemaType(parameter.schema ?? {}, `${inner}  `)};`,
    );
    members.push(`${inner}${location}: ${entries.length ? `{\n${entries.join('\n')}\n${inner}}` : 'Record<string, never>'};`);
  }
  const body = operation.requestBody?.content?.['application/json']?.schema;
  members.push(`${inner}requestBody: ${body ? schemaType(body, inner) : 'never'};`);
  const responses = Object.entries(operation.responses ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  const responseLines = responses.map(([status, response]) => {
    const schema = response.content?.['application/json']?.schema;
    return `${inner}  ${propertyName(status)}: ${schema ? schemaType(schema, `${inner}  `) : 'unknown'};`;
  });
  members.push(`${inner}responses: {\n${responseLines.join('\n')}\n${inner}};`);
  return `{\n${members.join('\n')}\n${indent}}`;
}

function schemaType(schema: JsonSchema, indent: string): string {
  if (schema.$ref !== undefined) {
    const name = /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1];
    return name === undefined ? 'unknown' : `components["schemas"][${JSON.stringify(name)}]`;
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return union(schema.enum.map((value) => JSON.stringify(value)));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return union(alternatives.map((alternative) => schemaType(alternative, indent)));
  if (schema.allOf) return schema.allOf.map((part) => wrap(schemaType(part, indent))).join(' & ');
  if (Array.isArray(schema.type)) return union(schema.type.map((type) => schemaType({ ...schema, type }, indent)));
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return schema.items ? `Array<${schemaType(schema.items, indent)}>` : 'unknown[]';
    case 'object':
      return objectType(schema, indent);
    default:
      return schema.properties ? objectType(schema, indent) : 'unknown';
  }
}

function objectType(schema: JsonSchema, indent: string): string {
  const inner = `${indent}  `;
  const required = new Set(schema.required ?? []);
  const members = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const doc = property.description ? `${inner}/** ${property.description.replaceAll('*/', '* /')} */\n` : '';
    return `${doc}${inner}${propertyName(name)}${required.has(name) ? '' : '?'}: ${schemaType(property, inner)};`;
  });
  const extra = schema.additionalProperties;
  const patterned = Object.values(schema.patternProperties ?? {});
  if (patterned.length > 0) {
    // Pattern keys cannot be expressed in an index signature; any string key of these types.
    const valueTypes = [...patterned, ...(typeof extra === 'object' ? [extra] : [])].map((value) => schemaType(value, inner));
    members.push(`${inner}[key: string]: ${union(valueTypes)};`);
  } else if (extra !== false && (extra !== undefined || members.length === 0)) {
    const valueType = typeof extra === 'object' ? schemaType(extra, inner) : 'unknown';
    members.push(`${inner}[key: string]: ${valueType};`);
  }
  return members.length ? `{\n${members.join('\n')}\n${indent}}` : 'Record<string, never>';
}

function union(types: string[]): string {
  const unique = [...new Set(types)];
  return unique.length ? unique.map(wrap).join(' | ') : 'never';
}

function wrap(type: string): string {
  return /^[\w"[\]<>.]+$/.test(type) || type.startsWith('{') || type.startsWith('Array<') ? type : `(${type})`;
}

function propertyName(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}
