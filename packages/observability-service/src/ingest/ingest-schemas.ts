import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { envelopeSchemaFile } from './envelope-validator.js';

type JsonSchema = Record<string, unknown>;

function inlineRefs(node: unknown, defs: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, defs));
  if (node === null || typeof node !== 'object') return node;
  const record = node as JsonSchema;
  if (typeof record.$ref === 'string') return inlineRefs(defs[record.$ref.replace('#/$defs/', '')], defs);
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(record)) {
    if (key !== '$defs' && key !== '$schema' && key !== '$id') out[key] = inlineRefs(value, defs);
  }
  return out;
}

/**
 * The published envelope schema with its references inlined, for the OpenAPI document. The route
 * does not validate with it directly: EnvelopeValidator does, one occurrence at a time, so valid
 * occurrences are kept when others are refused.
 */
export function envelopeBodySchema(): JsonSchema {
  const schema = JSON.parse(readFileSync(envelopeSchemaFile, 'utf8')) as JsonSchema;
  return inlineRefs(schema, schema.$defs as Record<string, unknown>) as JsonSchema;
}

export const IngestResponse = Type.Object(
  {
    accepted: Type.Object({
      occurrences: Type.Integer({ minimum: 0, description: 'occurrences stored (committed)' }),
      logs: Type.Integer({ minimum: 0, description: 'log records stored (committed)' }),
    }),
    rejected: Type.Object({
      occurrences: Type.Integer({ minimum: 0, description: 'occurrences refused; see errors' }),
      logs: Type.Integer({ minimum: 0, description: 'log records refused; see errors' }),
    }),
    truncated: Type.Object({ strings: Type.Integer({ minimum: 0, description: 'strings cut to their bound (their items were kept)' }) }),
    errors: Type.Array(
      Type.Object({
        member: Type.Optional(Type.Literal('logs', { description: 'present for a refused log record: index is then its position in `logs`' })),
        index: Type.Integer({ minimum: 0, description: 'position of the refused occurrence in the envelope (or of the log record, with member)' }),
        message: Type.String({ description: 'why it was refused' }),
      }),
      { description: 'occurrences first, then log records, each in index order' },
    ),
  },
  { $id: 'IngestResponse', description: 'Sent only after the accepted occurrences and log records are committed.' },
);
export type IngestResponse = Static<typeof IngestResponse>;

/** Authorization header every ingest endpoint requires (documented; checked by the auth hook). */
export const IngestHeaders = Type.Object({
  authorization: Type.Optional(Type.String({ description: 'Bearer <ingestion key>' })),
  'content-encoding': Type.Optional(Type.String({ description: 'gzip, or absent' })),
});
