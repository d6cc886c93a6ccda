/**
 * The shape of a MongoDB command: the operation, the collection and the shape of its filter
 * (field names and operators kept, values `?`, arrays `[?]`): `find orders {"status":?,
 * "total":{"$gt":?}}`. Statements arrive as the command document in JSON (the OpenTelemetry
 * MongoDB instrumentation sends it with every value already `"?"`, the collection included; the
 * span's `db.mongodb.collection` / `db.collection.name` attribute then names it). Text that is
 * not a JSON object (shell syntax such as `db.orders.find({...})`) keeps its words, with quoted
 * strings and numbers replaced by `?`.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Where each command keeps its filter (the first of the paths that is present). */
const filterPaths: Readonly<Record<string, ReadonlyArray<readonly string[]>>> = {
  find: [['filter']],
  count: [['query']],
  countDocuments: [['query'], ['filter']],
  distinct: [['query']],
  findAndModify: [['query']],
  findOneAndUpdate: [['filter']],
  findOneAndDelete: [['filter']],
  delete: [['deletes', '0', 'q']],
  update: [['updates', '0', 'q']],
};

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(value: Json | undefined, path: readonly string[]): Json | undefined {
  let current = value;
  for (const step of path) {
    if (Array.isArray(current)) current = current[Number(step)];
    else if (isObject(current)) current = current[step];
    else return undefined;
  }
  return current;
}

/** Field names and operators kept, every value `?`, every array `[?]` (or `[shape]` of its first object). */
export function valueShape(value: Json): string {
  if (Array.isArray(value)) {
    const first = value[0];
    return isObject(first) ? `[${valueShape(first)}]` : '[?]';
  }
  if (isObject(value)) return `{${Object.entries(value).map(([key, member]) => `${JSON.stringify(key)}:${valueShape(member)}`).join(',')}}`;
  return '?';
}

/** An aggregation pipeline as its stage names, `$match` stages with their filter shape. */
function pipelineShape(pipeline: Json | undefined): string {
  if (!Array.isArray(pipeline)) return '';
  const stages = pipeline.filter(isObject).map((stage) => {
    const [name, body] = Object.entries(stage)[0] ?? ['?', null];
    return name === '$match' && body !== null ? `$match ${valueShape(body)}` : name;
  });
  return `[${stages.join(', ')}]`;
}

/** Quoted strings and numbers become `?`; the rest keeps its words, whitespace collapsed. */
function scrubText(statement: string): string {
  return statement
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '?')
    .replace(/(?<![\w$])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w$])/g, '?')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The shape of a MongoDB command (see the module comment). */
export function mongodbCommandShape(statement: string, collection?: string): string {
  let command: Json;
  try {
    command = JSON.parse(statement) as Json;
  } catch {
    return scrubText(statement);
  }
  if (!isObject(command)) return scrubText(statement);
  const entries = Object.entries(command);
  if (entries.length === 0) return '{}';
  const [operation, target] = entries[0]!;
  const named = typeof target === 'string' && target !== '?' ? target : (collection ?? '?');
  const parts = [operation, named];
  if (operation === 'aggregate') {
    parts.push(pipelineShape(command.pipeline));
  } else {
    const filter = (filterPaths[operation] ?? []).map((path) => at(command, path)).find((value) => value !== undefined);
    if (filter !== undefined) parts.push(valueShape(filter));
  }
  return parts.filter((part) => part !== '').join(' ');
}
