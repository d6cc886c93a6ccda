import { Type, type Static } from '@sinclair/typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

export const HealthViewResponse = Type.Object(
  {
    checkedAt: Timestamp,
    ingestion: Nullable(
      Type.Object({
        lastReceivedAt: Nullable(Type.String({ format: 'date-time', description: 'When the newest stored occurrence was received.' })),
        itemsPerMinute: Type.Number({ description: 'Items accepted per minute over the last 15 minutes.' }),
        acceptedLast24h: Type.Integer({ description: 'Items accepted in the last 24 hours.' }),
        refusedLast24h: Type.Integer({ description: 'Items refused in the last 24 hours (invalid, too old, or in a refused envelope).' }),
      }),
    ),
    storage: Nullable(
      Type.Object({
        sizeBytes: Type.Integer({ description: 'Space the database uses (SQLite: the file; PostgreSQL: the schema’s tables and indexes).' }),
        rows: Type.Object({
          occurrences: Type.Integer(),
          operationRollups: Type.Integer(),
          tenantRollups: Type.Integer(),
          statementRollups: Type.Integer(),
          dependencyRollups: Type.Integer(),
        }),
      }),
    ),
    retention: Nullable(
      Type.Object({
        days: Type.Integer({ description: 'Data older than this many days is pruned.' }),
        oldestOccurrenceAt: Nullable(Type.String({ format: 'date-time', description: 'Start of the oldest stored occurrence.' })),
      }),
    ),
    database: Type.Object({
      dialect: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres'), Type.Literal('clickhouse')]),
      status: Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]),
      latencyMs: Nullable(Type.Number({ description: 'One round trip.' })),
      message: Nullable(Type.String({ description: 'Why the database is unreachable.' })),
    }),
  },
  { $id: 'HealthViewResponse', description: 'Sections that need the database are null while it is unreachable.' },
);
export type HealthViewResponse = Static<typeof HealthViewResponse>;
